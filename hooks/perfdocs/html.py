"""One HTML5 parse per page (lexbor, through selectolax): its links, its ids, its base URL and redirect data.

The parser decides what is markup: text inside ``<script>``, ``<style>``, ``<textarea>`` and comments is
never a link, entities are decoded, attribute names are case-insensitive, a tag may span lines and an
attribute value may hold ``>``. lexbor keeps no source positions, so the line of a tag is found on demand
(:func:`locate`), by the same parser, only for the few links a report names.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import NamedTuple

from selectolax.lexbor import LexborHTMLParser

# Which attributes of which elements hold a URL the browser fetches or navigates to.
LINK_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "a": ("href",),
    "area": ("href",),
    "link": ("href",),
    "img": ("src", "srcset"),
    "source": ("src", "srcset"),
    "iframe": ("src",),
    "embed": ("src",),
    "script": ("src",),
    "track": ("src",),
    "audio": ("src",),
    "video": ("src", "poster"),
    "object": ("data",),
}
# One selector list, one walk of the tree: every element that may carry a link, an id, a base or a refresh.
# lexbor returns an element once per selector it matches; links and ids are collected as sets, so that is harmless.
SELECTOR = "[href], [src], [srcset], [poster], object[data], [id], a[name], meta[http-equiv]"
ASCII_WHITESPACE = "\t\n\f\r "
ANY_WHITESPACE = re.compile(r"[\t\n\f\r ]")
REDIRECT_SCRIPT_START = "var t="  # the script redirects.PAGE_TEMPLATE writes: var t=<json string>,m=<json object>


class Link(NamedTuple):
    url: str  # the attribute value as the browser reads it: entities decoded, surrounding whitespace removed
    tag: str
    attribute: str  # srcset yields one Link per candidate; a meta refresh is ("meta", "content")


# (tag, attribute) pairs built once: a page's links point at these instead of allocating their own
SOURCES: dict[str, tuple[tuple[str, tuple[str, str]], ...]] = {
    tag: tuple((name, (tag, name)) for name in names) for tag, names in LINK_ATTRIBUTES.items()
}
META_REFRESH = ("meta", "content")


@dataclass
class PageHTML:
    urls: dict[str, tuple[str, str]]  # every URL linked (srcset: each candidate) -> (tag, attribute) of first use
    ids: set[str]  # every id and <a name>, entities decoded
    base: str | None = None  # href of the first <base href>
    refresh: str | None = None  # URL of a <meta http-equiv="refresh">; also in urls
    remaps: dict[str, str] = field(default_factory=dict)  # redirect page: fragment -> href, from its script

    @property
    def links(self) -> list[Link]:
        """The distinct links of the page in document order, each with the tag and attribute of its first use."""
        return [Link(url, tag, attribute) for url, (tag, attribute) in self.urls.items()]


def parse_page(text: str) -> PageHTML:
    """Links, ids, base and redirect data of one HTML page, from one parse."""
    return read_tree(LexborHTMLParser(text))


def read_tree(tree: LexborHTMLParser) -> PageHTML:
    """What parse_page reads, from a page already parsed (the build's search index reads the same tree next)."""
    raw: dict[str, tuple[str, str]] = {}  # attribute values as the parser decoded them, in document order
    page = PageHTML(raw, set())
    for node in tree.css(SELECTOR):
        attrs = node.attributes
        ident = attrs.get("id")
        if ident:
            page.ids.add(ident)
        tag = node.tag or ""
        sources = SOURCES.get(tag)
        if sources is not None:
            for name, source in sources:
                value = attrs.get(name)
                if value is None:
                    continue
                if name == "srcset":
                    for url in srcset_urls(value):
                        raw.setdefault(url, source)
                else:
                    raw.setdefault(value, source)
            if tag == "a" and attrs.get("name"):
                page.ids.add(attrs["name"] or "")
        elif tag == "base" and page.base is None and "href" in attrs:
            page.base = _url(attrs["href"] or "")
        elif tag == "meta" and page.refresh is None and (attrs.get("http-equiv") or "").lower() == "refresh":
            page.refresh = refresh_url(attrs.get("content") or "")
            if page.refresh is not None:
                raw.setdefault(page.refresh, META_REFRESH)
    page.urls = _cleaned(raw)
    if page.refresh is not None:
        page.remaps = _redirect_remaps(tree)
    return page


def page_ids(text: str) -> set[str]:
    """Every id and legacy ``<a name>`` of an HTML page."""
    return parse_page(text).ids


def _cleaned(raw: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Attribute values as URL strings (each distinct value cleaned once)."""
    if not ANY_WHITESPACE.search("".join(raw)):  # one scan for the usual page, where no URL has any
        return raw
    out: dict[str, tuple[str, str]] = {}
    for value, source in raw.items():
        out.setdefault(_url(value), source)
    return out


def _url(value: str) -> str:
    """An attribute value as a URL string: the URL parser drops surrounding whitespace, tabs and newlines."""
    value = value.strip(ASCII_WHITESPACE)
    if "\t" in value or "\n" in value or "\r" in value:
        value = value.replace("\t", "").replace("\n", "").replace("\r", "")
    return value


def srcset_urls(value: str) -> list[str]:
    """The URL of every image candidate of a ``srcset`` (the HTML standard's srcset parsing, URLs only)."""
    urls: list[str] = []
    pos, end = 0, len(value)
    while True:
        while pos < end and (value[pos] in ASCII_WHITESPACE or value[pos] == ","):
            pos += 1
        if pos >= end:
            return urls
        start = pos
        while pos < end and value[pos] not in ASCII_WHITESPACE:
            pos += 1
        url = value[start:pos]
        if url.endswith(","):
            urls.append(url.rstrip(","))
            continue
        urls.append(url)
        pos = _skip_descriptors(value, pos)


def _skip_descriptors(value: str, pos: int) -> int:
    """Past a candidate's descriptors: up to the first comma that is not inside parentheses."""
    depth = 0
    while pos < len(value):
        char = value[pos]
        if char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif char == "," and not depth:
            return pos + 1
        pos += 1
    return pos


def refresh_url(content: str) -> str | None:
    """The URL of a ``<meta http-equiv="refresh">`` content value (the HTML standard's refresh parsing).

    None when the content is not a valid refresh or names no URL (a plain reload).
    """
    pos, end = _skip_whitespace(content, 0), len(content)
    start = pos
    while pos < end and content[pos].isdigit():
        pos += 1
    if pos == start and not content.startswith(".", pos):
        return None
    while pos < end and (content[pos].isdigit() or content[pos] == "."):
        pos += 1
    if pos == end:
        return None
    if content[pos] not in ";," + ASCII_WHITESPACE:
        return None
    pos = _skip_whitespace(content, pos)
    if content.startswith((";", ","), pos):
        pos = _skip_whitespace(content, pos + 1)
    if pos == end:
        return None
    url = content[pos:]
    if content[pos : pos + 3].lower() == "url":
        after = _skip_whitespace(content, pos + 3)
        if content.startswith("=", after):
            pos = _skip_whitespace(content, after + 1)
            url = content[pos:]
    if url[:1] in ("'", '"'):
        url = url[1:].split(url[0], 1)[0]
    url = _url(url)
    return url or None


def _skip_whitespace(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in ASCII_WHITESPACE:
        pos += 1
    return pos


def _redirect_remaps(tree: LexborHTMLParser) -> dict[str, str]:
    """The fragment remaps of a redirect page, read as JSON from its script's ``m=`` value."""
    decoder = json.JSONDecoder()
    for script in tree.css("script"):
        code = script.text(deep=True)
        start = code.find(REDIRECT_SCRIPT_START)
        if start < 0:
            continue
        try:
            _, pos = decoder.raw_decode(code, start + len(REDIRECT_SCRIPT_START))
            if not code.startswith(",m=", pos):
                continue
            remaps, _ = decoder.raw_decode(code, pos + 3)
        except ValueError:
            continue
        if isinstance(remaps, dict) and all(isinstance(v, str) for v in remaps.values()):
            return {str(k): v for k, v in remaps.items()}
    return {}


def _has_link(prefix: str, url: str) -> bool:
    return url in parse_page(prefix).urls


def locate(text: str, url: str) -> tuple[int, int]:
    """1-based (line, column) of the start tag of the first element whose link is ``url``; (1, 1) if none.

    HTML parsing is incremental: an element exists in the parse of a prefix of the page exactly when its
    start tag is complete in that prefix (a tag cut off by the end is dropped; nothing before it changes).
    So the end of the tag is the shortest prefix whose parse has the link. A candidate spelling of the URL
    found as text is tried first (two parses); when it does not prove out (entities, srcset, odd spacing,
    a '<' or '>' in a quoted value), a bisection over prefixes finds the end (about 17 parses). The start
    is then the last '<' followed by a letter before the end (off only when a quoted value of that very
    tag holds such a '<').
    """
    end = _candidate_end(text, url)
    if end is None:
        if not _has_link(text, url):
            return 1, 1
        end = _bisect_end(text, url)
    start = _tag_start(text, end)
    line_start = text.rfind("\n", 0, start) + 1
    return text.count("\n", 0, start) + 1, start - line_start + 1


def _candidate_end(text: str, url: str, tries: int = 3) -> int | None:
    """The end of the tag holding ``url`` written plainly, when two parses confirm that tag creates it."""
    spellings = dict.fromkeys([url, url.replace("&", "&amp;")])
    for spelling in spellings:
        pos = text.find(spelling)
        for _ in range(tries):
            if pos < 0:
                break
            start, end = text.rfind("<", 0, pos), text.find(">", pos) + 1
            inside = text[start + 1 : end - 1] if start >= 0 and end > 0 else "<"
            if "<" not in inside and ">" not in inside:
                if not _has_link(text[:start], url) and _has_link(text[:end], url):
                    return end
            pos = text.find(spelling, pos + 1)
    return None


def _bisect_end(text: str, url: str) -> int:
    """The length of the shortest prefix of ``text`` whose parse has a link to ``url`` (which the whole has)."""
    low, high = 0, len(text)  # _has_link(text[:low]) is false, _has_link(text[:high]) is true
    while high - low > 1:
        mid = (low + high) // 2
        if _has_link(text[:mid], url):
            high = mid
        else:
            low = mid
    return high


def _tag_start(text: str, end: int) -> int:
    """Where the start tag ending at ``end`` begins: the last '<' followed by a letter before it."""
    pos = text.rfind("<", 0, end)
    while pos > 0 and not text[pos + 1 : pos + 2].isalpha():
        pos = text.rfind("<", 0, pos)
    return max(pos, 0)


__all__ = [
    "LINK_ATTRIBUTES",
    "Link",
    "PageHTML",
    "locate",
    "page_ids",
    "parse_page",
    "read_tree",
    "refresh_url",
    "srcset_urls",
]
