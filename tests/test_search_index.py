"""The search index (hooks/perfdocs/search.py): section titles and prose, no code blocks, no technique-matrix
marks, tab labels apart; the full index beside a stub that page loads fetch; the words queries use are the
index's words. The functions on inline HTML first, then the index of the real site."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from perfdocs.search import (
    FULL_INDEX,
    INDEX,
    index_html,
    section_texts,
    shape_index,
    stub_index,
    write_index,
)
from selectolax.lexbor import LexborHTMLParser

TABS = """
<div class="tabbed-set tabbed-alternate" data-tabs="1:3"><input checked="checked" id="__tabbed_1_1" name="__tabbed_1"
type="radio"><input id="__tabbed_1_2" name="__tabbed_1" type="radio"><input id="__tabbed_1_3" name="__tabbed_1"
type="radio"><div class="tabbed-labels"><label for="__tabbed_1_1">Trainer</label><label for="__tabbed_1_2">Accelerate</label><label
for="__tabbed_1_3">PyTorch</label></div>
<div class="tabbed-content">
<div class="tabbed-block">
<p>Nothing in the <code>Trainer</code> script changes.</p>
<div class="highlight"><pre><span></span><code>trainer = Trainer(model=model)
</code></pre></div>
</div>
<div class="tabbed-block">
<div class="highlight"><pre><span></span><code>accelerator = Accelerator()
</code></pre></div>
</div>
<div class="tabbed-block">
<p>Wrap the model yourself.</p>
</div>
</div>
</div>
"""

MATRIX = """
<table>
<thead><tr><th>Technique</th><th>Helps</th><th>Infer CPU</th></tr></thead>
<tbody><tr><td><strong>Attention kernels</strong></td><td>speed, memory</td>
<td><a href="infer/cpu/#attention" title="Attention kernels: Inference on CPU">✓<span class="perfdocs-sr-only">
Attention kernels: Inference on CPU</span></a></td></tr></tbody>
</table>
"""

ENV_TABLE = """
<table><thead><tr><th>Variable</th><th>torchrun</th></tr></thead>
<tbody><tr><td><code>LOCAL_RANK</code></td><td>✓</td></tr></tbody></table>
"""


def test_code_blocks_leave_and_inline_code_stays() -> None:
    html = ('<h1 id="t">T</h1><p>Call <code>model.gradient_checkpointing_enable()</code> first.</p>'
            '<div class="highlight"><pre><span></span><code>import torch\nmodel.train()\n</code></pre></div>'
            "<pre>plain block</pre><p>After.</p>")
    assert section_texts(html) == {
        "": "<p>Call <code>model.gradient_checkpointing_enable()</code> first.</p><p>After.</p>"
    }


def test_tab_labels_go_in_front_of_their_prose_and_not_in_a_row() -> None:
    texts = section_texts(f'<h2 id="recipe">Recipe</h2>{TABS}')
    # the preface before the first heading is a section too (Material's parser), empty here
    assert texts == {
        "": "",
        "recipe": "<p>Trainer: Nothing in the <code>Trainer</code> script changes.</p> "
                  "<p>PyTorch: Wrap the model yourself.</p>",
    }


def test_nested_tab_sets_keep_their_own_labels() -> None:
    inner = TABS.replace("Trainer</label>", "Inner</label>").replace("__tabbed_1", "__tabbed_2")
    outer = TABS.replace("<p>Wrap the model yourself.</p>", f"<p>Outer prose.</p>{inner}")
    text = section_texts(f'<h1 id="t">T</h1>{outer}')[""]
    assert "Inner: Nothing in the" in text
    assert "PyTorch: Outer prose." in text
    assert "InnerAccelerate" not in text and "TrainerAccelerate" not in text


def test_the_technique_matrix_leaves_and_other_tables_with_marks_stay() -> None:
    text = section_texts(f'<h1 id="t">T</h1><p>Intro.</p>{MATRIX}{ENV_TABLE}')[""]
    assert text == "<p>Intro.</p> Variable torchrun <code>LOCAL_RANK</code> ✓"  # cells apart, as on the page


def test_screen_reader_text_and_permalinks_leave() -> None:
    html = index_html('<h2 id="a">A<a class="headerlink" href="#a">¶</a></h2><p>x<span class="perfdocs-sr-only">'
                      " (opens a new tab)</span></p>")
    assert html == '<h2 id="a">A</h2><p>x</p>'


INDEX_IN: dict[str, Any] = {
    "config": {"lang": ["en"], "separator": "[\\s]+", "pipeline": ["stopWordFilter"], "fields": {}},
    "docs": [
        {"location": "a/", "title": "A", "text": "<p>old</p>"},
        {"location": "a/#s", "title": "S", "text": "<p>old s</p>", "boost": 2},
        {"location": "b/#t", "title": "T", "text": "<p>keep</p> <pre><code>x = 1\n</code></pre> <p>this</p>"},
    ],
}


def test_shape_index_takes_the_page_texts_and_strips_code_where_there_are_none() -> None:
    shaped = shape_index(INDEX_IN, {"a/": {"": "<p>new</p>", "s": "<p>new s</p>"}})
    assert shaped == {
        "config": INDEX_IN["config"],
        "docs": [
            {"location": "a/", "title": "A", "text": "<p>new</p>"},
            {"location": "a/#s", "title": "S", "text": "<p>new s</p>", "boost": 2},
            {"location": "b/#t", "title": "T", "text": "<p>keep</p> <p>this</p>"},
        ],
    }
    assert stub_index(shaped) == {"config": INDEX_IN["config"], "docs": []}


def test_write_index_moves_the_index_and_leaves_a_stub(tmp_path: Path) -> None:
    assert write_index(tmp_path, {}) is None, "no index (search off): nothing to do"
    (tmp_path / "search").mkdir()
    (tmp_path / INDEX).write_text(json.dumps(INDEX_IN), encoding="utf-8")
    size = write_index(tmp_path, {"a/": {"": "<p>new ✓</p>"}})
    full = (tmp_path / FULL_INDEX).read_text(encoding="utf-8")
    stub = (tmp_path / INDEX).read_text(encoding="utf-8")
    assert json.loads(stub) == {"config": INDEX_IN["config"], "docs": []}
    assert json.loads(full)["docs"][0]["text"] == "<p>new ✓</p>"
    assert "✓" in full, "UTF-8, not \\u escapes"
    assert size is not None and (size.sections, size.raw, size.stub) == (3, len(full.encode()), len(stub))
    assert 0 < size.gzip < size.raw


# -- the real site ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def site(site_as_deployed: Path) -> Path:
    return site_as_deployed


@pytest.fixture(scope="module")
def index(site: Path) -> dict[str, Any]:
    return json.loads((site / FULL_INDEX).read_text(encoding="utf-8"))


@pytest.fixture
def pages(site: Path, index: dict[str, Any]) -> dict[str, LexborHTMLParser]:
    """The built page of every location in the index, parsed afresh for each test (a test may change it)."""
    urls = {doc["location"].partition("#")[0] for doc in index["docs"]}
    return {url: LexborHTMLParser((site / url / "index.html").read_text(encoding="utf-8")) for url in urls}


def plain(html: str) -> str:
    body = LexborHTMLParser(f"<body>{html}</body>").body
    assert body is not None
    return " ".join(unescape(body.text(deep=True)).split())


def page_text(index: dict[str, Any], url: str) -> str:
    return " ".join(plain(doc["title"] + " " + doc["text"]) for doc in index["docs"]
                    if doc["location"].partition("#")[0] == url)


def words(text: str, separator: str) -> list[str]:
    """The index's tokens of `text`, split as Material's worker splits them (lunr lowercases)."""
    return [w.lower() for part in text.split() for w in re.split(separator, part) if w]


def test_page_loads_fetch_a_stub_with_the_full_indexs_configuration(site: Path, index: dict[str, Any]) -> None:
    stub = (site / INDEX).read_bytes()
    assert json.loads(stub) == {"config": index["config"], "docs": []}
    assert len(stub) < 1000
    assert len(index["docs"]) > 100


def test_no_code_block_text_in_the_index(index: dict[str, Any], pages: dict[str, LexborHTMLParser]) -> None:
    assert not any("<pre" in doc["text"] for doc in index["docs"])
    leaked = []
    for url, tree in pages.items():
        text = page_text(index, url)
        lines = {" ".join(line.split()) for pre in tree.css("article pre") for line in pre.text().splitlines()}
        for pre in tree.css("article pre"):
            pre.decompose()
        article = tree.css_first("article")
        prose = " ".join(article.text().split()) if article is not None else ""
        # a long code line in the index that the page's prose does not also hold came from a code block
        leaked += [f"{url}: {line}" for line in lines if len(line) >= 40 and line in text and line not in prose]
    assert leaked == []


def test_tab_labels_never_run_together(index: dict[str, Any], pages: dict[str, LexborHTMLParser]) -> None:
    runs = {"".join(label.text() for label in row.css("label"))
            for tree in pages.values() for row in tree.css("article div.tabbed-labels")}
    runs = {run for run in runs if run}
    assert any(run.startswith("TrainerAccelerate") for run in runs), "the site has Trainer / Accelerate tabs"
    everything = " ".join(plain(doc["text"]) for doc in index["docs"])
    assert [run for run in runs if run in everything] == []
    assert "TrainerAccelerate" not in everything


def test_no_matrix_marks_or_screen_reader_text(index: dict[str, Any], pages: dict[str, LexborHTMLParser]) -> None:
    hidden = {" ".join(node.text().split()) for tree in pages.values() for node in tree.css("article .perfdocs-sr-only")}
    hidden.discard("")  # the "Copy page" button's status line, empty until the reader copies
    assert hidden, "the technique matrix has screen-reader text"
    everything = " ".join(plain(doc["text"]) for doc in index["docs"])
    assert [text for text in hidden if text in everything] == []


def test_section_titles_and_prose_are_kept(index: dict[str, Any], pages: dict[str, LexborHTMLParser]) -> None:
    for url, tree in pages.items():
        titles = {plain(doc["title"]) for doc in index["docs"] if doc["location"].partition("#")[0] == url}
        headings = {" ".join(h.text().replace("¶", "").split()) for h in tree.css("article h2[id], article h3[id]")}
        assert headings <= titles, f"{url}: headings missing from the index: {sorted(headings - titles)[:5]}"
        first = tree.css_first("article > p")
        if first is not None:
            assert " ".join(first.text().split()) in page_text(index, url), url


@pytest.mark.parametrize(("typed", "expected"), [
    ("FlashAttention", ["flashattention"]),  # one word whatever its case: the query splits as the index does
    ("flashattention", ["flashattention"]),
    ("DeepSpeed-Ulysses", ["deepspeed", "ulysses"]),
    ("per_device_train_batch_size", ["per_device_train_batch_size"]),
    ("torch.compile(model)", ["torch", "compile", "model"]),
    ("3.5x", ["3.5x"]),
])
def test_queries_split_as_the_index_does(index: dict[str, Any], typed: str, expected: list[str]) -> None:
    assert words(typed, index["config"]["separator"]) == expected


def test_the_words_queries_use_are_index_words(index: dict[str, Any]) -> None:
    separator = index["config"]["separator"]
    vocabulary = {w for doc in index["docs"] for w in words(plain(doc["title"] + " " + doc["text"]), separator)}
    assert {"flashattention", "deepspeed", "fsdp", "memory", "per_device_train_batch_size"} <= vocabulary
