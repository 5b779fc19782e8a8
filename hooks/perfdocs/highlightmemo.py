"""Code blocks highlighted once per process: Pygments' output kept by the code and the highlighter's settings.

Pygments is about a tenth of a page's conversion here (a scenario page has 30-40 code blocks), and a save under
``mkdocs serve`` converts pages whose code blocks did not change: a theory snippet's edit converts every page
that shows it. ``pygments.highlight(code, lexer, formatter)`` is a function of the code, the lexer's class and
options and the formatter's class and options, so its output is kept by those. pymdown-extensions' highlighter
(``pymdownx.highlight``, which pymdownx.superfences and inlinehilite call) looks ``highlight`` up in its own
module on every block: ``install`` puts the kept version there. Settings that are not plain data (a lexer filter
object, a style class) are never keys: such a block is highlighted as before.

tests/test_highlightmemo.py pins that pymdownx.highlight still calls the name this replaces.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import pymdownx.highlight
from pygments.formatters.html import HtmlFormatter

LIMIT = 4096  # blocks kept, the least recently used dropped first (a site of 1,000 pages has ~30,000)
PLAIN = (str, int, float, bool, type(None))

Key = tuple[Any, ...]


def settings(options: dict[str, Any]) -> tuple[tuple[str, Any], ...] | None:
    """``options`` as part of a key, or None when one of them is not plain data."""
    items = []
    for name, value in sorted(options.items()):
        if isinstance(value, (list, tuple)):
            if not all(isinstance(v, PLAIN) for v in value):
                return None
            value = (type(value).__name__, *value)
        elif not isinstance(value, PLAIN):
            return None
        items.append((name, value))
    return tuple(items)


class Memo:
    """``highlight`` with its results kept (at most ``limit``)."""

    def __init__(self, highlight: Callable[..., Any], limit: int = LIMIT) -> None:
        self.highlight = highlight
        self.limit = limit
        self.kept: OrderedDict[Key, str] = OrderedDict()

    def __call__(self, code: str, lexer: Any, formatter: Any, outfile: Any = None) -> Any:
        key = self.key(code, lexer, formatter) if outfile is None else None
        if key is None:
            return self.highlight(code, lexer, formatter, outfile)
        found = self.kept.get(key)
        if found is not None:
            self.kept.move_to_end(key)
            return found
        result = self.highlight(code, lexer, formatter)
        if isinstance(result, str):
            self.kept[key] = result
            if len(self.kept) > self.limit:
                self.kept.popitem(last=False)
        return result

    @staticmethod
    def key(code: str, lexer: Any, formatter: Any) -> Key | None:
        lexing = settings(getattr(lexer, "options", None) or {})
        formatting = settings(getattr(formatter, "options", None) or {})
        if lexing is None or formatting is None:
            return None
        return code, type(lexer), lexing, type(formatter), formatting


_STYLESHEETS: dict[tuple[Any, str], tuple[dict[Any, str], dict[str, Any]]] = {}


def kept_stylesheet(formatter: Any) -> None:
    """Pygments' ``HtmlFormatter._create_stylesheet``, kept by what it reads: the style and the class prefix.
    Every formatter builds it when it is made, and pymdownx.highlight makes one for every code block (its line
    anchors name the block), hit or miss in the Memo: about a fifth of a block's highlighting. Each formatter gets
    its own copies."""
    key = (formatter.style, formatter.classprefix)
    kept = _STYLESHEETS.get(key)
    if kept is None:
        HtmlFormatter._create_stylesheet(formatter)
        kept = _STYLESHEETS[key] = (formatter.ttype2class, formatter.class2style)
    formatter.ttype2class, formatter.class2style = dict(kept[0]), dict(kept[1])


def install() -> Memo:
    """pymdownx.highlight's ``highlight`` kept, and its formatters' stylesheets (once per process); the Memo in
    place."""
    for formatter in (pymdownx.highlight.BlockHtmlFormatter, pymdownx.highlight.InlineHtmlFormatter):
        formatter._create_stylesheet = kept_stylesheet
    current = pymdownx.highlight.highlight
    if isinstance(current, Memo):
        return current
    memo = Memo(current)
    pymdownx.highlight.highlight = memo
    return memo
