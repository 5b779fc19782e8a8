"""doc-builder's API link syntax: ``[`Name`]``, ``[`~module.Name.method`]`` and ``[`Name#param`]``, as pages and the
libraries' docstrings write it; and the brackets Python-Markdown would read as reference links where CommonMark does
not (``misread_brackets``). What a link resolves to is the API index's business (perfdocs.apirefs)."""

from __future__ import annotations

import re
import string
from collections.abc import Container, Iterable
from dataclasses import dataclass
from typing import Any

API_NAME_RE = re.compile(r"~?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:#[A-Za-z_]\w*)?")  # [`~a.B.c`], [`B#param`]
MODULE_NAME_RE = re.compile(r"[a-z_][a-z0-9_]*")  # the first part of a name qualified by its library
ESCAPABLE = frozenset(string.punctuation)  # what a backslash escapes (CommonMark: ASCII punctuation)
REFERENCE_ID_RE = re.compile(r"\s?\[([^\]]*)\]")  # Python-Markdown's id part of a reference link, '[id]' or ' [id]'


@dataclass(frozen=True)
class ApiLink:
    """A doc-builder API link ``[`code`]`` as written."""

    code: str  # what is between the backticks
    name: str | None  # the API name it links to ("()" dropped); None when the code is not a name (plain code)


def reference_label(label: str) -> str:
    """A reference label as both Markdown readers match it: case and runs of whitespace do not count."""
    return " ".join(label.split()).lower()


def reference_labels(env: dict[str, Any]) -> frozenset[str]:
    """The labels of the link reference definitions a page's parse found (``[label]: url``; markdown.parse's
    ``env``), normalised."""
    return frozenset(reference_label(label) for label in env.get("references", {}))


def api_link(raw: str, start: int, end: int, defined: frozenset[str] = frozenset()) -> ApiLink | None:
    """The doc-builder API link whose code span is ``raw[start:end]``, else None.

    doc-builder's rule (``resolve_links_in_text``): a one-backtick code span alone in brackets is an API link
    unless ``(`` follows (a link); so ``[`Name`]:`` is one. Here a reference label the page defines may
    follow too (``[`Name`][label]``): that is a CommonMark reference link with code as its text. The code
    is a name (``Trainer.train()`` names ``Trainer.train``), or anything else (``from_pretrained(...)``),
    which doc-builder shows as plain code."""
    if raw[start : start + 1] != "`" or raw[start : start + 2] == "``" or raw[end - 2 : end] == "``":
        return None
    if start == 0 or raw[start - 1] != "[" or raw[end : end + 1] != "]" or raw[end + 1 : end + 2] == "(":
        return None
    if start >= 2 and raw[start - 2] == "\\":
        return None  # an escaped bracket: meant literally
    if raw[end + 1 : end + 2] == "[" and (close := raw.find("]", end + 2)) >= 0:
        label = raw[end + 2 : close]
        if "[" not in label and reference_label(label) in defined:
            return None
    code = raw[start + 1 : end - 1]
    if API_NAME_RE.fullmatch(code):
        return ApiLink(code, code)
    if code.endswith("()") and API_NAME_RE.fullmatch(code[:-2]):
        return ApiLink(code, code[:-2])
    return ApiLink(code, None)


def misread_brackets(
    raw: str,
    skip: Iterable[tuple[int, int]],
    defined: frozenset[str] = frozenset(),
    identifiers: Container[str] = frozenset(),
) -> list[int]:
    """Offsets of the ``[`` in ``raw`` (a block's text) that Python-Markdown would read as opening a reference
    link ``[text][id]`` (or ``[text] [id]``, ``[text][]``) whose id the page does not define.

    CommonMark, and so doc-builder, shows such text as written (``sources[[1](https://a)][[2](https://b)]`` is
    two links in brackets); Python-Markdown hands it to mkdocs-autorefs as a cross-reference, which then warns,
    with no line, that it cannot find ``'[2'``. Escaping the ``[`` keeps the text as written. ``skip``: spans
    that are not text to Python-Markdown either (code spans and escapes, which it reads first; raw HTML; the
    API links already rewritten). An id in ``identifiers`` (an API entry) is a cross-reference meant as one."""
    masked = list(raw)
    for a, b in skip:
        masked[a:b] = "\0" * (b - a)
    i = 0
    while i < len(masked) - 1:  # backslash escapes: Python-Markdown reads them before links too
        if masked[i] == "\\" and masked[i + 1] in ESCAPABLE:
            masked[i : i + 2] = "\0\0"
            i += 1
        i += 1
    text = "".join(masked)
    found = []
    for i, char in enumerate(text):
        if char != "[" or (i and text[i - 1] == "!"):
            continue
        depth, j = 1, i + 1
        while j < len(text) and depth:
            depth += {"[": 1, "]": -1}.get(text[j], 0)
            j += 1
        if depth:
            continue  # unbalanced: no link to Python-Markdown either
        m = REFERENCE_ID_RE.match(text, j)
        if m is None:
            continue
        ident = m.group(1) or text[i + 1 : j - 1]
        if reference_label(ident) in defined or ident in identifiers:
            continue
        found.append(i)
    return found


def api_link_text(name: str, kind: str) -> str:
    """The text doc-builder shows for ``[`name`]``: the name (``~``: its last part; ``#p``: the parameter), with
    ``()`` after a function."""
    bare, _, param = name.removeprefix("~").partition("#")
    shown = param or (bare.rsplit(".", 1)[-1] if name.startswith("~") else bare)
    return shown + "()" if kind == "function" and not param else shown
