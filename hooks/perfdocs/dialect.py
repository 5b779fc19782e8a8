"""The doc-builder (MDX-style) dialect converted to Material for MkDocs Markdown.

``convert(text, source_map, root)`` returns the converted text, a source map of the output (one
Location per output line), the diagnostics found, and every link and explicit id with its place. It
never logs and never raises on bad input; the only things it reads besides its arguments are the file a
``<literalinclude>`` names and the results file of a ``<Measured>`` (``bench/results/``).

The structure comes from CommonMark (``perfdocs.markdown``): a text is read as a sequence of
top-level blocks; blockquotes and list items are containers whose content is converted as a text of
its own, then re-prefixed (lists with Python-Markdown's 4-space continuation, so a page keeps the
list structure CommonMark gives it); a component's body, dedented, is converted the same way.
Code (fenced, indented, code spans) and HTML comments are never read as components.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

from markdown_it.token import Token

from . import budgets, docbuilder, mathtex, measured
from . import markdown as md
from .apirefs import (
    ApiIndex,
    ApiLink,
    Entry,
    Problem,
    api_link,
    api_link_text,
    misread_brackets,
    reference_labels,
    twin_heading,
)
from .diagnostics import Diagnostic, Level, Location, SourceMap, did_you_mean
from .embeds import EmbedHosts, is_youtube_id, placeholder, youtube_address
from .gated import GatedModels
from .html import locate, parse_page
from .sanitize import (
    CLEAN_CONTENT_TAGS,
    EMBED,
    REMOVED_HTML,
    URL_SCHEMES,
    unsafe_constructs,
    url_scheme,
)
from .text import (
    ATTR_ID_RE,
    CUSTOM_ID_RE,
    MARKER_RE,
    MEMBER_RE,
    VALID_ID_RE,
    doc_builder_ids,
    marker_groups,
    parse_heading,
    slugify,
    toc_slug,
)

ATTR_RE = re.compile(
    r"""\s*(?P<name>[A-Za-z_:][\w.:-]*)(?:\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|\{(?P<expr>[^{}]*)\}"""
    r"""|(?P<uq>[^\s"'=<>`{}]+)))?\s*"""
)
ALERT_RE = re.compile(r"^[ \t]*\[!(?P<kind>[A-Za-z]+)\][ \t]*$")
LANGUAGE_RE = re.compile(r"[\w+#.-]*")

# A framework tab is named apart from the API tab "PyTorch" (<hfoption id="PyTorch">, a plain PyTorch loop):
# Material links tabs by label, so one name would switch both kinds of tab set together.
FRAMEWORK_LABELS = {"pt": "PyTorch (framework)", "tf": "TensorFlow", "jax": "JAX", "flax": "JAX"}
# The labels the guide's tab sets share (README, "Writing a page"): a reader's pick of one is picked on every page.
SHARED_TAB_LABELS = ("Trainer", "Accelerate", "PyTorch", "DeepSpeed", *FRAMEWORK_LABELS.values())
ALERTS = {
    "NOTE": ("note", None),
    "TIP": ("tip", None),
    "IMPORTANT": ("info", "Important"),
    "WARNING": ("warning", None),
    "CAUTION": ("danger", "Caution"),
}
# name -> {attribute: kind}; kinds: bool, str, req (required string)
COMPONENTS: dict[str, dict[str, str]] = {
    "Tip": {"warning": "bool"},
    "frameworkcontent": {},
    "pt": {},
    "tf": {},
    "jax": {},
    "flax": {},
    "hfoptions": {"id": "req"},
    "hfoption": {"id": "req"},
    "Youtube": {"id": "req", "title": "str"},
    "PipelineTag": {"pipeline": "req"},
    "literalinclude": {},
    "TechniqueMatrix": {},
    "TestedWith": {},
    "MemoryBudget": budgets.ATTRIBUTES,
    "MemoryEstimator": {},
    "Measured": measured.ATTRIBUTES,
}
VOID = {"Youtube", "PipelineTag", "TechniqueMatrix", "TestedWith", "MemoryBudget", "MemoryEstimator", "Measured"}
# filled by the build from data no single page holds (MemoryBudget: from the memory model, in budgets.py;
# Measured: from a benchmark's results in bench/results/, in measured.py)
GENERATED = {"TechniqueMatrix", "TestedWith", "MemoryBudget", "MemoryEstimator", "Measured"}
PARENTS = {
    "hfoption": "hfoptions",
    "pt": "frameworkcontent",
    "tf": "frameworkcontent",
    "jax": "frameworkcontent",
    "flax": "frameworkcontent",
}
EXPANDED_EARLIER = {"Theory", "Only"}
LITERALINCLUDE_KEYS = {"path", "language", "start-after", "end-before", "dedent"}
SEPARATED = {"bullet_list", "ordered_list", "blockquote", "fence", "heading", "hr"}
# what makes a block worth an inline parse ("][": a reference link, or text Python-Markdown would read as one)
# Bounds on what one page may ask of the renderers, each found by input that stalled or crashed a build: 500
# nested <Tip> overflowed the dialect's stack, lists nested 300 deep overflow Python-Markdown's, and its link
# pattern is quadratic in the '[' of one paragraph (1,000 take 0.2 s, 4,000 take 7 s, 16,000 take 83 s).
MAX_COMPONENT_DEPTH = 24
# Lists and blockquotes inside each other. markdown-it stops reading a document past 20 token levels (a list and
# its item are two), so the limit is reached before it drops anything.
MAX_CONTAINER_DEPTH = 8
CONTAINERS = frozenset({"blockquote_open", "bullet_list_open", "ordered_list_open"})
MAX_BRACKETS = 1_000  # '[' in one paragraph, heading or table
INLINE_MARKS = ("<", "](", "]:", "[`", "$", "\\(", "\\[", "][", "] [", "]\n[")
PAGE_SUFFIXES = (".md", ".mdx")
MARKERS = ("open-in-colab", "autodoc")
INLINE_BLOCKS = {"paragraph", "heading", "lheading", "table", "mdx_line"}


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
    name: str
    attrs: dict[str, tuple[str, str]]
    line: int  # region line of the opening tag
    col: int  # 1-based source column of the opening tag
    body_start: Pos
    body_end: Pos | None = None
    children: list[Node | Piece | md.Block] = field(default_factory=list)
    message: str = ""  # for "#error" nodes: what the error box says
    rendered: list[Out] = field(default_factory=list)  # for "#lines" nodes: the output, ready
    where: Location = Location("<unknown>", 0)  # the opening tag in the source
    section: int = 0  # the level of the heading it opened under (0: none), where it ends if never closed


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


@dataclass
class Converted:
    text: str
    source_map: SourceMap
    diagnostics: list[Diagnostic]
    links: list[tuple[str, Location]] = field(default_factory=list)  # every link as written, where it was
    ids: list[tuple[str, Location]] = field(default_factory=list)  # ids the page gives explicitly


def error_block(message: str, indent: str = "", title: str = "Left out here") -> list[str]:
    """A visible note where a construct could not be rendered and is left out (the page's one "Build error" box
    lists every problem of the page; build.show_problems)."""
    body = [f"{indent}    {html.escape(line, quote=False)}" for line in message.split("\n")]
    return ["", f'{indent}!!! failure "{title}"', "", *body, ""]


def _indent(lines: list[Out], prefix: str) -> list[Out]:
    return [Out(prefix + o.text if o.text else "", o.src, o.code) for o in lines]


def _slice(lines: list[Line], start: Pos, end: Pos) -> list[Line]:
    """The text between two positions, as lines (the first one may start mid-line)."""
    (l0, c0), (l1, c1) = start, end
    if l0 == l1:
        return [Line(lines[l0].text[c0:c1], lines[l0].src, lines[l0].col0 + c0)]
    out = [Line(lines[l0].text[c0:], lines[l0].src, lines[l0].col0 + c0)]
    out += lines[l0 + 1 : l1]
    out.append(Line(lines[l1].text[:c1], lines[l1].src, lines[l1].col0))
    return out


class _Converter:
    def __init__(
        self,
        smap: SourceMap,
        root: Path | None,
        generated: dict[str, list[str]] | None = None,
        site: Site | None = None,
    ):
        self.generated = generated or {}
        self.site = site
        self.edits: dict[int, dict[tuple[int, int], str]] = {}  # input line -> (start col, end col) -> new text
        self.leading = True  # nothing but blank lines and comments rendered yet
        self.smap = smap
        self.root = root
        self.diagnostics: list[Diagnostic] = []
        self._bad_ids: set[tuple[int, int]] = set()
        self._reported_open: set[Location] = set()
        self._left_out: set[tuple[int, int]] = set()  # (src, col0) of the HTML blocks left out (_check_fragment)
        self._section = 0  # the level of the last heading read by tree() (see Node.section)
        self.links: dict[tuple[str, Location], None] = {}
        self.ids: dict[tuple[str, Location], None] = {}
        self.references: frozenset[str] = frozenset()  # the page's link reference labels (API links, brackets)

    # -- diagnostics -------------------------------------------------------------------
    def error(
        self, line: Line, offset: int, message: str, code: str, hint: str | None = None, level: Level = "error"
    ) -> None:
        self.diagnostics.append(Diagnostic(self.location(line, offset), message, code, hint=hint, level=level))

    def location(self, line: Line, offset: int = 0) -> Location:
        return self.smap.at(line.src, line.col0 + offset + 1)

    # -- a text: blocks, then the components among them ----------------------------------
    def convert(self, lines: list[Line], within: str = "#root", blocks: list[md.Block] | None = None) -> list[Out]:
        return self.render(self.tree(lines, within, blocks), lines)

    def tree(
        self, lines: list[Line], within: str = "#root", blocks: list[md.Block] | None = None
    ) -> list[Node | Piece | md.Block]:
        """The blocks and components of ``lines``, the body of a ``within`` component.

        ``blocks`` are the lines' blocks when the page's parse already has them (a list item's content).
        """
        if blocks is None:
            blocks = md.blocks("\n".join(line.text for line in lines), len(lines))
        root = Node(within, {}, 0, 1, (0, 0))
        stack = [root]
        consumed: set[int] = set()
        outer, self._section = self._section, 0
        for index, block in enumerate(blocks):
            if index in consumed:
                continue
            if block.kind in ("heading", "lheading"):
                self._section = _level(block)
            if block.kind == "paragraph" and MARKER_RE.match(lines[block.start].text.strip()):
                stack[-1].children.append(self._marker(blocks, index, lines, consumed, stack[-1]))
            elif block.kind == "paragraph" and (math := self._math_block(block, lines)) is not None:
                stack[-1].children.append(math)
            elif block.kind in INLINE_BLOCKS:
                self._inline_block(block, lines, stack)
            elif block.kind == "html_block":
                self._check_html(lines, block.start, block.end)
                stack[-1].children.append(block)
            else:
                stack[-1].children.append(block)
        self._section = outer
        end = (len(lines) - 1, len(lines[-1].text)) if lines else (0, 0)
        while len(stack) > 1:
            node = stack.pop()
            node.body_end = end
            if node.name.startswith("#unknown:"):
                stack[-1].children.extend(node.children)
                continue  # the unknown-component error already names the cause
            heading = self._end_unclosed(node, stack[-1], lines)
            if node.where in self._reported_open:
                continue  # the body of a component closed too early: its cause is already reported
            self._reported_open.add(node.where)
            where = f"; it ends before the heading at line {self.location(lines[heading]).line}" if heading else ""
            self.error(
                lines[node.line],
                node.col - 1 - lines[node.line].col0,
                f"<{node.name}> opened here is never closed",
                "unclosed-component",
                f"add </{node.name}>{where}",
            )
        return root.children

    def _end_unclosed(self, node: Node, parent: Node, lines: list[Line]) -> int | None:
        """Where a component never closed ends, so the rest of the page still renders: a tab group after its last
        tab (what follows is the page again, not "text outside every tab"), any component before the next heading
        of the section it opened in (a heading of its level or above; under the title, the next H2). What follows
        goes back to ``parent``. Returns the line index of that heading, if it is where the component ends."""
        heading = None
        top = max(node.section, 2)
        for i, child in enumerate(node.children):
            if isinstance(child, md.Block) and child.kind in ("heading", "lheading") and _level(child) <= top:
                parent.children.extend(node.children[i:])
                del node.children[i:]
                node.body_end = (child.start, 0)
                heading = child.start
                break
        tabs = [i for i, child in enumerate(node.children) if isinstance(child, Node)]
        if node.name in ("hfoptions", "frameworkcontent") and tabs:
            # right after the group, before what the heading moved out of it
            at = next(i for i, child in enumerate(parent.children) if child is node) + 1
            parent.children[at:at] = node.children[tabs[-1] + 1 :]
            del node.children[tabs[-1] + 1 :]
            last = node.children[-1]
            assert isinstance(last, Node)
            node.body_end = last.body_end or node.body_end
        return heading

    def _inline_block(self, block: md.Block, lines: list[Line], stack: list[Node]) -> None:
        region = lines[block.start : block.end]
        raw = "\n".join(line.text for line in region)
        brackets = raw.count("[")
        if brackets > MAX_BRACKETS:
            message = (
                f"this {block.kind} has {brackets:,} '[' (the limit is {MAX_BRACKETS:,}): Python-Markdown takes minutes"
            )
            self.error(region[0], 0, message, "too-long", hint="it is left out; put long literal text in a code block")
            node = Node("#error", {}, block.start, region[0].col0 + 1, (block.end - 1, len(region[-1].text)))
            node.message = f"{self.location(region[0])}: {message}"
            stack[-1].children.append(node)
            return
        if not any(mark in raw for mark in INLINE_MARKS):  # no tag, raw HTML, link, API link or math
            stack[-1].children.append(block)
            return
        found = md.scan_inline(raw)
        starts = _line_starts(raw)

        def pos(offset: int) -> Pos:
            row = _row(starts, offset)
            return block.start + row, offset - starts[row]

        self._rewrite_inline(raw, found, lines, pos)

        # What a browser would parse: the block's text with code spans, autolinks and escapes blanked out
        # (Python-Markdown passes more through as raw HTML than CommonMark calls a tag: '<img/onerror=...>').
        masked = list(raw)
        for a, b in [*found.literal, *((tag.start, tag.end) for tag in found.tags)]:
            masked[a:b] = " " * (b - a)
        for offset, source in found.html:
            if md.is_markup_declaration(source):
                at = pos(offset)
                self._declaration(lines[at[0]], at[1])
        if "<" in masked:  # raw HTML outside code: what the allowlist would remove, and its links and ids
            self._check_fragment(lines, pos(0), "".join(masked))
            self._html_links(lines, pos(0), "".join(masked))
        for offset, href in found.links:
            at = pos(_destination(raw, offset))
            href = self._page_link(href, raw, _destination(raw, offset), lines[at[0]], at[1])
            self.links[(href, self.location(lines[at[0]], at[1]))] = None
            scheme = url_scheme(href)
            if scheme is not None and scheme not in URL_SCHEMES:
                self.error(
                    lines[at[0]],
                    at[1],
                    f"link with the {scheme}: scheme is not allowed",
                    "unsafe-url",
                    "link to a page, a file in the repository or an https:// URL",
                )
        self._unparsed_tags(raw, found, lines, pos)
        if block.kind == "paragraph" and "]:" in raw:  # Python-Markdown also reads definitions inside paragraphs
            for line in region[1:]:
                if "]:" in line.text:
                    self._reference_links([line])
        if block.kind in ("paragraph", "mdx_line", "table"):
            found = self._memory_figures(found, lines, pos)
        if not found.tags:
            stack[-1].children.append(block)
            return
        if block.kind not in ("paragraph", "mdx_line"):
            where = "heading" if "heading" in block.kind else "table"
            for tag in found.tags:  # each one reported, none rendered: the heading or table stays whole
                at = pos(tag.start)
                if tag.name not in COMPONENTS and tag.name not in EXPANDED_EARLIER:
                    if not tag.closing:
                        self.error(
                            lines[at[0]],
                            at[1],
                            f"unknown component <{tag.name}>",
                            "unknown-component",
                            did_you_mean(tag.name, list(COMPONENTS)) or "write it as inline code (`<...>`)",
                        )
                elif not tag.closing or not any(t.name == tag.name and not t.closing for t in found.tags):
                    self.error(
                        lines[at[0]],
                        at[1],
                        f"<{tag.name}> cannot be used inside a {where}",
                        "misplaced-component",
                        "put the component on a line of its own",
                    )
            stack[-1].children.append(block)
            return
        cursor = pos(0)
        for tag in found.tags:
            start, end = pos(tag.start), pos(tag.end)
            if stack[-1].name != "literalinclude" or (tag.closing and tag.name == "literalinclude"):
                self._piece(lines, cursor, start, stack)
                self._tag(tag, start, end, lines, stack)
                cursor = end
        self._piece(lines, cursor, pos(len(raw)), stack)

    def _memory_figures(self, found: md.Inline, lines: list[Line], pos: Callable[[int], Pos]) -> md.Inline:
        """``<MemoryBudget show="..."/>`` inside text or a table cell becomes its figure, in place (budgets.py);
        ``found`` is returned without those tags. Without ``show`` the tag is a table, rendered as a block."""
        inline = []
        for tag in found.tags:
            if tag.name != "MemoryBudget" or tag.closing:
                continue
            (row, col), (row_end, col_end) = pos(tag.start), pos(tag.end)
            before = len(self.diagnostics)
            attrs = self._attributes(tag.name, tag.attrs, lines[row], col)
            if "show" not in attrs:
                del self.diagnostics[before:]  # a table: its attributes are read (and reported) once, as a block
                continue
            inline.append(tag)
            text, problems = budgets.figure(attrs)
            for problem in problems:
                self.error(lines[row], col, problem.message, "bad-attribute", problem.hint)
            if row == row_end:
                self.edit(lines[row], col, col_end, text)
            else:
                self.error(lines[row], col, "<MemoryBudget show=...> must be on one line", "bad-attribute")
        return (
            found
            if not inline
            else md.Inline(
                [t for t in found.tags if t not in inline], found.html, found.links, found.opaque, found.literal
            )
        )

    def _piece(self, lines: list[Line], start: Pos, end: Pos, stack: list[Node]) -> None:
        if any(line.text.strip() for line in _slice(lines, start, end)):
            stack[-1].children.append(Piece(start, end))

    def _unparsed_tags(self, raw: str, found: md.Inline, lines: list[Line], pos: Callable[[int], Pos]) -> None:
        """'<Tip' in text that no parse read as a tag (``<Tip warning={ true }>``): loud, not literal."""
        for m in re.finditer(r"</?([A-Za-z][\w-]*)", raw):
            if any(a <= m.start() < b for a, b in found.opaque):
                continue
            name = m.group(1)
            if name in COMPONENTS or name in EXPANDED_EARLIER:
                at = pos(m.start())
                self.error(
                    lines[at[0]],
                    at[1],
                    f"cannot read this <{name}> tag",
                    "bad-attribute",
                    'write attributes as name="value" or name={value}, with no spaces inside { }',
                )

    # -- doc-builder's [[...]] marker lines ----------------------------------------------
    def _marker(
        self, blocks: list[md.Block], index: int, lines: list[Line], consumed: set[int], parent: Node
    ) -> Node:
        """A paragraph that opens with ``[[name]]``: each marker line of it rendered by the marker's handler, or a
        located error (doc-builder reads each ``[[autodoc]] X`` line on its own: text.marker_groups).

        ``[[autodoc]] X`` takes the ``- member`` lines under it, also after blank lines (doc-builder does);
        those lines are a continuation of the paragraph to CommonMark, or an indented code block. ``parent``:
        the component (or page) the marker is in, whose heading right above ``[[autodoc]] X`` may be X's."""
        block = blocks[index]
        first = lines[block.start]
        node = Node("#lines", {}, block.start, first.col0 + md.indent_of(first.text) + 1, (block.start, 0))
        groups = marker_groups([line.text for line in lines[block.start : block.end]])
        for number, (a, b) in enumerate(groups):
            body = lines[block.start + a + 1 : block.start + b]
            if number == len(groups) - 1:
                body = body + self._member_blocks(blocks, index, lines, consumed)
            above = _heading_above(parent, lines) if number == 0 else None
            node.rendered += self._marker_line(lines[block.start + a], body, above)
        return node

    def _member_blocks(self, blocks: list[md.Block], index: int, lines: list[Line], consumed: set[int]) -> list[Line]:
        """The ``- member`` lines of an indented code block after the marker paragraph (blank lines apart)."""
        for later in range(index + 1, len(blocks)):
            nxt = blocks[later]
            if nxt.kind == "blank":
                continue
            region = lines[nxt.start : nxt.end]
            if nxt.kind == "code_block" and all(MEMBER_RE.match(x.text) or not x.text.strip() for x in region):
                consumed.update(range(index + 1, later + 1))
                return region
            break
        return []

    def _marker_line(self, first: Line, body: list[Line], above: tuple[Node, md.Block, str] | None) -> list[Out]:
        """One ``[[name]] rest`` line and the lines under it."""
        m = MARKER_RE.match(first.text.strip())
        assert m is not None
        name, rest = m.group("name"), m.group("rest").strip()
        col = len(first.text) - len(first.text.lstrip())
        members = [(line, MEMBER_RE.match(line.text)) for line in body if line.text.strip()]
        if name != "autodoc":
            members = [(line, None) for line, _ in members]
        after: list[Out] = []
        for line, member in members:
            if member is None:
                self.error(line, 0, f"[[{name}]] is followed by text", "bad-marker", "leave a blank line after it")
                after = [Out(x.text, x.src) for x in body]
                break
        if name == "open-in-colab" and not rest:
            return self._open_in_colab(first, col) + after
        if name == "autodoc" and rest and " " not in rest:
            listed = [(member.group("name"), line) for line, member in members if member]
            return self._autodoc(rest, listed, first, col, above) + after
        usage = {"open-in-colab": "[[open-in-colab]] alone on its line", "autodoc": "[[autodoc]] Name"}
        self.error(
            first,
            col,
            f"unknown marker [[{name}]]" if name not in MARKERS else f"write it as {usage[name]}",
            "bad-marker",
            did_you_mean(name, MARKERS) if name not in MARKERS else None,
        )
        shown = f"{self.location(first, col)}: [[{name}]] {rest}".rstrip()
        return [Out(x, first.src) for x in error_block(shown)] + after

    def _open_in_colab(self, line: Line, col: int) -> list[Out]:
        """The "Open in Colab" / "Open in Studio Lab" menu for this page's notebook, where the marker is
        (doc-builder's pages have it under the H1), from the notebook URL pattern in mkdocs.yml."""
        pattern = self.site.notebooks if self.site else None
        problem = docbuilder.notebook_problem(pattern)
        if problem is not None or pattern is None or self.site is None:
            self.error(line, col, problem or "", "bad-marker", f"for example {docbuilder.EXAMPLE}")
            return [Out(x, line.src) for x in error_block(f"{self.location(line, col)}: {problem}")]
        for _, entries in docbuilder.notebook_links(pattern, self.site.page):
            for _, url in entries:
                self.links[(url, self.location(line, col))] = None
        menu = docbuilder.notebook_menu(pattern, self.site.page)
        return [Out("", line.src), *(Out(text, line.src) for text in menu), Out("", line.src)]

    def _autodoc(
        self,
        name: str,
        members: list[tuple[str, Line]],
        line: Line,
        col: int,
        above: tuple[Node, md.Block, str] | None = None,
    ) -> list[Out]:
        """The signature and documented parameters of ``name`` (and of ``members``, each with its line): a
        mkdocstrings block for the entry the API index registered, or a located error (at the member line
        when a member is the problem). ``above``: the heading right above the marker and the node holding it;
        a heading that only names the object is replaced by the entry's own, at its level, as doc-builder gives
        that heading the object's id instead of adding a second one (apirefs.twin_heading)."""
        api = self.site.api if self.site is not None else None
        at = max(line.text.find(name, col + len("[[autodoc]]")), col)  # the name: what the error is about
        if api is None or self.site is None:
            problem = Problem(
                "[[autodoc]] needs the API reference: enable the mkdocstrings plugin in mkdocs.yml", "bad-marker"
            )
        else:
            here = self.location(line, col)
            found = api.add_entry(self.site.page, here, name, [member for member, _ in members])
            if isinstance(found, Entry):
                level = None
                if above is not None:
                    holder, heading, text = above
                    level = twin_heading(text, name, found)
                    if level is not None:
                        holder.children[:] = [child for child in holder.children if child is not heading]
                block = [Out(text, line.src) for text in api.autodoc_lines(found, heading_level=level)]
                return [Out("", line.src), *block, Out("", line.src)]
            problem = found
        where, where_at = line, at
        for member, member_line in members:
            if problem.member is not None and member == problem.member:
                where, where_at = member_line, member_line.text.find(member)
                break
        self.error(where, where_at, problem.message, problem.code, problem.hint)
        return [Out(x, line.src) for x in error_block(f"{self.location(where, where_at)}: {problem.message}")]

    # -- inline rewrites ----------------------------------------------------------------
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

    def _rewrite_inline(self, raw: str, found: md.Inline, lines: list[Line], pos: Callable[[int], Pos]) -> None:
        """The inline constructs doc-builder renders and Python-Markdown would not: API links and math.

        ``raw`` is a block's text, ``found`` its inline parse (``found.literal``: code spans, autolinks and
        escapes; ``found.opaque``: code spans and raw HTML), ``pos`` maps an offset of ``raw`` to (line
        index in ``lines``, column); rewrites go through ``self.edit``."""
        spans = self._api_links(raw, found, lines, pos)
        self._inline_math(raw, found, lines, pos)
        self._literal_brackets(raw, found, spans, lines, pos)

    def _api_links(
        self, raw: str, found: md.Inline, lines: list[Line], pos: Callable[[int], Pos]
    ) -> list[tuple[int, int]]:
        """``[`Name`]`` and ``[`~module.Name.method`]``: links to the API reference; the spans rewritten.

        doc-builder's form (``apirefs.api_link``): a one-backtick code span in brackets, not followed by ``(``
        (a link) or a label the page defines (a reference link). The link text is the name in code font
        (``~``: its last part; a function gets ``()``, as doc-builder writes it); it links through
        mkdocs-autorefs to the object's entry, is plain code when no page documents the object, when the
        code is not a name, or when the name is another library's, and is an error when it names nothing in
        the site's libraries."""
        api = self.site.api if self.site is not None else None
        if api is None:
            return []
        spans = []
        for start, end in found.literal:
            link = api_link(raw, start, end, self.references)
            if link is None:
                continue
            (row, col), (row_end, col_end) = pos(start - 1), pos(end + 1)
            if row != row_end:
                continue
            line = lines[row]
            shown = f"`{link.code}`" if link.name is None else self._api_link(api, link, line, col + 1)
            self.edit(line, col, col_end, shown)
            spans.append((start - 1, end + 1))
        return spans

    def _api_link(self, api: ApiIndex, link: ApiLink, line: Line, col: int) -> str:
        """What ``[`name`]`` becomes; an error at ``col`` (its backtick) when no library has the object."""
        name = link.name or link.code
        called = link.code != name  # written with "()": shown with it, whatever the object is
        bare = name.removeprefix("~").partition("#")[0]
        found = api.resolve(bare)
        if found is None:
            if api.foreign(bare):
                return f"`{api_link_text(name, 'function' if called else 'unknown')}`"
            close = api.suggest(bare)
            self.error(
                line,
                col,
                f"API link [`{link.code}`]: '{bare}' is not an object of {api.where()}",
                "unknown-api-name",
                f"did you mean '{close}'?" if close else "write it as `code` if it is not an API name",
            )
            return f"`{api_link_text(name, 'function' if called else 'unknown')}`"
        shown = api_link_text(name, "function" if called else found.kind)
        return f"[`{shown}`][{found.anchor}]" if found.anchor else f"`{shown}`"

    def _literal_brackets(
        self, raw: str, found: md.Inline, spans: list[tuple[int, int]], lines: list[Line], pos: Callable[[int], Pos]
    ) -> None:
        """Escapes each ``[`` that Python-Markdown would read as a reference link the page does not define
        (``apirefs.misread_brackets``): CommonMark shows that text as written, mkdocs-autorefs would warn about
        it with no line. A cross-reference to an API entry (``[text][transformers.Trainer]``) stays one."""
        if "[" not in raw:
            return
        api = self.site.api if self.site is not None else None
        identifiers = api.public if api is not None else frozenset()
        skip = [*found.literal, *found.opaque, *spans]
        for offset in misread_brackets(raw, skip, self.references, identifiers):
            row, col = pos(offset)
            line = lines[row]
            edits = self.edits.get(line.src, {})
            at = line.col0 + col
            if any(a <= at < b for a, b in edits):
                continue  # inside text another rewrite replaced (math)
            self.edit(line, col, col + 1, "\\[")

    def _inline_math(self, raw: str, found: md.Inline, lines: list[Line], pos: Callable[[int], Pos]) -> None:
        """``\\( ... \\)`` and ``$...$`` in text (and ``$$ ... $$`` that shares its paragraph with text):
        math, rendered at build time. A formula over several lines gives each of its lines a part of the
        HTML, so the paragraph stays one paragraph; one KaTeX cannot render stays as written, marked."""
        formulas = mathtex.find_formulas(raw, found)
        for formula in formulas:
            rendering = mathtex.render(raw[formula.start : formula.end], formula.tex, formula.display)
            (first, start), (last, end) = pos(formula.start), pos(formula.end)
            if rendering.error:
                self.error(lines[first], start, f"bad math: {rendering.error}", "bad-math")
            for part, row in zip(rendering.lines, range(first, last + 1)):
                self.edit(lines[row], start if row == first else 0, end if row == last else len(lines[row].text), part)
        for offset in mathtex.unclosed_display(raw, formulas, found):
            row, col = pos(offset)
            if not raw[offset + 2 :].strip() and mathtex.closes_earlier_display([line.text for line in lines[:row]]):
                continue  # the close of a formula a blank line cut: reported where it opened
            self.error(
                lines[row],
                col,
                "display math opened with $$ is not closed in this paragraph",
                "bad-math",
                "close it with $$; a formula cannot contain a blank line",
            )

    def _math_block(self, block: md.Block, lines: list[Line]) -> Node | None:
        """A paragraph that is display math (``$$ ... $$``): a "#lines" node with the rendered math, else None."""
        region = lines[block.start : block.end]
        raw = "\n".join(line.text for line in region)
        if not raw.startswith("$$"):
            return None
        formulas = mathtex.find_formulas(raw, md.scan_inline(raw))
        if len(formulas) != 1 or formulas[0].start != 0 or raw[formulas[0].end :].strip():
            return None  # text shares the paragraph: _inline_math renders the formula in it
        formula = formulas[0]
        rendering = mathtex.render(raw[: formula.end], formula.tex, True)
        if rendering.error:
            self.error(region[0], 0, f"bad math: {rendering.error}", "bad-math")
        node = Node("#lines", {}, block.start, region[0].col0 + 1, (block.start, 0))
        node.rendered = [
            Out("", region[0].src),
            *(Out(part, line.src) for part, line in zip(rendering.lines, region)),
            Out("", region[-1].src),
        ]
        return node

    def _page_link(self, href: str, raw: str, offset: int, line: Line, col: int) -> str:
        """A relative link without an extension, resolved as doc-builder resolves it, and rewritten to the
        page's Markdown file so MkDocs, the link map and the checker agree; the href to record.

        doc-builder serves every page at a URL without a trailing slash (``.../perf_train_gpu_one``), so
        ``./trainer`` is the sibling page ``trainer.md`` and ``../usage_guides/fsdp#y`` the page
        ``usage_guides/fsdp.md`` one directory up from the page's own directory."""
        if self.site is None:
            return href
        parts = urlsplit(href)
        path = unquote(parts.path)
        if parts.scheme or parts.netloc or not path or path.startswith("/") or path.endswith("/"):
            return href
        if posixpath.splitext(posixpath.basename(path))[1]:
            return href  # a file name with its extension: MkDocs resolves it as written
        base = posixpath.dirname(self.site.page)
        target = posixpath.normpath(posixpath.join(base, path))
        found = next(
            (target + suffix for suffix in PAGE_SUFFIXES if target + suffix in self.site.files),
            next((f"{target}/index{s}" for s in PAGE_SUFFIXES if f"{target}/index{s}" in self.site.files), None),
        )
        if found is None:
            pages = sorted(f[: -len(sfx)] for f in self.site.files for sfx in PAGE_SUFFIXES if f.endswith(sfx))
            name = _closest(posixpath.basename(target), sorted({posixpath.basename(p) for p in pages}))
            nearest = sorted(
                (posixpath.relpath(p, base or ".") for p in pages if posixpath.basename(p) == name),
                key=lambda rel: (rel.count("/"), rel),
            )
            shown = [f"./{rel}" if not rel.startswith(".") else rel for rel in nearest[:1]]
            self.error(
                line,
                col,
                f"broken link '{href}': no page {target}.md",
                "missing-file",
                f"did you mean '{shown[0]}'?" if shown else None,
            )
            return href
        written = raw[offset:].split(None, 1)[0] if raw[offset:].strip() else ""
        dest = written.split(")", 1)[0] if not written.startswith("<") else ""
        if not dest or urlsplit(dest).path != parts.path:
            return href  # written in a form we do not rewrite in place (<...>, escapes): left to the checker
        new_path = posixpath.relpath(found, base or ".")
        new = new_path + (f"?{parts.query}" if parts.query else "") + (f"#{parts.fragment}" if parts.fragment else "")
        self.edit(line, col, col + len(dest), new)
        return new

    # -- raw HTML ------------------------------------------------------------------------
    def _check_html(self, lines: list[Line], start: int, end: int) -> None:
        fragment = "\n".join(line.text for line in lines[start:end])
        if md.is_markup_declaration(fragment):
            self._declaration(lines[start], md.indent_of(fragment))
        if not self._check_fragment(lines, (start, 0), fragment, block=True):
            self._left_out.add((lines[start].src, lines[start].col0))
        self._html_links(lines, (start, 0), fragment)

    def _delete(
        self, place: Callable[[int], tuple[Line, int]], starts: list[int], span: tuple[int, int], new: str
    ) -> None:
        """Replaces the text of a fragment between two offsets (``starts``: its line starts) with ``new``, each line
        of the span edited where it is rendered."""
        a, b = span
        while a < b:
            row = _row(starts, a)
            row_end = starts[row + 1] - 1 if row + 1 < len(starts) else b
            line, col = place(a)
            end = min(b, row_end)
            self.edit(line, col, col + end - a, new)
            new = ""
            a = row_end + 1

    def _declaration(self, line: Line, col: int) -> None:
        self.error(
            line,
            col,
            "processing instructions, declarations and CDATA (<?...>, <!...>, <![CDATA[...]]>) are not allowed "
            "in pages",
            "forbidden-html",
            hint="write it as inline code (`<...>`) if it is meant literally",
        )

    def _html_links(self, lines: list[Line], at: Pos, fragment: str) -> None:
        page = parse_page(fragment)
        for anchor in sorted(page.ids):
            self.ids[(anchor, self.location(lines[at[0]], at[1]))] = None
        for url in page.urls:
            row, col = locate(fragment, url)
            line = lines[at[0] + row - 1]
            self.links[(url, self.location(line, col - 1 + (at[1] if row == 1 else 0)))] = None

    def _reference_links(self, region: list[Line]) -> None:
        env: dict = {}
        md.MD.parse("\n".join(line.text for line in region), env)
        for ref in env.get("references", {}).values():
            href = str(ref.get("href", ""))
            line = next((x for x in region if href in x.text), region[0])
            self.links[(href, self.location(line, max(line.text.find(href), 0)))] = None

    def _check_fragment(self, lines: list[Line], at: Pos, fragment: str, block: bool = False) -> bool:
        """Reports what the allowlist refuses in a raw-HTML fragment and removes it from the page's text (an
        attribute, or an element's tags with its content kept), so neither the page nor its Markdown copy holds
        it. False when a construct could not be removed that way (an element holding another refused one, an
        attribute over three lines or more, text the start-tag reader cannot find): the caller leaves it out."""
        starts = _line_starts(fragment)

        def place(offset: int) -> tuple[Line, int]:
            row = _row(starts, offset)
            return lines[at[0] + row], offset - starts[row] + (at[1] if row == 0 else 0)

        removed = True
        for finding in unsafe_constructs(fragment, self.site.embeds if self.site else EmbedHosts()):
            if finding.construct == "markdown":
                continue  # md_in_html's switch: Python-Markdown consumes it, it never reaches the page
            element = finding.construct.startswith("<")
            # an attribute over three lines or more would leave a blank line inside its tag: not removed here
            removable = bool(finding.spans) and (element or fragment.count("\n", *finding.spans[0]) <= 1)
            if removable:  # its text goes; an iframe from an allowed host leaves its placeholder there
                for i, span in enumerate(finding.spans):
                    self._delete(place, starts, span, finding.replacement if i == 0 else "")
            if finding.code == EMBED:
                continue
            removed = removed and removable
            hint: str | None = "the HTML block is left out" if block else None
            if removable:
                hint = _REMOVED[element and finding.construct[1:] not in CLEAN_CONTENT_TAGS]
            line, col = place(finding.offset)
            self.error(line, col, finding.message, finding.code, hint)
        return removed

    # -- tags ------------------------------------------------------------------------------
    def _tag(self, tag: md.Tag, start: Pos, end: Pos, lines: list[Line], stack: list[Node]) -> None:
        line = lines[start[0]]
        col = line.col0 + start[1] + 1
        if tag.closing:
            self._close(tag.name, line, start[1], start, stack)
            return
        if tag.name in EXPANDED_EARLIER:
            self.error(
                line,
                start[1],
                f"<{tag.name}> must be expanded before the dialect conversion",
                "not-expanded",
                "run the page through perfdocs.pipeline.render_page",
            )
            return
        if tag.name not in COMPONENTS:
            self.error(
                line,
                start[1],
                f"unknown component <{tag.name}>",
                "unknown-component",
                did_you_mean(tag.name, list(COMPONENTS) + sorted(EXPANDED_EARLIER))
                or "write it as inline code (`<...>`) if it is meant literally",
            )
            if not tag.self_closing:  # its content stays where it is (nothing is left out: no note here)
                stack.append(Node(f"#unknown:{tag.name}", {}, start[0], col, end, where=self.location(line, start[1])))
            return
        if len(stack) > MAX_COMPONENT_DEPTH and not tag.self_closing:
            if len(stack) == MAX_COMPONENT_DEPTH + 1:  # once: the tags deeper still are left out the same way
                self.error(
                    line,
                    start[1],
                    f"<{tag.name}> is nested more than {MAX_COMPONENT_DEPTH} components deep (the limit)",
                    "too-deep",
                    hint="its tag is left out; its content is kept",
                )
            # read as an unknown tag: its close finds it, and its content stays where it is
            stack.append(Node(f"#unknown:{tag.name}", {}, start[0], col, end, where=self.location(line, start[1])))
            return
        attrs = self._attributes(tag.name, tag.attrs, line, start[1])
        parent = PARENTS.get(tag.name)
        if parent and stack[-1].name != parent and any(n.name == parent for n in stack):
            self._close_before(tag.name, parent, line, start, stack)
        if parent and stack[-1].name != parent:
            self.error(line, start[1], f"<{tag.name}> must be directly inside <{parent}>", "misplaced-component")
        node = Node(tag.name, attrs, start[0], col, end, where=self.location(line, start[1]), section=self._section)
        stack[-1].children.append(node)
        if tag.self_closing:
            node.body_end = end
            if tag.name not in VOID:
                self.error(line, start[1], f"<{tag.name}/> cannot be self-closing: it needs content", "empty-component")
        else:
            stack.append(node)

    def _close_before(self, name: str, parent: str, line: Line, at: Pos, stack: list[Node]) -> None:
        """A tab opened while a sibling (or what it holds) is still open: the root cause is the missing
        close, reported once where that component opened; the components are closed here, so what
        follows reads as the author meant it (no cascade of follow-on errors)."""
        here = self.location(line, at[1]).line
        while stack[-1].name != parent:
            inner = stack.pop()
            inner.body_end = at
            shown = inner.name.removeprefix("#unknown:")
            if inner.where in self._reported_open:
                continue
            self._reported_open.add(inner.where)
            self.diagnostics.append(
                Diagnostic(
                    inner.where,
                    f"<{shown}> opened here is not closed before <{name}> at line {here}",
                    "unclosed-component",
                    hint=f"add </{shown}> before line {here}",
                )
            )

    def _close(self, name: str, line: Line, offset: int, at: Pos, stack: list[Node]) -> None:
        open_names = [n.name for n in stack[1:]]
        unknown = f"#unknown:{name}"
        if unknown not in open_names and name not in open_names:
            # '<Tipp>...</Tip>': the close of the tag already reported as unknown, not a second mistake
            unknown = "#unknown:" + (_closest(name, [n.removeprefix("#unknown:") for n in open_names]) or name)
        if unknown in open_names:
            while stack[-1].name != unknown:
                stack[-2].children.extend(stack.pop().children)
            stack[-2].children.extend(stack.pop().children)  # an unknown tag's content stays where it was
            return
        if name not in open_names:
            near = _closest(name, [n for n in open_names if not n.startswith("#")])
            innermost = f"innermost open component is <{stack[-1].name}>" if len(stack) > 1 else None
            self.error(
                line,
                offset,
                f"</{name}> closes nothing",
                "unmatched-close",
                f"did you mean </{near}>?" if near else innermost,
            )
            if not near:
                return
            name = near  # '<Tip>...</Tipp>': read as the close it was meant to be, so <Tip> is not also unclosed
        while stack[-1].name != name:
            inner = stack.pop()
            inner.body_end = at
            self._reported_open.add(inner.where)
            self.error(
                line,
                offset,
                f"</{name}> closes <{name}> but <{inner.name.removeprefix('#unknown:')}> opened at line "
                f"{inner.where.line} is still open",
                "mismatched-close",
                f"add </{inner.name.removeprefix('#unknown:')}> before it",
            )
        stack.pop().body_end = at

    def _attributes(self, name: str, raw: str, line: Line, offset: int) -> dict[str, tuple[str, str]]:
        spec = COMPONENTS[name]
        attrs: dict[str, tuple[str, str]] = {}
        pos = 0
        while pos < len(raw):
            m = ATTR_RE.match(raw, pos)
            if not m or m.end() == pos:
                self.error(line, offset, f"cannot parse attributes of <{name}>: {raw.strip()!r}", "bad-attribute")
                break
            pos = m.end()
            key = m.group("name")
            if m.group("expr") is not None:
                expr = m.group("expr").strip()
                literal = len(expr) >= 2 and expr[0] == expr[-1] and expr[0] in "\"'`" and expr[0] not in expr[1:-1]
                value = ("str", expr[1:-1]) if literal else ("expr", expr)  # id={"x"} is the string "x"
            elif m.group("dq") is not None or m.group("sq") is not None:
                value = ("str", m.group("dq") if m.group("dq") is not None else m.group("sq"))
            elif m.group("uq") is not None:
                value = ("str", m.group("uq"))
            else:
                value = ("expr", "true")
            kind = spec.get(key)
            if kind is None:
                allowed = ", ".join(spec) or "none"
                self.error(
                    line,
                    offset,
                    f"unknown attribute '{key}' on <{name}>",
                    "bad-attribute",
                    did_you_mean(key, spec) or f"allowed: {allowed}",
                )
                continue
            if kind == "bool" and value == ("str", "true"):
                value = ("expr", "true")  # warning=true: Svelte passes the string "true", which is truthy
            if kind == "bool" and value not in (("expr", "true"), ("expr", "false")):
                shown = "{" + value[1] + "}" if value[0] == "expr" else f'"{value[1]}"'
                self.error(
                    line, offset, f"attribute {key}={shown} on <{name}> must be {{true}} or {{false}}", "bad-attribute"
                )
                continue
            if kind in ("str", "req") and value[0] != "str":
                self.error(line, offset, f"attribute {key} on <{name}> must be a quoted string", "bad-attribute")
                continue
            attrs[key] = value
        for key, kind in spec.items():
            if kind == "req" and (key not in attrs or not attrs[key][1].strip()):
                self.error(line, offset, f'<{name}> needs a non-empty {key}="..." attribute', "missing-attribute")
        return attrs

    # -- rendering ---------------------------------------------------------------------
    def render(self, items: list[Node | Piece | md.Block], lines: list[Line]) -> list[Out]:
        out: list[Out] = []
        previous = ""  # kind of the last block that was not blank
        for item in items:
            if self.leading and not (
                isinstance(item, md.Block)
                and (item.kind == "blank" or (item.kind == "html_block" and _is_comment(lines[item.start : item.end])))
            ):
                self.leading = False
            if isinstance(item, Node):
                _join(out, self._render_node(item, lines))
                previous = ""
            elif isinstance(item, Piece):
                pieces = _slice(lines, item.start, item.end)
                edited = [self.edited(line) for line in pieces]
                text = [Out(t.strip() if i == 0 else t, line.src) for i, (t, line) in enumerate(zip(edited, pieces))]
                _join(out, [o for o in text if o.text.strip()])
                previous = ""
            else:
                kind = item.kind
                if kind == "blockquote" and ALERT_RE.match(_unquote(lines[item.start]).text):
                    kind = "alert"  # an admonition, not a quote
                src = lines[item.start].src
                if kind != "blank" and _merges(previous, kind):  # two lists (or quotes) CommonMark keeps apart
                    _join(out, [Out("", src), Out("<!-- -->", src), Out("", src)])
                elif kind in SEPARATED and out and out[-1].text.strip() and not out[-1].code:
                    out.append(Out("", src))  # CommonMark lets these interrupt a paragraph; Python-Markdown does not
                _join(out, self._render_block(item, lines))
                previous = previous if kind == "blank" else kind
        return out

    def _render_block(self, block: md.Block, lines: list[Line]) -> list[Out]:
        region = lines[block.start : block.end]
        if block.kind == "blank":
            return [Out("", region[0].src)]
        if block.kind == "reference":
            self._reference_links(region)
            return [Out(region[0].text, region[0].src)]
        if block.kind == "fence" and not _fence_closed(block.tokens[0].markup, region):
            marker = block.tokens[0].markup
            return self._closed_at_end(region, f"code block opened with {marker}", "unclosed-fence", marker, True)
        if block.kind in ("fence", "code_block"):
            code = _code(region, block.kind == "fence")
            note = self.site.gated.note(block.tokens[0].content, self.site.page) if self.site else []
            return [*code, *(Out(line, region[-1].src) for line in ["", *note] if note)]
        if block.kind in ("blockquote", "bullet_list", "ordered_list"):
            deep = _too_deep(block)
            if deep is not None:
                top = block.tokens[0].map
                where = lines[block.start + deep.map[0] - top[0]] if deep.map and top else region[0]
                message = f"lists and quotes are nested more than {MAX_CONTAINER_DEPTH} deep here (the limit)"
                self.error(where, 0, message, "too-deep", hint="the whole list or quote is left out")
                return [Out(text, region[0].src) for text in error_block(f"{self.location(where)}: {message}")]
        if block.kind == "blockquote":
            return self._render_quote(block, region)
        if block.kind in ("bullet_list", "ordered_list"):
            return self._render_list(block, lines)
        if block.kind == "html_block" and (region[0].src, region[0].col0) in self._left_out:
            return self._html_error(region)
        end = md.html_block_end(region[0].text) if block.kind == "html_block" else None
        if end is not None and end not in "\n".join(line.text for line in region)[len(end) :]:
            start = region[0].text.lstrip(" ")[: 4 if end == "-->" else 2]
            return self._closed_at_end(region, f"{start} opened here", "unclosed-html", end, False)
        if block.kind == "html_block" and self.leading and _is_comment(region):
            return [Out("", line.src) for line in region]  # a license comment above the H1: the H1 gives the title
        if block.kind == "html_block":
            return _markdown_in_details([Line(self.edited(line), line.src, line.col0) for line in region])
        if block.kind == "heading":
            first = self._heading_id(lines, block.start)
            explicit = ATTR_ID_RE.search(first)
            if explicit:
                self.ids[(explicit.group("id"), self.location(region[0]))] = None
            if first == region[0].text:
                first = self.edited(region[0]) if explicit else _doc_builder_id(self.edited(region[0]), first)
            return [Out(first, region[0].src), *(Out(self.edited(line), line.src) for line in region[1:])]
        return [Out(self.edited(line), line.src) for line in region]

    def _closed_at_end(self, region: list[Line], what: str, code: str, closer: str, fence: bool) -> list[Out]:
        """A fence or an HTML comment never closed: CommonMark (and a browser) runs it to the end of its container,
        Python-Markdown would render the rest as Markdown and raw HTML that nothing here checked. Reported, and
        closed where CommonMark ends it."""
        self.error(
            region[0], md.indent_of(region[0].text), f"{what} is never closed", code, hint=f"end it with {closer}"
        )
        body = _code(region, True) if fence else [Out(line.text, line.src) for line in region]
        return [*body, Out(closer, region[-1].src, fence)]

    def _html_error(self, region: list[Line]) -> list[Out]:
        first, last = self.location(region[0]).line, self.location(region[-1]).line
        messages = [
            f"{d.location}: {d.message}"
            for d in self.diagnostics
            if d.code in REMOVED_HTML and first <= d.location.line <= last
        ]
        return [Out(text, region[0].src) for text in error_block("\n".join(dict.fromkeys(messages)))]

    def _render_quote(self, block: md.Block, region: list[Line]) -> list[Out]:
        inner = [_unquote(line) for line in region]
        alert = ALERT_RE.match(inner[0].text)
        if not alert:
            blocks = self._quote_blocks(block, inner)
            quoted = self.convert(inner, blocks=blocks)
            return [Out(">" + (" " + o.text if o.text else ""), o.src, o.code) for o in quoted]
        kind = alert.group("kind").upper()
        if kind not in ALERTS or alert.group("kind") != kind:
            self.error(
                region[0],
                0,
                f"unknown alert type [!{alert.group('kind')}]",
                "unknown-alert",
                did_you_mean(kind, ALERTS) or f"use one of {', '.join(ALERTS)}",
            )
        admonition, title = ALERTS.get(kind, ("note", None))
        head = f"!!! {admonition}" + (f' "{title}"' if title else "")
        blocks = self._quote_blocks(block, inner)
        if blocks and blocks[0].kind == "paragraph":  # the marker line opens the first paragraph: drop it
            blocks[0].start += 1
            if blocks[0].start >= blocks[0].end:
                blocks.pop(0)
        else:
            blocks = md.blocks("\n".join(line.text for line in inner), len(inner))
        body = [Line("", inner[0].src, inner[0].col0), *inner[1:]]
        return self._admonition(head, region[0].src, self.convert(body, blocks=blocks))

    @staticmethod
    def _quote_blocks(block: md.Block, inner: list[Line]) -> list[md.Block]:
        opening = block.tokens[0]
        first = opening.map[0] if opening.map else 0
        return md.blocks_of(block.tokens[1:-1], opening.level + 1, first, [line.text for line in inner])

    def _render_list(self, block: md.Block, lines: list[Line]) -> list[Out]:
        out: list[Out] = []
        opening = block.tokens[0]
        shift = (opening.map[0] if opening.map else 0) - block.start  # token lines -> lines of this text
        multi_block = False
        for start, end, tokens in md.list_items(block):
            start, end = start - shift, end - shift
            first = lines[start]
            width, marker = md.content_indent(first.text)
            expanded = md.expand_tabs(first.text)
            inner = [Line(expanded[width:] if len(expanded) > width else "", first.src, first.col0 + width)]
            for line in lines[start + 1 : end]:
                text = md.expand_tabs(line.text)
                cut = min(width, md.indent_of(text))
                inner.append(Line(text[cut:], line.src, line.col0 + cut))
            blocks = md.blocks_of(tokens, opening.level + 2, start + shift, [line.text for line in inner])
            converted = self.convert(inner, blocks=blocks)
            while converted and not converted[0].text and not converted[0].code:
                converted.pop(0)
            while converted and not converted[-1].text and not converted[-1].code:
                converted.pop()
            if out and (out[-1].code or multi_block):  # else Python-Markdown reads the item as lazy text
                out.append(Out("", first.src))
            multi_block = any(not o.text and not o.code for o in converted)
            if converted:
                head, rest = converted[0], converted[1:]
                # content at column 4 for CommonMark too, so the output reads the same to both parsers
                out.append(Out(f"{marker:<3} {head.text}" if head.text else marker, head.src, head.code))
                out += _indent(rest, "    ")
            else:
                out.append(Out(marker, first.src))
            if end - 1 > start and not lines[end - 1].text.strip():
                out.append(Out("", lines[end - 1].src))
        return out

    def _heading_id(self, lines: list[Line], index: int) -> str:
        line = lines[index]
        text = line.text
        m = CUSTOM_ID_RE.search(text)
        if not m or not text.lstrip().startswith("#"):
            return text
        anchor = m.group("id").strip()
        if not VALID_ID_RE.match(anchor):
            if (line.src, m.start()) not in self._bad_ids:
                self._bad_ids.add((line.src, m.start()))
                self.error(
                    line,
                    m.start(),
                    f"invalid heading id [[{anchor}]]",
                    "bad-heading-id",
                    "ids start with a letter and use letters, digits, '-', '_', '.', ':'",
                )
            return text[: m.start()].rstrip()
        return f"{text[: m.start()].rstrip()} {{ #{anchor} }}"

    def _admonition(self, head: str, src: int, body: list[Out]) -> list[Out]:
        while body and not body[0].text and not body[0].code:
            body.pop(0)
        while body and not body[-1].text and not body[-1].code:
            body.pop()
        return [Out("", src), Out(head, src), Out("", src), *_indent(body, "    "), Out("", src)]

    def _body(self, node: Node, lines: list[Line]) -> list[Line]:
        """The text between a component's tags, dedented; its first line may start after the opening tag."""
        end = node.body_end or node.body_start
        if end < node.body_start:
            return []
        body = _slice(lines, node.body_start, end)
        first = body[0]
        body[0] = Line(first.text.strip(), first.src, first.col0 + len(first.text) - len(first.text.lstrip()))
        if not body[0].text:
            return _dedent(body[1:])
        return [body[0], *_dedent(body[1:])]

    def _content(self, node: Node, lines: list[Line]) -> tuple[list[Node | Piece | md.Block], list[Line]]:
        """A component's children and the lines they index. Read again only when dedenting its body changes
        what the body is (indented text is code to CommonMark until the body is dedented)."""
        end = node.body_end or node.body_start
        inside = [line for line in lines[node.body_start[0] + 1 : end[0]] if line.text.strip()]
        if not inside or min(md.indent_of(md.expand_tabs(line.text)) for line in inside) == 0:
            return node.children, lines
        body = self._body(node, lines)
        return self.tree(body, node.name), body

    def _render_content(self, node: Node, lines: list[Line]) -> list[Out]:
        items, text = self._content(node, lines)
        return self.render(items, text)

    def _render_node(self, node: Node, lines: list[Line]) -> list[Out]:
        src = lines[node.line].src
        if node.name == "#error":
            return [Out(text, src) for text in error_block(node.message)]
        if node.name == "#lines":
            return node.rendered
        if node.name == "Tip":
            warning = node.attrs.get("warning", ("expr", "false"))[1] == "true"
            body = self._render_content(node, lines)
            return self._admonition("!!! warning" if warning else "!!! tip", src, body)
        if node.name in ("hfoptions", "frameworkcontent"):
            return self._render_tabs(node, lines)
        if node.name in PARENTS:  # a tab outside its group: already reported, keep its content
            return self._render_content(node, lines)
        if node.name == "Youtube":
            return self._render_youtube(node, lines)
        if node.name == "PipelineTag":
            return self._render_pipeline_tag(node, lines)
        if node.name == "literalinclude":
            return self._render_literalinclude(node, lines)
        if node.name in GENERATED:
            return self._render_generated(node, lines)
        return []

    def _render_tabs(self, group: Node, lines: list[Line]) -> list[Out]:
        child_name = "hfoption" if group.name == "hfoptions" else None
        children, body = self._content(group, lines)
        out: list[Out] = []
        seen: dict[str, int] = {}
        first = True
        for child in children:
            # what is not a tab is reported and shown where it is, between two sets of tabs: nothing is lost
            if isinstance(child, md.Block | Piece):
                if isinstance(child, Piece) or child.kind != "blank":
                    at = child.start if isinstance(child, Piece) else (child.start, 0)
                    self.error(
                        body[at[0]],
                        0,
                        f"text directly inside <{group.name}> is outside every tab",
                        "text-outside-tab",
                        "move it into a tab or after the closing tag; it is shown between the tabs",
                    )
                    _join(out, self.render([child], body))
                    first = True
                continue
            if child.name == "#error":
                _join(out, self._render_node(child, body))
                continue
            here = body[child.line]
            offset = child.col - 1 - here.col0
            wrong = child.name != child_name if child_name else child.name not in FRAMEWORK_LABELS
            if wrong:
                allowed = f"<{child_name}>" if child_name else "<pt>, <tf>, <jax>, <flax>"
                self.error(
                    here,
                    offset,
                    f"<{child.name}> inside <{group.name}>; only {allowed} may be here",
                    "misplaced-component",
                )
                _join(out, self._render_node(child, body))
                first = True
                continue
            label = child.attrs.get("id", ("str", ""))[1] if child_name else FRAMEWORK_LABELS[child.name]
            if '"' in label:
                self.error(here, offset, f"tab label {label!r} cannot contain '\"'", "bad-attribute")
                label = label.replace('"', "'")
            if label in seen:
                self.error(
                    here,
                    offset,
                    f"tab '{label}' appears twice in this <{group.name}> (first at line {seen[label]})",
                    "duplicate-tab",
                    "shown as a second tab of that name",
                )
            shared = next((s for s in SHARED_TAB_LABELS if s != label and s.casefold() == label.casefold()), None)
            if shared is not None:
                self.error(
                    here,
                    offset,
                    f"tab '{label}' differs from the guide's shared label '{shared}' only in case: a reader's pick "
                    "of one does not carry over to the other",
                    "tab-label-case",
                    f"write id=\"{shared}\"",
                    level="warning",
                )
            seen.setdefault(label, self.location(here).line)
            head = f'==={"!" if first else ""} "{label}"'
            _join(out, self._admonition(head, here.src, self._render_content(child, body)))
            first = False
        if not seen:
            line = lines[group.line]
            self.error(line, group.col - 1 - line.col0, f"<{group.name}> has no tabs", "empty-component")
        return out

    def _render_youtube(self, node: Node, lines: list[Line]) -> list[Out]:
        line = lines[node.line]
        offset = node.col - 1 - line.col0
        if node.body_end and node.body_end != node.body_start and any(b.text.strip() for b in self._body(node, lines)):
            self.error(line, offset, "<Youtube> takes no content", "bad-attribute")
        video = node.attrs.get("id", ("str", ""))[1]
        if video and not is_youtube_id(video):
            self.error(
                line,
                offset,
                f"<Youtube id=\"{video}\"> is not a YouTube video id (11 characters of letters, digits, '-' and '_')",
                "bad-attribute",
            )
            return []
        if not video:
            return []
        title = node.attrs.get("title", ("str", "YouTube video"))[1]
        return [Out("", line.src), Out(placeholder(youtube_address(video), title), line.src), Out("", line.src)]

    def _render_pipeline_tag(self, node: Node, lines: list[Line]) -> list[Out]:
        """doc-builder's task badge: the task's name, for a transformers pipeline task it knows."""
        line = lines[node.line]
        offset = node.col - 1 - line.col0
        if node.body_end and node.body_end != node.body_start and any(b.text.strip() for b in self._body(node, lines)):
            self.error(line, offset, "<PipelineTag> takes no content", "bad-attribute")
        task = node.attrs.get("pipeline", ("str", ""))[1].strip()
        if not task:
            return []  # reported as a missing attribute
        if task not in docbuilder.PIPELINE_TASKS:
            self.error(
                line,
                offset,
                f'<PipelineTag pipeline="{task}"> is not a pipeline task',
                "bad-attribute",
                did_you_mean(task, docbuilder.PIPELINE_TASKS) or "a transformers pipeline task, e.g. text-generation",
            )
            return []
        return [Out("", line.src), Out(docbuilder.pipeline_badge(task), line.src), Out("", line.src)]

    def _render_generated(self, node: Node, lines: list[Line]) -> list[Out]:
        line = lines[node.line]
        content = self.generated.get(node.name)
        if node.name in ("MemoryBudget", "Measured"):  # one table per tag, from its attributes
            content, problems = (
                budgets.render_budget(node.attrs, self._calculator())
                if node.name == "MemoryBudget"
                else measured.render_measured(node.attrs, self.root)
            )
            for problem in problems:
                self.error(line, node.col - 1 - line.col0, problem.message, "bad-attribute", problem.hint)
            if problems:
                return []
        if content is None:
            self.error(
                line,
                node.col - 1 - line.col0,
                f"<{node.name}/> is generated by the site build; it has no content here",
                "not-generated",
            )
            return []
        for text in content:
            for _, href in md.scan_inline(text).links:
                self.links[(href, self.location(line, node.col - 1 - line.col0))] = None
        return [Out("", line.src), *(Out(text, line.src) for text in content), Out("", line.src)]

    def _calculator(self) -> str | None:
        """The page with the memory calculator, as a link from this page (None: the site has none)."""
        if self.site is None or self.site.calculator is None:
            return None
        return posixpath.relpath(self.site.calculator, posixpath.dirname(self.site.page) or ".")

    def _render_literalinclude(self, node: Node, lines: list[Line]) -> list[Out]:
        line = lines[node.line]
        raw = "\n".join(b.text for b in self._body(node, lines))
        code = self._literalinclude_body(raw, line, node.col - 1 - line.col0)
        if code is None:
            return []
        body, language = code
        longest = max((len(run) for run in re.findall(r"`{3,}", body)), default=2)
        fence = "`" * max(3, longest + 1)
        return [
            Out("", line.src),
            Out(f"{fence}{language}", line.src, True),
            *(Out(text, line.src, True) for text in body.split("\n")),
            Out(fence, line.src, True),
            Out("", line.src),
        ]

    def _literalinclude_body(self, raw: str, line: Line, col: int) -> tuple[str, str] | None:
        def fail(message: str, code: str = "bad-literalinclude", hint: str | None = None) -> None:
            self.error(line, col, message, code, hint)

        try:
            spec = json.loads(raw)
        except json.JSONDecodeError as exc:
            fail(f"<literalinclude> body is not JSON: {exc.msg}")
            return None
        if not isinstance(spec, dict):
            fail("<literalinclude> body must be a JSON object")
            return None
        unknown = sorted(set(spec) - LITERALINCLUDE_KEYS)
        if unknown:
            fail(
                f"<literalinclude> has unknown key '{unknown[0]}'",
                hint=did_you_mean(unknown[0], LITERALINCLUDE_KEYS)
                or f"allowed: {', '.join(sorted(LITERALINCLUDE_KEYS))}",
            )
            return None
        path = spec.get("path")
        dedent = spec.get("dedent", 0)
        if not isinstance(path, str) or not path:
            fail('<literalinclude> needs a "path"')
            return None
        if not isinstance(dedent, int) or isinstance(dedent, bool) or dedent < 0:
            fail('<literalinclude> "dedent" must be a non-negative integer')
            return None
        if self.root is None:
            fail("<literalinclude> needs a repository root")
            return None
        here = self.location(line)
        root = self.root.resolve()
        target = (root / here.path).parent / path
        try:
            resolved = target.resolve()
        except OSError as exc:
            fail(f"<literalinclude> cannot resolve {path!r}: {exc}")
            return None
        if not resolved.is_relative_to(root):
            fail(f"<literalinclude> path {path!r} points outside the repository", "path-outside-root")
            return None
        if not resolved.is_file():
            fail(
                f"<literalinclude> file {path!r} not found (looked for {resolved.relative_to(root).as_posix()})",
                "missing-file",
            )
            return None
        try:
            text_lines = resolved.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            fail(f"<literalinclude> cannot read {path!r}: {exc}")
            return None
        for key in ("start-after", "end-before"):
            marker = spec.get(key)
            if marker is None:
                continue
            hits = [i for i, text in enumerate(text_lines) if isinstance(marker, str) and marker in text]
            if not hits:
                fail(f"<literalinclude> marker {key}={marker!r} not found in {path}", "missing-marker")
                return None
            text_lines = text_lines[hits[0] + 1 :] if key == "start-after" else text_lines[: hits[0]]
        if dedent:
            text_lines = [t[dedent:] if not t[:dedent].strip() else t.lstrip() for t in text_lines]
        language = spec.get("language", "")
        if not isinstance(language, str) or not LANGUAGE_RE.fullmatch(language):
            fail('<literalinclude> "language" must be a plain language name')
            language = ""
        return "\n".join(text_lines), language


# the hint of a construct removed from the text, by whether it is an element whose content is kept
_REMOVED = {False: "removed from the page", True: "its tags are removed from the page, its content kept"}


def _doc_builder_id(edited: str, source: str) -> str:
    """A heading with the id doc-builder gives it written out, where the toc would read its text otherwise (inline
    code, links, emphasis, images and tags are separate words to doc-builder: see text.heading_words)."""
    heading = parse_heading(source.lstrip(" "))
    if heading is None or not doc_builder_ids() or source.rstrip().endswith("#"):
        return edited
    wanted = slugify(heading.text)
    if not wanted or wanted == toc_slug(heading.text):
        return edited
    return f"{edited.rstrip()} {{ #{wanted} }}"


def _heading_above(parent: Node, lines: list[Line]) -> tuple[Node, md.Block, str] | None:
    """The ATX heading that is the last thing in ``parent`` so far (blank lines aside), with its text."""
    for child in reversed(parent.children):
        if isinstance(child, md.Block) and child.kind == "blank":
            continue
        if isinstance(child, md.Block) and child.kind == "heading":
            return parent, child, lines[child.start].text
        return None
    return None


def _level(block: md.Block) -> int:
    """The level of a heading block (its tag, h1-h6)."""
    return int(block.tokens[0].tag[1:])


def _closest(word: str, candidates: list[str]) -> str | None:
    """The candidate ``word`` most likely misspells (difflib, the threshold did_you_mean uses)."""
    import difflib

    close = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    return close[0] if close else None


def _destination(raw: str, start: int) -> int:
    """Offset of the destination in the inline link or image that starts at ``start`` (the '<' of an autolink)."""
    if raw.startswith("<", start):
        return start + 1
    paren = raw.find("](", start)
    if paren < 0:
        return start
    at = paren + 2
    while at < len(raw) and raw[at] in " \t\n<":
        at += 1
    return at


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return starts


def _row(starts: list[int], offset: int) -> int:
    import bisect

    return bisect.bisect_right(starts, offset) - 1


def _unquote(line: Line) -> Line:
    """A blockquote line without its '>' marker (a lazy continuation line stays as it is)."""
    text = md.expand_tabs(line.text)
    lead = md.indent_of(text)
    if lead > 3 or text[lead : lead + 1] != ">":
        return line
    cut = lead + 1 + (1 if text[lead + 1 : lead + 2] == " " else 0)
    return Line(text[cut:], line.src, line.col0 + cut)


def _dedent(lines: list[Line]) -> list[Line]:
    widths = [md.indent_of(md.expand_tabs(line.text)) for line in lines if line.text.strip()]
    cut = min(widths, default=0)
    if not cut:
        return lines
    return [Line(md.expand_tabs(line.text)[cut:], line.src, line.col0 + cut) for line in lines]


def _code(region: list[Line], fence: bool) -> list[Out]:
    """A code block as it stands; a fence loses the indentation CommonMark strips from its lines."""
    if not fence:
        return [Out(line.text, line.src, True) for line in region]
    opening = md.indent_of(md.expand_tabs(region[0].text))
    out = []
    for line in region:
        text = md.expand_tabs(line.text) if opening else line.text
        cut = min(opening, md.indent_of(text))
        out.append(Out(text[cut:], line.src, True))
    return out


def _too_deep(block: md.Block) -> Token | None:
    """The first list or blockquote of ``block`` that is nested deeper than MAX_CONTAINER_DEPTH, if any."""
    depth = 0
    for token in block.tokens:
        if token.type in CONTAINERS:
            depth += 1
            if depth > MAX_CONTAINER_DEPTH:
                return token
        elif token.type.removesuffix("_close") + "_open" in CONTAINERS and token.nesting == -1:
            depth -= 1
    return None


def _fence_closed(marker: str, region: list[Line]) -> bool:
    """Whether a fenced code block's last line closes it (CommonMark: the fence character, at least as many
    times as it opened with, up to 3 spaces of indentation, nothing after but spaces)."""
    if len(region) < 2:
        return False
    last = md.expand_tabs(region[-1].text)
    stripped = last.strip()
    return md.indent_of(last) < 4 and len(stripped) >= len(marker) and set(stripped) == {marker[0]}


def _merges(before: str, after: str) -> bool:
    """Whether Python-Markdown would join these two adjacent blocks into one (lists of any kind; quotes)."""
    lists = ("bullet_list", "ordered_list")
    return (before in lists and after in lists) or before == after == "blockquote"


def _markdown_in_details(region: list[Line]) -> list[Out]:
    """An HTML block as written; a ``<details>`` that opens it gets md_in_html's switch, so the Markdown
    inside renders as doc-builder renders it."""
    out = [Out(line.text, line.src) for line in region]
    first = out[0].text
    tags = md.scan_inline(first.strip()).html
    if tags and tags[0][0] == 0 and tags[0][1].lower().startswith("<details") and "markdown" not in tags[0][1]:
        tag = tags[0][1]
        at = first.index(tag) + len("<details")
        out[0] = Out(first[:at] + ' markdown="1"' + first[at:], out[0].src)
    return out


def _is_comment(region: list[Line]) -> bool:
    """An HTML block that is one comment and nothing else."""
    text = "\n".join(line.text for line in region).strip()
    return text.startswith("<!--") and text.endswith("-->") and text.find("-->") == len(text) - 3


def _join(out: list[Out], more: list[Out]) -> None:
    """Appends ``more``; outside code, never two blank lines in a row."""
    for line in more:
        if not line.text and not line.code and out and not out[-1].text and not out[-1].code:
            continue
        out.append(line)


def convert(
    text: str,
    source_map: SourceMap,
    root: Path | None = None,
    generated: dict[str, list[str]] | None = None,
    site: Site | None = None,
) -> Converted:
    """Converts the dialect in ``text`` (whose lines ``source_map`` locates) to Material Markdown.

    ``generated`` holds the lines of build-generated components such as ``<TechniqueMatrix/>``; ``site``
    what the page may link to (without it, extension-less links are left to the link check).
    """
    lines = [Line(t, i) for i, t in enumerate(text.split("\n"))]
    conv = _Converter(source_map, root, generated, site)
    conv.references = reference_labels(text)
    out = conv.convert(lines)
    while out and not out[0].text and not out[0].code:
        out.pop(0)
    while out and not out[-1].text and not out[-1].code:
        out.pop()
    if text.endswith("\n") and out:
        out.append(Out("", len(lines) - 1))
    if not out:
        out = [Out("", 0)]
    diagnostics = list(dict.fromkeys(conv.diagnostics))
    text_out = "\n".join(o.text for o in out)
    smap = source_map.compose([o.src for o in out])
    return Converted(text_out, smap, diagnostics, list(conv.links), list(conv.ids))


__all__ = ["Converted", "Site", "convert", "error_block"]
