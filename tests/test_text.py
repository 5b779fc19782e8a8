from __future__ import annotations

import markdown
import pytest
from perfdocs.text import (
    body_offset,
    code_line_mask,
    doc_builder_slug,
    mask_code_spans,
    parse_heading,
    slugify,
    snippet_slug,
    split_front_matter,
)


@pytest.mark.parametrize(
    "heading, expected",
    [
        ("Gradient checkpointing", "gradient-checkpointing"),
        ("torch.compile", "torchcompile"),
        ("ZeRO stages 1-3 & offload", "zero-stages-1-3-offload"),
        ("`bf16` and **tf32**", "bf16-and-tf32"),
        ("Data parallelism (DP vs DDP)", "data-parallelism-dp-vs-ddp"),
        ("Café au lait", "cafe-au-lait"),
    ],
)
def test_snippet_slug_matches_python_markdown(heading: str, expected: str) -> None:
    assert snippet_slug(heading) == expected
    html = markdown.markdown(f"## {heading}", extensions=["toc"])
    assert f'id="{expected}"' in html  # the rule Python-Markdown's own toc applies


@pytest.mark.parametrize(
    "heading, expected",
    [
        # the three cases of real pages whose hf.co deep links must keep working
        ("`set_adapters`", "setadapters"),
        ("🤗 Optimum", "-optimum"),
        ("Trainer - a", "trainer---a"),
        ("Gradient checkpointing", "gradient-checkpointing"),
        ("torch.compile", "torchcompile"),
        ("ZeRO stages 1-3 & offload", "zero-stages-1-3--offload"),
        ("Data parallelism (DP vs DDP)", "data-parallelism-dp-vs-ddp"),
        ("Café au lait", "café-au-lait"),
        ("  Two\tspaces  here ", "two-spaces-here"),
    ],
)
def test_headings_get_doc_builder_ids(heading: str, expected: str) -> None:
    assert slugify(heading) == expected  # what the guide predicts (matrix links, summaries)
    html = markdown.markdown(f"## {heading}", extensions=["toc"], extension_configs={"toc": {"slugify": doc_builder_slug}})
    assert f'id="{expected}"' in html  # what the site's toc writes with the configured function


@pytest.mark.parametrize(
    "heading, expected",
    [
        # doc-builder reads each inline node's text trimmed, joined with a space (kit/preprocessors/mdsvex)
        ("Reusing `generate`'s input preparation", "reusing-generate-s-input-preparation"),
        ("Why *fast*er kernels", "why-fast-er-kernels"),
        ("See [the guide](x.md)'s end", "see-the-guide-s-end"),
        ("An ![icon](i.png)image", "an-image"),
        ("Save with [`~transformers.Trainer.save_model`]", "save-with-savemodel"),
        ("Tags <small>too</small>", "tags-small-too-small"),
        ("`bf16`/`fp16`", "bf16--fp16"),
    ],
)
def test_headings_with_inline_markup_get_doc_builder_ids(heading: str, expected: str) -> None:
    from perfdocs.diagnostics import SourceMap
    from perfdocs.dialect import convert

    assert slugify(heading) == expected  # what the guide predicts
    page = convert(f"## {heading}\n", SourceMap.identity("p.md", 1)).text  # what the dialect hands MkDocs
    html = markdown.markdown(
        page, extensions=["attr_list", "toc"], extension_configs={"toc": {"slugify": doc_builder_slug}}
    )
    assert f'id="{expected}"' in html, html


@pytest.mark.parametrize(
    "line, level, text, anchor",
    [
        ("## Mixed precision", 2, "Mixed precision", "mixed-precision"),
        ("### Title[[custom]]", 3, "Title", "custom"),
        ("## Title { #kept }", 2, "Title", "kept"),
        ("# Closed heading ##", 1, "Closed heading", "closed-heading"),
    ],
)
def test_parse_heading(line: str, level: int, text: str, anchor: str) -> None:
    heading = parse_heading(line)
    assert heading is not None
    assert (heading.level, heading.text, heading.id) == (level, text, anchor)


@pytest.mark.parametrize("line", ["#hashtag", "text", "####### seven"])
def test_not_a_heading(line: str) -> None:
    assert parse_heading(line) is None


def test_code_mask_covers_fences_of_both_kinds_and_lengths() -> None:
    lines = ["a", "```py", "x", "~~~", "```", "b", "~~~~", "```", "~~~~", "c"]
    assert code_line_mask(lines) == [False, True, True, True, True, False, True, True, True, False]


def test_unclosed_fence_runs_to_the_end() -> None:
    assert code_line_mask(["a", "```", "b"]) == [False, True, True]


def test_mask_code_spans_keeps_positions() -> None:
    line = "a `<Tip>` b ``<x>`` c"
    masked = mask_code_spans(line)
    assert len(masked) == len(line)
    assert "<" not in masked and masked.startswith("a ") and masked.endswith(" c")


def test_front_matter_split_and_errors() -> None:
    ok = split_front_matter("---\ntitle: T\nscenario: infer-cpu\n---\n# Body\n")
    assert ok.data == {"title": "T", "scenario": "infer-cpu"}
    assert ok.body == "# Body\n" and ok.body_first_line == 5 and ok.error is None
    bad = split_front_matter("---\ntitle: [x\n---\nbody\n")
    assert bad.error is not None and bad.error.startswith("front matter is not valid YAML")
    listy = split_front_matter("---\n- a\n---\nbody\n")
    assert listy.error == "front matter must be a YAML mapping"
    assert split_front_matter("# no front matter").body_first_line == 1


def test_body_offset_counts_stripped_front_matter() -> None:
    source = "---\ntitle: x\n---\n\n\n# Heading\n"
    assert body_offset(source, "# Heading\n") == 6
