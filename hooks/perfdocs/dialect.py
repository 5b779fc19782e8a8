"""The doc-builder (MDX-style) dialect converted to Material for MkDocs Markdown.

``convert(text, source_map, root)`` returns the converted text, a source map of the output (one
Location per output line), the diagnostics found, and every link and explicit id with its place. It
never logs and never raises on bad input; the only things it reads besides its arguments are the file a
``<literalinclude>`` names and the results file of a ``<Measured>`` (``bench/results/``).

The structure comes from CommonMark (``perfdocs.markdown``): the reader (``perfdocs.reader``) reads a text as a
sequence of top-level blocks and the components among them (``perfdocs.components``, one module each); the
``Converter`` here renders that tree. Blockquotes and list items are containers whose content is converted as a
text of its own, then re-prefixed (lists with Python-Markdown's 4-space continuation, so a page keeps the list
structure CommonMark gives it); a component's body, dedented, is converted the same way. Code (fenced, indented,
code spans) and HTML comments are never read as components.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markdown_it.token import Token

from . import markdown as md
from .admonitions import ALERTS, alert_head
from .apilinks import reference_labels
from .components import REGISTRY
from .diagnostics import Diagnostic, Level, Location, SourceMap, did_you_mean
from .document import (
    Conversion,
    Line,
    Node,
    Out,
    Piece,
    Ready,
    Site,
    admonition,
    error_block,
    error_lines,
    indent,
    join,
    slice_lines,
)
from .reader import Item, Reader
from .text import ATTR_ID_RE, CUSTOM_ID_RE, VALID_ID_RE, doc_builder_ids, parse_heading, slugify, toc_slug

ALERT_RE = re.compile(r"^[ \t]*\[!(?P<kind>[A-Za-z]+)\][ \t]*$")
SEPARATED = {"bullet_list", "ordered_list", "blockquote", "fence", "heading", "hr"}
# Lists and blockquotes inside each other. markdown-it stops reading a document past 20 token levels (a list and
# its item are two), so the limit is reached before it drops anything; Python-Markdown overflows at 300.
MAX_CONTAINER_DEPTH = 8
CONTAINERS = frozenset({"blockquote_open", "bullet_list_open", "ordered_list_open"})


@dataclass
class Converted:
    text: str
    source_map: SourceMap
    diagnostics: list[Diagnostic]
    links: list[tuple[str, Location]] = field(default_factory=list)  # every link as written, where it was
    ids: list[tuple[str, Location]] = field(default_factory=list)  # ids the page gives explicitly
    # what Python-Markdown makes HTML attributes or raw HTML of, in page order: each piece's place, its text
    markup: list[tuple[Location, str]] = field(default_factory=list)


class Converter:
    """Renders the reader's tree as Material Markdown; what a component's renderer may ask of it is
    ``components.Engine``."""

    def __init__(self, conv: Conversion):
        self.conv = conv
        self.reader = Reader(conv)
        self.leading = True  # nothing but blank lines and comments rendered yet
        self._bad_ids: set[tuple[int, int]] = set()

    # -- what components may ask (components.Engine) -------------------------------------
    @property
    def generated(self) -> dict[str, list[str]]:
        return self.conv.generated

    @property
    def root(self) -> Path | None:
        return self.conv.root

    @property
    def site(self) -> Site | None:
        return self.conv.site

    def error(
        self, line: Line, offset: int, message: str, code: str, hint: str | None = None, level: Level = "error"
    ) -> None:
        self.conv.error(line, offset, message, code, hint, level)

    def location(self, line: Line, offset: int = 0) -> Location:
        return self.conv.location(line, offset)

    def link(self, href: str, line: Line, offset: int = 0) -> None:
        self.conv.link(href, line, offset)

    def body(self, node: Node, lines: list[Line]) -> list[Line]:
        """The text between a component's tags, dedented; its first line may start after the opening tag."""
        end = node.body_end or node.body_start
        if end < node.body_start:
            return []
        body = slice_lines(lines, node.body_start, end)
        first = body[0]
        body[0] = Line(first.text.strip(), first.src, first.col0 + len(first.text) - len(first.text.lstrip()))
        if not body[0].text:
            return _dedent(body[1:])
        return [body[0], *_dedent(body[1:])]

    def content(self, node: Node, lines: list[Line]) -> tuple[list[Item], list[Line]]:
        """A component's children and the lines they index. Read again only when dedenting its body changes
        what the body is (indented text is code to CommonMark until the body is dedented)."""
        end = node.body_end or node.body_start
        inside = [line for line in lines[node.body_start[0] + 1 : end[0]] if line.text.strip()]
        if not inside or min(md.indent_of(md.expand_tabs(line.text)) for line in inside) == 0:
            return node.children, lines
        body = self.body(node, lines)
        return self.reader.tree(body, node.name), body

    def render_node(self, node: Node, lines: list[Line]) -> list[Out]:
        if isinstance(node, Ready):
            return node.rendered
        component = REGISTRY.get(node.name)
        return component.render(node, lines, self) if component is not None else []

    # -- a text ----------------------------------------------------------------------------
    def convert(self, lines: list[Line], blocks: list[md.Block] | None = None) -> list[Out]:
        return self.render(self.reader.tree(lines, blocks=blocks), lines)

    def render(self, items: list[Item], lines: list[Line]) -> list[Out]:
        out: list[Out] = []
        previous = ""  # kind of the last block that was not blank
        for item in items:
            if self.leading and not (
                isinstance(item, md.Block)
                and (item.kind == "blank" or (item.kind == "html_block" and _is_comment(lines[item.start : item.end])))
            ):
                self.leading = False
            if isinstance(item, Node):
                join(out, self.render_node(item, lines))
                previous = ""
            elif isinstance(item, Piece):
                pieces = slice_lines(lines, item.start, item.end)
                edited = [self.conv.edited(line) for line in pieces]
                text = [Out(t.strip() if i == 0 else t, line.src) for i, (t, line) in enumerate(zip(edited, pieces))]
                join(out, [o for o in text if o.text.strip()])
                previous = ""
            else:
                kind = item.kind
                if kind == "blockquote" and ALERT_RE.match(_unquote(lines[item.start]).text):
                    kind = "alert"  # an admonition, not a quote
                src = lines[item.start].src
                if kind != "blank" and _merges(previous, kind):  # two lists (or quotes) CommonMark keeps apart
                    join(out, [Out("", src), Out("<!-- -->", src), Out("", src)])
                elif kind in SEPARATED and out and out[-1].text.strip() and not out[-1].code:
                    out.append(Out("", src))  # CommonMark lets these interrupt a paragraph; Python-Markdown does not
                join(out, self.render_block(item, lines))
                previous = previous if kind == "blank" else kind
        return out

    def render_block(self, block: md.Block, lines: list[Line]) -> list[Out]:
        region = lines[block.start : block.end]
        if block.kind == "blank":
            return [Out("", region[0].src)]
        if block.kind == "reference":
            self.reader.html.reference_links(region)
            return [Out(region[0].text, region[0].src)]
        if block.kind == "fence" and not _fence_closed(block.tokens[0].markup, region):
            marker = block.tokens[0].markup
            return self.closed_at_end(region, f"code block opened with {marker}", "unclosed-fence", marker, True)
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
                return error_lines(f"{self.location(where)}: {message}", region[0].src)
        if block.kind == "blockquote":
            return self.render_quote(block, region)
        if block.kind in ("bullet_list", "ordered_list"):
            return self.render_list(block, lines)
        if block.kind == "html_block" and self.reader.html.is_left_out(region):
            return self.reader.html.left_out_box(region)
        end = md.html_block_end(region[0].text) if block.kind == "html_block" else None
        if end is not None and end not in "\n".join(line.text for line in region)[len(end) :]:
            start = region[0].text.lstrip(" ")[: 4 if end == "-->" else 2]
            return self.closed_at_end(region, f"{start} opened here", "unclosed-html", end, False)
        if block.kind == "html_block" and self.leading and _is_comment(region):
            return [Out("", line.src) for line in region]  # a license comment above the H1: the H1 gives the title
        if block.kind == "html_block":
            return _markdown_in_details([Line(self.conv.edited(line), line.src, line.col0) for line in region])
        if block.kind == "heading":
            first = self.heading_id(lines, block.start)
            explicit = ATTR_ID_RE.search(first)
            if explicit:
                self.conv.ids[(explicit.group("id"), self.location(region[0]))] = None
            if first == region[0].text:
                first = self.conv.edited(region[0]) if explicit else _doc_builder_id(self.conv.edited(region[0]), first)
            return [Out(first, region[0].src), *(Out(self.conv.edited(line), line.src) for line in region[1:])]
        return [Out(self.conv.edited(line), line.src) for line in region]

    def closed_at_end(self, region: list[Line], what: str, code: str, closer: str, fence: bool) -> list[Out]:
        """A fence or an HTML comment never closed: CommonMark (and a browser) runs it to the end of its container,
        Python-Markdown would render the rest as Markdown and raw HTML that nothing here checked. Reported, and
        closed where CommonMark ends it."""
        self.error(
            region[0], md.indent_of(region[0].text), f"{what} is never closed", code, hint=f"end it with {closer}"
        )
        body = _code(region, True) if fence else [Out(line.text, line.src) for line in region]
        return [*body, Out(closer, region[-1].src, fence)]

    def render_quote(self, block: md.Block, region: list[Line]) -> list[Out]:
        inner = [_unquote(line) for line in region]
        alert = ALERT_RE.match(inner[0].text)
        if not alert:
            blocks = self.quote_blocks(block, inner)
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
        head = alert_head(kind)
        blocks = self.quote_blocks(block, inner)
        if blocks and blocks[0].kind == "paragraph":  # the marker line opens the first paragraph: drop it
            blocks[0].start += 1
            if blocks[0].start >= blocks[0].end:
                blocks.pop(0)
        else:
            blocks = md.blocks("\n".join(line.text for line in inner), len(inner))
        body = [Line("", inner[0].src, inner[0].col0), *inner[1:]]
        return admonition(head, region[0].src, self.convert(body, blocks=blocks))

    @staticmethod
    def quote_blocks(block: md.Block, inner: list[Line]) -> list[md.Block]:
        opening = block.tokens[0]
        first = opening.map[0] if opening.map else 0
        return md.blocks_of(block.tokens[1:-1], opening.level + 1, first, [line.text for line in inner])

    def render_list(self, block: md.Block, lines: list[Line]) -> list[Out]:
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
                out += indent(rest, "    ")
            else:
                out.append(Out(marker, first.src))
            if end - 1 > start and not lines[end - 1].text.strip():
                out.append(Out("", lines[end - 1].src))
        return out

    def heading_id(self, lines: list[Line], index: int) -> str:
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
    conv = Conversion(source_map, root, generated, site)
    env: dict[str, Any] = {}
    blocks = md.blocks(text, len(lines), env)  # the page's one block parse, its reference labels with it
    conv.references = reference_labels(env)
    out = Converter(conv).convert(lines, blocks)
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
    return Converted(
        text_out, smap, diagnostics, list(conv.links), list(conv.ids), [conv.markup[at] for at in sorted(conv.markup)]
    )


__all__ = ["Converted", "Site", "convert", "error_block"]
