"""Each built page's "Build error" box: under ``mkdocs serve`` (and in any non-strict build) the author sees the
page's problems where they look, one box at the start of its article listing each problem once (what its
Markdown, its HTML and its links showed). The box goes into a copy of what the theme printed, so an incremental
rebuild can give a page a box, or take it away, without rendering the page again."""

from __future__ import annotations

from html import escape
from pathlib import Path

from .diagnostics import Diagnostic
from .sanitize import start_tags


class ErrorBoxes:
    def __init__(self) -> None:
        self.errors: dict[str, list[Diagnostic]] = {}  # dest file -> the errors of its Markdown and HTML
        self.outputs: dict[str, str] = {}  # dest file -> the page as the theme printed it, without a box
        self.boxes: dict[str, str] = {}  # dest file -> the box it got when the boxes were last written
        self.written: set[str] = set()  # dest files the theme wrote in this (re)build

    def add(self, dest: str, errors: list[Diagnostic], *, new_places: bool = False) -> None:
        """``errors`` into the page's box; ``new_places``: only those at a line where the box has no problem of the
        same code yet (the sanitiser's words for a construct the Markdown side reported)."""
        found = self.errors.setdefault(dest, [])
        if new_places:
            places = {(d.location.path, d.location.line, d.code) for d in found}
            errors = [d for d in errors if (d.location.path, d.location.line, d.code) not in places]
        found.extend(errors)

    def printed(self, dest: str, output: str) -> None:
        """The theme printed the page ``dest``."""
        self.outputs[dest] = output
        self.written.add(dest)

    def forget(self, dest: str) -> None:
        """The page is rendered again: what it had goes."""
        self.errors.pop(dest, None)
        self.outputs.pop(dest, None)

    def begin_rebuild(self) -> None:
        self.written = set()

    def write(self, site: Path, more: dict[str, list[Diagnostic]]) -> None:
        """Writes the box of each page that has problems (its own errors and ``more``: what the link check found
        in it), and takes it away from a page that no longer has any. A page the theme just wrote has no box yet;
        one written before keeps its box unless that changed."""
        boxes = {}
        for page in sorted(set(more) | set(self.errors)):
            problems = [*self.errors.get(page, ()), *more.get(page, ())]
            if problems:
                boxes[page] = error_box(problems)
        for page in sorted(set(boxes) | set(self.boxes)):
            box = boxes.get(page)
            if page not in self.written and box == self.boxes.get(page):
                continue
            path = site / page
            if page in self.outputs:
                html = self.outputs[page]
            elif path.is_file():
                html = path.read_text(encoding="utf-8")
            else:
                continue
            if box is not None:
                html, inserted = with_error_box(html, box)
                if not inserted:
                    continue
            elif page in self.written:
                continue
            path.write_bytes(html.encode("utf-8", errors="xmlcharrefreplace"))
        self.boxes = boxes


def error_box(diagnostics: list[Diagnostic]) -> str:
    """The red "Build error" admonition, as HTML: each problem once (a broken link the dialect and the link check
    both found is one), in the order found, its text escaped once."""
    shown: dict[tuple[str, str], Diagnostic] = {}
    for d in diagnostics:
        key = (str(d.location), d.code) if d.code == "missing-file" else (str(d.location), d.message)
        shown.setdefault(key, d)
    items = "".join(
        f"<li><code>{escape(str(d.location))}</code>: {escape(d.message)}"
        + (f" ({escape(d.hint)})" if d.hint else "")
        + "</li>"
        for d in shown.values()
    )
    count = f"{len(shown)} problem{'s' if len(shown) > 1 else ''}"
    return (
        f'<div class="admonition failure"><p class="admonition-title">Build error: this page has {count}'
        f"</p><ul>{items}</ul></div>\n"
    )


def content_start(html: str) -> int | None:
    """Offset in a built page right after its ``<article>`` start tag (Material puts the page content there;
    the article holds the edit button and the content), else after ``<body>``; None when it has neither."""
    tags = start_tags(html)
    for name in ("article", "body"):
        found = next((tag for tag in tags if tag.name == name), None)
        if found is not None:
            return found.end
    return None


def with_error_box(html: str, box: str) -> tuple[str, bool]:
    """The built page with ``box`` at the start of its content, and whether there was a place for it.

    The box goes in without a line break, so every tag after it keeps its line (the checker's locations)."""
    at = content_start(html)
    if at is None:
        return html, False
    return html[:at] + box.rstrip("\n") + html[at:], True
