"""The search index (hooks/perfdocs/search.py): section titles and prose, no code blocks, no technique-matrix
marks, tab labels apart; the full index beside a stub that page loads fetch; the words queries use are the
index's words. What the search worker ranks with: the synonym table (hooks/perfdocs/search_synonyms.py, every
entry joins its spellings), the copies of a theory snippet's sections (one key per section, whatever page it is
expanded into), the API entries, each page's situation. The functions on inline HTML first, then the index of
the real site; tests/browser/test_search.py checks what readers get from them."""

from __future__ import annotations

import functools
import json
from html import unescape
from pathlib import Path
from typing import Any

import pytest
import yaml
from material.plugins.search.plugin import Parser
from perfdocs.diagnostics import Location, SourceMap
from perfdocs.search import (
    FULL_INDEX,
    INDEX,
    SearchPage,
    _Sections,
    entry_sections,
    index_html,
    index_tree,
    page_facets,
    search_page,
    section_texts,
    shape_index,
    shared_sections,
    spellings,
    stub_index,
    synonym_keys,
    words,
    write_index,
)
from perfdocs.search_synonyms import FACETS, SCENARIO_FACETS, SYNONYMS
from perfdocs.theory import SCENARIOS, Inclusion
from selectolax.lexbor import LexborHTMLParser

ROOT = Path(__file__).resolve().parents[1]
QUERIES = ROOT / "tests" / "search_queries.yml"
SEPARATOR = r'[\s\u200b\-,:!=\[\]()"`/]+|\.(?!\d)|&[lg]t;'  # mkdocs.yml's (test_the_separator_is_the_sites)

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
    shaped = shape_index(INDEX_IN, {"a/": SearchPage({"": "<p>new</p>", "s": "<p>new s</p>"})})
    assert shaped["docs"] == [
        {"location": "a/", "title": "A", "text": "<p>new</p>"},
        {"location": "a/#s", "title": "S", "text": "<p>new s</p>", "boost": 2},
        {"location": "b/#t", "title": "T", "text": "<p>keep</p> <p>this</p>"},
    ]
    assert shaped["config"] == {**INDEX_IN["config"], "fields": {"keys": {"boost": 1.0}}}
    assert stub_index(shaped) == {"config": shaped["config"], "docs": []}


def test_write_index_moves_the_index_and_leaves_a_stub(tmp_path: Path) -> None:
    assert write_index(tmp_path, {}) is None, "no index (search off): nothing to do"
    (tmp_path / "search").mkdir()
    (tmp_path / INDEX).write_text(json.dumps(INDEX_IN), encoding="utf-8")
    measured = write_index(tmp_path, {"a/": SearchPage({"": "<p>new ✓</p>"})})
    full = (tmp_path / FULL_INDEX).read_text(encoding="utf-8")
    stub = (tmp_path / INDEX).read_text(encoding="utf-8")
    assert json.loads(stub) == {"config": json.loads(full)["config"], "docs": []}
    assert json.loads(full)["docs"][0]["text"] == "<p>new ✓</p>"
    assert "✓" in full, "UTF-8, not \\u escapes"
    assert measured is not None
    size = measured()
    assert (size.sections, size.raw, size.stub) == (3, len(full.encode()), len(stub))
    assert 0 < size.gzip < size.raw


# -- what the worker ranks with --------------------------------------------------------------------------------
VOCABULARY = spellings(SEPARATOR)


@pytest.mark.parametrize("entry", SYNONYMS, ids=[entry[0] for entry in SYNONYMS])
def test_every_spelling_of_an_entry_finds_the_entry(entry: tuple[str, ...]) -> None:
    """A section that spells the term any way gets the entry's index word, so that any spelling typed finds it
    (the worker adds that word to the query when the reader types a spelling)."""
    key = "".join(words(entry[0], SEPARATOR))
    assert words(key, SEPARATOR) == [key], "the index word is one word"
    for spelling in entry:
        assert key in synonym_keys(words(f"Use {spelling} here.", SEPARATOR), VOCABULARY), spelling
        assert key in synonym_keys(words(spelling.upper(), SEPARATOR), VOCABULARY), f"{spelling}: case"


def test_entries_are_apart() -> None:
    """No two entries share an index word or a spelling: a spelling typed means one term."""
    keys = [key for key, _ in VOCABULARY]
    assert len(set(keys)) == len(keys)
    owners: dict[tuple[str, ...], str] = {}
    for key, group in VOCABULARY:
        for spelling in group:
            assert owners.setdefault(tuple(spelling), key) == key, f"{spelling} is in {owners[tuple(spelling)]} and {key}"
            assert spelling, key
    facet_words = {tuple(words(name, SEPARATOR)) for values in FACETS.values() for names in values.values()
                   for name in names}
    assert not facet_words & set(owners), "a word that names the reader's situation is no synonym"


@pytest.mark.parametrize(("text", "expected"), [
    ("CUDA out of memory at step 3", ["oom"]),
    ("torch.OutOfMemoryError: CUDA", ["oom"]),
    ("the OOM killer", ["oom"]),
    ("DeepSpeed ZeRO-3 shards the weights; ZeRO stage 2 does not", ["zero3", "zero2"]),
    ('"stage": 3 in the config, i.e. stage 3', ["zero3"]),
    ("load in bfloat16", ["bf16"]),
    ('attn_implementation="flash_attention_2"', ["fa2"]),
    ("FlashAttention-2 and FlashAttention-3", ["fa2", "fa3"]),
    ("tensor parallelism splits each layer", ["tp"]),
    ("on a TPU", []),  # words of two letters match whole: tp is not tpu
    ("the KV cache grows", ["kvcache"]),
    ("an 8-bit optimizer", ["8bit"]),
    ("model.gradient_checkpointing_enable()", ["gradientcheckpointing"]),  # a word of more than two letters: prefix
    ("flash attention", []),  # not FlashAttention-2: the 2 is the term
])
def test_synonym_keys_of_a_text(text: str, expected: list[str]) -> None:
    assert synonym_keys(words(text, SEPARATOR), VOCABULARY) == expected


def test_facets_cover_every_scenario() -> None:
    assert set(SCENARIO_FACETS) == set(SCENARIOS)
    for scenario, values in SCENARIO_FACETS.items():
        for dimension, value in values.items():
            assert value in FACETS[dimension], (scenario, dimension, value)


def test_page_facets_come_from_the_scenario_or_the_pages_below() -> None:
    facets = page_facets(
        ["", "train/", "train/one/", "train/many/", "api/", "api/x/", "scale/"],
        {"": "overview", "train/one/": "train-gpu-one", "train/many/": "train-gpu-many", "scale/": "scalability",
         "api/x/": None},
    )
    assert facets == {
        "": {},
        "train/": {"mode": "train"},  # what every scenario page under it shares
        "train/one/": {"mode": "train", "hardware": "gpu-one"},
        "train/many/": {"mode": "train", "hardware": "gpu-many"},
        "api/": {},
        "api/x/": {},
        "scale/": {"hardware": "gpu-many"},
    }


API_PAGE = """
<h1 id="transformers">Transformers</h1><p>Intro.</p>
<h2 id="training">Training</h2>
<h3 id="transformers.TrainingArguments" class="doc doc-heading">TrainingArguments</h3><p>Arguments.</p>
<h4 id="transformers.TrainingArguments.to_dict" class="doc doc-heading">to_dict</h4><p>A dict.</p>
<h2 id="generation">Generation</h2><p>Text.</p>
"""


def test_search_page_knows_api_entries_and_the_heading_above_each_section() -> None:
    page = search_page(API_PAGE)
    assert page.api == {"transformers.TrainingArguments", "transformers.TrainingArguments.to_dict"}
    assert page.up == {"transformers.TrainingArguments": "training",
                       "transformers.TrainingArguments.to_dict": "transformers.TrainingArguments"}
    assert page.texts["generation"] == "<p>Text.</p>"


EXPANDED = """# Training on one GPU

## Mixed precision

In short: bf16.

Why it works.

### The memory surprise { #mixed-precision-the-memory-surprise }

Text.

### Recipe { #mixed-precision-recipe }

```python
# a comment { #not-a-heading }
```
"""


def test_shared_sections_are_the_snippets_headings_and_the_sections_holding_their_introductions() -> None:
    page = "docs/train/gpu_one.md"
    snippet = "docs/_theory/mixed_precision.md"
    # lines 7-12 of the expansion come from the snippet's lines 1-6, included at the page's line 7
    origins = [Location(snippet, i - 5, 1, ((page, 7),)) if 6 <= i < 12 else Location(page, i + 1)
               for i in range(len(EXPANDED.splitlines()))]
    inclusions = [Inclusion("mixed_precision", "mixed-precision", "Mixed precision", 0),
                  Inclusion("nested", "mixed-precision-the-memory-surprise", "The memory surprise", 1)]
    shared = shared_sections(EXPANDED, SourceMap(origins), inclusions)
    assert shared == {
        "mixed-precision-the-memory-surprise": "docs/_theory/mixed_precision.md:3",  # its heading's line
        "mixed-precision": "theory:mixed_precision",  # the page's own heading, holding the introduction
    }  # the page's own "Recipe" is not shared, even with an explicit id; a code line is no heading
    assert shared_sections(EXPANDED, None, []) == {}


def test_shape_index_writes_keys_and_what_the_worker_ranks_with() -> None:
    index = {"config": {"lang": ["en"], "separator": SEPARATOR, "pipeline": ["stopWordFilter"],
                        "fields": {"title": {"boost": 1000.0}, "text": {"boost": 1.0}}},
             "docs": [{"location": "t/", "title": "Training", "text": ""},
                      {"location": "t/#zero", "title": "ZeRO", "text": ""},
                      {"location": "t/#memory", "title": "Memory per GPU", "text": ""},
                      {"location": "api/", "title": "API", "text": ""},
                      {"location": "api/#x.Trainer", "title": "Trainer", "text": ""}]}
    pages = {
        "t/": SearchPage({"": "<p>t</p>", "zero": "<p>ZeRO-3, or running out of memory</p>", "memory": "<p>m</p>"},
                         up={"memory": "zero"}, shared={"memory": "_theory/zero.md:8"}, scenario="train-gpu-many"),
        "api/": SearchPage({"": "", "x.Trainer": "<p>The Trainer.</p>"}, api=frozenset({"x.Trainer"})),
    }
    shaped = shape_index(index, pages)
    assert [doc.get("keys") for doc in shaped["docs"]] == [None, "oom zero3", None, None, None]
    assert shaped["config"]["fields"]["keys"] == {"boost": 1.0}
    data = shaped["perfdocs"]
    assert data["sections"] == {"t/#memory": {"up": "t/#zero", "shared": "_theory/zero.md:8"},
                                "api/#x.Trainer": {"api": 1}}
    assert data["pages"] == {"t/": {"mode": "train", "hardware": "gpu-many"}, "api/": {}}
    assert ["oom", [["oom"], ["out", "of", "memory"], ["outofmemoryerror"]]] in data["synonyms"]
    assert data["facets"]["hardware"]["gpu-one"][0] == ["one", "gpu"]


def material_sections(content: str) -> list[tuple[Any, ...]]:
    """The sections Material's parser finds in index_html(content) with its own html.parser tokenizer."""
    parser = Parser()
    parser.feed(index_html(content))
    parser.close()
    return _shown(parser.data)


def walked_sections(content: str) -> list[tuple[Any, ...]]:
    """The sections search_page reads: Material's handlers called by a walk over one lexbor parse."""
    return _shown(_Sections().walk(index_tree(LexborHTMLParser(f"<body>{content}</body>"))))


def _shown(sections: list[Any]) -> list[tuple[Any, ...]]:
    """What the index takes from a section: its element, id and nesting depth, its text and title with the
    whitespace squeezed (the walk hands over a cell's added space as its own text, the tokenizer with the text)."""
    squeeze = lambda parts: " ".join("".join(parts).split())  # noqa: E731
    return [(s.el.tag, s.el.attrs, s.id, s.depth, squeeze(s.text), squeeze(s.title)) for s in sections]


EDGE_CASES = {
    "preface": "<p>Before any heading</p><h2 id='a'>A</h2><p>a</p>",
    "h1 first": "<h1 id='t'>Title</h1><p>x</p><h2 id='b'>B <a class='headerlink' href='#b'>¶</a></h2><p>y</p>",
    "heading without id": "<h2 id='a'>A</h2><h3>no id</h3><p>still a</p>",
    "nested heading": "<div><section><h2 id='n'>N</h2><p>in</p></section><p>out of it</p></div><p>after</p>",
    "excluded": "<h2 id='a'>A</h2><div data-search-exclude><p>hidden</p></div><p>shown</p>",
    "excluded heading": "<h2 id='x' data-search-exclude>X</h2><p>x text</p><h2 id='y'>Y</h2>",
    # Material skips by tag: every open element of an excluded element's tag counts while the tag is excluded
    "excluded in its own tag": (
        "<div><p>a</p><div data-search-exclude><p>hid</p></div><p>in outer</p><style>.css{}</style><p>c</p></div><p>b</p>"
    ),
    "excluded twice": "<div data-search-exclude><div data-search-exclude><p>h</p></div><p>h2</p></div><p>shown</p>",
    "line numbers": "<h2 id='a'>A</h2><div class='linenodiv'>1 2 3</div><p>text</p>",
    "kept tags": "<h2 id='a'>A<sup>2</sup></h2><ul><li>one</li><li> </li></ul><p><sub>x</sub> <code> </code></p>",
    "void tags": "<p>a<br>b<img alt='i' src='x.png'>c<wbr>d<hr></p><h2 id='v'>V</h2><p>e<input value='1'></p>",
    "entities": "<h2 id='e'>A &amp; B &lt;C&gt;</h2><p>x &lt; y &amp;&amp; &quot;z&quot; &nbsp;&#8212;</p>",
    "comments": "<h2 id='c'>C<!-- note --></h2><p>a<!-- b -->c</p>",
    "tables": "<table><tr><th>h</th><td>1</td><td><p>2</p></td></tr></table><h2 id='t'>T</h2>",
    "tabs": (
        '<div class="tabbed-set"><div class="tabbed-labels"><label>PyTorch</label><label>Accelerate</label>'
        '</div><div class="tabbed-content"><div class="tabbed-block"><p>torch way</p></div>'
        '<div class="tabbed-block"><p>accelerate way</p></div></div></div>'
    ),
    "object and style": "<h2 id='o'>O</h2><object><p>plugin</p></object><p>kept</p>",
    "deep": "<div>" * 400 + "<h2 id='d'>D</h2><p>deep</p>" + "</div>" * 400 + "<p>shallow</p>",
    # code blocks: read without walking their spans where they hold nothing else (search._Sections.code_block)
    "code block": (
        "<h2 id='c'>C</h2><div class='highlight'><pre><span></span><code><span class='kn'>import</span> "
        "<span class='nn'>torch</span>\n<a id='__codelineno-0-2' name='__codelineno-0-2' href='#__codelineno-0-2'>"
        "</a><span class='n'>x</span> <span class='o'>&lt;</span> <span class='mi'>1</span>\n</code></pre></div><p>after</p>"
    ),
    "empty code blocks": "<pre><code></code></pre><p>a</p><pre><code> \n </code></pre><pre></pre><p>b</p>",
    "text beside the code": "<pre>lead <span>s</span> <code>x</code> tail</pre><p>b</p>",
    "markup in a code block": "<pre><code>a <b>bold</b> <span>c</span></code></pre><p>b</p>",
    "excluded in a code block": "<pre><code>a <span data-search-exclude>hid</span> b</code></pre><p>shown</p>",
    "code in a span in a code block": "<pre><span>a <code>b</code></span></pre><p>c</p>",
    "code block in a heading": "<h2 id='h'>H <pre><code>x</code></pre> more</h2><p>text</p>",
    "code block in an excluded part": "<div data-search-exclude><pre><code>x</code></pre></div><p>shown</p>",
}


@pytest.mark.parametrize("content", EDGE_CASES.values(), ids=EDGE_CASES.keys())
def test_the_walk_feeds_materials_parser_what_its_tokenizer_would(content: str) -> None:
    assert walked_sections(content) == material_sections(content)


@pytest.mark.parametrize("content", EDGE_CASES.values(), ids=EDGE_CASES.keys())
def test_the_entries_walk_reads_the_content_as_it_is_as_materials_parser_does(content: str) -> None:
    """entry_sections reads the content with nothing left out (permalinks, code, excluded parts included), as
    Material's index does; the sections it leaves out are the excluded ones."""
    parser = Parser()
    parser.feed(LexborHTMLParser(f"<body>{content}</body>").body.inner_html)
    parser.close()
    assert _shown(list(entry_sections(content))) == _shown([s for s in parser.data if not s.is_excluded()])


def test_an_excluded_element_holding_its_own_tag_is_read_where_materials_parser_fails() -> None:
    """<code data-search-exclude> around another <code>: the inner one's end takes code off the skip list, so the
    outer one's end looks for a "<code>" it never kept. Material's parser raises ValueError there, and with it
    the build (a page's author wrote it: data-* attributes are allowed). The walk keeps the text after the inner
    element and closes nothing it did not open."""
    content = "<h2 id='k'>K</h2><p>a <code data-search-exclude>x<code>y</code>z</code> w <code>c</code></p>"
    parser = Parser()
    with pytest.raises(ValueError, match="'<code>' is not in list"):
        parser.feed(index_html(content))
    assert walked_sections(content) == [
        ("hx", {}, None, 1, "", ""),
        ("h2", {"id": "k"}, "k", 1, "<p>a z w <code>c</code></p>", "K"),
    ]


def test_the_walk_reads_every_built_page_as_materials_tokenizer_does(site_bare: Path) -> None:
    compared = 0
    for path in sorted(site_bare.rglob("*.html")):
        article = LexborHTMLParser(path.read_text(encoding="utf-8")).css_first("article.md-content__inner")
        if article is None:
            continue  # a redirect page
        content = article.inner_html or ""
        assert walked_sections(content) == material_sections(content), path.relative_to(site_bare)
        compared += 1
    assert compared >= 14  # the guide's pages and the API reference's


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


def test_the_separator_is_the_sites(index: dict[str, Any]) -> None:
    assert index["config"]["separator"] == SEPARATOR


def test_spellings_reach_the_same_sections(index: dict[str, Any]) -> None:
    """Every section that says "ZeRO-3", "out of memory", "bfloat16"... carries the entry's word: the reader's
    spelling finds what the guide's spelling finds."""
    separator = index["config"]["separator"]
    keyed: dict[str, set[str]] = {}
    for doc in index["docs"]:
        for key in doc.get("keys", "").split():
            keyed.setdefault(key, set()).add(doc["location"])
    for key, spelling in [("zero3", "ZeRO-3"), ("oom", "out of memory"), ("oom", "OOM"), ("bf16", "bfloat16"),
                          ("fa2", "FlashAttention-2"), ("tp", "tensor parallel"), ("kvcache", "KV cache")]:
        wanted = words(spelling, separator)
        saying = {doc["location"] for doc in index["docs"]
                  if f" {' '.join(wanted)} " in f" {' '.join(words(plain(doc['title'] + ' ' + doc['text']), separator))} "}
        assert saying, f"the guide says {spelling!r} somewhere"
        assert saying <= keyed[key], f"{spelling}: {sorted(saying - keyed[key])[:3]}"
    assert len(keyed["zero3"]) > 10 and len(keyed["oom"]) > 10  # not the 2 of "zero3" and "oom" as typed


def test_theory_copies_share_one_key_and_page_sections_do_not(index: dict[str, Any]) -> None:
    sections = index["perfdocs"]["sections"]
    titles = {doc["location"]: plain(doc["title"]) for doc in index["docs"]}
    copies: dict[str, list[str]] = {}
    for location, facts in sections.items():
        if "shared" in facts:
            copies.setdefault(facts["shared"], []).append(location)
    spec = [location for location in titles if location.endswith("#decoding-speculative-decoding")]
    assert len(spec) == 3 and len({sections[location]["shared"] for location in spec}) == 1, spec
    for key, locations in copies.items():
        if not key.startswith("theory:"):  # one snippet heading: the same title wherever it is expanded
            assert len({titles[location] for location in locations}) == 1, (key, locations)
        assert len({location.partition("#")[0] for location in locations}) == len(locations) or len(locations) == 1
    assert sum(len(locations) > 1 for locations in copies.values()) >= 30
    # the pages' own sections of one name (each page's "Recipe", "Summary") are not copies
    own = [location for location in titles if location.endswith(("#summary", "#recommended-order"))]
    assert len(own) > 4 and not any("shared" in sections.get(location, {}) for location in own)


def test_api_entries_and_only_they_are_api(index: dict[str, Any], site: Path) -> None:
    sections = index["perfdocs"]["sections"]
    api = {location for location, facts in sections.items() if facts.get("api")}
    assert "performance/api/transformers/#transformers.TrainingArguments" in api
    assert "performance/api/accelerate/#accelerate.DeepSpeedPlugin" in api
    assert all(location.startswith("performance/api/") for location in api)
    assert not any(location.startswith("performance/api/") and "." not in location.partition("#")[2]
                   for location in api), "group headings (Training, Generation) are the API page's, not entries"


def test_pages_carry_their_situation(index: dict[str, Any]) -> None:
    pages = index["perfdocs"]["pages"]
    assert pages["performance/infer/cpu/"] == {"mode": "infer", "hardware": "cpu"}
    assert pages["performance/train/gpu_many/"] == {"mode": "train", "hardware": "gpu-many"}
    assert pages["performance/train/"] == {"mode": "train"}
    assert pages[""] == {} and pages["performance/api/transformers/"] == {}


def test_the_reader_queries_want_sections_that_exist(index: dict[str, Any]) -> None:
    """tests/search_queries.yml (the queries the browser test types) names sections and pages of the site."""
    queries = yaml.safe_load(QUERIES.read_text(encoding="utf-8"))
    locations = {doc["location"] for doc in index["docs"]}
    assert len(queries) >= 24
    assert [q["want"] for q in queries if q["want"] not in locations] == []
    assert [q["from"] for q in queries if q.get("from", "") not in locations] == []
    assert len({q["query"] for q in queries}) == len(queries)


def test_a_section_shaped_before_is_not_read_again_and_shapes_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """The keys of a section whose title and text did not change come from where the build keeps them (its
    ContentCache: the last index of this build, or of the last build), and the index is the one a fresh shaping
    gives; without one, every section is read."""
    import perfdocs.search as search
    from perfdocs.contentcache import ContentCache

    index = {"config": {"lang": ["en"], "separator": SEPARATOR, "fields": {}},
             "docs": [{"location": "t/", "title": "Training", "text": ""},
                      {"location": "t/#zero", "title": "ZeRO", "text": ""}]}
    pages = {"t/": SearchPage({"": "<p>t</p>", "zero": "<p>ZeRO-3, or running out of memory</p>"})}
    cache = ContentCache()
    kept = functools.partial(cache.get, "search keys")
    fresh = shape_index(index, pages, kept)
    read: list[str] = []
    real = search._plain
    monkeypatch.setattr(search, "_plain", lambda html: read.append(html) or real(html))
    again = shape_index(index, pages, kept)
    assert read == [] and again == fresh
    changed = {"t/": SearchPage({"": "<p>t</p>", "zero": "<p>ZeRO-3 only</p>"})}
    shaped = shape_index(index, changed, kept)
    assert read == ["ZeRO", "<p>ZeRO-3 only</p>"]
    read.clear()
    assert shaped == shape_index(index, changed)
    assert read == ["Training", "<p>t</p>", "ZeRO", "<p>ZeRO-3 only</p>"]


def test_materials_index_gets_the_entries_its_own_parser_makes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Material's search plugin reads each page through search.add_entry_from_context (a walk over one lexbor
    parse) instead of its html.parser tokenizer: on every page of the real site and of the attacker's site, as
    the builds hand the pages over, the entries are exactly the ones Material's own method makes."""
    import perfdocs.search
    from material.plugins.search.plugin import SearchIndex

    from .hostile import make_hostile_project
    from .sitetools import build_in_process, copy_project

    ours = perfdocs.search.add_entry_from_context
    compared: list[str] = []
    differ: list[str] = []

    def both(index: Any, page: Any, sections: Any = None) -> None:
        materials = SearchIndex(**index.config)
        SearchIndex.add_entry_from_context(materials, page)  # the class's own method, not the instance's
        before = len(index.entries)
        ours(index, page, sections=sections)
        compared.append(page.url)
        if index.entries[before:] != materials.entries:
            differ.append(page.url)

    monkeypatch.setattr(perfdocs.search, "add_entry_from_context", both)
    real = copy_project(tmp_path / "real")
    assert build_in_process(real, tmp_path / "real-site").returncode == 0
    pages = len(compared)
    hostile = make_hostile_project(tmp_path / "hostile")
    build_in_process(hostile, tmp_path / "hostile-site", strict=False)
    assert pages >= 14 and len(compared) > pages  # every page of both sites went through both readers
    assert differ == []
