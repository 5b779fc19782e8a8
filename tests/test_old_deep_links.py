"""Every old deep link lands on its section: redirects.yml against the ids the transformers performance pages
published.

OLD_IDS holds, for each page of the transformers performance docs this guide absorbed, every id of its H2 and H3
headings: the heading texts of huggingface/transformers docs/source/en/<page>.md (.mdx until mid-2023) in every
revision committed from 2023-01-01 to 2025-12-31 and in the one in force on 2023-01-01 (the commits are named per
page below), turned into ids with doc-builder's rule (perfdocs.text.doc_builder_slug of the heading as the reader
sees it; a trailing ``[[id]]`` wins). A page removed before 2023 (parallelism) has the ids of its last revision; a
page that never had a section is listed with none. Only the ids are kept here, none of those pages' text.

The first test needs no build: every old page and every old id has an entry, and no entry names an id its page never
had (such a typo would never match). The second reads the real site: each target id is on the built page (the
build's own missing-anchor check, run on the final HTML), and every URL form of each old page's redirect page sends
every old id there, and keeps the fragments its section's page has.
"""

from __future__ import annotations

import json
import posixpath
from pathlib import Path

import pytest
from perfdocs.html import page_ids
from perfdocs.mkdocs_adapter import load_project
from perfdocs.redirects import FRAGMENT_RE, RedirectMap, load_redirects, missing_anchor_problems, url_forms
from selectolax.lexbor import LexborHTMLParser

from .conftest import ROOT

_OLD_IDS = {  # old page: its ids, separated by white space
    # perf_train_gpu_one: 23 revisions, 9cc65f870186 (2022-12-08) to 21cb353b7b4f (2025-06-23)
    "perf_train_gpu_one": """
        8-bit-adam adafactor anatomy-of-models-memory anatomy-of-models-operations batch-size batch-size-choice
        batch-sizes bf16 choice-of-gpu data-preloading dataloader deepspeed-zero efficient-software-prebuilds
        flash-attention-2 floating-data-types fp16 fp16-training gradient-accumulation gradient-checkpointing
        how-to-scale load-model mixed-precision mixed-precision-training mixture-of-experts multitensor optimizer
        optimizer-choice optimizers pytorch scaled-dot-production-attention scaling-beyond-a-single-gpu sparsity
        tf32 torchcompile torchemptycachesteps trainer using--accelerate using--peft using-pytorch-native-attention
        using-pytorch-native-attention-and-flash-attention using-torchcompile vanilla-training
    """,
    # perf_train_gpu_many: 20 revisions, 829374e4fccc (2022-11-30) to a52478253bbe (2025-06-26)
    "perf_train_gpu_many": """
        concepts data-parallelism data-parallelism--pipeline-parallelism
        data-parallelism--pipeline-parallelism--tensor-parallelism data-parallelism-and-pipeline-parallelism
        dataparallel dataparallel-vs-distributeddataparallel distributeddataparallel dp-vs-ddp dppp dppptp flexflow
        from-naive-model-parallelism-to-pipeline-parallelism gpu-selection hybrid-parallelism model-parallelism
        naive-model-parallelism-vertical-and-pipeline-parallelism number-of-gpus order-of-gpus pipeline-parallelism
        scalability-strategy tensor-parallelism which-strategy-to-use-when zero-data-parallelism
        zero-data-parallelism--pipeline-parallelism--tensor-parallelism
        zero-data-parallelism-pipeline-parallelism-and-model-parallelism-3d-parallelism zero-dppptp
    """,
    # perf_infer_cpu: 11 revisions, 8b486c031061 (2022-12-01) to 5ef16eddf9d9 (2025-12-17)
    "perf_infer_cpu": """
        -optimum bettertransformer bettertransformer-for-faster-inference ipex ipex-graph-optimization
        ipex-graph-optimization-with-jit-mode optimum pytorch-jit-mode-torchscript torchscript usage-of-jit-mode
    """,
    # perf_infer_gpu_one: 121 revisions, 8b486c031061 (2022-12-01) to 5ef16eddf9d9 (2025-12-17)
    "perf_infer_gpu_one": """
        -optimum 4-bit 8-bit advanced-usage advanced-usage-mixing-fp4-or-int8-and-bettertransformer benchmarks
        better-transformer-pytorch-native-transformer-fastpath bettertransformer
        bettertransformer-for-faster-inference bitsandbytes
        bitsandbytes-integration-for-fp4-mixed-precision-inference
        bitsandbytes-integration-for-int8-mixed-precision-matrix-decomposition colab-demos combine-optimizations
        combining-flash-attention-2-and-4-bit-models combining-flash-attention-2-and-8-bit-models
        combining-flash-attention-2-and-peft decoder-models encoder-models expected-speedups flash-attention-2
        flashattention flashattention-2
        flashattention-and-memory-efficient-attention-through-pytorchs-scaleddotproductattention optimum
        pytorch-scaled-dot-product-attention quick-usage requirements requirements-for-fp4-mixedprecision-inference
        requirements-for-int8-mixedprecision-matrix-decomposition running-fp4-models---multi-gpu-setup
        running-fp4-models---single-gpu-setup---quickstart running-mixed-int8-models---multi-gpu-setup
        running-mixed-int8-models---single-gpu-setup scaled-dot-product-attention-sdpa
    """,
    # perf_infer_gpu_many: 4 revisions, 8b486c031061 (2022-12-01) to the parent of 77930f8a01d5 (removed 2023-10-31)
    "perf_infer_gpu_many": """
        advanced-usage-mixing-fp4-or-int8-and-bettertransformer bettertransformer
        bettertransformer-for-faster-inference decoder-models encoder-models flash-attention-2
    """,
    # perf_infer_gpu_multi: 17 revisions, 20142ab5422f (2024-11-18) to e9f0f8e0cb40 (2025-12-22)
    "perf_infer_gpu_multi": """
        benchmarks custom-partitioning-strategies design-implementation devicemesh dtensor expected-speedups
        extending-the-interface-with-your-own-partitioning-strategies full-example local-strategies
        packed-strategies packedrowwiseparallel partitioning-a-model partitioning-strategies resources
        sharding-a-model tensor-parallelism-in-depth using--transformers
    """,
    # perf_train_cpu: 11 revisions, ca3b652bbd79 (2022-11-28) to dc76eff12b4f (2025-06-06)
    "perf_train_cpu": """
        ipex-installation mixed-precision-with-ipex practice-example resources usage-in-trainer
    """,
    # perf_train_cpu_many: 15 revisions, ca3b652bbd79 (2022-11-28) to f404f150aab0 (2025-12-17)
    "perf_train_cpu_many": """
        deploy intel-mpi-library intel-oneccl-bindings-for-pytorch intel-oneccl-bindings-for-pytorch-installation
        kubernetes pytorchjob pytorchjob-specification-file setup summary trainer usage-in-trainer
        usage-with-kubernetes
    """,
    # perf_hardware: 11 revisions, 71abd3ade115 (2022-05-16) to 48f2233cdfdf (2025-07-16)
    "perf_hardware": """
        cooling gpu multi-gpu-connectivity power power-and-cooling
    """,
    # perf_torch_compile: 6 revisions, 5ee9693a1c77 (2023-08-07) to c0f8d055ce7a (2025-03-03)
    "perf_torch_compile": """
        a100 a100-batch-size-1 a100-batch-size-16 a100-batch-size-4 benchmarking-code benchmarks
        benefits-of-torchcompile fullgraph image-classification-with-vit modes pytorch-nightly reduce-overhead t4
        t4-batch-size-1 t4-batch-size-16 t4-batch-size-4 v100 v100-batch-size-1 v100-batch-size-16 v100-batch-size-4
    """,
    # llm_optims: 22 revisions, e74d793a3c3c (2024-04-22) to 5ef16eddf9d9 (2025-12-17)
    "llm_optims": """
        attention attention-optimizations continuous-batching decoding-strategies
        fine-tuning-with-torchcompile-and-padding-free-data-collation flashattention-2 prompt-lookup-decoding
        pytorch-scaled-dot-product-attention quantization speculative-decoding static-kv-cache-and-torchcompile
    """,
    # llm_tutorial_optimization: 23 revisions, 805d5d2111ea (2023-10-16) to 8ebfd84fa7f4 (2025-12-10)
    "llm_tutorial_optimization": """
        1-lower-precision 2-flash-attention 3-architectural-innovations 31-improving-positional-embeddings-of-llms
        32-the-key-value-cache conclusion
    """,
    # model_memory_anatomy: 12 revisions, 75317aefb387 (2023-07-24) to 449533af7387 (2025-09-25)
    "model_memory_anatomy": """
        anatomy-of-models-memory anatomy-of-models-operations load-model memory-utilization-at-vanilla-training
    """,
    # perf_train_special: 5 revisions, 829374e4fccc (2022-11-30) to c0f8d055ce7a (2025-03-03)
    "perf_train_special": """
        resources
    """,
    # perf_train_tpu_tf: 6 revisions, 833174c9290e (2023-02-03) to 85d93cc6e3ad (2025-07-03)
    "perf_train_tpu_tf": """
        data-dependent-conditionals data-dependent-shapes how-do-i-actually-train-my-model-on-tpu
        how-do-i-make-my-model-xla-compatible
        i-keep-hearing-about-this-xla-thing-whats-xla-and-how-does-it-relate-to-tpus large-datasets
        recompile-different-input-shapes stream-from-raw-data stream-with-preparetfdataset summary tftfrecord
        tpu-types what-is-a-tpu what-kinds-of-tpu-are-available what-sizes-of-tpu-are-available xla
    """,
    # performance: 7 revisions, 829374e4fccc (2022-11-30) to c0f8d055ce7a (2025-03-03)
    "performance": """
        contribute cpu hardware inference multi-gpu single-gpu specialized-hardware tpu training
        training-and-inference
    """,
    # parallelism: its last revision, the parent of 71abd3ade115 (removed 2022-05-16)
    "parallelism": """
        concepts data-parallelism dppp dppptp flexflow naive-model-parallelism-vertical-and-pipeline-parallelism
        parallelism-overview tensor-parallelism which-strategy-to-use-when zero-data-parallelism zero-dppptp
    """,
    # perf_infer_special: no section; removed by 77930f8a01d5 (2023-10-31)
    "perf_infer_special": "",
    # perf_train_tpu: no section; removed by a52e180a0f16 (2023-12-18)
    "perf_train_tpu": "",
}
OLD_IDS: dict[str, tuple[str, ...]] = {page: tuple(ids.split()) for page, ids in _OLD_IDS.items()}


def load_map() -> RedirectMap:
    project = load_project(ROOT / "mkdocs.yml")
    pages = {project.docs_path(p) for p in project.pages()}
    rmap, problems = load_redirects(project.redirects_file.read_bytes(), "redirects.yml", pages, project.redirect_hosts)
    assert problems == []
    return rmap


def test_every_old_page_and_every_old_id_has_an_entry() -> None:
    rmap = load_map()
    assert [page for page in OLD_IDS if page not in rmap.pages] == []
    for page, ids in OLD_IDS.items():
        remapped = set(rmap.anchors.get(page, {}))
        assert sorted(set(ids) - remapped) == [], f"{page}: old ids without an entry"
        assert sorted(remapped - set(ids)) == [], f"{page}: entries for ids {page} never had"


def test_the_old_ids_are_ids() -> None:
    """What the redirect pages can match: doc-builder's ids are lower case, without spaces."""
    for page, ids in OLD_IDS.items():
        assert list(ids) == sorted(set(ids)), page
        assert [i for i in ids if not FRAGMENT_RE.fullmatch(i) or i != i.lower()] == [], page


def page_file(site: Path, src: str) -> Path:
    """The built file of page ``src`` (performance/infer/cpu.md -> performance/infer/cpu/index.html)."""
    stem = src.removesuffix(".md").removesuffix("index").rstrip("/")
    return site / stem / "index.html" if stem else site / "index.html"


def script_values(html: str) -> tuple[str, dict[str, str], list[str]]:
    """A redirect page's target, fragment remaps and kept fragments (redirects.PAGE_TEMPLATE's t, m and k)."""
    decoder = json.JSONDecoder()
    start = html.index("var t=") + len("var t=")
    target, end = decoder.raw_decode(html, start)
    assert html.startswith(",m=", end)
    remaps, end = decoder.raw_decode(html, end + 3)
    assert html.startswith(",k=", end)
    kept, _ = decoder.raw_decode(html, end + 3)
    return target, remaps, kept


def landing(site: Path, form: str, url: str) -> tuple[Path, str]:
    """The built file and fragment a relative ``url`` of redirect page ``form`` leads to."""
    path, _, fragment = url.partition("#")
    folder = posixpath.normpath(posixpath.join(posixpath.dirname(form), path))
    return (site / "index.html" if folder == "." else site / folder / "index.html"), fragment


@pytest.mark.slow
def test_every_old_id_lands_on_its_section_in_the_built_site(site_as_deployed: Path) -> None:
    site = site_as_deployed
    rmap = load_map()
    targets = {t.page for t in rmap.pages.values() if t.page}
    targets |= {t.page for remaps in rmap.anchors.values() for t in remaps.values() if t.page}
    ids: dict[str, set[str]] = {p: page_ids(page_file(site, p).read_text(encoding="utf-8")) for p in targets}
    assert [str(d) for d in missing_anchor_problems(rmap, ids, "redirects.yml")] == []

    cache: dict[Path, set[str]] = {}

    def has_id(file: Path, fragment: str) -> bool:
        if file not in cache:
            cache[file] = page_ids(file.read_text(encoding="utf-8"))
        return fragment in cache[file]

    for old, old_ids in OLD_IDS.items():
        target = rmap.pages[old]
        for form in url_forms(old):
            html = (site / form).read_text(encoding="utf-8")
            url, remaps, kept = script_values(html)
            file, fragment = landing(site, form, url)
            assert file.is_file(), f"/{form} leads to {url}, which the site does not have"
            assert fragment == (target.anchor or ""), f"/{form} leads to {url}"
            assert not fragment or has_id(file, fragment), f"/{form} leads to {url}, which has no such id"
            for old_id in old_ids:
                file, fragment = landing(site, form, remaps[old_id])
                assert file.is_file() and has_id(file, fragment), f"/{form}#{old_id} leads to {remaps[old_id]}"
            if target.page and target.anchor:  # a fragment no entry remaps is kept when the section's page has it
                headings = heading_ids(page_file(site, target.page).read_text(encoding="utf-8"))
                assert sorted(headings - set(remaps) - set(kept)) == [], (
                    f"/{form} drops fragments its page has (does the build give redirect_pages the ids?)"
                )
            else:
                assert kept == [], f"/{form} keeps every fragment: it needs no list"


def heading_ids(html: str) -> set[str]:
    tree = LexborHTMLParser(html)
    return {node.attributes.get("id") or "" for node in tree.css("article h2[id], article h3[id]")}
