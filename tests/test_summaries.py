"""Each scenario page's summary table is typed by hand; it must agree with the sections it links.

Every link in the "Summary" section goes to a top-level section (##) of the same page, and every
top-level section that teaches a technique (it has a "Recipe" subsection) has a row in the table.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from perfdocs.markdown import MD
from perfdocs.text import CUSTOM_ID_RE, slugify, split_front_matter

from .conftest import ROOT

DOCS = ROOT / "docs" / "performance"
PAGES = sorted(
    p
    for p in DOCS.rglob("*.md")
    if "_theory" not in p.parts
    and split_front_matter(p.read_text(encoding="utf-8")).data.get("scenario") not in (None, "overview")
)


def sections(path: Path) -> tuple[dict[str, list[str]], list[str]]:
    """(id of each ## section -> the titles of its ### subsections, hrefs linked from the Summary section)."""
    tokens = MD.parse(split_front_matter(path.read_text(encoding="utf-8")).body)
    found: dict[str, list[str]] = {}
    links: list[str] = []
    current = ""
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag in ("h2", "h3"):
            text = tokens[i + 1].content
            explicit = CUSTOM_ID_RE.search(text)
            if token.tag == "h2":
                current = explicit.group("id").strip() if explicit else slugify(text)
                found[current] = []
            elif current:
                found[current].append(text)
        elif token.type == "inline" and current == "summary":
            links += [str(c.attrGet("href")) for c in token.children or [] if c.type == "link_open"]
    return found, links


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(DOCS).as_posix() for p in PAGES])
def test_summary_table_links_every_technique_section(page: Path) -> None:
    found, links = sections(page)
    assert links, "the page has no Summary section with links"
    assert [href for href in links if href.lstrip("#") not in found] == [], "links to no ## section of the page"
    techniques = [sid for sid, subs in found.items() if any(s.lower().startswith("recipe") for s in subs)]
    linked = {href.lstrip("#") for href in links}
    assert [sid for sid in techniques if sid not in linked] == [], "technique sections missing from the summary"


def test_a_stale_row_and_a_missing_row_are_found(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text(
        "---\nscenario: infer-cpu\n---\n# P\n\n## Summary\n\n| Technique | Section |\n|---|---|\n"
        "| Old name | [Old](#renamed-away) |\n\n## Batching[[batching]]\n\n### Recipe\n\ntext\n",
        encoding="utf-8",
    )
    found, links = sections(page)
    assert links == ["#renamed-away"]
    assert [href for href in links if href.lstrip("#") not in found] == ["#renamed-away"]
    assert found["batching"] == ["Recipe"]
