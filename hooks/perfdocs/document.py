"""What the conversion of one text is made of: its lines, the tree the reader builds of them, the lines of output,
and the ``Conversion`` that collects what the text gives (diagnostics, in-place edits, links, explicit ids).

Every unit of the dialect works on these: the reader (``perfdocs.reader``), the inline rewrites
(``perfdocs.inline``), raw HTML (``perfdocs.rawhtml``), the marker lines (``perfdocs.markers``), the components
(``perfdocs.components``) and the converter that renders the tree (``perfdocs.dialect``).
"""

from __future__ import annotations

import bisect
import html
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from .diagnostics import Diagnostic, Level, Location, SourceMap
from .embeds import EmbedHosts
from .gated import GatedModels
from .markdown import Block

if TYPE_CHECKING:
    from .apirefs import ApiIndex


class Line(NamedTuple):
    """A line of the text being converted: its text, its input line and the columns stripped before it."""

    text: str
    src: int
    col0: int = 0


class Out(NamedTuple):
    """A line of output: its text, the input line it came from, and whether it is code."""

    text: str
    src: int
    code: bool = False


Pos = tuple[int, int]  # (line index in the region, character offset in that line)


@dataclass
class Piece:
    """Text between component tags on the lines that hold tags."""

    start: Pos
    end: Pos


@dataclass
class Node:
    """A component: its tag's name and attributes, where its body is, what it holds."""

    name: str
    attrs: dict[str, tuple[str, str]]
    line: int  # region line of the opening tag
    col: int  # 1-based source column of the opening tag
    body_start: Pos
    body_end: Pos | None = None
    children: list[Node | Piece | Block] = field(default_factory=list)
    where: Location = Location("<unknown>", 0)  # the opening tag in the source
    section: int = 0  # the level of the heading it opened under (0: none), where it ends if never closed


@dataclass
class Unknown(Node):
    """A tag read as no component (an unknown name, or one nested past the limit): already reported; when it closes,
    its content stays where it is."""


@dataclass
class Ready(Node):
    """Output that is ready where the tree has it: display math, a marker line, or (``error``) a box saying what
    was left out, already reported."""

    rendered: list[Out] = field(default_factory=list)
    error: bool = False


@dataclass(frozen=True)
class Site:
    """What the conversion of one page may know about the rest of the site."""

    page: str  # the page's path under docs_dir, e.g. 'performance/train/gpu_one.md'
    files: frozenset[str]  # every file under docs_dir, same form
    api: ApiIndex | None = None  # what API links and [[autodoc]] resolve against (None: no API reference)
    notebooks: str | None = None  # mkdocs.yml extra.perfdocs.notebooks: the URL pattern [[open-in-colab]] links to
    embeds: EmbedHosts = EmbedHosts()  # mkdocs.yml extra.perfdocs.embed_hosts: where an <iframe> may load from
    calculator: str | None = None  # the page that shows <MemoryEstimator/>: budget tables link to it
    gated: GatedModels = GatedModels()  # mkdocs.yml extra.perfdocs.gated_models: the line under their recipes


class Conversion:
    """What converting one text collects, shared by every unit that reads a part of it."""

    def __init__(
        self,
        smap: SourceMap,
        root: Path | None,
        generated: dict[str, list[str]] | None = None,
        site: Site | None = None,
    ):
        self.smap = smap
        self.root = root  # the repository: <literalinclude> and <Measured> read files under it
        self.generated = generated or {}  # lines of the components the site build fills in
        self.site = site
        self.diagnostics: list[Diagnostic] = []
        self.edits: dict[int, dict[tuple[int, int], str]] = {}  # input line -> (start col, end col) -> new text
        self.links: dict[tuple[str, Location], None] = {}
        self.ids: dict[tuple[str, Location], None] = {}
        # (input line, column) -> the text there Python-Markdown makes HTML attributes or raw HTML of, and where it
        # is in the page's files (see record_markup)
        self.markup: dict[tuple[int, int], tuple[Location, str]] = {}
        self.references: frozenset[str] = frozenset()  # the page's link reference labels (API links, brackets)

    def error(
        self, line: Line, offset: int, message: str, code: str, hint: str | None = None, level: Level = "error"
    ) -> None:
        self.diagnostics.append(Diagnostic(self.location(line, offset), message, code, hint=hint, level=level))

    def location(self, line: Line, offset: int = 0) -> Location:
        return self.smap.at(line.src, line.col0 + offset + 1)

    def link(self, href: str, line: Line, offset: int = 0) -> None:
        """Records a link of the page, as written, where it is (its destination to the end of the line is markup)."""
        self.links[(href, self.location(line, offset))] = None
        self.record_markup(line, offset, len(line.text))

    def record_markup(self, line: Line, start: int, end: int) -> None:
        """Records ``line.text[start:end]`` as text Python-Markdown makes HTML attributes or raw HTML of (an
        attribute list, a link's destination, raw HTML): what the sanitiser removes from the page's HTML was
        written in such text (build.locate_findings)."""
        if end > start:
            self.markup.setdefault((line.src, line.col0 + start), (self.location(line, start), line.text[start:end]))

    def edit(self, line: Line, start: int, end: int, text: str) -> None:
        """Replace ``line.text[start:end]`` with ``text`` wherever this line is rendered (the same input
        columns, whichever container or component body renders it)."""
        self.edits.setdefault(line.src, {})[(line.col0 + start, line.col0 + end)] = text

    def edited(self, line: Line) -> str:
        """The line's text with the edits that fall inside it."""
        edits = self.edits.get(line.src)
        if not edits:
            return line.text
        text = line.text
        for (start, end), new in sorted(edits.items(), reverse=True):
            a, b = start - line.col0, end - line.col0
            if 0 <= a <= b <= len(text):
                text = text[:a] + new + text[b:]
        return text


def error_block(message: str, indent: str = "", title: str = "Left out here") -> list[str]:
    """A visible note where a construct could not be rendered and is left out (the page's one "Build error" box
    lists every problem of the page; BuildState.post_build)."""
    body = [f"{indent}    {html.escape(line, quote=False)}" for line in message.split("\n")]
    return ["", f'{indent}!!! failure "{title}"', "", *body, ""]


def error_lines(message: str, src: int) -> list[Out]:
    """``error_block`` as output lines of input line ``src``."""
    return [Out(text, src) for text in error_block(message)]


def admonition(head: str, src: int, body: list[Out]) -> list[Out]:
    """A Material admonition (``!!! tip``) or tab (``=== "Label"``) holding ``body``, its blank edges trimmed."""
    while body and not body[0].text and not body[0].code:
        body.pop(0)
    while body and not body[-1].text and not body[-1].code:
        body.pop()
    return [Out("", src), Out(head, src), Out("", src), *indent(body, "    "), Out("", src)]


def indent(lines: list[Out], prefix: str) -> list[Out]:
    return [Out(prefix + o.text if o.text else "", o.src, o.code) for o in lines]


def block_lines(lines: list[Out], src: int) -> list[Out]:
    """``lines`` as a block of their own: a blank line before and after."""
    return [Out("", src), *lines, Out("", src)]


def join(out: list[Out], more: list[Out]) -> None:
    """Appends ``more``; outside code, never two blank lines in a row."""
    for line in more:
        if not line.text and not line.code and out and not out[-1].text and not out[-1].code:
            continue
        out.append(line)


def slice_lines(lines: list[Line], start: Pos, end: Pos) -> list[Line]:
    """The text between two positions, as lines (the first one may start mid-line)."""
    (l0, c0), (l1, c1) = start, end
    if l0 == l1:
        return [Line(lines[l0].text[c0:c1], lines[l0].src, lines[l0].col0 + c0)]
    out = [Line(lines[l0].text[c0:], lines[l0].src, lines[l0].col0 + c0)]
    out += lines[l0 + 1 : l1]
    out.append(Line(lines[l1].text[:c1], lines[l1].src, lines[l1].col0))
    return out


def line_starts(text: str) -> list[int]:
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return starts


def row_of(starts: list[int], offset: int) -> int:
    """The line (of ``line_starts``) that holds ``offset``."""
    return bisect.bisect_right(starts, offset) - 1
