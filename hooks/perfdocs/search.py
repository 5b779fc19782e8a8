"""The search index readers query: section titles and prose, fetched when search is first used.

Material's search plugin indexes each section's text with its code blocks, the technique matrix's ✓ links
(with their screen-reader text) and tab labels run together ("TrainerAcceleratePyTorch"), and the theme
fetches that index on every page load. Here each section's text is rebuilt from the page content with that
noise left out, by Material's section parser's rules (_Sections) so that the sections stay Material's: applied
while walking the page's one lexbor parse instead of its html.parser tokenizer's events, the same sections in
about a third of the time. After the build the
full index goes to :data:`FULL_INDEX`, which ``docs/assets/search-worker.js`` fetches on the first query,
and Material's path keeps only the configuration, so that a page load costs a few hundred bytes.

The full index also carries what the worker ranks with (:func:`ranking_data`, under the key ``perfdocs``):
which sections are copies of one shared explanation (a theory snippet expanded into several pages), which
are API entries, the heading each section sits under, each page's scenario as facet values, and the
vocabulary of :mod:`perfdocs.search_synonyms`. A section that holds a spelling of a synonym entry gets the
entry's word in a ``keys`` field, so that any spelling typed finds it.
"""

from __future__ import annotations

import copy
import functools
import gzip
import json
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from material.plugins.search.plugin import Element, Parser, Section
from material.plugins.search.plugin import void as MATERIAL_VOID
from selectolax.lexbor import LexborHTMLParser, LexborNode

from .diagnostics import SourceMap
from .search_synonyms import FACETS, SCENARIO_FACETS, SYNONYMS
from .text import parse_heading
from .theory import Inclusion

INDEX = "search/search_index.json"  # where Material writes its index and where the theme fetches it from
FULL_INDEX = "search/search_index.full.json"  # what docs/assets/search.js hands the search worker
# Code blocks, what only a screen reader reads, a formula's TeX source (KaTeX's MathML keeps the formula as
# text), and the "Edit this explanation" link under every shared explanation.
LEFT_OUT = "pre, script, style, annotation, .perfdocs-sr-only, .headerlink, .perfdocs-edit"
KEYS_FIELD = "keys"  # the index field that holds the synonym entries a section spells


@dataclass(frozen=True)
class SearchPage:
    """What the search index takes from one built page."""

    texts: dict[str, str]  # heading id ("" for the first section) -> index text
    up: dict[str, str] = field(default_factory=dict)  # heading id -> id of the heading it sits under (h2 and deeper)
    api: frozenset[str] = frozenset()  # ids of API entries (the headings mkdocstrings writes)
    # heading id -> what its copies on other pages share: the snippet heading it was expanded from
    # ("docs/performance/_theory/x.md:12"), or the snippets whose introduction it holds ("theory:x")
    shared: dict[str, str] = field(default_factory=dict)
    scenario: str | None = None


@dataclass(frozen=True)
class IndexSize:
    sections: int
    raw: int  # bytes of the full index as written
    gzip: int  # the same, gzip level 6: what a compressing host sends
    stub: int  # bytes of the index every page load fetches

    def __str__(self) -> str:
        return (
            f"{self.sections} sections, {self.raw} bytes (gzip {self.gzip}), fetched on the first query; page loads "
            f"fetch {self.stub} bytes"
        )


def index_html(content: str) -> str:
    """A page's content HTML as search should read it: no code blocks, no matrix, tab labels on their blocks."""
    return index_tree(LexborHTMLParser(f"<body>{content}</body>")).inner_html or ""


def index_tree(tree: LexborHTMLParser) -> LexborNode:
    """The body of a page's parsed content, changed in place as index_html describes."""
    body = tree.body
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
    return body


# Elements that have no end tag: lexbor writes none, so Material's parser never saw one close.
_NO_END_TAG = frozenset(
    "area base basefont bgsound br col embed frame hr img input keygen link meta param source track wbr".split()
)


HEADINGS = frozenset(f"h{level}" for level in range(1, 7))
KEPT_TAGS = frozenset(Parser().keep)  # the tags whose markup Material keeps in a section's text
ALWAYS_SKIPPED = frozenset(Parser().skip)  # object, script, style: Material's parser never reads what they hold
# A highlighted code block holds nothing else: what its spans hold is read as its text, without walking them (most
# of a page's elements). Not where something else is in it, or something the walk would act on.
_NOT_CODE_ONLY = "pre *:not(span):not(code):not(a), pre * code, [data-search-exclude], .linenodiv"
_CODE_ONLY_CHILDREN = frozenset({"-text", "code", "span", "a"})


class _Sections:
    """Material's search section parser (``Parser`` in its search plugin), its handlers' rules applied while
    walking a parsed tree: the same Section objects, in document order, in about a third of the time.

    Material's parser compares elements by tag alone (``Element.__eq__``), so its stack of open elements and its
    set of skipped elements are kept here as counts per tag and a set of tags. tests/test_search_index.py feeds
    Material's own parser the same HTML through its html.parser tokenizer and compares, on edge cases, on every
    page of the real site and as Material's index reads the attacker's site."""

    def __init__(self) -> None:
        self.context: list[tuple[str, bool]] = []  # open elements: tag, whether it is a permalink (a.headerlink)
        self.open: dict[str, int] = {}  # tag -> open elements of that tag
        self.permalinks = 0  # open a.headerlink elements
        self.skip = set(ALWAYS_SKIPPED)  # tags whose content is left out while one is open
        self.skipped = 0  # open elements whose tag is in skip: content is left out while there are any
        self.section: Any = None
        self.data: list[Any] = []

    def walk(self, root: LexborNode) -> list[Any]:
        """The sections of ``root``'s content (Material's Section objects), in document order."""
        stack: list[tuple[Iterator[LexborNode], str | None]] = [(root.iter(include_text=True), None)]
        while stack:
            children, tag = stack[-1]
            node = next(children, None)
            if node is None:
                stack.pop()
                if tag is not None:
                    self.end(tag)
                continue
            name = node.tag or ""
            if name == "-text":
                self.text(node.text_content or "")
            elif not name.startswith(("-", "!")):  # not a comment or a doctype
                # a valueless attribute as the tokenizer read it back from lexbor's output: data-search-exclude=""
                self.start(name, _attributes(node))
                if name == "pre" and self.code_only(node):
                    self.code_block(node)
                    self.end(name)
                elif name not in _NO_END_TAG:
                    stack.append((node.iter(include_text=True), name))
        return self.data

    def code_only(self, pre: LexborNode) -> bool:
        """Whether the walk may read the ``pre`` it just entered as code_block does: it holds code, spans and
        anchors only (Pygments' and the line anchors'), none of them excluded, and nothing around it is skipped or
        a heading (whose text would be the section's title)."""
        if self.skipping() or self.open.get(self.section.el.tag):
            return False
        children = {child.tag for child in pre.iter(include_text=True)}
        return children <= _CODE_ONLY_CHILDREN and pre.css_first(_NOT_CODE_ONLY) is None

    def code_block(self, pre: LexborNode) -> None:
        """What walking a code-only ``pre`` (code_only) does: its code elements open and close around their text,
        and the text of the rest is read in order. Spans and anchors leave no markup; their text is one piece."""
        for child in pre.iter(include_text=True):
            if child.tag == "code":
                self.start("code", _attributes(child))
                self.deep_text(child)
                self.end("code")
            elif child.tag == "-text":
                self.text(child.text_content or "")
            else:
                self.deep_text(child)

    def deep_text(self, node: LexborNode) -> None:
        text = node.text(deep=True)
        if text:  # as the walk: no text node is empty, and an empty one would count as non-space
            self.text(text)

    def preface(self) -> None:
        """Content before any heading: a top-level section holds it."""
        if self.section is None:
            self.section = Section(Element("hx"))
            self.data.append(self.section)

    def skipping(self) -> bool:
        return self.skipped > 0

    def kept_in(self) -> list[str]:
        """Where kept markup and text go: the section's title while its heading is open, else its text."""
        return self.section.title if self.open.get(self.section.el.tag) else self.section.text

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        if tag in MATERIAL_VOID:
            return
        permalink = tag == "a" and attrs.get("class") == "headerlink"
        self.context.append((tag, permalink))
        self.open[tag] = self.open.get(tag, 0) + 1
        self.skipped += tag in self.skip
        self.permalinks += permalink
        if tag in HEADINGS and "id" in attrs:
            depth = len(self.context)
            if tag != "h1" and not self.data:  # a top-level section first
                self.data.append(Section(Element("hx"), depth))
            self.section = Section(Element(tag, attrs), depth)
            if self.data:
                self.section.id = attrs["id"]
            self.data.append(self.section)
        self.preface()
        for key, value in attrs.items():
            if key == "data-search-exclude" or (key == "class" and value == "linenodiv"):
                if tag not in self.skip:  # every open element of that tag now counts, this one too
                    self.skip.add(tag)
                    self.skipped += self.open[tag]
                return
        if tag in KEPT_TAGS and not self.skipping():
            self.kept_in().append(f"<{tag}>")

    def end(self, tag: str) -> None:
        if not self.context or self.context[-1][0] != tag:
            return
        depth = len(self.context)
        if self.section.depth > depth:  # leaving the element a heading was nested in: back to the section before
            for section in reversed(self.data):
                if section.depth <= depth:
                    self.section.depth = float("inf")  # never taken up again
                    self.section = section
                    break
        _, permalink = self.context.pop()
        self.open[tag] -= 1
        self.permalinks -= permalink
        if tag in self.skip:
            self.skipped -= 1
            if tag not in ALWAYS_SKIPPED:
                self.skip.discard(tag)
                self.skipped -= self.open[tag]  # the other open elements of that tag count no longer
            return
        if tag in KEPT_TAGS and not self.skipping():
            kept = self.kept_in()
            try:
                index = kept.index(f"<{tag}>")
            except ValueError:  # opened while it was skipped (its own data-search-exclude): nothing to close
                return
            if all(part.isspace() for part in kept[index + 1 :]):
                del kept[index:]  # an element with nothing but whitespace in it leaves
            else:
                kept.append(f"</{tag}>")

    def text(self, data: str) -> None:
        if self.skipping():
            return
        pre = self.open.get("pre", 0) > 0
        if not pre:
            data = " " if data.isspace() else data.replace("\n", " ")
        self.preface()
        if self.open.get(self.section.el.tag):
            if not self.permalinks:
                self.section.title.append(escape(data, quote=False))
        elif data.isspace():
            text = self.section.text
            if not text or not text[-1].isspace() or pre:
                text.append(data)
        else:
            self.section.text.append(escape(data, quote=False))


def _attributes(node: LexborNode) -> dict[str, str]:
    """An element's attributes as Material's tokenizer reads them back from lexbor's output: a valueless one is
    ``""`` (data-search-exclude)."""
    return {k: "" if v is None else v for k, v in node.attributes.items()}


def search_plugin(config: Any) -> Any:
    """Material's search plugin, whose index ``BuildState.post_build`` reshapes; None when it is off."""
    for plugin in config.plugins.values():
        index = getattr(plugin, "search_index", None)
        if index is not None and isinstance(getattr(index, "entries", None), list):
            return plugin
    return None


def index_pages_by_walk(plugin: Any, sections: Callable[[str, Callable[[], Any]], Any] | None = None) -> None:
    """Material's search plugin reads each page's sections by its parser's rules applied in a walk over a lexbor
    parse (_Sections), not by its html.parser tokenizer: the same entries (tests/test_search_index.py builds the
    real site and an attacker's and compares them page by page), in about a third of the time. ``sections(content,
    read)``: where a page's sections are kept by its content (ContentCache.get), ``read`` making them when not."""
    index = plugin.search_index
    index.add_entry_from_context = functools.partial(add_entry_from_context, index, sections=sections)


def add_entry_from_context(
    index: Any, page: Any, sections: Callable[[str, Callable[[], Any]], Any] | None = None
) -> None:
    """What Material's ``SearchIndex.add_entry_from_context`` does for ``page``, its sections read by _Sections."""
    if excluded(page.meta):
        return
    content = page.content
    found = sections(content, lambda: entry_sections(content)) if sections else entry_sections(content)
    for section in found:  # a copy: Material gives a section without a title the page's title
        index.create_entry_for_section(copy.copy(section), page.toc, page.url, page)


def excluded(meta: Mapping[str, Any]) -> bool:
    """Whether a page's front matter leaves it out of the search index (``search: {exclude: true}``)."""
    return bool((meta.get("search") or {}).get("exclude"))


def entry_sections(content: str) -> tuple[Any, ...]:
    """The sections of a page's content that Material's index makes entries of."""
    body = LexborHTMLParser(f"<body>{content}</body>").body
    assert body is not None
    return tuple(section for section in _Sections().walk(body) if not section.is_excluded())


def section_texts(content: str) -> dict[str, str]:
    """Index text per section of a page, keyed by heading id ("" for the page's first section)."""
    return search_page(content).texts


def search_page(
    content: str | LexborHTMLParser,
    scenario: object = None,
    markdown: str = "",
    source_map: SourceMap | None = None,
    inclusions: Sequence[Inclusion] = (),
) -> SearchPage:
    """A page's sections as the index takes them: `content` is its HTML (or that HTML parsed, wrapped in <body>,
    which this changes); `scenario` its front matter's (anything
    but a string is none); `markdown` and `source_map` what its Markdown became (theory expanded), from which the
    sections expanded from a snippet are known; `inclusions` the snippets it includes, whose introductions land
    in the section of the heading they are included under."""
    tree = content if isinstance(content, LexborHTMLParser) else LexborHTMLParser(f"<body>{content}</body>")
    return with_shared(section_facts(tree), scenario, markdown, source_map, inclusions)


SectionFacts = tuple[dict[str, str], dict[str, str], frozenset[str]]  # SearchPage's texts, up and api


def section_facts(tree: LexborHTMLParser) -> SectionFacts:
    """What search_page reads from the page's HTML alone (it changes ``tree``): each section's text, the heading
    each sits under, and which are API entries."""
    sections = _Sections().walk(index_tree(tree))
    texts: dict[str, str] = {}
    up: dict[str, str] = {}
    api: set[str] = set()
    above: list[tuple[int, str]] = []  # the headings (h2 and deeper) the current one sits under: level, id
    for section in sections:
        if section.is_excluded():
            continue
        key = section.id or ""
        texts[key] = _squeeze("".join(section.text))
        level = int(section.el.tag[1]) if re.fullmatch(r"h[1-6]", section.el.tag) else 1
        while above and above[-1][0] >= level:
            above.pop()
        if above and key:
            up[key] = above[-1][1]
        if level >= 2 and key:
            above.append((level, key))
        if "doc-heading" in str(section.el.attrs.get("class") or "").split():
            api.add(key)
    return texts, up, frozenset(api)


def with_shared(
    facts: SectionFacts,
    scenario: object = None,
    markdown: str = "",
    source_map: SourceMap | None = None,
    inclusions: Sequence[Inclusion] = (),
) -> SearchPage:
    """search_page from the page's section_facts and what its Markdown tells."""
    texts, up, api = facts
    shared = {k: v for k, v in shared_sections(markdown, source_map, inclusions).items() if k in texts}
    return SearchPage(texts, up, api, shared, scenario if isinstance(scenario, str) else None)


def shared_sections(
    markdown: str, source_map: SourceMap | None, inclusions: Sequence[Inclusion] = ()
) -> dict[str, str]:
    """Heading id -> what the section shares with its copies on other pages: the snippet line its heading came
    from (every heading the theory expansion writes carries its id: ``### Title { #snippet-title }``), or, for a
    page's own heading that a snippet is included under, the names of the snippets whose introduction it holds."""
    shared: dict[str, str] = {}
    if source_map is not None:
        for i, line in enumerate(markdown.split("\n")):
            heading = parse_heading(line) if line.startswith("#") else None
            if heading is None or heading.explicit_id is None:
                continue
            origin = source_map.at(i)
            if origin.included_from:
                shared[heading.explicit_id] = f"{origin.path}:{origin.line}"
    intros: dict[str, set[str]] = {}
    for inclusion in inclusions:
        if inclusion.depth == 0 and inclusion.section_id and inclusion.section_id not in shared:
            intros.setdefault(inclusion.section_id, set()).add(inclusion.name)
    for section, names in intros.items():
        shared[section] = "theory:" + "+".join(sorted(names))
    return shared


# Where a section's synonym keys are kept: ``kept(key, make)`` gives what ``make()`` made for that key before (the
# build's ContentCache: a section whose title and text did not change since the last index, of this build or of the
# last, is not read again), or makes it
Kept = Callable[[str, Callable[[], str]], str]


def _made(key: str, make: Callable[[], str]) -> str:
    return make()


def shape_index(index: dict[str, Any], pages: Mapping[str, SearchPage], kept: Kept = _made) -> dict[str, Any]:
    """Material's index with each section's text replaced by the text of `pages` (page URL -> SearchPage), the
    synonym entries each section spells in its ``keys`` field (``kept`` keeps them by the section's title and text),
    and what the worker ranks with.

    A section missing there (a page `mkdocs serve --dirty` did not rebuild) keeps Material's text without
    its code blocks."""
    config = index["config"]
    separator = config["separator"]
    vocabulary = spellings(separator)
    docs = []
    for doc in index["docs"]:
        page, _, section = doc["location"].partition("#")
        shaped = pages.get(page)
        text = shaped.texts[section] if shaped is not None and section in shaped.texts else _without_code(doc["text"])
        new = {**doc, "text": text}
        title = doc["title"]
        keys = kept(
            f"{separator}\x00{title}\x00{text}",
            lambda: " ".join(synonym_keys(words(_plain(title) + " " + _plain(text), separator), vocabulary)),  # noqa: B023
        )
        if keys:
            new[KEYS_FIELD] = keys
        docs.append(new)
    fields = {**config.get("fields", {}), KEYS_FIELD: {"boost": 1.0}}
    return {
        **index,
        "config": {**config, "fields": fields},
        "docs": docs,
        "perfdocs": ranking_data(docs, pages, separator),
    }


def ranking_data(docs: Sequence[Mapping[str, Any]], pages: Mapping[str, SearchPage], separator: str) -> dict[str, Any]:
    """What docs/assets/search-worker.js ranks with, beside the documents:

    - ``synonyms``: [index word, [spelling as words, ...]] per entry of SYNONYMS;
    - ``facets``: dimension -> value -> [the words that name it in a query, as words];
    - ``pages``: page URL -> its facet values (dimension -> value);
    - ``sections``: location -> {"up": the location of the heading it sits under, "shared": the key its
      copies share, "api": 1 for an API entry}, for the sections that have any of these."""
    sections: dict[str, dict[str, Any]] = {}
    for doc in docs:
        page, _, section = doc["location"].partition("#")
        shaped = pages.get(page)
        if shaped is None or not section:
            continue
        facts: dict[str, Any] = {}
        if section in shaped.up:
            facts["up"] = f"{page}#{shaped.up[section]}"
        if section in shaped.shared:
            facts["shared"] = shaped.shared[section]
        if section in shaped.api:
            facts["api"] = 1
        if facts:
            sections[doc["location"]] = facts
    urls = list(dict.fromkeys(doc["location"].partition("#")[0] for doc in docs))
    return {
        "synonyms": [[key, [list(spelling) for spelling in group]] for key, group in spellings(separator)],
        "facets": {
            dimension: {value: [words(s, separator) for s in names] for value, names in values.items()}
            for dimension, values in FACETS.items()
        },
        "pages": page_facets(urls, {url: page.scenario for url, page in pages.items()}),
        "sections": sections,
    }


def page_facets(urls: Iterable[str], scenarios: Mapping[str, str | None]) -> dict[str, dict[str, str]]:
    """Each page's facet values: its scenario's, or, without a scenario, the values that every scenario page
    under its folder shares (none when no scenario page is there)."""
    own = {url: SCENARIO_FACETS[s] for url, s in scenarios.items() if s in SCENARIO_FACETS}
    result = {}
    for url in urls:
        if url in own:
            result[url] = dict(own[url])
            continue
        below = [facets for page, facets in own.items() if page != url and page.startswith(url)]
        result[url] = {k: v for k, v in below[0].items() if all(f.get(k) == v for f in below)} if below else {}
    return result


Vocabulary = tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]


@functools.cache
def spellings(separator: str) -> Vocabulary:
    """Each synonym entry as (the word the index stores for it: its first spelling's words run together, its
    spellings as the index's words)."""
    entries = []
    for group in SYNONYMS:
        split = [tuple(words(spelling, separator)) for spelling in group]
        entries.append(("".join(split[0]), tuple(dict.fromkeys(split))))
    return tuple(entries)


def synonym_keys(tokens: Sequence[str], vocabulary: Vocabulary) -> list[str]:
    """The index words of the synonym entries that `tokens` spell (matched as the worker matches a query: words
    of more than two letters also as prefixes)."""
    text = f" {' '.join(tokens)} "
    return [key for key, pattern in _entry_patterns(vocabulary) if pattern.search(text)]


def words(text: str, separator: str) -> list[str]:
    """`text` split as the index splits it, lowercased (Material's tokenizer with the configured separator)."""
    return [w for w in _compiled(separator).split(text.lower()) if w]


def stub_index(index: dict[str, Any]) -> dict[str, Any]:
    """What every page load fetches: the configuration (the highlighter needs its separator), no documents."""
    return {"config": index["config"], "docs": []}


def dump(index: dict[str, Any]) -> str:
    """The compact JSON Material writes."""
    return json.dumps(index, ensure_ascii=False, separators=(",", ":"))


def index_size(full: str, stub: str, sections: int) -> IndexSize:
    data = full.encode("utf-8")
    return IndexSize(sections, len(data), len(gzip.compress(data, compresslevel=6, mtime=0)), len(stub.encode()))


def write_index(site: Path, pages: Mapping[str, SearchPage], kept: Kept = _made) -> Callable[[], IndexSize] | None:
    """Rewrite the index Material wrote into `site`: the shaped index (shape_index) to FULL_INDEX, the stub in its
    place. Gives
    what gives the index's size: its gzipped size is measured in a thread meanwhile (zlib lets the caller's thread
    run; about 20 ms for this site's index).

    None when there is no index (search is off)."""
    path = site / INDEX
    if not path.is_file():
        return None
    index = shape_index(json.loads(path.read_text(encoding="utf-8")), pages, kept)
    full, stub = dump(index), dump(stub_index(index))
    (site / FULL_INDEX).write_text(full, encoding="utf-8")
    path.write_text(stub, encoding="utf-8")
    measured: list[IndexSize] = []
    thread = threading.Thread(target=lambda: measured.append(index_size(full, stub, len(index["docs"]))))
    thread.start()

    def size() -> IndexSize:
        thread.join()
        return measured[0]

    return size


def _is_matrix(table: LexborNode) -> bool:
    """The generated technique matrix: its cells are ✓ links that carry screen-reader text."""
    return any(link.css_first(".perfdocs-sr-only") is not None for link in table.css("td a"))


def _label_blocks(tabs: LexborNode) -> None:
    """Put each tab's label in front of its block's prose ("Accelerate: ..."); drop the row of labels, whose
    text runs together. Tab sets nest, so only the set's own children are read."""
    parts = {
        name: child
        for child in tabs.iter(include_text=False)
        if child.tag == "div"
        for name in (child.attributes.get("class") or "").split()
    }
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


def _plain(html: str) -> str:
    """The text of an HTML fragment (a section title), its elements' texts apart."""
    root = LexborHTMLParser(html, is_fragment=True).root
    return _squeeze(root.text(separator=" ") if root is not None else "")


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _compiled(separator: str) -> re.Pattern[str]:
    if separator not in _PATTERNS:  # the separator, or any run of white space
        _PATTERNS[separator] = re.compile(rf"(?:{separator})|\s+")
    return _PATTERNS[separator]


@functools.lru_cache(maxsize=4)
def _entry_patterns(vocabulary: Vocabulary) -> list[tuple[str, re.Pattern[str]]]:
    """Per entry, a pattern that finds any of its spellings as a run of words in the words joined by spaces
    (with one before and after): a word of more than two letters matches as a prefix, a shorter one whole."""

    def run(spelling: tuple[str, ...]) -> str:
        return "".join(f" {re.escape(word)}" + (r"\S*" if len(word) > 2 else "") for word in spelling) + "(?= )"

    return [(key, re.compile("|".join(run(spelling) for spelling in group if spelling))) for key, group in vocabulary]


__all__ = [
    "FULL_INDEX",
    "INDEX",
    "IndexSize",
    "SearchPage",
    "add_entry_from_context",
    "dump",
    "index_html",
    "index_pages_by_walk",
    "index_size",
    "page_facets",
    "ranking_data",
    "search_page",
    "search_plugin",
    "section_texts",
    "shape_index",
    "shared_sections",
    "spellings",
    "stub_index",
    "synonym_keys",
    "words",
    "write_index",
]
