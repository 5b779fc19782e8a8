"""The allowlist that decides what HTML may reach a page, applied with nh3 (ammonia).

``unsafe_constructs(fragment)`` says what the allowlist would remove from one raw-HTML fragment
of a Markdown page, with the offset of each construct, so the dialect can report it at its
Markdown line. ``clean_page(html)`` applies the same allowlist to a page's rendered content in
every build mode, then turns the dialect's YouTube placeholders into the privacy-enhanced embed.
Both are pure: they return their result and the findings, and never log.

The decision of what is removed comes from a real HTML5 parser (lexbor, through selectolax,
parsing the text as a ``<div>`` fragment the way ammonia does); offsets are located in the text
afterwards with a small start-tag reader.
"""

from __future__ import annotations

import functools
import html as html_lib
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from typing import Any, TypeVar
from urllib.parse import urlsplit

import nh3
from markdown.extensions.attr_list import get_attrs_and_remainder, sanitize_name
from pygments.token import STANDARD_TYPES
from selectolax.lexbor import LexborHTMLParser, LexborNode

from .embeds import EmbedHosts, embed_address, placeholder
from .html import srcset_urls

__all__ = [
    "ALLOWED_ATTRIBUTES",
    "ALLOWED_TAGS",
    "URL_SCHEMES",
    "Finding",
    "clean_page",
    "marked",
    "replaced",
    "unsafe_constructs",
]

FORBIDDEN_HTML, UNSAFE_URL, RESERVED_NAME = "forbidden-html", "unsafe-url", "reserved-name"
REMOVED_HTML = frozenset({FORBIDDEN_HTML, UNSAFE_URL, RESERVED_NAME})  # the codes of what the allowlist removes
REMOVED_HINT = "removed from the page"  # the hint of what the allowlist removes (an attribute, a whole element)

# MathML as KaTeX 0.16 writes it (output: "mathml"; the trust option off, so no mglyph and no href): the
# elements and, per element, the attributes its MathML builders set. No annotation-xml (an HTML integration
# point), no maction, no style (only \pmb and \fcolorbox write one; mathtex drops it before the page).
MATHML_ATTRIBUTES: dict[str, frozenset[str]] = {
    tag: frozenset(names.split())
    for tag, names in {
        "math": "xmlns display",
        "semantics": "",
        "annotation": "encoding",
        "mrow": "",
        "mi": "mathvariant",
        "mn": "mathvariant",
        "mo": "fence stretchy lspace rspace minsize maxsize largeop separator mathvariant",
        "mtext": "mathvariant",
        "mspace": "width height depth linebreak mathbackground",
        "msup": "",
        "msub": "",
        "msubsup": "",
        "mfrac": "linethickness",
        "msqrt": "",
        "mroot": "",
        "mover": "accent",
        "munder": "accentunder",
        "munderover": "accent accentunder",
        "mtable": "rowspacing rowlines columnalign columnspacing columnlines width",
        "mtr": "",
        "mtd": "width",
        "mstyle": "displaystyle scriptlevel mathcolor mathsize mathbackground",
        "mpadded": "width height depth lspace voffset mathbackground",
        "mphantom": "",
        "menclose": "notation mathbackground",
    }.items()
}
MATHML_TAGS = frozenset(MATHML_ATTRIBUTES)
ALLOWED_TAGS = (
    frozenset(
        """
a abbr acronym address article aside b bdi bdo blockquote br caption center cite code col colgroup data dd
del details dfn div dl dt em figcaption figure footer h1 h2 h3 h4 h5 h6 header hgroup hr i img input ins kbd
label li main mark nav ol p picture pre q rp rt rtc ruby s samp section small source span strike strong sub
summary sup table tbody td tfoot th thead time tr track tt u ul var video audio wbr
""".split()
    )
    | MATHML_TAGS
    | {"autoref"}  # mkdocs-autorefs' placeholder for [`Name`] links, replaced by an <a> after every page is built
)
GENERIC_ATTRIBUTES = frozenset({"id", "class", "title", "lang", "dir", "role", "hidden", "translate"})
GENERIC_PREFIXES = frozenset({"data-", "aria-"})
ALLOWED_ATTRIBUTES: dict[str, frozenset[str]] = {
    "*": GENERIC_ATTRIBUTES | {"style"},  # its declarations filtered to STYLE_PROPERTIES
    "a": frozenset({"href", "hreflang", "name", "rel", "target", "type", "download"}),
    "img": frozenset({"src", "srcset", "sizes", "alt", "width", "height", "loading", "decoding", "align"}),
    "source": frozenset({"src", "srcset", "sizes", "type", "media", "width", "height"}),
    "video": frozenset({"src", "poster", "width", "height", "controls", "muted", "loop", "playsinline", "preload"}),
    "audio": frozenset({"src", "controls", "muted", "loop", "preload"}),
    "track": frozenset({"src", "kind", "srclang", "label", "default"}),
    "input": frozenset({"type", "name", "checked", "disabled"}),
    "label": frozenset({"for"}),
    "details": frozenset({"open", "name"}),
    "ol": frozenset({"start", "reversed", "type"}),
    "li": frozenset({"value"}),
    "time": frozenset({"datetime"}),
    "data": frozenset({"value"}),
    "del": frozenset({"cite", "datetime"}),
    "ins": frozenset({"cite", "datetime"}),
    "q": frozenset({"cite"}),
    "blockquote": frozenset({"cite"}),
    "abbr": frozenset({"title"}),
    "bdo": frozenset({"dir"}),
    "table": frozenset({"summary", "align"}),
    "col": frozenset({"span", "align", "width"}),
    "colgroup": frozenset({"span", "align", "width"}),
    "th": frozenset({"colspan", "rowspan", "headers", "scope", "align", "style"}),
    "td": frozenset({"colspan", "rowspan", "headers", "align", "style"}),
    "tr": frozenset({"align"}),
    "thead": frozenset({"align"}),
    "tbody": frozenset({"align"}),
    "tfoot": frozenset({"align"}),
    "hr": frozenset({"width", "size", "align"}),
    **MATHML_ATTRIBUTES,
    "autoref": frozenset(
        {"identifier", "slug", "optional", "hover", "backlink-type", "backlink-anchor"}
        | {"domain", "role", "origin", "filepath", "lineno"}
    ),
}
URL_SCHEMES = frozenset({"http", "https", "mailto"})
# Attributes holding URLs. ammonia checks the scheme of href, src, poster and a few others itself;
# cite and srcset it passes through, so clean_page filters those two (see _url_filter).
URL_ATTRIBUTES = frozenset({"href", "src", "cite", "poster", "srcset", "action", "formaction", "data", "xlink:href"})
# What pages may say with style="...": Python-Markdown's tables write text-align; pages pasted from doc-builder
# write layout like <span style="white-space:nowrap">. Nothing that can move content over the page's own
# (position, z-index, transform, margins) or load anything (url() in background).
STYLE_PROPERTIES = frozenset(
    {"text-align", "white-space", "vertical-align", "font-weight", "font-style", "text-decoration"}
    | {"width", "max-width", "min-width", "height", "max-height", "float"}
    | {"border", "border-radius", "padding"}  # boxes around a figure or a note: they stay inside the element
)
# Names the theme and the site's scripts find elements by. Content using them stands in for the theme's own
# elements: Material reads its settings from the first element with id __config (a page's <div id="__config">
# would point the search worker at a data: URL), binds components to data-md-* attributes, and its md-* classes
# bring fixed-position panels a page could lay over the whole screen. Pages never write them; the dialect and
# the Markdown extensions write only the forms below.
RESERVED_ID_PREFIXES = ("__", "md-")
RESERVED_CLASS_PREFIXES = ("md-",)
RESERVED_ATTRIBUTE_PREFIXES = ("data-md-",)
# Authors' raw HTML may not use the names the site's scripts and the hooks act on either: the calculator mounts on
# .perfdocs-estimator, the page actions and tab hints are found by class, a .perfdocs-embed loads its iframe.
AUTHOR_RESERVED_CLASS_PREFIXES = (
    "md-",
    "perfdocs-estimator",
    "perfdocs-page-actions",
    "perfdocs-tab-hint",
    "perfdocs-report",
    "perfdocs-embed",
)
AUTHOR_RESERVED_ATTRIBUTE_PREFIXES = ("data-md-", "data-perfdocs-")
# The classes content keeps: what the dialect, the Markdown extensions (admonition, pymdownx.details/tabbed/
# highlight, toc), mkdocstrings and KaTeX write. Any other class is dropped from the output (nothing styles it
# here); reserved ones are reported too.
CONTENT_CLASSES = frozenset(
    """
admonition admonition-title note abstract summary tldr info todo tip hint important success check done question
help faq warning caution attention failure fail missing danger error bug example quote cite
tabbed-set tabbed-alternate tabbed-labels tabbed-content tabbed-block highlight linenos linenodiv filename
headerlink toclink katex katex-display katex-error autorefs autorefs-internal autorefs-external doc first
""".split()
)
CONTENT_CLASS_PREFIXES = ("doc-", "perfdocs-", "language-")
CLEAN_CONTENT_TAGS = frozenset({"script", "style"})
# Known elements the allowlist removes: reported as "raw <x> is not allowed". Other unknown names
# (components such as <Tip>, custom elements) are the dialect's to report.
KNOWN_FORBIDDEN = frozenset(
    """
script style iframe frame frameset object embed applet form base meta link noscript template textarea
button select option optgroup fieldset legend output dialog canvas svg portal param title head body html
isindex keygen marquee xmp plaintext noembed noframes slot
""".split()
)

EMBED = "embed"  # the code of a finding that is no problem: an iframe from an allowed host, shown as a placeholder


@dataclass(frozen=True)
class Finding:
    """One construct the allowlist removes; ``offset`` is 0-based in the text that was checked.

    ``construct`` is what the construct is called in source text (``<script``, ``onerror``), and
    ``scheme`` the URL scheme of an unsafe-url finding, for a caller that has to find the construct
    again in the Markdown the HTML came from.
    """

    offset: int
    message: str
    code: str
    construct: str
    scheme: str = ""
    # the ranges of the checked text that removing the construct deletes: an attribute; an element's start and end
    # tags (its content stays), or the whole element for script and style; () where the text does not show them
    spans: tuple[tuple[int, int], ...] = ()
    replacement: str = ""  # the text that takes the first span's place (a style's allowed declarations)

    def needles(self) -> list[str]:
        """What to look for in source text, lower-cased, for the construct (construct_columns): a URL's scheme
        first, as a Markdown link or an attribute value writes it, then the attribute, name or tag."""
        return ([self.scheme + ":"] if self.code == UNSAFE_URL and self.scheme else []) + [self.construct.lower()]


def construct_columns(line: str, needle: str) -> Iterator[int]:
    """Columns of lower-cased source text where ``needle`` (Finding.needles) starts a construct: a tag, an
    attribute name or a URL scheme, not part of a longer word."""
    at = line.find(needle)
    while at >= 0:
        before = line[at - 1] if at else " "
        after = line[at + len(needle)] if at + len(needle) < len(line) else " "
        starts = needle.startswith("<") or not (before.isalnum() or before in "-_:")
        ends = needle.endswith(":") or not (after.isalnum() or after in "-_:")
        if starts and ends:
            yield at
        at = line.find(needle, at + 1)


# -- the allowlist as nh3 arguments --------------------------------------------------------------
_TAGS, _CLEAN_CONTENT, _PREFIXES = set(ALLOWED_TAGS), set(CLEAN_CONTENT_TAGS), set(GENERIC_PREFIXES)
_ATTRIBUTES = {tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()}
_SCHEMES, _STYLES = set(URL_SCHEMES), set(STYLE_PROPERTIES)


def _clean(html: str, tags: set[str] = _TAGS) -> str:
    return nh3.clean(
        html,
        tags=tags,
        clean_content_tags=_CLEAN_CONTENT,
        attributes=_ATTRIBUTES,
        attribute_filter=_attribute_filter,
        strip_comments=True,
        link_rel=None,
        generic_attribute_prefixes=_PREFIXES,
        url_schemes=_SCHEMES,
        filter_style_properties=_STYLES,
    )


_MEMO_VALUE = 200  # the longest attribute value whose answer is kept (a data: URL or a long style is not)
A = TypeVar("A")


def _kept_for_short_values(answer: Callable[..., A]) -> Callable[..., A]:
    """``answer(tag, name, value, ...)`` kept for values of at most _MEMO_VALUE characters: nh3 asks for every
    attribute of a page and the removal scan checks each again, and most repeat (Pygments' classes)."""
    kept = functools.lru_cache(maxsize=1 << 14)(answer)

    @functools.wraps(answer)
    def short_kept(tag: str, name: str, value: str, *rest: Any) -> A:
        return (kept if len(value) <= _MEMO_VALUE else answer)(tag, name, value, *rest)

    return short_kept


@_kept_for_short_values
def _attribute_filter(tag: str, attribute: str, value: str) -> str | None:
    """What nh3 keeps of each attribute it allows: the URL attributes ammonia does not check, the classes content
    may have, and no reserved id or data-md-* attribute (see RESERVED_ID_PREFIXES)."""
    if attribute == "class":
        names = value.split()
        if tag == "details" or "admonition" in names:  # an admonition's type is its class, and any word is a type
            kept = [name for name in names if not name.startswith(RESERVED_CLASS_PREFIXES)]
        else:
            kept = [name for name in names if is_content_class(name)]
        return value if len(kept) == len(names) else " ".join(kept) or None
    if attribute == "id":
        return None if reserved_id(value, written_by_extension=True) else value
    if attribute.startswith(RESERVED_ATTRIBUTE_PREFIXES):
        return None
    if attribute == "srcset":
        return value if all(_allowed_url(url) for url in srcset_urls(value)) else None
    if attribute == "cite":
        return value if _allowed_url(value) else None
    return value


def is_content_class(name: str) -> bool:
    """A class the dialect, the Markdown extensions or a Pygments token writes (see CONTENT_CLASSES)."""
    if name in CONTENT_CLASSES or name.startswith(CONTENT_CLASS_PREFIXES):
        return True
    short, *parts = name.split("-")  # Pygments: the token's short name, then sub-types ("l-Scalar-Plain")
    return short in _PYGMENTS_CLASSES and all(part[:1].isupper() for part in parts)


def reserved_id(value: str, written_by_extension: bool) -> bool:
    """An id the theme looks elements up by; ``written_by_extension``: the output, where pymdownx.tabbed's
    ``__tabbed_1_2`` and pymdownx.highlight's ``__codelineno-0-3`` are the extensions' own."""
    if not value.startswith(RESERVED_ID_PREFIXES):
        return False
    if written_by_extension:
        for prefix, separator in (("__tabbed_", "_"), ("__codelineno-", "-")):
            numbers = value.removeprefix(prefix).split(separator)
            if value.startswith(prefix) and all(n.isdigit() for n in numbers):
                return False
    return True


_PYGMENTS_CLASSES = frozenset(name for name in STANDARD_TYPES.values() if name)


# -- URLs ----------------------------------------------------------------------------------------
def url_scheme(value: str) -> str | None:
    """The scheme a browser sees in an attribute value (entities already decoded), lower case; None if relative.

    Browsers strip leading and trailing C0 controls and spaces and drop tabs and newlines anywhere,
    so ``"  java\\tscript:"`` is the javascript: scheme.
    """
    if ":" not in value:
        return None
    cleaned = value.strip(_C0_AND_SPACE).translate(_TAB_AND_NEWLINES)
    head, colon, _ = cleaned.partition(":")
    if not colon or not head or not head[0].isascii() or not head[0].isalpha():
        return None
    if not all(c.isascii() and (c.isalnum() or c in "+-.") for c in head):
        return None  # a colon later in a relative path ("a/b:c", "?q=x:y")
    return urlsplit(cleaned).scheme.lower() or None


_C0_AND_SPACE = "".join(chr(c) for c in range(0x21))
_TAB_AND_NEWLINES = {9: None, 10: None, 13: None}


def _allowed_url(value: str) -> bool:
    scheme = url_scheme(value)
    return scheme is None or scheme in URL_SCHEMES


def _bad_schemes(attribute: str, value: str) -> list[str]:
    urls = srcset_urls(value) if attribute == "srcset" else [value]
    schemes = [url_scheme(url) for url in urls]
    return [s for s in schemes if s is not None and s not in URL_SCHEMES]


# -- what the allowlist removes --------------------------------------------------------------------
@dataclass(frozen=True)
class _Removal:
    attribute: str | None  # None: the whole element
    message: str
    code: str
    scheme: str = ""
    construct: str = ""  # what the source wrote, when not the attribute's name (a reserved id or class)
    keeps_content: bool = True  # an element whose content may stay (no element in it is removed too)
    replacement: str = ""  # what an attribute becomes (a style keeps its allowed declarations)


@functools.lru_cache(maxsize=1024)
def _style_kept(value: str) -> tuple[str, tuple[str, ...]]:
    """The declarations of a style value nh3 keeps (STYLE_PROPERTIES only), and the properties it drops. Cached:
    every table cell Python-Markdown writes carries one of a few text-align values."""
    kept = nh3.clean(
        f'<span style="{html_lib.escape(value, quote=True)}">x</span>',
        tags={"span"},
        attributes={"span": {"style"}},
        filter_style_properties=set(STYLE_PROPERTIES),
    )
    style = LexborHTMLParser(kept, is_fragment=True).css_first("span")
    text = (style.attributes.get("style") if style is not None else None) or ""
    names = {d.partition(":")[0].strip().lower() for d in text.split(";")}
    dropped = [d.partition(":")[0].strip().lower() or d.strip() for d in value.split(";") if d.strip()]
    return text, tuple(name for name in dropped if name not in names)


def _reserved_removal(name: str, value: str, authored: bool) -> _Removal | None:
    """An id, class or data attribute the theme or the site's scripts rely on (RESERVED_ID_PREFIXES)."""
    if name == "id" and reserved_id(value, written_by_extension=not authored):
        message = f"id '{value}' is reserved for the theme (its ids start with two underscores or 'md-')"
        return _Removal(name, message, RESERVED_NAME, construct=value)
    if name == "class":
        prefixes = AUTHOR_RESERVED_CLASS_PREFIXES if authored else RESERVED_CLASS_PREFIXES
        taken = next((c for c in value.split() if c.startswith(prefixes)), None)
        if taken:
            message = f"class '{taken}' is reserved for the theme and the site's scripts"
            return _Removal(name, message, RESERVED_NAME, construct=taken)
    attribute_prefixes = AUTHOR_RESERVED_ATTRIBUTE_PREFIXES if authored else RESERVED_ATTRIBUTE_PREFIXES
    if name.startswith(attribute_prefixes):
        return _Removal(name, f"attribute '{name}' is reserved for the theme and the site's scripts", RESERVED_NAME)
    return None


@_kept_for_short_values
def _attribute_removal(tag: str, name: str, value: str, authored: bool) -> _Removal | None:
    """What the allowlist removes of one attribute."""
    if name.startswith("on"):
        return _Removal(name, f"event handler attribute '{name}' is not allowed in pages", FORBIDDEN_HTML)
    allowed = (
        name in ALLOWED_ATTRIBUTES["*"]
        or name in ALLOWED_ATTRIBUTES.get(tag, ())
        or any(name.startswith(p) for p in GENERIC_PREFIXES)
    )
    if not allowed:
        return _Removal(name, f"attribute '{name}' is not allowed in pages", FORBIDDEN_HTML)
    reserved = _reserved_removal(name, value, authored)
    if reserved:
        return reserved
    if name == "style":
        kept, dropped = _style_kept(value)
        if dropped:
            names = ", ".join(f"'{name}'" for name in dropped)
            message = (
                f"style propert{'ies' if len(dropped) > 1 else 'y'} {names} {'are' if len(dropped) > 1 else 'is'} "
                f"not allowed in pages (only {', '.join(sorted(STYLE_PROPERTIES))})"
            )
            kept_style = f' style="{html_lib.escape(kept)}"' if kept else ""
            return _Removal(name, message, FORBIDDEN_HTML, replacement=kept_style)
    if name in URL_ATTRIBUTES:
        bad = _bad_schemes(name, value)
        if bad:
            return _Removal(name, f"URL with the {bad[0]}: scheme is not allowed", UNSAFE_URL, bad[0])
    return None


def _embed(node: LexborNode, embeds: EmbedHosts) -> _Removal:
    """An author's iframe: the placeholder of an embed from an allowed host, else refused with its reason."""
    src = node.attributes.get("src")
    if not src:
        return _Removal(None, "raw <iframe> is not allowed in pages", FORBIDDEN_HTML)
    address, why = embed_address(src, embeds)
    if address is None:
        return _Removal(None, f"<iframe> not allowed: {why}", FORBIDDEN_HTML)
    title = node.attributes.get("title") or ""
    return _Removal(None, "", EMBED, keeps_content=False, replacement=placeholder(address, title))


def _element_removals(tag: str, node: LexborNode, authored: bool, embeds: EmbedHosts | None) -> list[_Removal]:
    if authored and tag == "iframe" and embeds is not None and (node.parent is None or node.parent.tag != "iframe"):
        return [_embed(node, embeds)]
    if authored and tag == "autoref":  # its attributes are written back unescaped when the link is resolved
        message = "raw <autoref> is not allowed in pages (mkdocs-autorefs' placeholder; write [`Name`] for an API link)"
        return [_Removal(None, message, FORBIDDEN_HTML)]
    if tag in KNOWN_FORBIDDEN:
        parent = (node.parent.tag or "").lower() if node.parent is not None else ""
        if parent in KNOWN_FORBIDDEN:
            return []  # inside an element already reported: it goes with it
        inside = list(node.traverse(include_text=False))[1:]  # traverse starts at the node itself
        inner = any((child.tag or "").lower() in KNOWN_FORBIDDEN for child in inside)
        return [_Removal(None, f"raw <{tag}> is not allowed in pages", FORBIDDEN_HTML, keeps_content=not inner)]
    if tag not in ALLOWED_TAGS:
        return []  # unknown names (components, custom elements): the dialect reports them
    return [
        r
        for name, value in node.attributes.items()
        if (r := _attribute_removal(tag, name.lower(), value or "", authored))
    ]


def _removals(text: str, authored: bool, embeds: EmbedHosts | None = None) -> list[tuple[str, int, list[_Removal]]]:
    """(tag, ordinal among the elements of that name, removals) for each element that loses something.

    ``authored``: ``text`` is raw HTML an author wrote (the toolchain's own names are refused too), else the
    rendered content, where the dialect and the extensions wrote them."""
    root = LexborHTMLParser(text, is_fragment=True).root
    if root is None:
        return []
    seen: dict[str, int] = {}
    found = []
    for node in root.traverse(include_text=False):
        tag = (node.tag or "").lower()
        if not tag or tag.startswith("-"):
            continue
        ordinal = seen.get(tag, 0)
        seen[tag] = ordinal + 1
        removals = _element_removals(tag, node, authored, embeds)
        if removals:
            found.append((tag, ordinal, removals))
    return found


def attribute_list(text: str) -> dict[str, str]:
    """The attributes an attribute list sets (``text``: what attr_list's pattern matched between ``{:`` and
    ``}``), as Python-Markdown sets them on an element: classes added up, a later value replacing an earlier one."""
    pairs, _ = get_attrs_and_remainder(text)
    attributes: dict[str, str] = {}
    for key, value in pairs:
        if key == ".":
            attributes["class"] = f"{attributes['class']} {value}" if attributes.get("class") else value or ""
        else:
            attributes[sanitize_name(key).lower()] = value or ""
    return attributes


def set_attribute_findings(attributes: Mapping[str, str], text: str) -> list[Finding]:
    """What the allowlist removes of ``attributes`` that Markdown sets on an element (an attribute list, a link
    reference definition's ``href``), each at its construct's offset in ``text``, the source that sets them.
    Python-Markdown picks the element: an attribute some element may carry is checked as that element's, and
    what the element it lands on may not carry is left to the check of the page's HTML."""
    found = []
    lowered = text.lower()
    for name, value in attributes.items():
        tag = next((tag for tag, names in ALLOWED_ATTRIBUTES.items() if name in names), "*")
        removal = _attribute_removal(tag, name, value, False)
        if removal is not None:
            finding = Finding(0, removal.message, removal.code, removal.construct or name, removal.scheme)
            offset = next((at for needle in finding.needles() for at in construct_columns(lowered, needle)), 0)
            found.append(replace(finding, offset=offset))
    return sorted(found, key=lambda f: f.offset)


def unsafe_constructs(fragment: str, embeds: EmbedHosts | None = None) -> list[Finding]:
    """What the allowlist would remove from one raw-HTML fragment of a page, in source order. With ``embeds``,
    an iframe from an allowed host is an EMBED finding whose replacement is its placeholder (embeds.py)."""
    return _findings(fragment, _removals(fragment, authored=True, embeds=embeds))


# -- locating a construct in the text ----------------------------------------------------------
@dataclass(frozen=True)
class StartTag:
    name: str
    offset: int
    end: int  # just past its '>'
    attributes: tuple[tuple[str, int, int, int], ...]  # (lower-case name, offset, end of value, start of space before)
    closed_at: tuple[int, int] | None = None  # the span of its end tag, where the text has one


class _StartTags(HTMLParser):
    """Offsets of the start tags in a text, with the span of each attribute, and the end tag of each."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.line_starts = [0, *(i + 1 for i, char in enumerate(text) if char == "\n")]
        self.text = text
        self.tags: list[StartTag] = []
        self.open: list[int] = []  # indexes of the start tags not closed yet
        self.feed(text)
        self.close()

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.line_starts[line - 1] + col

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        offset = self._offset()
        raw = self.get_starttag_text() or ""
        attributes = tuple((n, offset + i, offset + j, offset + k) for n, i, j, k in attribute_spans(raw))
        self.open.append(len(self.tags))
        self.tags.append(StartTag(tag.lower(), offset, offset + len(raw), attributes))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self.open.pop()

    def handle_endtag(self, tag: str) -> None:
        offset = self._offset()
        end = self.text.find(">", offset)
        name = tag.lower()
        for depth in range(len(self.open) - 1, -1, -1):  # the innermost open element of that name
            index = self.open[depth]
            if self.tags[index].name == name:
                del self.open[depth:]
                self.tags[index] = replace(self.tags[index], closed_at=(offset, len(self.text) if end < 0 else end + 1))
                return


def start_tags(text: str) -> list[StartTag]:
    """Every start tag of an HTML text in document order, with its offsets (html.parser's tokenizer)."""
    return _StartTags(text).tags


def attribute_spans(start_tag: str) -> list[tuple[str, int, int, int]]:
    """(lower-case name, offset, end, lead) of each attribute in one start tag's text, split as the HTML5
    tokenizer does: its name's offset, the end of its value, and where the white space before it starts."""
    space = " \t\n\f\r"
    i, n = 1, len(start_tag)
    while i < n and start_tag[i] not in space + "/>":
        i += 1
    found = []
    while i < n:
        before = i
        while i < n and start_tag[i] in space + "/":
            i += 1
        if i >= n or start_tag[i] == ">":
            break
        begin = i
        i += 1  # a name may start with '='
        while i < n and start_tag[i] not in space + "/>=":
            i += 1
        name = start_tag[begin:i].lower()
        end = i
        while i < n and start_tag[i] in space:
            i += 1
        if i < n and start_tag[i] == "=":
            i += 1
            while i < n and start_tag[i] in space:
                i += 1
            if i < n and start_tag[i] in "\"'":
                close = start_tag.find(start_tag[i], i + 1)
                i = n if close < 0 else close + 1
            else:
                while i < n and start_tag[i] not in space + ">":
                    i += 1
            end = i
        newline = start_tag.rfind("\n", before, begin)
        found.append((name, begin, end, before if newline < 0 else newline + 1))  # the line break stays
    return found


def _findings(text: str, removals: list[tuple[str, int, list[_Removal]]]) -> list[Finding]:
    """Each removal at its offset: the n-th element named x is the n-th start tag named x in the text."""
    if not removals:
        return []
    by_name: dict[str, list[StartTag]] = {}
    for tag in start_tags(text):
        by_name.setdefault(tag.name, []).append(tag)
    findings = []
    for name, ordinal, element_removals in removals:
        candidates = by_name.get(name, [])
        start = candidates[min(ordinal, len(candidates) - 1)] if candidates else None
        exact = ordinal < len(candidates)  # both parsers agree on the element: its text can be removed
        for removal in element_removals:
            findings.append(
                Finding(
                    _offset(start, removal.attribute),
                    removal.message,
                    removal.code,
                    f"<{name}" if removal.attribute is None else removal.construct or removal.attribute,
                    removal.scheme,
                    _spans(start, removal, len(text)) if exact and start is not None else (),
                    removal.replacement,
                )
            )
    return sorted(findings, key=lambda f: f.offset)


def _offset(tag: StartTag | None, attribute: str | None) -> int:
    if tag is None:
        return 0
    if attribute is None:
        return tag.offset
    return next((offset for name, offset, _, _ in tag.attributes if name == attribute), tag.offset)


def _spans(tag: StartTag, removal: _Removal, length: int) -> tuple[tuple[int, int], ...]:
    """What to delete from the text to remove ``removal`` from ``tag``'s element (see Finding.spans)."""
    if removal.attribute is not None:
        return tuple((lead, end) for name, _, end, lead in tag.attributes if name == removal.attribute)[:1]
    if tag.name in CLEAN_CONTENT_TAGS or removal.code == EMBED:
        return ((tag.offset, tag.closed_at[1] if tag.closed_at else length),)
    if not removal.keeps_content:
        return ()
    return ((tag.offset, tag.end),) + ((tag.closed_at,) if tag.closed_at else ())


# -- a page's content ----------------------------------------------------------------------------
# After mkdocs-autorefs has replaced its placeholders (on_env), none is left to keep.
_TAGS_AFTER_PLUGINS = _TAGS - {"autoref"}


def clean_page(html: str, after_plugins: bool = False) -> tuple[str, list[Finding]]:
    """A page's content HTML through the allowlist, and what was removed.

    ``after_plugins``: the content as plugins left it after the first pass (no ``<autoref>`` placeholders
    are kept then). Offsets of the findings are in ``html``.
    """
    findings = _findings(html, _removals(html, authored=False))
    return _clean(html, _TAGS_AFTER_PLUGINS if after_plugins else _TAGS), findings


# -- what plugins put in place of the placeholders they replace after the sanitiser ------------------------------
# No cleaned content has one: the HTML parser drops U+0000 from text and replaces it in attribute values, and
# comments, where it could stay, are stripped.
SPAN_MARK = "\x00"


def marked(html: str, spans: re.Pattern[str] | None) -> str:
    """Cleaned content ``html`` with each match of ``spans`` (a placeholder a plugin replaces later:
    mkdocs-autorefs' ``<autoref>``) between two SPAN_MARKs, for ``replaced`` to find what took its place. The
    marks change no match of the same pattern: a match cannot start in the text between two others."""
    if spans is None or SPAN_MARK in html:
        return html
    return spans.sub(lambda match: f"{SPAN_MARK}{match.group(0)}{SPAN_MARK}", html)


def replaced(marked_html: str, now: str) -> list[str] | None:
    """What took the place of each marked span of ``marked_html`` in ``now`` (the same content as plugins left
    it), in order; None when anything else changed: the text between the spans, or a mark."""
    before, after = marked_html.split(SPAN_MARK), now.split(SPAN_MARK)
    if len(before) != len(after) or before[0::2] != after[0::2]:
        return None
    return after[1::2]
