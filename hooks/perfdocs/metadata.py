"""Front matter is text: what a page may say in it, each value checked, and plain text checked as plain text.

Material's templates print ``page.title``, ``page.meta.title`` and ``page.meta.description`` into the
page head, the header, the nav and the previous/next footer of every page without escaping them, and its
search shows result titles as HTML. So a value is never trusted to be markup: :func:`markup_in` says when
a value would be read as HTML (a tag, a comment, a character reference), which is a located error, and the
build escapes every title and description before any template runs (build.py, ``env``), whatever it says.
Pure functions over the parsed front matter; the source text only gives line numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from .diagnostics import Diagnostic, Location, did_you_mean
from .text import front_matter_key_line

BAD_FRONT_MATTER = "bad-front-matter"
MARKUP_IN_METADATA = "markup-in-metadata"
TEXT_HINT = "write the characters themselves; the site escapes them"
# Characters no title or summary needs and a browser or a log may act on: C0 controls but tab and newline, DEL,
# the C1 controls, and the line and paragraph separators (JavaScript line breaks).
_CONTROLS = frozenset([*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029])
HIDE_VALUES = frozenset({"navigation", "toc", "footer", "path", "feedback", "tags"})


def markup_in(value: str) -> str | None:
    """What in ``value`` an HTML parser reads as something other than its text, or None for plain text.

    ``value`` is parsed the way a template that prints it into an element would have it parsed: as the
    content of a ``<div>`` (lexbor, the HTML5 algorithm); plain text comes back as one text node equal to
    the value. ``a < b`` and ``Q&A`` are text; ``<b>``, ``<!-- x -->`` and ``&amp;`` are not.
    """
    control = next((c for c in value if ord(c) in _CONTROLS), None)
    if control is not None:
        return f"the control character U+{ord(control):04X}"
    if "<" not in value and "&" not in value:
        return None
    root = LexborHTMLParser(f"<div>{value}</div>").css_first("div")
    assert root is not None
    for node in root.traverse(include_text=True):
        if node.mem_id == root.mem_id:
            continue
        tag = node.tag or ""
        if tag in ("_comment", "-comment"):
            return "an HTML comment"
        if tag != "-text":
            return f"the HTML tag <{tag}>"
    if root.text(deep=True) != value:
        return "markup that HTML does not show as written (an end tag or a character reference)"
    return None


@dataclass(frozen=True)
class Field:
    """One front matter key: what its value must be (``check`` returns the problem, or None)."""

    check: Callable[[Any], str | None]
    meaning: str


def _text(value: Any) -> str | None:
    if not isinstance(value, str):
        return f"must be a string, got {_type(value)}"
    markup = markup_in(value)
    if markup:
        return f"is plain text, but contains {markup}"
    return None


def _string(value: Any) -> str | None:
    return None if isinstance(value, str) else f"must be a string, got {_type(value)}"


def _hide(value: Any) -> str | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return f"must be a list of names, got {_type(value)}"
    unknown = sorted(set(value) - HIDE_VALUES)
    if unknown:
        return f"names '{unknown[0]}', which is not one of {', '.join(sorted(HIDE_VALUES))}"
    return None


def _search(value: Any) -> str | None:
    if not isinstance(value, dict):
        return f"must be a mapping (exclude: true, boost: 2), got {_type(value)}"
    for key, item in value.items():
        if key == "exclude" and isinstance(item, bool):
            continue
        if key == "boost" and isinstance(item, int | float) and not isinstance(item, bool) and 0 < item <= 10:
            continue
        return f"has '{key}: {item}'; allowed: 'exclude: true|false', 'boost: a number from 0 to 10'"
    return None


def _toc_depth(value: Any) -> str | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 6
    return None if ok else f"must be a heading level from 1 to 6, got {value!r}"


# What a page's front matter may hold: the guide's own keys and the theme's few that pages use.
PAGE_FIELDS: Mapping[str, Field] = {
    "title": Field(_text, "the page's title, plain text (else the H1 gives it)"),
    "description": Field(_text, "one sentence for search engines and the overview, plain text"),
    "scenario": Field(_string, "the scenario the page serves (snippets show their <Only> parts for it)"),
    "hide": Field(_hide, "parts of the theme to hide on this page"),
    "search": Field(_search, "search settings of the page"),
    "toc_depth": Field(_toc_depth, "the deepest heading level in the table of contents"),
}


def _type(value: Any) -> str:
    return "nothing" if value is None else type(value).__name__


def page_front_matter_problems(
    data: Mapping[str, Any], source: str, page_path: str
) -> tuple[list[Diagnostic], frozenset[str]]:
    """Every problem with a page's parsed front matter ``data``, at the line of its key in ``source``, and the
    keys the build leaves out of the page: unknown ones (``template: 404.html`` would pick the theme's
    template) and values of the wrong kind. Text with markup is kept: it is escaped."""
    problems = []
    refused = set()
    for key, value in data.items():
        line = front_matter_key_line(source, str(key))
        field = PAGE_FIELDS.get(str(key))
        if field is None:
            hint = did_you_mean(str(key), PAGE_FIELDS) or f"allowed: {', '.join(PAGE_FIELDS)}"
            problems.append(
                Diagnostic(Location(page_path, line), f"unknown front matter key '{key}'", BAD_FRONT_MATTER, hint=hint)
            )
            refused.add(str(key))
            continue
        problem = field.check(value)
        if problem:
            code = MARKUP_IN_METADATA if problem.startswith("is plain text") else BAD_FRONT_MATTER
            problems.append(
                Diagnostic(
                    Location(page_path, line),
                    f"front matter '{key}' {problem}",
                    code,
                    hint=TEXT_HINT if code == MARKUP_IN_METADATA else None,
                )
            )
            if code == BAD_FRONT_MATTER:
                refused.add(str(key))
    return problems, frozenset(refused)


def text_problem(key: str, value: str, source: str, path: str) -> Diagnostic | None:
    """A snippet's text field (title, summary) with markup in it, at its line."""
    markup = markup_in(value)
    if markup is None:
        return None
    return Diagnostic(
        Location(path, front_matter_key_line(source, key)),
        f"front matter '{key}' is plain text, but contains {markup}",
        MARKUP_IN_METADATA,
        hint=TEXT_HINT,
    )
