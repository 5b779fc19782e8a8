"""doc-builder's marker lines: ``[[open-in-colab]]`` (the page's notebook menu) and ``[[autodoc]] Name`` with its
``- member`` lines (an API entry, through perfdocs.apirefs). Each marker line renders on its own, as doc-builder
reads it (text.marker_groups); a marker that cannot render is a located error and a box in its place."""

from __future__ import annotations

from . import docbuilder
from . import markdown as md
from .apirefs import Entry, Problem, twin_heading
from .diagnostics import did_you_mean
from .document import Conversion, Line, Node, Out, Ready, error_lines
from .text import MARKER_RE, MEMBER_RE, marker_groups

MARKERS = ("open-in-colab", "autodoc")


class Markers:
    def __init__(self, conv: Conversion):
        self.conv = conv

    def paragraph(
        self, blocks: list[md.Block], index: int, lines: list[Line], consumed: set[int], parent: Node
    ) -> Ready:
        """A paragraph that opens with ``[[name]]``: each marker line of it rendered.

        ``[[autodoc]] X`` takes the ``- member`` lines under it, also after blank lines (doc-builder does);
        those lines are a continuation of the paragraph to CommonMark, or an indented code block (``consumed``
        gets their blocks). ``parent``: the component (or page) the marker is in, whose heading right above
        ``[[autodoc]] X`` may be X's."""
        block = blocks[index]
        first = lines[block.start]
        node = Ready("#marker", {}, block.start, first.col0 + md.indent_of(first.text) + 1, (block.start, 0))
        groups = marker_groups([line.text for line in lines[block.start : block.end]])
        for number, (a, b) in enumerate(groups):
            body = lines[block.start + a + 1 : block.start + b]
            if number == len(groups) - 1:
                body = body + self.member_blocks(blocks, index, lines, consumed)
            above = heading_above(parent, lines) if number == 0 else None
            node.rendered += self.line(lines[block.start + a], body, above)
        return node

    @staticmethod
    def member_blocks(blocks: list[md.Block], index: int, lines: list[Line], consumed: set[int]) -> list[Line]:
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

    def line(self, first: Line, body: list[Line], above: tuple[Node, md.Block, str] | None) -> list[Out]:
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
                self.conv.error(line, 0, f"[[{name}]] is followed by text", "bad-marker", "leave a blank line after it")
                after = [Out(x.text, x.src) for x in body]
                break
        if name == "open-in-colab" and not rest:
            return self.open_in_colab(first, col) + after
        if name == "autodoc" and rest and " " not in rest:
            listed = [(member.group("name"), line) for line, member in members if member]
            return self.autodoc(rest, listed, first, col, above) + after
        usage = {"open-in-colab": "[[open-in-colab]] alone on its line", "autodoc": "[[autodoc]] Name"}
        self.conv.error(
            first,
            col,
            f"unknown marker [[{name}]]" if name not in MARKERS else f"write it as {usage[name]}",
            "bad-marker",
            did_you_mean(name, MARKERS) if name not in MARKERS else None,
        )
        shown = f"{self.conv.location(first, col)}: [[{name}]] {rest}".rstrip()
        return error_lines(shown, first.src) + after

    def open_in_colab(self, line: Line, col: int) -> list[Out]:
        """The "Open in Colab" / "Open in Studio Lab" menu for this page's notebook, where the marker is
        (doc-builder's pages have it under the H1), from the notebook URL pattern in mkdocs.yml."""
        site = self.conv.site
        pattern = site.notebooks if site else None
        problem = docbuilder.notebook_problem(pattern)
        if problem is not None or pattern is None or site is None:
            self.conv.error(line, col, problem or "", "bad-marker", f"for example {docbuilder.EXAMPLE}")
            return error_lines(f"{self.conv.location(line, col)}: {problem}", line.src)
        for _, entries in docbuilder.notebook_links(pattern, site.page):
            for _, url in entries:
                self.conv.link(url, line, col)
        menu = docbuilder.notebook_menu(pattern, site.page)
        return [Out("", line.src), *(Out(text, line.src) for text in menu), Out("", line.src)]

    def autodoc(
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
        site = self.conv.site
        api = site.api if site is not None else None
        at = max(line.text.find(name, col + len("[[autodoc]]")), col)  # the name: what the error is about
        if api is None or site is None:
            problem = Problem(
                "[[autodoc]] needs the API reference: enable the mkdocstrings plugin in mkdocs.yml", "bad-marker"
            )
        else:
            found = api.add_entry(site.page, self.conv.location(line, col), name, [member for member, _ in members])
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
        self.conv.error(where, where_at, problem.message, problem.code, problem.hint)
        return error_lines(f"{self.conv.location(where, where_at)}: {problem.message}", line.src)


def heading_above(parent: Node, lines: list[Line]) -> tuple[Node, md.Block, str] | None:
    """The ATX heading that is the last thing in ``parent`` so far (blank lines aside), with its text."""
    for child in reversed(parent.children):
        if isinstance(child, md.Block) and child.kind == "blank":
            continue
        if isinstance(child, md.Block) and child.kind == "heading":
            return parent, child, lines[child.start].text
        return None
    return None
