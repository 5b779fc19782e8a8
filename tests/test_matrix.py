from __future__ import annotations

from perfdocs.matrix import technique_matrix
from perfdocs.theory import Inclusion, Snippet


def snippet(name: str, title: str, helps: tuple[str, ...], summary: str) -> Snippet:
    return Snippet(name, f"docs/performance/_theory/{name}.md", title, helps, summary, "", 6)


def test_matrix_links_each_page_section_and_leaves_gaps_empty() -> None:
    snippets = [snippet("zero", "ZeRO | FSDP", ("memory", "scale"), "Shard states."),
                snippet("amp", "Mixed precision", ("speed",), "16-bit math.")]
    pages = {
        "performance/train/gpu_one.md": ("train-gpu-one", [Inclusion("amp", "mixed-precision", "Mixed precision", 0)]),
        "performance/train/gpu_many.md": ("train-gpu-many", [Inclusion("zero", "zero", "ZeRO", 0),
                                                             Inclusion("amp", None, None, 0)]),
    }
    lines = technique_matrix(snippets, pages, "performance/index.md")
    assert lines == [
        "| Technique | Helps | Training, 1 GPU | Training, many GPUs |",
        "|:--|:--|:-:|:-:|",
        '| **Mixed precision**<br>16-bit math. | speed | [yes](train/gpu_one.md#mixed-precision "Mixed precision on '
        'the Training, 1 GPU page") | [yes](train/gpu_many.md "Mixed precision on the Training, many GPUs page") |',
        '| **ZeRO \\| FSDP**<br>Shard states. | memory, scale |  | [yes](train/gpu_many.md#zero "ZeRO \\| FSDP on the '
        'Training, many GPUs page") |',
    ]
