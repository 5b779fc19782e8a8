"""Each page's Markdown beside its HTML, for assistants, and /llms.txt (hooks/perfdocs/assistants.py)."""

from __future__ import annotations

import posixpath
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote, urlsplit

import pytest
from perfdocs.assistants import (
    PageEntry,
    destinations,
    llms_txt,
    markdown_url,
    page_markdown,
    retarget,
    write_files,
)
from perfdocs.cli import main
from perfdocs.diagnostics import Location, SourceMap
from perfdocs.mkdocs_adapter import nav_sections

from .conftest import ROOT

SERVED = {
    "index.md": "index.html.md",
    "performance/infer/cpu.md": "performance/infer/cpu/index.html.md",
    "performance/infer/gpu_one.md": "performance/infer/gpu_one/index.html.md",
    "performance/infer/index.md": "performance/infer/index.html.md",
    "assets/diagram.svg": "assets/diagram.svg",
}


@pytest.mark.parametrize(
    ("page_url", "served"),
    [
        ("./", "index.html.md"),  # MkDocs' URL of the home page
        ("", "index.html.md"),
        ("performance/infer/cpu/", "performance/infer/cpu/index.html.md"),
        ("performance/infer/", "performance/infer/index.html.md"),
        ("performance/infer/cpu.html", "performance/infer/cpu.html.md"),  # use_directory_urls: false
        ("index.html", "index.html.md"),
    ],
)
def test_markdown_url_appends_md_as_llmstxt_proposes(page_url: str, served: str) -> None:
    assert markdown_url(page_url) == served


def test_destinations_are_the_spans_markdown_it_reads() -> None:
    text = 'a [x](one.md#y "t") ![i](<two files.png>) `[c](code.md)` [r][ref] <https://e.org/> [z](\n  three.md)'
    found = [(text[d.start : d.end], d.href) for d in destinations(text)]
    assert found == [
        ("one.md#y", "one.md#y"),
        ("two files.png", "two%20files.png"),
        ("three.md", "three.md"),
    ]


@pytest.mark.parametrize(
    ("href", "page", "new"),
    [
        ("gpu_one.md", "performance/infer/cpu.md", "../gpu_one/index.html.md"),
        ("gpu_one.md#quantization", "performance/infer/cpu.md", "../gpu_one/index.html.md#quantization"),
        ("index.md", "performance/infer/cpu.md", "../index.html.md"),
        ("../../index.md", "performance/infer/cpu.md", "../../../index.html.md"),
        ("performance/infer/cpu.md", "index.md", "performance/infer/cpu/index.html.md"),
        ("../../assets/diagram.svg", "performance/infer/cpu.md", "../../../assets/diagram.svg"),
        ("cpu.md", "performance/infer/cpu.md", "index.html.md"),
        ("#quantization", "performance/infer/cpu.md", None),  # the same page: a fragment means the same there
        ("https://arxiv.org/abs/1910.02054", "performance/infer/cpu.md", None),
        ("/performance/", "performance/infer/cpu.md", None),
        ("missing.md", "performance/infer/cpu.md", None),  # broken links stay as written (the build reports them)
    ],
)
def test_retarget(href: str, page: str, new: str | None) -> None:
    here = posixpath.dirname(SERVED[page])
    assert retarget(href, page, here, SERVED) == new


def test_page_markdown_rewrites_only_the_links_the_dialect_found_where_it_found_them() -> None:
    page = "performance/infer/cpu.md"
    text = "\n".join(
        [
            "# CPU",
            "See [one GPU](gpu_one.md#x) and [the",
            "overview](index.md).",
            "```md",
            "[one GPU](gpu_one.md#x)",
            "```",
            '=== "Trainer"',
            "",
            "    [one GPU](gpu_one.md#x), [arXiv](https://arxiv.org/abs/1)",
        ]
    )
    shown = "docs/performance/infer/cpu.md"
    source_map = SourceMap([Location(shown, n) for n in (1, 2, 3, 4, 5, 6, 7, 8, 9)])
    links = [
        ("gpu_one.md#x", Location(shown, 2, 10)),
        ("index.md", Location(shown, 3, 11)),
        ("gpu_one.md#x", Location(shown, 9, 17)),
        ("https://arxiv.org/abs/1", Location(shown, 9, 50)),
    ]
    assert page_markdown(text, source_map, links, page, SERVED).split("\n") == [
        "# CPU",
        "See [one GPU](../gpu_one/index.html.md#x) and [the",
        "overview](../index.html.md).",
        "```md",
        "[one GPU](gpu_one.md#x)",  # code: the dialect found no link there
        "```",
        '=== "Trainer"',
        "",
        "    [one GPU](../gpu_one/index.html.md#x), [arXiv](https://arxiv.org/abs/1)",
    ]


def test_llms_txt_follows_the_llmstxt_format() -> None:
    sections = [
        ("Overview", [PageEntry("Performance and scalability", "index.html.md", "Pick your\n  scenario.")]),
        ("Inference", [PageEntry("Inference on [CPU]", "performance/infer/cpu/index.html.md", None)]),
    ]
    assert llms_txt("perfdocs", "Fast and fit.", sections) == (
        "# perfdocs\n"
        "\n"
        "> Fast and fit.\n"
        "\n"
        "Each link is one page of the guide as Markdown, with its shared explanations expanded in place. "
        "The same page as HTML is at the link's address without the final `.md`.\n"
        "\n"
        "## Overview\n"
        "\n"
        "- [Performance and scalability](index.html.md): Pick your scenario.\n"
        "\n"
        "## Inference\n"
        "\n"
        "- [Inference on \\[CPU\\]](performance/infer/cpu/index.html.md)\n"
    )


def test_nav_sections_one_per_top_level_entry() -> None:
    def page(title: str) -> SimpleNamespace:
        return SimpleNamespace(is_page=True, is_section=False, title=title)

    def section(title: str, *children: SimpleNamespace) -> SimpleNamespace:
        return SimpleNamespace(is_page=False, is_section=True, title=title, children=list(children))

    home, cpu, gpu, deep, alone = page("Overview"), page("CPU"), page("GPU"), page("Deep"), page("Scalability")
    items = [home, section("Inference", cpu, section("More", deep), gpu), section("Empty"), alone]
    assert nav_sections(items) == [
        ("Overview", [home]),
        ("Inference", [cpu, deep, gpu]),
        ("Scalability", [alone]),
    ]


def test_write_files_never_overwrites_a_file_of_the_site(tmp_path: Path) -> None:
    pages = {"index.md": ("# Home\n", SourceMap.identity("docs/index.md", 1), [])}
    written, problems = write_files(tmp_path, pages, {"index.md": "./"}, {}, {"index.html.md"}, "mkdocs.yml")
    assert written == {}
    assert [str(p) for p in problems] == [
        "mkdocs.yml:1:1: error: the Markdown of index.md would overwrite index.html.md in the built site "
        "[assistant-file-clash]"
    ]
    assert not (tmp_path / "index.html.md").exists()
    written, problems = write_files(tmp_path, pages, {"index.md": "./"}, {}, set(), "mkdocs.yml")
    assert written == {"index.md": "index.html.md"} and problems == []
    assert (tmp_path / "index.html.md").read_text(encoding="utf-8") == "# Home\n"


# -- the real site -----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(site_bare: Path) -> Path:
    return site_bare  # nothing deployed: no "Edit this explanation" links, as `perfdocs render` writes


def served_path(src: str) -> str:
    """Independently of assistants.py: docs/x/y.md is served at x/y/index.html.md, x/index.md at x/index.html.md."""
    stem = src.removesuffix(".md")
    if stem == "index" or stem.endswith("/index"):
        return stem + ".html.md"
    return stem + "/index.html.md"


def docs_pages() -> list[str]:
    docs = ROOT / "docs"
    theory = docs / "performance" / "_theory"
    return sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md") if not p.is_relative_to(theory))


@pytest.mark.slow
@pytest.mark.parametrize("src", docs_pages())
def test_each_page_markdown_is_its_conversion_with_links_for_its_address(
    site: Path, src: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file beside the page is `perfdocs render`'s output, except link destinations, which lead to the same
    pages' Markdown (or files) from the new address."""
    served = site / served_path(src)
    assert served.is_file(), f"no {served_path(src)} beside {src}'s page"
    monkeypatch.chdir(ROOT)
    main(["render", f"docs/{src}"])
    expected = capsys.readouterr().out.removesuffix("\n")
    text = served.read_text(encoding="utf-8")
    ours, theirs = destinations(text), destinations(expected)
    assert len(ours) == len(theirs)
    assert blanked(text, ours) == blanked(expected, theirs), "only link destinations differ"
    assert "<Theory" not in text and "<Tip" not in text and "<hfoption" not in text
    for mine, original in zip(ours, theirs):
        if mine.href == original.href:
            continue
        path, fragment = urlsplit(original.href).path, urlsplit(original.href).fragment
        target = posixpath.normpath(posixpath.join(posixpath.dirname(src), unquote(path)))
        lands = posixpath.normpath(
            posixpath.join(posixpath.dirname(served_path(src)), unquote(urlsplit(mine.href).path))
        )
        expected = served_path(target) if target.endswith(".md") else target  # a page's Markdown, or the file
        assert lands == expected, f"{original.href} -> {mine.href}"
        assert (site / lands).is_file()
        assert urlsplit(mine.href).fragment == fragment


def blanked(text: str, found: list) -> str:
    for d in sorted(found, key=lambda d: d.start, reverse=True):
        text = text[: d.start] + "<dest>" + text[d.end :]
    return text


@pytest.mark.slow
def test_llms_txt_lists_every_nav_page_by_section(site: Path) -> None:
    text = (site / "llms.txt").read_text(encoding="utf-8")
    lines = text.split("\n")
    assert lines[:3] == [
        "# perfdocs",
        "",
        "> Make transformer training and inference fast and fit, on CPU, one GPU or many.",
    ]
    sections = [line.removeprefix("## ") for line in lines if line.startswith("## ")]
    assert sections[:4] == ["Overview", "Inference", "Training", "Scalability"]
    links = [line.split("](", 1)[1].split(")", 1)[0] for line in lines if line.startswith("- [")]
    assert links[:2] == ["index.html.md", "performance/infer/index.html.md"]
    assert "- [Inference on CPU](performance/infer/cpu/index.html.md): Make transformer inference on CPUs" in text
    for link in links:
        assert (site / link).is_file(), link
