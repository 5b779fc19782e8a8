"""Pages written the doc-builder way (as pasted from the transformers, accelerate and peft docs) build
the way doc-builder renders them: titles, extension-less links, heading ids, markers, errors that keep
the page whole. The pages here are minimal cases written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser

from .sitetools import build, copy_project

LICENSE = "<!--Copyright 2026 The perfdocs authors.\n\nLicensed under the Apache License, Version 2.0.\n-->\n\n"

PAGES = {
    "performance/pasted/perf_train.md": LICENSE
    + "# Efficient training on one device\n\n"
    + "Read [the trainer guide](./trainer) first, then [sharding](../pasted_guides/fsdp#sharding-strategy)\n"
    + "and [the overview](../../index).\n\n"
    + "## `set_adapters` and 🤗 Optimum\n\n"
    + "Deep links as hf.co writes them: [this heading](#setadapters-and--optimum), "
    + "[the other page's](./trainer#trainer---a).\n",
    "performance/pasted/trainer.md": LICENSE + "# Trainer\n\n## Trainer - a\n\nText.\n",
    "performance/pasted_guides/fsdp.md": "# FSDP\n\n## Sharding strategy\n\nText.\n",
}


def _project(tmp_path: Path, pages: dict[str, str]) -> Path:
    project = copy_project(tmp_path / "project")
    for rel, text in pages.items():
        path = project / "docs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    nav = "".join(f"  - {rel}\n" for rel in pages)
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").rstrip("\n") + "\n" + nav, encoding="utf-8")
    return project


def _page(site: Path, rel: str) -> LexborHTMLParser:
    return LexborHTMLParser((site / rel.removesuffix(".md") / "index.html").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pasted_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("pasted")
    result = build(_project(tmp, PAGES), tmp / "site")
    assert result.returncode == 0, result.stderr
    return tmp / "site"


def test_the_title_comes_from_the_h1_under_the_license_comment(pasted_site: Path) -> None:
    page = _page(pasted_site, "performance/pasted/perf_train.md")
    assert page.css_first("title").text().startswith("Efficient training on one device")
    assert _page(pasted_site, "performance/pasted/trainer.md").css_first("title").text().startswith("Trainer")


def test_extension_less_links_resolve_to_the_pages_doc_builder_means(pasted_site: Path) -> None:
    page = _page(pasted_site, "performance/pasted/perf_train.md")
    hrefs = [a.attributes["href"] for a in page.css("article a") if a.text(strip=True) != "¶"]
    assert "../trainer/" in hrefs
    assert "../../pasted_guides/fsdp/#sharding-strategy" in hrefs
    assert "../../../" in hrefs  # ../../index: the overview, the site's home
    assert "../trainer/#trainer---a" in hrefs


def test_headings_get_the_ids_hf_co_deep_links_use(pasted_site: Path) -> None:
    page = _page(pasted_site, "performance/pasted/perf_train.md")
    assert [h.attributes.get("id") for h in page.css("article h2")] == ["setadapters-and--optimum"]
    trainer = _page(pasted_site, "performance/pasted/trainer.md")
    assert "trainer---a" in [h.attributes.get("id") for h in trainer.css("article h2")]


def test_a_broken_page_keeps_its_table_title_and_one_report_per_mistake(tmp_path: Path) -> None:
    broken = dict(PAGES)
    broken["performance/pasted/perf_train.md"] = (
        LICENSE
        + "# Efficient training on one device\n\n"
        + "See [the trainer](./trainr).\n\n"
        + "option | effect\n"
        + "--|--\n"
        + "a | one\n"
        + "<Tip>inline</Tip> | two\n"
        + "<Tipp/> | three\n"
        + "d | four\n\n"
        + "[[open-in-collab]]\n"
    )
    result = build(_project(tmp_path, broken), tmp_path / "site", strict=False)
    errors = [line for line in result.stderr.splitlines() if "error:" in line]
    path = "docs/performance/pasted/perf_train.md"
    assert errors == [
        f"ERROR   -  {path}:8:19: error: broken link './trainr': no page performance/pasted/trainr.md "
        "[missing-file] (did you mean './trainer'?)",
        f"ERROR   -  {path}:13:1: error: <Tip> cannot be used inside a table [misplaced-component] "
        "(put the component on a line of its own)",
        f"ERROR   -  {path}:14:1: error: unknown component <Tipp> [unknown-component] (did you mean 'Tip'?)",
        f"ERROR   -  {path}:17:1: error: unknown marker [[open-in-collab]] [bad-marker] "
        "(did you mean 'open-in-colab'?)",
    ]
    page = _page(tmp_path / "site", "performance/pasted/perf_train.md")
    assert page.css_first("title").text().startswith("Efficient training on one device")
    tables = page.css("article table")
    assert len(tables) == 1 and len(tables[0].css("tbody tr")) == 4  # the table is whole, no row left as text
    assert "|" not in page.css_first("article").text()
    first = page.css_first("article").css_first("h1")
    assert first is not None and first.next is not None  # the error box sits under the title
    assert "Build error" in page.css_first("article .admonition.failure").text()
