"""<MemoryBudget/> (hooks/perfdocs/budgets.py): tables and figures from the memory model, located errors for bad
attributes, and the check that no page types a memory figure by hand that the model could produce."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from perfdocs import budgets
from perfdocs import markdown as md
from perfdocs.diagnostics import SourceMap
from perfdocs.dialect import convert
from perfdocs.matrix import generated_components
from perfdocs.memory import PRESET_CONFIGS, TERM_NAMES, Arch, Workload, estimate
from perfdocs.text import split_front_matter
from perfdocs.theory import SnippetLibrary

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def render(text: str) -> tuple[str, list[str]]:
    converted = convert(text, SourceMap.identity("page.md", text.count("\n") + 1))
    return converted.text, [str(d) for d in converted.diagnostics]


def gb(value: float) -> str:
    return budgets.format_amount(value / 1e9)


# ---- the component -------------------------------------------------------------------------------------------


def test_a_budget_is_a_table_of_the_model_terms_with_the_total_and_the_cards() -> None:
    text, problems = render(
        '<MemoryBudget model="llama-2-7b" finetune="qlora" optimizer="paged_adamw_8bit" seq_len="2048" batch="1" '
        "checkpointing/>\n"
    )
    assert problems == []
    result = estimate(
        Arch.preset("Llama-2-7B"),
        Workload(finetune="qlora", optimizer="paged_adamw_8bit", seq_len=2048, gradient_checkpointing=True),
    )
    terms = {t.name: t.gpu for t in result.terms}
    assert text.strip().split("\n") == [
        "**Llama-2-7B** (6.74 B parameters) · training · QLoRA (NF4 base, double quantization), r=16 on q_proj, "
        "v_proj, dropout 0.05 · paged 8-bit AdamW · micro-batch 1 × 2,048 tokens · SDPA attention · gradient checkpointing",
        "",
        "| Memory | Per GPU (GB) |",
        "|:--|--:|",
        f"| Weights | {gb(terms['weights'])} |",
        f"| LoRA adapters (fp32) | {gb(terms['adapter_weights'])} |",
        f"| Gradients | {gb(terms['gradients'])} |",
        f"| Optimizer states (paged 8-bit AdamW) | {gb(terms['optimizer_states'])} |",
        f"| Activations (checkpointed) | {gb(terms['activations'])} |",
        f"| Logits and loss | {gb(terms['logits'])} |",
        f"| **Total** | **{gb(result.gpu_total)}** |",
        "",
        "Fits on 16, 24, 40, 48, 80, 141 GB cards (a card keeps 1 GB free for the CUDA context; allocator slack and "
        "workspaces come on top).",
    ]
    # reviewed against the snippet; +0.02 GB since the recipes' lora_dropout=0.05 (one byte of mask per adapted input)
    assert gb(terms["weights"]) == "3.87" and gb(result.gpu_total) == "5.27"


def test_offloading_adds_a_host_ram_column_and_cards_that_do_not_fit_are_named() -> None:
    text, problems = render(
        '<MemoryBudget model="Llama-3.1-70B" sharding="zero3" gpus="8" offload_optimizer offload_params '
        'checkpointing/>\n\n<MemoryBudget model="Llama-3.1-8B" mode="infer" batch="8" seq_len="8192"/>\n'
    )
    assert problems == []
    lines = text.split("\n")
    assert "| Memory | Per GPU (GB) | Host RAM per process (GB) |" in lines
    offload = estimate(
        Arch.preset("Llama-3.1-70B"),
        Workload(
            sharding="zero3", num_gpus=8, offload_optimizer=True, offload_params=True, gradient_checkpointing=True
        ),
    )
    assert f"| **Total** | **{gb(offload.gpu_total)}** | **{gb(offload.host_total)}** |" in lines
    assert f"| Weights | – | {gb(offload.term('weights').host)} |" in lines
    kv = estimate(Arch.preset("Llama-3.1-8B"), Workload(mode="infer", precision="bf16", batch_size=8, seq_len=8192))
    assert gb(kv.term("kv_cache").gpu) == "8.59"  # 8 x 8192 tokens x 128 KiB
    assert f"| KV cache | {gb(kv.term('kv_cache').gpu)} |" in lines
    assert any(line.startswith("Fits on 40, 48, 80, 141 GB cards, not on 16, 24 GB (") for line in lines), text


@pytest.mark.parametrize(
    ("tag", "figure"),
    [
        ('<MemoryBudget model="Llama-2-7B" mode="infer" show="weights"/>', "13.5 GB"),
        ('<MemoryBudget model="Llama-2-7B" mode="infer" show="weights" unit="GiB"/>', "12.6 GiB"),
        ('<MemoryBudget model="Llama-3.1-8B" mode="infer" show="kv_per_token" unit="KiB"/>', "128 KiB"),
        ('<MemoryBudget model="Llama-3.1-70B" mode="infer" show="kv_per_token" unit="KiB"/>', "320 KiB"),
        ('<MemoryBudget model="Llama-2-7B" show="states" unit="bytes/param"/>', "16 bytes/param"),
        # AMP: fp32 weights, gradients and AdamW (16 bytes/param), and bf16 copies of every linear weight and
        # lm_head: 2 bytes x (8,030,261,248 parameters - the 128,256 x 4,096 input embedding, never cast) = 15.01 GB
        (
            '<MemoryBudget model="Llama-3.1-8B" precision="fp32" autocast show="states" unit="bytes/param"/>',
            "16 bytes/param",
        ),
        ('<MemoryBudget model="Llama-3.1-8B" precision="fp32" autocast show="autocast_copies"/>', "15 GB"),
        ('<MemoryBudget model="Llama-3.1-8B" show="params"/>', "8.03 B"),
        ('<MemoryBudget model="Llama-2-7B" finetune="lora" show="trainable" unit="M"/>', "8.39 M"),
        (
            '<MemoryBudget model="Llama-2-7B" sharding="zero3" gpus="4" offload_optimizer show="optimizer_states.host"/>',
            "13.5 GB",
        ),
    ],
)
def test_show_puts_one_figure_into_the_sentence(tag: str, figure: str) -> None:
    text, problems = render(f"Before {tag} after.\n\n| a | b |\n|---|---|\n| x | {tag} |\n")
    assert problems == []
    assert text.split("\n")[0] == f"Before {figure} after."
    assert f"| x | {figure} |" in text


@pytest.mark.parametrize(
    ("tag", "messages"),
    [
        (
            '<MemoryBudget model="llama-2-7" optimizer="adam" batch="0"/>',
            [
                "page.md:1:1: error: unknown model 'llama-2-7' in <MemoryBudget> [bad-attribute] "
                "(did you mean 'Llama-2-7B'?)",
                'page.md:1:1: error: optimizer="adam" in <MemoryBudget> is not one of adamw, adamw_8bit, '
                "paged_adamw_8bit, adafactor, sgd, sgd_momentum [bad-attribute] (did you mean 'adamw'?)",
                'page.md:1:1: error: batch="0" in <MemoryBudget> must be a positive whole number [bad-attribute]',
            ],
        ),
        (
            '<MemoryBudget model="Llama-2-7B" finetun="lora"/>',
            [
                "page.md:1:1: error: unknown attribute 'finetun' on <MemoryBudget> [bad-attribute] "
                "(did you mean 'finetune'?)"
            ],
        ),
        (
            '<MemoryBudget model="Llama-2-7B" checkpointing="yes"/>',
            [
                'page.md:1:1: error: attribute checkpointing="yes" on <MemoryBudget> must be {true} or {false} '
                "[bad-attribute]"
            ],
        ),
        (
            '<MemoryBudget mode="infer"/>',
            ['page.md:1:1: error: <MemoryBudget> needs a non-empty model="..." attribute [missing-attribute]'],
        ),
        (
            '<MemoryBudget model="Llama-2-7B" finetune="lora" lora_dropout="1.5"/>',
            [
                'page.md:1:1: error: lora_dropout="1.5" in <MemoryBudget> must be a probability in [0, 1), e.g. 0.05 '
                "[bad-attribute]"
            ],
        ),
        (
            '<MemoryBudget model="Llama-2-7B" finetune="lora" lora_dropout="five"/>',
            [
                'page.md:1:1: error: lora_dropout="five" in <MemoryBudget> must be a probability in [0, 1), e.g. 0.05 '
                "[bad-attribute]"
            ],
        ),
        (
            '<MemoryBudget model="Llama-2-7B" autocast="yes"/>',
            [
                'page.md:1:1: error: attribute autocast="yes" on <MemoryBudget> must be {true} or {false} [bad-attribute]'
            ],
        ),
        (
            '<MemoryBudget model="Llama-2-7B" autocast/>',
            [
                "page.md:1:1: error: <MemoryBudget>: autocast with finetune='full' is AMP on fp32 weights: set "
                "precision='fp32' [bad-attribute]"
            ],
        ),
        (
            '<MemoryBudget model="Llama-2-7B" mode="infer" sharding="zero3"/>',
            [
                "page.md:1:1: error: <MemoryBudget>: ZeRO/FSDP sharding applies to training; for inference set "
                "num_gpus alone [bad-attribute]"
            ],
        ),
        (
            '<MemoryBudget model="GPT-2" finetune="lora" targets="q_proj"/>',
            [
                "page.md:1:1: error: <MemoryBudget>: LoRA target 'q_proj' matches no linear module of GPT-2; modules: "
                "c_attn, c_proj, c_fc [bad-attribute]"
            ],
        ),
        (
            'It is <MemoryBudget model="Llama-2-7B" show="totl"/>.',
            [
                'page.md:1:7: error: show="totl" in <MemoryBudget> is not a figure it shows [bad-attribute] '
                "(did you mean 'total'?)"
            ],
        ),
        (
            'It is <MemoryBudget model="Llama-2-7B" show="params" unit="GB"/>.',
            [
                'page.md:1:7: error: unit="GB" in <MemoryBudget show="params"> is not one of B, M [bad-attribute] '
                "(did you mean 'B'?)"
            ],
        ),
        (
            '<MemoryBudget model="Llama-2-7B" unit="GiB"/>',
            [
                "page.md:1:1: error: show, unit and bare make <MemoryBudget> one figure inside text; a table takes none "
                "[bad-attribute]"
            ],
        ),
    ],
)
def test_bad_attributes_are_located_errors(tag: str, messages: list[str]) -> None:
    text, problems = render(tag + "\n")
    assert problems == messages


def test_an_error_inside_a_snippet_names_the_snippet_line(tmp_path: Path) -> None:
    from perfdocs.pipeline import render_body

    theory = tmp_path / "docs" / "performance" / "_theory"
    theory.mkdir(parents=True)
    (theory / "mem.md").write_text(
        '---\ntitle: Mem\nhelps: [memory]\nsummary: S.\n---\nText.\n\n<MemoryBudget model="Llama-2-7B" gpus="two"/>\n'
    )
    library = SnippetLibrary(theory, tmp_path)
    rendered = render_body('# P\n\n<Theory name="mem"/>\n', "docs/p.md", library, tmp_path, None)
    assert [str(d) for d in rendered.diagnostics] == [
        'docs/performance/_theory/mem.md:8:1: error: gpus="two" in <MemoryBudget> must be a positive whole number '
        "[bad-attribute]\n    included from docs/p.md:3"
    ]


def test_the_estimator_gets_the_presets_from_the_model(tmp_path: Path) -> None:
    library = SnippetLibrary(tmp_path, tmp_path)
    lines = generated_components("<MemoryEstimator/>\n", library, {}, "index.md")["MemoryEstimator"]
    data = json.loads(html.unescape(re.search(r'data-estimator="([^"]*)"', lines[0]).group(1)))  # type: ignore[union-attr]
    assert data["presets"] == {**PRESET_CONFIGS, **budgets.EXTRA_PRESETS}
    assert data["cards"] == [16, 24, 40, 48, 80, 141]
    assert data["labels"] == budgets.TERM_LABELS
    text, problems = render("<MemoryEstimator/>\n")
    assert problems == [
        "page.md:1:1: error: <MemoryEstimator/> is generated by the site build; it has no content here [not-generated]"
    ]


@pytest.mark.parametrize(
    ("name", "published"),
    [("Qwen2.5-0.5B", 494_032_768), ("Qwen2.5-1.5B", 1_543_714_304), ("Llama-3.2-1B", 1_235_814_400)],
)
def test_the_extra_presets_have_the_published_parameter_counts(name: str, published: int) -> None:
    assert Arch.from_config(budgets.EXTRA_PRESETS[name], name).param_count == published


def test_every_term_of_the_model_has_a_label() -> None:
    assert tuple(budgets.TERM_LABELS) == TERM_NAMES


def test_every_scenario_page_links_to_the_calculator() -> None:
    for path in sorted((DOCS / "performance").glob("*/*.md")) + [DOCS / "performance" / "scalability.md"]:
        front = split_front_matter(path.read_text(encoding="utf-8"))
        if front.data.get("scenario") in (None, "overview") or path.name == "index.md":
            continue
        links = [
            href
            for token in md.MD.parse(front.body)
            if token.type == "inline" and token.children
            for child in token.children
            if child.type == "link_open"
            for href in [child.attrGet("href")]
        ]
        assert any(str(href).endswith("calculator.md") for href in links), path


# ---- no memory figure typed by hand ---------------------------------------------------------------------------

# An amount of memory, or bytes per parameter, as prose states it (not a bandwidth: "GB/s").
FIGURE = re.compile(
    r"(?P<num>\d[\d,]*(?:\.\d+)?)[\s\u202f-]?(?:(?P<unit>[GMKT]i?B)(?!/s)\b"
    r"|(?P<per>bytes?(?:/| per )param(?:eter)?s?))"
)
# What makes it a capacity (a card, a machine) rather than something a model needs.
CAPACITY_AFTER = re.compile(
    r"[\s\"”)]*(?!per\b)(?:\w+\s)?(?:GPUs?|cards?|HBM\w*|A100|H100|H200|V100|MI300X|machines?|servers?)\b", re.I
)
CAPACITY_BEFORE = re.compile(
    r"(?:\bon(?: an?| one| the| each| a single)?\s*(?:\d+\s*[–-]\s*)?|[×x]|A100|MI300X:?|1550:)\s*[\"“]?$", re.I
)
# A statement about a model's memory: it names a model or a term of the model.
ABOUT_A_MODEL = re.compile(
    r"Llama|Mistral|Mixtral|Qwen|GPT-2|\b\d+(?:\.\d+)? ?B\b|weights?\b|KV cache|optimizer|gradients?|activations?"
    r"|model states|logits|adapters?|master|LoRA|parameters?|param\b|\bmodels?\b|\bmemory\b|\bcache\b",
    re.I,
)
# Bytes per parameter that are a dtype's size or the ZeRO paper's sums: the derivation the model starts from.
CONVENTIONS = {"1", "2", "4", "6", "8", "12", "16"}
# Figures the model cannot produce, each with the reason. Reviewed: keep it short; fix a page instead.
ALLOWED: dict[tuple[str, str], str] = {
    ("docs/performance/_theory/data_parallelism.md", "25 MB"): "DDP's bucket_cap_mb default, a setting",
    ("docs/performance/_theory/tensor_parallelism.md", "8 KiB"): "an all-reduce message, communication not memory",
    ("docs/performance/_theory/tensor_parallelism.md", "32 MiB"): "an all-reduce message, communication not memory",
    **{
        ("docs/performance/_theory/zero_fsdp.md", figure): "the ZeRO paper's own example (7.5 B parameters, 64 GPUs), "
        "quoted to check the formulas; the next column is the model's"
        for figure in ("120 GB", "31.4 GB", "16.6 GB", "1.9 GB")
    },
    ("docs/performance/train/gpu_one.md", "24 bytes/param"): "DeepSpeed's estimator output (16 x its 1.5 buffer), "
    "quoted beside the model's figure",
}


def prose(text: str) -> Iterator[tuple[int, str, str]]:
    """(line, text, context) of every piece of prose: inline text tokens, so code, raw HTML and component tags are
    out. The context is the paragraph, or for a table cell the whole table (its header says what a cell is)."""
    tokens = md.MD.parse(text)
    tables: list[str] = []  # the text of each table, in order
    inside = False
    for token in tokens:
        if token.type in ("table_open", "table_close"):
            inside = token.type == "table_open"
            tables += [""] if inside else []
        elif token.type == "inline" and inside:
            tables[-1] += " " + token.content
    table, inside = -1, False
    for token in tokens:
        if token.type in ("table_open", "table_close"):
            table += token.type == "table_open"
            inside = token.type == "table_open"
        if token.type != "inline" or not token.children or not token.map:
            continue
        line = token.map[0] + 1
        context = tables[table] if inside else token.content
        for child in token.children:
            if child.type == "text":
                yield line, child.content, context
            elif child.type in ("softbreak", "hardbreak"):
                line += 1


def typed_figures(path: Path) -> Iterator[tuple[int, str, str]]:
    """(line, figure, its text) for each memory figure of ``path`` that only a model could produce."""
    front = split_front_matter(path.read_text(encoding="utf-8"))
    for line, text, context in prose(front.body):
        if not ABOUT_A_MODEL.search(context):
            continue
        for m in FIGURE.finditer(text):
            if m.group("per") and m.group("num") in CONVENTIONS:
                continue
            if m.group("unit") and (CAPACITY_AFTER.match(text, m.end()) or CAPACITY_BEFORE.search(text[: m.start()])):
                continue
            yield line + front.body_first_line - 1, m.group(0), text


def test_the_scanner_tells_model_figures_from_capacities_and_bandwidths(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "---\ntitle: T\n---\n"
        "Llama-2-7B weights take 13.5 GB, so a 24 GB card holds them; on 24 GB it fits, on 8 × 80 GB too.\n"
        "NVLink moves 900 GB/s. The optimizer costs 16 bytes/param, QLoRA's base 0.55 bytes/param.\n"
        '`14 GB` in code, <MemoryBudget model="Llama-2-7B" show="total"/> generated.\n\n'
        "```\nweights = 14 GB\n```\n"
    )
    assert [(line, figure) for line, figure, _ in typed_figures(page)] == [(4, "13.5 GB"), (5, "0.55 bytes/param")]


def docs_pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def test_no_page_types_a_memory_figure_the_model_could_produce() -> None:
    found, used = [], set()
    for path in docs_pages():
        shown = path.relative_to(ROOT).as_posix()
        for line, figure, text in typed_figures(path):
            if (shown, figure) in ALLOWED:
                used.add((shown, figure))
                continue
            found.append(f"{shown}:{line}: {figure!r} in {text.strip()[:120]!r}")
    assert found == [], (
        'memory figures typed by hand; write them as <MemoryBudget ... show="..."/> (or a table), or allow them in '
        "tests/test_budgets.py ALLOWED with the reason:\n" + "\n".join(found)
    )
    assert used == set(ALLOWED), f"allowlist entries no page needs any more: {sorted(set(ALLOWED) - used)}"
