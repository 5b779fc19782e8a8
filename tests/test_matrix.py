from __future__ import annotations

from perfdocs.matrix import technique_matrix
from perfdocs.theory import Inclusion, Snippet


def snippet(name: str, title: str, helps: tuple[str, ...], summary: str) -> Snippet:
    return Snippet(name, f"docs/performance/_theory/{name}.md", title, helps, summary, "", 6)


def test_matrix_links_each_page_section_and_leaves_gaps_empty() -> None:
    snippets = [
        snippet("zero", "ZeRO | FSDP", ("memory", "scale"), "Shard states."),
        snippet("amp", "Mixed precision", ("speed",), "16-bit math."),
    ]
    pages = {
        "performance/train/gpu_one.md": ("train-gpu-one", [Inclusion("amp", "mixed-precision", "Mixed precision", 0)]),
        "performance/train/gpu_many.md": (
            "train-gpu-many",
            [Inclusion("zero", "zero", "ZeRO", 0), Inclusion("amp", None, None, 0)],
        ),
    }
    lines = technique_matrix(snippets, pages, "performance/index.md")
    assert lines == [
        "| Technique | Helps | Train 1 GPU | Train N GPUs |",
        "|:--|:--|:-:|:-:|",
        '| **Mixed precision** | speed | [✓<span class="perfdocs-sr-only"> Mixed precision: Training on one GPU</span>]'
        '(train/gpu_one.md#mixed-precision "Mixed precision: Training on one GPU") '
        '| [✓<span class="perfdocs-sr-only"> Mixed precision: Training on several GPUs</span>]'
        '(train/gpu_many.md "Mixed precision: Training on several GPUs") |',
        '| **ZeRO \\| FSDP** | memory, scale |  | [✓<span class="perfdocs-sr-only"> ZeRO \\| FSDP: Training on several '
        'GPUs</span>](train/gpu_many.md#zero "ZeRO \\| FSDP: Training on several GPUs") |',
        "",
        "- **Mixed precision**: 16-bit math.",
        "- **ZeRO | FSDP**: Shard states.",
    ]


def test_a_snippet_no_scenario_page_expands_is_a_draft_without_a_row() -> None:
    snippets = [
        snippet("amp", "Mixed precision", ("speed",), "16-bit math."),
        snippet("draft", "Draft technique", ("memory",), "Not yet shown."),
        snippet("nested", "Nested", ("scale",), "Shown inside amp."),
    ]
    pages = {
        "performance/train/gpu_one.md": (
            "train-gpu-one",
            [Inclusion("amp", "mixed-precision", "Mixed precision", 0), Inclusion("nested", None, None, 1)],
        ),
    }
    lines = technique_matrix(snippets, pages, "performance/index.md")
    assert [line.split(" | ")[0] for line in lines[2:4]] == ["| **Mixed precision**", "| **Nested**"]
    assert lines[4:] == ["", "- **Mixed precision**: 16-bit math.", "- **Nested**: Shown inside amp."]
    assert technique_matrix(snippets, {}, "performance/index.md") == ["| Technique | Helps |", "|:--|:--|", ""]
