"""Math in pages: found where doc-builder finds it, rendered to MathML by KaTeX while the site builds.

doc-builder's Markdown preprocessor (``markKatex`` in kit/preprocessors/mdsvex/index.js) takes three forms
out of a page, in this order, each one never overlapping what an earlier one took:

- display math: ``$$`` at the start of a line, up to the next ``$$`` (it may span lines);
- inline math: ``\\\\(`` after white space, up to the next ``\\\\)`` (two backslashes in the Markdown source);
- inline math: ``$...$`` with white space (or the line's edge) on both sides and no newline, backtick, ``<``,
  ``>`` or ``$`` inside: "costs $5 and $10" stays text, as on hf.co.

Here none of them is found inside code spans, raw HTML or autolinks, and an escaped ``\\$`` never opens or
closes ``$...$``. KaTeX runs in QuickJS through pykatex (no Node, no request to any host) and writes MathML
only, which browsers render natively: the site serves no KaTeX CSS or fonts. What KaTeX writes is
re-serialised for Python-Markdown, which reads the formula next in the page: ASCII punctuation in text
becomes character references (so ``*``, ``_``, ``\\``, ``|`` or a ``#`` line start are never Markdown), and
attributes the site's sanitiser would drop are dropped here, so the sanitiser never reports KaTeX's output.
"""

from __future__ import annotations

import functools
import html
import re
import string
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import NamedTuple

from . import markdown as md
from .sanitize import ALLOWED_ATTRIBUTES

__all__ = ["Formula", "Rendering", "closes_earlier_display", "find_formulas", "render", "unclosed_display"]

_BARRIER = "\x00"  # stands in for code, raw HTML and formulas already found: never white space, never math
_DISPLAY_RE = re.compile(r"(?<![^\n])\$\$(?P<tex>[^\x00]+?)\$\$")
_PAREN_RE = re.compile(r"(?<!\S)\\\\\((?P<tex>[^\x00]+?)\\\\\)")
_DOLLAR_RE = re.compile(r"(?<!\S)\$(?P<tex>[^$\n`<>\x00]+?)\$(?!\S)")
_DISPLAY_OPEN_RE = re.compile(r"(?<![^\n])\$\$")
_UNTRUSTED = "perfdocs-untrusted"  # KaTeX's errorColor: marks commands it refuses without the trust option
_POSITION_RE = re.compile(r"^(?P<message>.*?) (?:at position (?P<at>\d+)|(?P<end>at end of input)): ", re.S)
_PUNCTUATION = frozenset(string.punctuation)


@dataclass(frozen=True)
class Formula:
    """A formula in a text: the offsets of its delimiters' outer edges, its TeX, and its mode."""

    start: int
    end: int
    tex: str
    display: bool


class Rendering(NamedTuple):
    """One formula's HTML, one string per source line the formula spans; ``error`` is KaTeX's complaint."""

    lines: list[str]
    error: str | None = None


def _masked(text: str, inline: md.Inline) -> tuple[str, set[int]]:
    """``text`` with code spans, raw HTML and autolinks blanked out, and the offsets of escaped dollars."""
    masked = list(text)
    escaped: set[int] = set()
    for a, b in inline.opaque:
        masked[a:b] = _BARRIER * (b - a)
    for a, b in inline.literal:
        if text.startswith("<", a):  # an autolink (code spans are opaque too)
            masked[a:b] = _BARRIER * (b - a)
        elif text.startswith("\\$", a):
            escaped.add(a + 1)
    return "".join(masked), escaped


def find_formulas(text: str, inline: md.Inline | None = None) -> list[Formula]:
    """The formulas of one block's text (``inline``: its inline parse), in text order."""
    if "$" not in text and "\\\\(" not in text:
        return []
    masked, escaped = _masked(text, inline if inline is not None else md.scan_inline(text))
    found: list[Formula] = []
    for pattern, display in ((_DISPLAY_RE, True), (_PAREN_RE, False), (_DOLLAR_RE, False)):
        taken = []
        for m in pattern.finditer(masked):
            if pattern is _DOLLAR_RE and (m.start() in escaped or m.end() - 1 in escaped):
                continue
            taken.append(Formula(m.start(), m.end(), text[m.start("tex") : m.end("tex")], display))
        for formula in taken:
            masked = masked[: formula.start] + _BARRIER * (formula.end - formula.start) + masked[formula.end :]
        found += taken
    return sorted(found, key=lambda f: f.start)


def unclosed_display(text: str, formulas: list[Formula], inline: md.Inline | None = None) -> list[int]:
    """Offsets of ``$$`` at a line start that open no formula: display math with no ``$$`` to end it here."""
    masked, _ = _masked(text, inline if inline is not None else md.scan_inline(text))
    return [
        m.start() for m in _DISPLAY_OPEN_RE.finditer(masked) if not any(f.start <= m.start() < f.end for f in formulas)
    ]


def closes_earlier_display(before: list[str]) -> bool:
    """Whether a ``$$`` that ends a paragraph, after the lines ``before``, closes display math an earlier
    paragraph opened (a blank line inside a formula), so the one mistake is reported once, where it opened."""
    code = md.code_lines("\n".join(before)) if before else []
    for i in range(len(before) - 1, -1, -1):
        if code[i] or not before[i].startswith("$$"):
            continue
        paragraph = []
        for text in before[i:]:
            if not text.strip():
                break
            paragraph.append(text)
        return "\n".join(paragraph).count("$$") % 2 == 1
    return False


# KaTeX parses groups recursively, in QuickJS: a formula of 100,000 nested braces stalls the build for minutes. The
# guide's longest formula has 162 characters, its groups nest 2 deep.
MAX_FORMULA = 5_000  # characters
MAX_GROUPS = 40  # { } nesting


def size_problem(tex: str) -> str | None:
    """Why ``tex`` is too big to hand to KaTeX, or None."""
    if len(tex) > MAX_FORMULA:
        return f"formula is {len(tex):,} characters; the limit is {MAX_FORMULA:,}"
    depth = deepest = 0
    escaped = False
    for char in tex:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif char == "}":
            depth = max(depth - 1, 0)
    if deepest > MAX_GROUPS:
        return f"formula nests {{...}} groups {deepest} deep; the limit is {MAX_GROUPS}"
    return None


@functools.lru_cache(maxsize=4096)
def render(source: str, tex: str, display: bool) -> Rendering:
    """``tex`` as MathML ready for Python-Markdown, or ``source`` (the formula as written) in an error span.

    Display math is wrapped in ``<span class="katex-display">`` (KaTeX's own class for it)."""
    too_big = size_problem(tex)
    if too_big:  # not shown as written either: Python-Markdown's inline patterns are quadratic in such text
        shown = f'<span class="katex-error" title="{html.escape(too_big, quote=True)}">(formula left out)</span>'
        return Rendering(_lines(shown, source.count("\n") + 1), too_big)
    import pykatex  # QuickJS and KaTeX start on the first formula, not when the hooks load

    try:
        out = pykatex.renderToString(
            tex,
            displayMode=display,
            output="mathml",
            throwOnError=True,
            strict="ignore",  # LaTeX-incompatible input KaTeX renders anyway (as doc-builder's KaTeX does)
            trust=False,  # no \href, \url, \includegraphics, \htmlClass ...
            errorColor=_UNTRUSTED,
        )
    except Exception as exc:  # pykatex.ParseError; anything else KaTeX throws is the formula's problem too
        return _error(source, _message(str(exc)))
    parts: list[str] = []
    untrusted: list[str] = []
    _write(_Tree(out).root, parts, untrusted)
    if untrusted:
        refused = f"{untrusted[0]} is not allowed in math: links, images and HTML need KaTeX's trust option"
        return _error(source, refused)
    rendered = "".join(parts)
    if display:
        rendered = f'<span class="katex-display">{rendered}</span>'
    return Rendering(_lines(rendered, source.count("\n") + 1))


def _message(text: str) -> str:
    """KaTeX's message without the underlined excerpt it appends; the place as a character of the formula."""
    text = text.replace("\u0332", "")
    m = _POSITION_RE.match(text)
    if m is None:
        return text.strip()
    where = f"at character {m.group('at')} of the formula" if m.group("at") else "at the end of the formula"
    return f"{m.group('message').strip()} ({where})"


def _error(source: str, message: str) -> Rendering:
    """The formula as written, marked as KaTeX marks a formula it cannot render."""
    text = _markdown_safe(source)  # '<', '>' and '&' are punctuation: character references too
    shown = f'<span class="katex-error" title="{html.escape(message, quote=True)}">{text}</span>'
    return Rendering(_lines(shown, source.count("\n") + 1), message)


def _lines(rendered: str, count: int) -> list[str]:
    """The HTML cut into ``count`` lines at the newlines it keeps from the TeX (the annotation's, or the
    source's in an error span): each source line of the formula gets a non-empty part, so a paragraph
    stays one paragraph for Python-Markdown."""
    parts = rendered.split("\n")
    if len(parts) == count and all(part.strip() for part in parts):
        return parts
    return [rendered.replace("\n", " "), *("&#32;" for _ in range(count - 1))]


def _markdown_safe(text: str) -> str:
    return "".join(f"&#{ord(c)};" if c in _PUNCTUATION else c for c in text)


# MathML token elements: an HTML parser reads the elements inside them as HTML, not MathML (a "MathML text
# integration point"), so a browser, and the sanitiser, would break KaTeX's <mo><mover>...</mover></mo>
# (\overset, \underset, \stackrel). Such a token element is written as the <mrow> it stands for.
_TOKEN_ELEMENTS = frozenset({"mi", "mo", "mn", "ms", "mtext"})


@dataclass
class _Element:
    tag: str
    attrs: list[tuple[str, str | None]]
    children: list[_Element | _Text | str] = field(default_factory=list)  # str: a character reference


@dataclass
class _Text:
    data: str


class _Tree(HTMLParser):
    """KaTeX's output as a tree (KaTeX writes well-formed markup; references are kept as written)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=False)
        self.root = _Element("#root", [])
        self._open = [self.root]
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = _Element(tag, attrs)
        self._open[-1].children.append(element)
        self._open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open[-1].children.append(_Element(tag, attrs))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self._open) - 1, 0, -1):
            if self._open[depth].tag == tag:
                del self._open[depth:]
                return

    def handle_data(self, data: str) -> None:
        self._open[-1].children.append(_Text(data))

    def handle_entityref(self, name: str) -> None:
        self._open[-1].children.append(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self._open[-1].children.append(f"&#{name};")


def _text_of(element: _Element) -> str:
    return "".join(
        child.data if isinstance(child, _Text) else _text_of(child) if isinstance(child, _Element) else ""
        for child in element.children
    )


def _write(element: _Element, out: list[str], untrusted: list[str], annotation: bool = False) -> None:
    """The children of ``element`` as markup: text inert for Markdown, only the attributes the sanitiser keeps,
    token elements that hold elements as <mrow>; commands KaTeX refused (untrusted) collected."""
    for child in element.children:
        if isinstance(child, str):
            out.append(child)
            continue
        if isinstance(child, _Text):
            out.append(_markdown_safe(child.data if annotation else child.data.replace("\n", " ")))
            continue
        tag, attrs = child.tag, child.attrs
        if dict(attrs).get("mathcolor") == _UNTRUSTED:
            untrusted.append(_text_of(child))
        if tag in _TOKEN_ELEMENTS and any(isinstance(c, _Element) for c in child.children):
            tag, attrs = "mrow", []
        allowed = (ALLOWED_ATTRIBUTES.get(tag, frozenset()) | ALLOWED_ATTRIBUTES["*"]) - {"style"}  # KaTeX's colours
        kept = "".join(f' {name}="{html.escape(value or "", quote=True)}"' for name, value in attrs if name in allowed)
        out.append(f"<{tag}{kept}>")
        _write(child, out, untrusted, annotation or tag == "annotation")
        out.append(f"</{tag}>")
