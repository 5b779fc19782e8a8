"""The search index readers query: section titles and prose, fetched when search is first used.

Material's search plugin indexes each section's text with its code blocks, the technique matrix's ✓ links
(with their screen-reader text) and tab labels run together ("TrainerAcceleratePyTorch"), and the theme
fetches that index on every page load. Here each section's text is rebuilt from the page content with that
noise left out, by Material's own section parser so that the sections stay Material's. After the build the
full index goes to :data:`FULL_INDEX`, which ``docs/assets/search-worker.js`` fetches on the first query,
and Material's path keeps only the configuration, so that a page load costs a few hundred bytes.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from material.plugins.search.plugin import Parser
from selectolax.lexbor import LexborHTMLParser, LexborNode

INDEX = "search/search_index.json"  # where Material writes its index and where the theme fetches it from
FULL_INDEX = "search/search_index.full.json"  # what docs/assets/search.js hands the search worker
LEFT_OUT = "pre, script, style, .perfdocs-sr-only, .headerlink"  # code blocks and what only a screen reader reads


@dataclass(frozen=True)
class IndexSize:
    sections: int
    raw: int  # bytes of the full index as written
    gzip: int  # the same, gzip level 6: what a compressing host sends
    stub: int  # bytes of the index every page load fetches


def index_html(content: str) -> str:
    """A page's content HTML as search should read it: no code blocks, no matrix, tab labels on their blocks."""
    body = LexborHTMLParser(f"<body>{content}</body>").body
    assert body is not None
    for table in body.css("table"):
        if _is_matrix(table):
            table.decompose()
    for node in body.css(LEFT_OUT):
        node.decompose()
    for tabs in body.css("div.tabbed-set"):
        _label_blocks(tabs)
    for cell in body.css("td, th"):
        cell.insert_after(" ")  # cells written without whitespace between them would run together
    return body.inner_html or ""


def section_texts(content: str) -> dict[str, str]:
    """Index text per section of a page, keyed by heading id ("" for the page's first section)."""
    parser = Parser()
    parser.feed(index_html(content))
    parser.close()
    return {section.id or "": _squeeze("".join(section.text)) for section in parser.data if not section.is_excluded()}


def shape_index(index: dict[str, Any], pages: dict[str, dict[str, str]]) -> dict[str, Any]:
    """Material's index with each section's text replaced by the text of `pages` (page URL -> section_texts).

    A section missing there (a page `mkdocs serve --dirty` did not rebuild) keeps Material's text without
    its code blocks."""
    docs = []
    for doc in index["docs"]:
        page, _, section = doc["location"].partition("#")
        texts = pages.get(page)
        text = texts[section] if texts is not None and section in texts else _without_code(doc["text"])
        docs.append({**doc, "text": text})
    return {**index, "docs": docs}


def stub_index(index: dict[str, Any]) -> dict[str, Any]:
    """What every page load fetches: the configuration (the highlighter needs its separator), no documents."""
    return {"config": index["config"], "docs": []}


def dump(index: dict[str, Any]) -> str:
    """The compact JSON Material writes."""
    return json.dumps(index, ensure_ascii=False, separators=(",", ":"))


def index_size(full: str, stub: str, sections: int) -> IndexSize:
    data = full.encode("utf-8")
    return IndexSize(sections, len(data), len(gzip.compress(data, compresslevel=6, mtime=0)), len(stub.encode()))


def write_index(site: Path, pages: dict[str, dict[str, str]]) -> IndexSize | None:
    """Rewrite the index Material wrote into `site`: the shaped index to FULL_INDEX, the stub in its place.

    None when there is no index (search is off)."""
    path = site / INDEX
    if not path.is_file():
        return None
    index = shape_index(json.loads(path.read_text(encoding="utf-8")), pages)
    full, stub = dump(index), dump(stub_index(index))
    (site / FULL_INDEX).write_text(full, encoding="utf-8")
    path.write_text(stub, encoding="utf-8")
    return index_size(full, stub, len(index["docs"]))


def _is_matrix(table: LexborNode) -> bool:
    """The generated technique matrix: its cells are ✓ links that carry screen-reader text."""
    return any(link.css_first(".perfdocs-sr-only") is not None for link in table.css("td a"))


def _label_blocks(tabs: LexborNode) -> None:
    """Put each tab's label in front of its block's prose ("Accelerate: ..."); drop the row of labels, whose
    text runs together. Tab sets nest, so only the set's own children are read."""
    parts = {name: child for child in tabs.iter(include_text=False) if child.tag == "div"
             for name in (child.attributes.get("class") or "").split()}
    row, content = parts.get("tabbed-labels"), parts.get("tabbed-content")
    if row is None or content is None:
        return
    labels = [_squeeze(label.text(deep=True)) for label in row.iter(include_text=False) if label.tag == "label"]
    row.decompose()
    blocks = [block for block in content.iter(include_text=False) if block.tag == "div"]
    for label, block in zip(labels, blocks, strict=False):
        if not block.text(deep=True).strip():
            continue  # a tab of code only: its label alone would be noise
        first = next(block.iter(include_text=False), None)
        target = first if first is not None and first.tag == "p" else block
        if target.child is not None:
            target.child.insert_before(f"{label}: ")


def _without_code(text: str) -> str:
    """Material's section text without its <pre> blocks (the fallback when the page's content is not at hand)."""
    body = LexborHTMLParser(f"<body>{text}</body>").body
    assert body is not None
    for node in body.css("pre"):
        node.decompose()
    parser = Parser()
    parser.feed(body.inner_html or "")
    parser.close()
    return _squeeze("".join(parser.data[0].text)) if parser.data else ""


def _squeeze(text: str) -> str:
    return " ".join(text.split())


__all__ = ["FULL_INDEX", "INDEX", "IndexSize", "dump", "index_html", "index_size", "section_texts", "shape_index",
           "stub_index", "write_index"]
