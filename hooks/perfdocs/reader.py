"""Reads a text into the tree the converter renders: CommonMark's blocks (perfdocs.markdown), and the components
among them, each tag checked against its declaration (perfdocs.components) with a stack of open components. Blocks
that hold inline constructs are read here too: their rewrites (perfdocs.inline), raw HTML (perfdocs.rawhtml), links,
and the marker lines (perfdocs.markers). Every problem is reported at its place, once; what follows a mistake reads
as the author meant it where that can be told (a tab opened before its sibling closed, ``</Tipp>`` for ``</Tip>``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from . import budgets
from . import markdown as md
from .components import EXPANDED_EARLIER, REGISTRY, children_of, read_attributes
from .diagnostics import Diagnostic, Location, closest, did_you_mean
from .document import (
    Conversion,
    Line,
    Node,
    Piece,
    Pos,
    Ready,
    Unknown,
    error_lines,
    line_starts,
    row_of,
    slice_lines,
)
from .inline import InlineRewrites
from .markers import Markers
from .rawhtml import RawHtml
from .sanitize import URL_SCHEMES, attribute_list, url_scheme
from .text import MARKER_RE

# Bounds on what one page may ask of the renderers, each found by input that stalled or crashed a build: 500
# nested <Tip> overflowed the dialect's stack, and Python-Markdown's link pattern is quadratic in the '[' of one
# paragraph (1,000 take 0.2 s, 4,000 take 7 s, 16,000 take 83 s).
MAX_COMPONENT_DEPTH = 24
MAX_BRACKETS = 1_000  # '[' in one paragraph, heading or table
# what makes a block worth an inline parse ("][": a reference link, or text Python-Markdown would read as one)
INLINE_MARKS = ("<", "](", "]:", "[`", "$", "\\(", "\\[", "][", "] [", "]\n[")
# An attribute list (``{: #id .class key=value }``): attr_list's pattern (AttrListTreeprocessor.BASE_RE), ended at
# the first '}', where its scanner stops reading attributes, so that two lists on a line are two matches.
ATTR_LIST_RE = re.compile(r"\{\:?[ ]*([^\}\n ][^\}\n]*)\}")
INLINE_BLOCKS = {"paragraph", "heading", "lheading", "table", "mdx_line"}

Item = Node | Piece | md.Block


class Reader:
    def __init__(self, conv: Conversion):
        self.conv = conv
        self.inline = InlineRewrites(conv)
        self.html = RawHtml(conv)
        self.markers = Markers(conv)
        self.reported_open: set[Location] = set()  # the opening tags already reported as not closed
        self.section = 0  # the level of the last heading read by tree() (see Node.section)

    def tree(self, lines: list[Line], within: str = "#root", blocks: list[md.Block] | None = None) -> list[Item]:
        """The blocks and components of ``lines``, the body of a ``within`` component.

        ``blocks`` are the lines' blocks when the page's parse already has them (a list item's content).
        """
        if blocks is None:
            blocks = md.blocks("\n".join(line.text for line in lines), len(lines))
        root = Node(within, {}, 0, 1, (0, 0))
        stack = [root]
        consumed: set[int] = set()
        outer, self.section = self.section, 0
        for index, block in enumerate(blocks):
            if index in consumed:
                continue
            if block.kind in ("heading", "lheading"):
                self.section = level(block)
            if block.kind == "paragraph" and MARKER_RE.match(lines[block.start].text.strip()):
                stack[-1].children.append(self.markers.paragraph(blocks, index, lines, consumed, stack[-1]))
            elif block.kind == "paragraph" and (math := self.inline.math_block(block, lines)) is not None:
                stack[-1].children.append(math)
            elif block.kind in INLINE_BLOCKS:
                self.inline_block(block, lines, stack)
            else:
                if block.kind == "html_block":
                    self.html.block(lines, block.start, block.end)
                stack[-1].children.append(block)
        self.section = outer
        self.close_at_end(lines, stack)
        return root.children

    def close_at_end(self, lines: list[Line], stack: list[Node]) -> None:
        """The components still open at the end of a text: each reported once, and ended where it should."""
        end = (len(lines) - 1, len(lines[-1].text)) if lines else (0, 0)
        while len(stack) > 1:
            node = stack.pop()
            node.body_end = end
            if isinstance(node, Unknown):
                stack[-1].children.extend(node.children)
                continue  # the unknown-component error already names the cause
            heading = self.end_unclosed(node, stack[-1], lines)
            if node.where in self.reported_open:
                continue  # the body of a component closed too early: its cause is already reported
            self.reported_open.add(node.where)
            where = f"; it ends before the heading at line {self.conv.location(lines[heading]).line}" if heading else ""
            self.conv.error(
                lines[node.line],
                node.col - 1 - lines[node.line].col0,
                f"<{node.name}> opened here is never closed",
                "unclosed-component",
                f"add </{node.name}>{where}",
            )

    @staticmethod
    def end_unclosed(node: Node, parent: Node, lines: list[Line]) -> int | None:
        """Where a component never closed ends, so the rest of the page still renders: a tab group after its last
        tab (what follows is the page again, not "text outside every tab"), any component before the next heading
        of the section it opened in (a heading of its level or above; under the title, the next H2). What follows
        goes back to ``parent``. Returns the line index of that heading, if it is where the component ends."""
        heading = None
        top = max(node.section, 2)
        for i, child in enumerate(node.children):
            if isinstance(child, md.Block) and child.kind in ("heading", "lheading") and level(child) <= top:
                parent.children.extend(node.children[i:])
                del node.children[i:]
                node.body_end = (child.start, 0)
                heading = child.start
                break
        tabs = [i for i, child in enumerate(node.children) if isinstance(child, Node)]
        if children_of(node.name) and tabs:
            # right after the group, before what the heading moved out of it
            at = next(i for i, child in enumerate(parent.children) if child is node) + 1
            parent.children[at:at] = node.children[tabs[-1] + 1 :]
            del node.children[tabs[-1] + 1 :]
            last = node.children[-1]
            assert isinstance(last, Node)
            node.body_end = last.body_end or node.body_end
        return heading

    # -- a block with inline constructs ------------------------------------------------
    def inline_block(self, block: md.Block, lines: list[Line], stack: list[Node]) -> None:
        region = lines[block.start : block.end]
        raw = "\n".join(line.text for line in region)
        brackets = raw.count("[")
        if brackets > MAX_BRACKETS:
            message = (
                f"this {block.kind} has {brackets:,} '[' (the limit is {MAX_BRACKETS:,}): Python-Markdown takes minutes"
            )
            self.conv.error(
                region[0], 0, message, "too-long", hint="it is left out; put long literal text in a code block"
            )
            node = Ready("#too-long", {}, block.start, region[0].col0 + 1, (block.end - 1, len(region[-1].text)))
            node.rendered, node.error = error_lines(f"{self.conv.location(region[0])}: {message}", region[0].src), True
            stack[-1].children.append(node)
            return
        plain = not any(mark in raw for mark in INLINE_MARKS)  # no tag, raw HTML, link, API link or math
        if plain and "{" not in raw:  # nor an attribute list
            stack[-1].children.append(block)
            return
        starts = line_starts(raw)

        def pos(offset: int) -> Pos:
            row = row_of(starts, offset)
            return block.start + row, offset - starts[row]

        if plain:  # the inline parse only tells an attribute list from code spans and escapes
            found = md.scan_inline(raw) if "`" in raw or "\\" in raw else md.Inline([], [], [], [])
            self.markup(raw, found, block.kind, lines, pos)
            stack[-1].children.append(block)
            return
        found = md.scan_inline(raw)
        self.inline.rewrite(raw, found, lines, pos)
        self.inline_html(raw, found, lines, pos)
        self.links(raw, found, lines, pos)
        self.markup(raw, found, block.kind, lines, pos)
        self.unparsed_tags(raw, found, lines, pos)
        if block.kind == "paragraph" and "]:" in raw:  # Python-Markdown also reads definitions inside paragraphs
            for line in region[1:]:
                if "]:" in line.text:
                    self.html.reference_links([line])
        if block.kind in ("paragraph", "mdx_line", "table"):
            found = self.memory_figures(found, lines, pos)
        if not found.tags:
            stack[-1].children.append(block)
            return
        if block.kind not in ("paragraph", "mdx_line"):
            self.tags_in_line(block, found, lines, pos)
            stack[-1].children.append(block)
            return
        cursor = pos(0)
        for tag in found.tags:
            start, end = pos(tag.start), pos(tag.end)
            if stack[-1].name != "literalinclude" or (tag.closing and tag.name == "literalinclude"):
                self.piece(lines, cursor, start, stack)
                self.tag(tag, start, end, lines, stack)
                cursor = end
        self.piece(lines, cursor, pos(len(raw)), stack)

    def inline_html(self, raw: str, found: md.Inline, lines: list[Line], pos: Callable[[int], Pos]) -> None:
        """What a browser would parse of a block: its text with code spans, autolinks and escapes blanked out
        (Python-Markdown passes more through as raw HTML than CommonMark calls a tag: '<img/onerror=...>')."""
        masked = list(raw)
        for a, b in [*found.literal, *((tag.start, tag.end) for tag in found.tags)]:
            masked[a:b] = " " * (b - a)
        for offset, source in found.html:
            if md.is_markup_declaration(source):
                at = pos(offset)
                self.html.declaration(lines[at[0]], at[1])
        if "<" in masked:  # raw HTML outside code: what the allowlist would remove, and its links and ids
            self.html.check(lines, pos(0), "".join(masked))
            self.html.record(lines, pos(0), "".join(masked))

    def markup(self, raw: str, found: md.Inline, kind: str, lines: list[Line], pos: Callable[[int], Pos]) -> None:
        """Where the block writes what Python-Markdown makes HTML attributes or raw HTML of, outside code spans,
        autolinks and escapes (its links' destinations are recorded with the links): each tag (also one CommonMark
        reads as text: ``<img/onerror=...>``) or comment to the end of its line, and each attribute list. The
        sanitiser's findings in the page's HTML are located there (Conversion.record_markup). What the allowlist
        refuses in an attribute list Python-Markdown applies is reported at its place."""

        def literal(at: int) -> bool:
            return any(a <= at < b for a, b in found.literal)

        spans = [(start, _line_end(raw, start)) for start in _tag_starts(raw) if not literal(start)]
        for match in ATTR_LIST_RE.finditer(raw) if "{" in raw else ():
            if literal(match.start()):
                continue
            spans.append(match.span())
            if _applies(raw, match, kind, found.ends):
                row, col = pos(match.start(1))
                self.html.set_attributes(attribute_list(match.group(1)), match.group(1), lines[row], col)
        for start, end in spans:
            row, col = pos(start)
            self.conv.record_markup(lines[row], col, col + end - start)

    def links(self, raw: str, found: md.Inline, lines: list[Line], pos: Callable[[int], Pos]) -> None:
        """The block's links, recorded (a page link rewritten to its file); a refused URL scheme reported."""
        for offset, href in found.links:
            at = pos(destination(raw, offset))
            href = self.inline.page_link(href, raw, destination(raw, offset), lines[at[0]], at[1])
            self.conv.link(href, lines[at[0]], at[1])
            scheme = url_scheme(href)
            if scheme is not None and scheme not in URL_SCHEMES:
                self.conv.error(
                    lines[at[0]],
                    at[1],
                    f"link with the {scheme}: scheme is not allowed",
                    "unsafe-url",
                    "link to a page, a file in the repository or an https:// URL",
                )

    def tags_in_line(self, block: md.Block, found: md.Inline, lines: list[Line], pos: Callable[[int], Pos]) -> None:
        """Component tags in a heading or a table: each one reported, none rendered (the block stays whole)."""
        where = "heading" if "heading" in block.kind else "table"
        for tag in found.tags:
            at = pos(tag.start)
            if tag.name not in REGISTRY and tag.name not in EXPANDED_EARLIER:
                if not tag.closing:
                    self.conv.error(
                        lines[at[0]],
                        at[1],
                        f"unknown component <{tag.name}>",
                        "unknown-component",
                        did_you_mean(tag.name, list(REGISTRY)) or "write it as inline code (`<...>`)",
                    )
            elif not tag.closing or not any(t.name == tag.name and not t.closing for t in found.tags):
                self.conv.error(
                    lines[at[0]],
                    at[1],
                    f"<{tag.name}> cannot be used inside a {where}",
                    "misplaced-component",
                    "put the component on a line of its own",
                )

    def memory_figures(self, found: md.Inline, lines: list[Line], pos: Callable[[int], Pos]) -> md.Inline:
        """``<MemoryBudget show="..."/>`` inside text or a table cell becomes its figure, in place (budgets.py);
        ``found`` is returned without those tags. Without ``show`` the tag is a table, rendered as a block."""
        inline = []
        for tag in found.tags:
            if tag.name != "MemoryBudget" or tag.closing:
                continue
            (row, col), (row_end, col_end) = pos(tag.start), pos(tag.end)
            before = len(self.conv.diagnostics)
            attrs = self.attributes(tag.name, tag.attrs, lines[row], col)
            if "show" not in attrs:
                del self.conv.diagnostics[before:]  # a table: its attributes are read (and reported) once, as a block
                continue
            inline.append(tag)
            text, problems = budgets.figure(attrs)
            for problem in problems:
                self.conv.error(lines[row], col, problem.message, "bad-attribute", problem.hint)
            if row == row_end:
                self.conv.edit(lines[row], col, col_end, text)
            else:
                self.conv.error(lines[row], col, "<MemoryBudget show=...> must be on one line", "bad-attribute")
        if not inline:
            return found
        return md.Inline(
            [t for t in found.tags if t not in inline], found.html, found.links, found.opaque, found.literal
        )

    def piece(self, lines: list[Line], start: Pos, end: Pos, stack: list[Node]) -> None:
        if any(line.text.strip() for line in slice_lines(lines, start, end)):
            stack[-1].children.append(Piece(start, end))

    def unparsed_tags(self, raw: str, found: md.Inline, lines: list[Line], pos: Callable[[int], Pos]) -> None:
        """'<Tip' in text that no parse read as a tag (``<Tip warning={ true }>``): loud, not literal."""
        for m in re.finditer(r"</?([A-Za-z][\w-]*)", raw):
            if any(a <= m.start() < b for a, b in found.opaque):
                continue
            name = m.group(1)
            if name in REGISTRY or name in EXPANDED_EARLIER:
                at = pos(m.start())
                self.conv.error(
                    lines[at[0]],
                    at[1],
                    f"cannot read this <{name}> tag",
                    "bad-attribute",
                    'write attributes as name="value" or name={value}, with no spaces inside { }',
                )

    # -- tags ------------------------------------------------------------------------------
    def tag(self, tag: md.Tag, start: Pos, end: Pos, lines: list[Line], stack: list[Node]) -> None:
        line = lines[start[0]]
        col = line.col0 + start[1] + 1
        if tag.closing:
            self.close(tag.name, line, start[1], start, stack)
            return
        if tag.name in EXPANDED_EARLIER:
            self.conv.error(
                line,
                start[1],
                f"<{tag.name}> must be expanded before the dialect conversion",
                "not-expanded",
                "run the page through perfdocs.pipeline.render_page",
            )
            return
        component = REGISTRY.get(tag.name)
        if component is None:
            self.conv.error(
                line,
                start[1],
                f"unknown component <{tag.name}>",
                "unknown-component",
                did_you_mean(tag.name, [*REGISTRY, *EXPANDED_EARLIER])
                or "write it as inline code (`<...>`) if it is meant literally",
            )
            if not tag.self_closing:  # its content stays where it is (nothing is left out: no note here)
                stack.append(Unknown(tag.name, {}, start[0], col, end, where=self.conv.location(line, start[1])))
            return
        if len(stack) > MAX_COMPONENT_DEPTH and not tag.self_closing:
            if len(stack) == MAX_COMPONENT_DEPTH + 1:  # once: the tags deeper still are left out the same way
                self.conv.error(
                    line,
                    start[1],
                    f"<{tag.name}> is nested more than {MAX_COMPONENT_DEPTH} components deep (the limit)",
                    "too-deep",
                    hint="its tag is left out; its content is kept",
                )
            # read as an unknown tag: its close finds it, and its content stays where it is
            stack.append(Unknown(tag.name, {}, start[0], col, end, where=self.conv.location(line, start[1])))
            return
        attrs = self.attributes(tag.name, tag.attrs, line, start[1])
        parent = component.parent
        if parent and stack[-1].name != parent and any(n.name == parent for n in stack):
            self.close_before(tag.name, parent, line, start, stack)
        if parent and stack[-1].name != parent:
            self.conv.error(line, start[1], f"<{tag.name}> must be directly inside <{parent}>", "misplaced-component")
        node = Node(tag.name, attrs, start[0], col, end, where=self.conv.location(line, start[1]), section=self.section)
        stack[-1].children.append(node)
        if tag.self_closing:
            node.body_end = end
            if not component.void:
                self.conv.error(
                    line, start[1], f"<{tag.name}/> cannot be self-closing: it needs content", "empty-component"
                )
        else:
            stack.append(node)

    def attributes(self, name: str, raw: str, line: Line, offset: int) -> dict[str, tuple[str, str]]:
        return read_attributes(name, raw, line, offset, self.conv)

    def close_before(self, name: str, parent: str, line: Line, at: Pos, stack: list[Node]) -> None:
        """A tab opened while a sibling (or what it holds) is still open: the root cause is the missing
        close, reported once where that component opened; the components are closed here, so what
        follows reads as the author meant it (no cascade of follow-on errors)."""
        here = self.conv.location(line, at[1]).line
        while stack[-1].name != parent:
            inner = stack.pop()
            inner.body_end = at
            if isinstance(inner, Unknown):  # its content stays where it is; the unknown-component error names it
                stack[-1].children.extend(inner.children)
                continue
            if inner.where in self.reported_open:
                continue
            self.reported_open.add(inner.where)
            self.conv.diagnostics.append(
                Diagnostic(
                    inner.where,
                    f"<{inner.name}> opened here is not closed before <{name}> at line {here}",
                    "unclosed-component",
                    hint=f"add </{inner.name}> before line {here}",
                )
            )

    def close(self, name: str, line: Line, offset: int, at: Pos, stack: list[Node]) -> None:
        opened = stack[1:]
        unknown = {n.name for n in opened if isinstance(n, Unknown)}
        known = [n.name for n in opened if not isinstance(n, Unknown)]
        meant = name
        if name not in unknown and name not in known:
            # '<Tipp>...</Tip>': the close of the tag already reported as unknown, not a second mistake
            meant = closest(name, [n.name for n in opened]) or name
        if meant in unknown:
            while not (isinstance(stack[-1], Unknown) and stack[-1].name == meant):
                stack[-2].children.extend(stack.pop().children)
            stack[-2].children.extend(stack.pop().children)  # an unknown tag's content stays where it was
            return
        if name not in known:
            near = closest(name, known)
            innermost = f"innermost open component is <{stack[-1].name}>" if len(stack) > 1 else None
            self.conv.error(
                line,
                offset,
                f"</{name}> closes nothing",
                "unmatched-close",
                f"did you mean </{near}>?" if near else innermost,
            )
            if not near:
                return
            name = near  # '<Tip>...</Tipp>': read as the close it was meant to be, so <Tip> is not also unclosed
        while isinstance(stack[-1], Unknown) or stack[-1].name != name:
            inner = stack.pop()
            inner.body_end = at
            self.reported_open.add(inner.where)
            self.conv.error(
                line,
                offset,
                f"</{name}> closes <{name}> but <{inner.name}> opened at line {inner.where.line} is still open",
                "mismatched-close",
                f"add </{inner.name}> before it",
            )
        stack.pop().body_end = at


def level(block: md.Block) -> int:
    """The level of a heading block (its tag, h1-h6)."""
    return int(block.tokens[0].tag[1:])


def _tag_starts(raw: str) -> Iterator[int]:
    """Offsets of what an HTML parser reads as the start of a tag or comment: '<' and a letter, '/', '!' or '?'."""
    at = raw.find("<")
    while at >= 0:
        if raw[at + 1 : at + 2].isalpha() or raw[at + 1 : at + 2] in ("/", "!", "?"):
            yield at
        at = raw.find("<", at + 1)


def _applies(raw: str, match: re.Match[str], kind: str, ends: list[int]) -> bool:
    """Whether Python-Markdown's attr_list sets the attribute list ``match`` of a block's text on an element, in the
    forms that leave no doubt: right after a link, an image or a code span; ending a heading's first line, after a
    space; alone on the last line of a paragraph of two lines or more. Others (after emphasis, in a table cell) are
    left to the check of the page's HTML, which finds what they set."""
    if match.start() in ends:
        return True
    line_start, line_end = raw.rfind("\n", 0, match.start()) + 1, _line_end(raw, match.end())
    before, after = raw[line_start : match.start()], raw[match.end() : line_end]
    if after.strip(" "):
        return False
    if kind in ("heading", "lheading"):
        return line_start == 0 and before.endswith(" ") and "{" not in before
    return kind == "paragraph" and line_start > 0 and line_end == len(raw) and not before.strip(" ")


def _line_end(raw: str, start: int) -> int:
    end = raw.find("\n", start)
    return len(raw) if end < 0 else end


def destination(raw: str, start: int) -> int:
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
