"""<Measured/> (hooks/perfdocs/measured.py): a benchmark's committed results as a table of speed-ups, located errors
for bad attributes and bad results files, and the CPU page's data file written by bench/cpu_speed.py."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from perfdocs import measured
from perfdocs.diagnostics import SourceMap
from perfdocs.dialect import convert
from perfdocs.text import split_front_matter

from .conftest import ROOT

DATA: dict[str, Any] = {
    "schema": 1,
    "date": "2026-01-02",
    "mode": "full",
    "command": "python bench/cpu_speed.py",
    "machine": {
        "cpu": "Example CPU 9000",
        "physical_cores": 8,
        "logical_cpus": 16,
        "sockets": 1,
        "flags": ["avx2", "avx512_bf16"],
        "virtual_machine": False,
        "versions": {"torch": "2.14.1", "torchao": "0.18.0"},
    },
    "model": {"name": "Tiny-1", "parameters": 123_400_000},
    "rounds": 5,
    "warmup": 2,
    "baseline": "base",
    "workloads": [
        {"id": "prefill", "label": "Prompt batch", "setup": "4 x 256 tokens"},
        {"id": "decode", "label": "Decoding", "setup": "32 new tokens"},
    ],
    "variants": [
        {"id": "base", "label": "fp32, eager", "setup": "-"},
        {"id": "bf16", "label": "bf16 autocast", "setup": "torch.autocast"},
        {"id": "compile", "label": "torch.compile", "setup": "torch.compile(model)"},
    ],
    "results": [
        {"variant": v, "workload": w, "median_s": 1.0, "speedup": s, "speedup_min": lo, "speedup_max": hi}
        for v, w, s, lo, hi in [
            ("base", "prefill", 1, 1, 1),
            ("base", "decode", 1, 1, 1),
            ("bf16", "prefill", 1.834, 1.7, 1.9),
            ("bf16", "decode", 1.2, 1.15, 1.25),
            ("compile", "prefill", 0.98765, 0.9, 1.05),
            ("compile", "decode", 1.5, 1.4, 1.6),
        ]
    ],
}

NOTE = (
    "Speed-up over the baseline (fp32, eager): the baseline's time over the variant's in the same round, median of "
    "5 interleaved rounds after warm-up (lowest–highest in brackets); above 1× is faster. Measured 2026-01-02 on "
    "Example CPU 9000, 8 physical cores (CPU flags: avx2, avx512_bf16), torch 2.14.1, torchao 0.18.0, with Tiny-1's "
    "architecture and random weights (123 M parameters)"
)


def results_root(tmp_path: Path, data: Any = DATA, name: str = "speed") -> Path:
    directory = tmp_path / "bench" / "results"
    directory.mkdir(parents=True, exist_ok=True)
    text = data if isinstance(data, str) else json.dumps(data)
    (directory / f"{name}.json").write_text(text, encoding="utf-8")
    return tmp_path


def render(text: str, root: Path | None) -> tuple[list[str], list[str]]:
    converted = convert(text, SourceMap.identity("page.md", text.count("\n") + 1), root)
    return converted.text.strip().split("\n"), [str(d) for d in converted.diagnostics]


def test_the_table_has_a_row_per_variant_a_column_per_workload_and_names_machine_date_and_method(
    tmp_path: Path,
) -> None:
    lines, problems = render('<Measured data="speed"/>\n', results_root(tmp_path))
    assert problems == []
    assert lines == [
        "| Change from the baseline | Prompt batch | Decoding |",
        "|:--|--:|--:|",
        "| bf16 autocast | 1.83× (1.70–1.90) | 1.20× (1.15–1.25) |",
        "| torch.compile | 0.99× (0.90–1.05) | 1.50× (1.40–1.60) |",
        "",
        NOTE + "; prompt batch: 4 x 256 tokens; decoding: 32 new tokens. Data: `bench/results/speed.json`, written by "
        "`python bench/cpu_speed.py`.",
    ]


def test_variants_and_workloads_pick_rows_and_columns_and_a_busy_machine_and_a_quick_run_are_named(
    tmp_path: Path,
) -> None:
    data = copy.deepcopy(DATA)
    data["mode"] = "quick"
    data["machine"]["virtual_machine"] = True
    data["machine"]["flags"] = []
    data["machine"] |= {"load_average_before": 9.5, "load_average_after": 3}
    lines, problems = render(
        '<Measured data="speed" variants="compile, bf16" workloads="decode"/>\n', results_root(tmp_path, data)
    )
    assert problems == []
    assert lines == [
        "| Change from the baseline | Decoding |",
        "|:--|--:|",
        "| torch.compile | 1.50× (1.40–1.60) |",
        "| bf16 autocast | 1.20× (1.15–1.25) |",
        "",
        NOTE.replace(
            "8 physical cores (CPU flags: avx2, avx512_bf16)",
            "8 physical cores, a virtual machine (CPU flags: none of AVX2, AVX-512, AMX)",
        )
        + "; decoding: 32 new tokens. Data: `bench/results/speed.json`, written by `python bench/cpu_speed.py`. "
        "Other work shared the machine (load average 9.5 before the run and 3 after, on 16 logical CPUs), which "
        "slows runs on all cores most. A quick run (`--quick`: short inputs, 5 rounds): read the figures as rough.",
    ]


BROKEN_RESULT = copy.deepcopy(DATA)
BROKEN_RESULT["results"] = BROKEN_RESULT["results"][:-1]


@pytest.mark.parametrize(
    ("tag", "data", "messages"),
    [
        (
            '<Measured data="sped"/>',
            DATA,
            [
                'page.md:1:1: error: <Measured data="sped">: there is no bench/results/sped.json [bad-attribute] '
                "(did you mean 'speed'?)"
            ],
        ),
        (
            '<Measured data="../secrets"/>',
            DATA,
            [
                'page.md:1:1: error: data="../secrets" in <Measured> is not a results name [bad-attribute] (the name '
                'of a file in bench/results/ without .json, e.g. data="cpu_speed")'
            ],
        ),
        (
            '<Measured data="speed" variants="bf16,compiled"/>',
            DATA,
            [
                'page.md:1:1: error: variants="bf16,compiled" in <Measured>: bench/results/speed.json has no '
                "variant 'compiled' [bad-attribute] (did you mean 'compile'?)"
            ],
        ),
        (
            '<Measured data="speed" variants="base"/>',
            DATA,
            [
                "page.md:1:1: error: variants=\"base\" in <Measured>: bench/results/speed.json has no variant 'base' "
                "[bad-attribute] (ids: bf16, compile)"
            ],
        ),
        (
            '<Measured data="speed" workloads=" , "/>',
            DATA,
            ['page.md:1:1: error: workloads=" , " in <Measured> names none [bad-attribute] (ids: prefill, decode)'],
        ),
        (
            '<Measured data="speed" rows="bf16"/>',
            DATA,
            [
                "page.md:1:1: error: unknown attribute 'rows' on <Measured> [bad-attribute] "
                "(allowed: data, variants, workloads)"
            ],
        ),
        (
            '<Measured variants="bf16"/>',
            DATA,
            ['page.md:1:1: error: <Measured> needs a non-empty data="..." attribute [missing-attribute]'],
        ),
        (
            '<Measured data="speed"/>',
            '{"schema": 1,',
            [
                "page.md:1:1: error: <Measured>: bench/results/speed.json is not JSON: Expecting property name "
                "enclosed in double quotes at line 1 [bad-attribute]"
            ],
        ),
        (
            '<Measured data="speed"/>',
            BROKEN_RESULT,
            [
                "page.md:1:1: error: <Measured>: bench/results/speed.json: no result for variant 'compile' on "
                "workload 'decode' [bad-attribute] (write it with the benchmark that made it)"
            ],
        ),
        (
            '<Measured data="speed"/>',
            {**DATA, "schema": 2},
            [
                "page.md:1:1: error: <Measured>: bench/results/speed.json: schema is 2; this build reads schema 1 "
                "[bad-attribute] (write it with the benchmark that made it)"
            ],
        ),
    ],
)
def test_bad_attributes_and_bad_results_are_located_errors(
    tmp_path: Path, tag: str, data: Any, messages: list[str]
) -> None:
    lines, problems = render(f"Text.\n\n{tag}\n", results_root(tmp_path, data))
    assert [p.replace("page.md:1:", "page.md:3:", 1) for p in messages] == problems
    if "unknown attribute" in messages[0]:  # the attribute is dropped, the table kept (as for every component)
        assert lines[:3] == ["Text.", "", "| Change from the baseline | Prompt batch | Decoding |"]
    else:
        assert lines == ["Text."]  # the table is left out, the text stays


def test_without_a_project_root_the_component_says_it_cannot_read_results() -> None:
    _, problems = render('<Measured data="cpu_speed"/>\n', None)
    assert problems == [
        "page.md:1:1: error: <Measured> reads bench/results/ of the project, and this conversion has no project root "
        "[bad-attribute]"
    ]


# ---- the CPU page and its data ---------------------------------------------------------------------------------


def test_the_committed_cpu_results_load_and_name_every_variant_of_the_benchmark() -> None:
    import ast

    data, problem = measured.load("cpu_speed", ROOT)
    assert problem is None and data is not None
    assert data["machine"]["versions"]["torch"] == "2.14.1"
    # The variants the benchmark defines, read from its source (importing it would import torch).
    tree = ast.parse((ROOT / "bench" / "cpu_speed.py").read_text(encoding="utf-8"))
    defined = {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", "") == "Variant"
        and isinstance(node.args[0], ast.Constant)
    }
    assert {v["id"] for v in data["variants"]} == defined


def test_every_measured_table_on_the_pages_renders_from_committed_data() -> None:
    pages = [p for p in (ROOT / "docs").rglob("*.md") if "<Measured" in p.read_text(encoding="utf-8")]
    assert [p.relative_to(ROOT).as_posix() for p in pages] == ["docs/performance/infer/cpu.md"]
    for page in pages:
        body = split_front_matter(page.read_text(encoding="utf-8")).body
        converted = convert(body, SourceMap.identity(page.name, body.count("\n") + 1), ROOT)
        assert [str(d) for d in converted.diagnostics if "Measured" in d.message] == []
        assert "| Change from the baseline |" in converted.text


def test_mkdocs_serve_watches_the_results_a_page_shows() -> None:
    import os

    from perfdocs.build import BuildState
    from perfdocs.mkdocs_adapter import load_project

    state = BuildState()
    state.project = load_project(Path(__file__).resolve().parents[1] / "mkdocs.yml")
    assert os.fspath(state.project.root / "bench" / "results") in state.watch_paths()
    assert os.fspath(state.project.redirects_file) in state.watch_paths()


@pytest.mark.parametrize(
    ("before", "after", "busy"),
    [(0.1, 9.9, False), (0.1, 16.5, True), (8.5, 1.0, True), (7.9, 15.9, False)],
)
def test_the_benchmarks_own_threads_are_not_other_work(before: float, after: float, busy: bool) -> None:
    # 16 logical CPUs, 8 physical cores: the benchmark's own 8 threads raise the load after the run by about 8
    machine = {**DATA["machine"], "load_average_before": before, "load_average_after": after}
    assert ("Other work shared the machine" in measured._busy(machine)) is busy
