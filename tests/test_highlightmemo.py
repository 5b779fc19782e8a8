"""Code blocks are highlighted once per process (perfdocs.highlightmemo): the same HTML as Pygments itself, for
every setting a fence can carry, with Pygments called once per code and settings."""

from __future__ import annotations

from typing import Any

import markdown
import pygments
import pymdownx.highlight
import pytest
from perfdocs import highlightmemo
from perfdocs.highlightmemo import Memo
from pygments.filters import KeywordCaseFilter
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

FENCES = """\
```python
import torch
x = torch.ones(2)
```

```python hl_lines="2"
import torch
x = torch.ones(2)
```

```python linenums="3"
import torch
x = torch.ones(2)
```

```python title="run.py"
import torch
```

```bash
pip install torch
```

```
plain text
```

Inline `#!python torch.ones(2)` code.
"""


class Counting:
    """pygments.highlight, counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, code: str, lexer: Any, formatter: Any, outfile: Any = None) -> Any:
        self.calls += 1
        return pygments.highlight(code, lexer, formatter, outfile)


def convert(text: str) -> str:
    extensions = ["pymdownx.superfences", "pymdownx.highlight", "pymdownx.inlinehilite"]
    config = {"pymdownx.highlight": {"anchor_linenums": True}}
    return markdown.Markdown(extensions=extensions, extension_configs=config).convert(text)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> Counting:
    """pymdownx.highlight's highlight counted, with nothing kept: what the page gets without the memo."""
    counted = Counting()
    monkeypatch.setattr(pymdownx.highlight, "highlight", counted)
    return counted


def test_pymdownx_highlights_through_the_name_the_memo_replaces(counting: Counting) -> None:
    """If pymdown-extensions stops looking ``highlight`` up in its module, the memo would sit there unused."""
    convert(FENCES)
    assert counting.calls == 7  # six fences and one inline code span


def test_the_same_html_as_pygments_and_pygments_called_once_per_block(counting: Counting) -> None:
    plain = convert(FENCES)
    assert counting.calls == 7
    memo = Memo(counting)
    pymdownx.highlight.highlight = memo  # put back by the fixture's monkeypatch
    assert convert(FENCES) == plain
    assert counting.calls == 14  # the first conversion made each one
    assert convert(FENCES) == plain
    assert counting.calls == 14  # the second took them all from the memo
    assert len(memo.kept) == 7


def test_other_settings_are_other_blocks(counting: Counting) -> None:
    memo = Memo(counting)
    code = "def f():\n    return 1\n"
    plain = memo(code, PythonLexer(), HtmlFormatter())
    numbered = memo(code, PythonLexer(), HtmlFormatter(linenos="table"))
    marked = memo(code, PythonLexer(), HtmlFormatter(hl_lines=[2]))
    assert len({plain, numbered, marked}) == 3
    assert memo(code, PythonLexer(), HtmlFormatter(hl_lines=[2])) == marked
    assert memo(code, PythonLexer(stripnl=False), HtmlFormatter()) == plain  # another lexer setting, kept apart
    assert counting.calls == 4


def test_settings_that_are_not_plain_data_are_never_keys(counting: Counting) -> None:
    """A filter object's repr names its address, which another object can take later: such a block is
    highlighted every time."""
    memo = Memo(counting)
    lexer = PythonLexer(filters=[KeywordCaseFilter(case="upper")])
    first = memo("def f(): pass\n", lexer, HtmlFormatter())
    assert "DEF" in first
    assert memo("def f(): pass\n", lexer, HtmlFormatter()) == first
    assert counting.calls == 2 and not memo.kept


def test_the_least_recently_used_block_goes_first(counting: Counting) -> None:
    memo = Memo(counting, limit=2)
    for code in ("a = 1\n", "b = 2\n", "a = 1\n", "c = 3\n"):
        memo(code, PythonLexer(), HtmlFormatter())
    assert [key[0] for key in memo.kept] == ["a = 1\n", "c = 3\n"]
    assert counting.calls == 3


def test_installed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pymdownx.highlight, "highlight", pygments.highlight)
    memo = highlightmemo.install()
    assert pymdownx.highlight.highlight is memo and memo.highlight is pygments.highlight
    assert highlightmemo.install() is memo


def test_the_formatters_stylesheet_is_built_once_per_style_and_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    """pymdownx makes a formatter for every block (its line anchors name the block), and Pygments builds the style's
    class maps for each one: kept, the page is the same, and each formatter has maps of its own."""
    for formatter in (pymdownx.highlight.BlockHtmlFormatter, pymdownx.highlight.InlineHtmlFormatter):
        monkeypatch.delattr(formatter, "_create_stylesheet", raising=False)  # Pygments' own, inherited
    monkeypatch.setattr(pymdownx.highlight, "highlight", pygments.highlight)
    plain = convert(FENCES)
    monkeypatch.setattr(highlightmemo, "_STYLESHEETS", {})
    built: list[Any] = []
    create = HtmlFormatter._create_stylesheet
    monkeypatch.setattr(HtmlFormatter, "_create_stylesheet", lambda self: built.append(self) or create(self))
    highlightmemo.install()
    assert convert(FENCES) == plain
    assert len(built) == 1  # one style and one prefix on the page: the maps are built once
    first = pymdownx.highlight.BlockHtmlFormatter(style="default")
    other = pymdownx.highlight.BlockHtmlFormatter(style="default", classprefix="x-")
    fresh = HtmlFormatter(style="default", classprefix="x-")
    assert (other.ttype2class, other.class2style) == (fresh.ttype2class, fresh.class2style)
    assert first.ttype2class != other.ttype2class and first.ttype2class is not built[0].ttype2class
