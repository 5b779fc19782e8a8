"""CommonMark structure of a page, read from markdown-it-py's token stream.

The dialect and the checks ask this module what a line *is*: a fenced or indented code block, a
blockquote, a list item, raw HTML, a paragraph, or a line of the dialect's component tags. Every
answer comes from a CommonMark parser with line maps; inline constructs (code spans, raw HTML tags,
links) carry their offsets through a thin wrapper around markdown-it's own inline rules.

Two additions to plain CommonMark make the doc-builder dialect parse the way doc-builder reads it:
- a line that starts with a component tag (``<Tip>``, ``</hfoption>``, ``<Youtube id="x"/>``) is a
  block of its own (``mdx_line``): it interrupts paragraphs and lists and is never swallowed by an
  HTML block, so the Markdown between ``<Tip>`` and ``</Tip>`` is parsed as Markdown;
- an HTML block (types 6 and 7) ends before such a line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block.html_block import html_block as _html_block
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.rules_inline.state_inline import StateInline
from markdown_it.token import Token

# Names of the HTML elements (and MathML / SVG ones authors paste); any other tag name is the dialect's.
HTML_ELEMENTS = frozenset(
    """
a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption center cite
code col colgroup data datalist dd del details dfn dialog dir div dl dt em embed fieldset figcaption figure
font footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input ins kbd label
legend li link main map mark menu meta meter nav noframes noscript object ol optgroup option output p param
picture pre progress q rp rt ruby s samp script search section select slot small source span strike strong
style sub summary sup svg table tbody td template textarea tfoot th thead time title tr track tt u ul var
video wbr path g circle rect line polyline polygon ellipse defs use symbol text tspan lineargradient stop
math mi mn mo ms mtext mrow msup msub msubsup mfrac msqrt mroot mtable mtr mtd mover munder munderover
mspace mstyle mpadded mphantom semantics annotation
""".split()
)
TAG_NAME_RE = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9_-]*)")
RAW_HTML_START = re.compile(r"<(?:!|\?|(?:script|pre|style|textarea)(?:[\s>]|$))", re.I)
MAX_TAG_LINES = 10  # a component tag may wrap over this many lines


# What ends each HTML block that markdown-it reads up to a terminator (CommonMark's HTML block types 2-5): a
# comment, a processing instruction, a declaration, CDATA. Without it the block runs to the end of its container.
HTML_BLOCK_ENDS = (("<!--", "-->"), ("<![CDATA[", "]]>"), ("<?", "?>"), ("<!", ">"))


def html_block_end(first_line: str) -> str | None:
    """The terminator an HTML block that starts with ``first_line`` needs (None: a block of another type)."""
    stripped = first_line.lstrip(" ")
    return next((end for start, end in HTML_BLOCK_ENDS if stripped.startswith(start)), None)


def is_markup_declaration(source: str) -> bool:
    """A processing instruction, declaration or CDATA section (``<?x ...>``, ``<!DOCTYPE ...>``, ``<![CDATA[``):
    CommonMark, the HTML5 parser and Python-Markdown each end these at different places, and a page needs none."""
    stripped = source.lstrip(" ")
    return stripped.startswith("<?") or (stripped.startswith("<!") and not stripped.startswith("<!--"))


def is_component_name(name: str) -> bool:
    return name.lower() not in HTML_ELEMENTS


@dataclass(frozen=True)
class Tag:
    """A raw HTML tag that names a component (``<Tip>``, ``</hfoption>``, ``<Youtube .../>``)."""

    name: str
    closing: bool
    self_closing: bool
    attrs: str  # the raw attribute text
    start: int  # offset of '<' in the text it was found in
    end: int  # offset just past '>'


@dataclass(frozen=True)
class Inline:
    """What an inline parse found in one piece of text, with offsets into that text."""

    tags: list[Tag]  # component tags
    html: list[tuple[int, str]]  # every other raw HTML tag or comment: (offset, source)
    links: list[tuple[int, str]]  # (offset of the construct, destination as parsed) for links and images
    opaque: list[tuple[int, int]]  # spans that are code or raw HTML: not text for the dialect
    literal: list[tuple[int, int]] = field(default_factory=list)  # code spans, autolinks, escapes: never HTML
    ends: list[int] = field(default_factory=list)  # just past each link, image and code span (attr_list's "inline")


def _recording(fn: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    """markdown-it's inline rule ``fn``, also writing each token's source span into ``token.meta``."""

    def rule(state: StateInline, silent: bool) -> bool:
        first, start = len(state.tokens), state.pos
        ok = fn(state, silent)
        if ok and not silent:
            for token in state.tokens[first:]:
                if "start" not in token.meta:
                    token.meta["start"] = start
                    token.meta["end"] = state.pos
        return ok

    return rule


def _mdx_line_rule(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if state.sCount[start_line] - state.blkIndent >= 4:
        return False
    pos = state.bMarks[start_line] + state.tShift[start_line]
    if state.src[pos : pos + 1] != "<":
        return False
    found = tag_line(state, start_line, end_line)
    if found is None:
        return False
    if silent and state.parentType == "paragraph" and _inside_code_span(state, start_line):
        return False
    if silent and state.parentType == "table" and "|" in state.src[pos : state.eMarks[start_line]]:
        return False  # a row that starts with a tag stays a row (the tag is reported there): the table holds
    last, text = found
    if silent:
        return True
    token = state.push("mdx_line", "", 0)
    token.map = [start_line, last + 1]
    token.content = text
    state.line = last + 1
    return True


def _inside_code_span(state: StateBlock, line: int) -> bool:
    """Whether ``line`` starts inside a code span opened earlier in the paragraph being read.

    The paragraph rule asks its terminators with ``state.line`` still at the paragraph's first line.
    """
    rows = [state.src[state.bMarks[i] + state.tShift[i] : state.eMarks[i]] for i in range(state.line, line + 1)]
    if not any("`" in row for row in rows[:-1]):
        return False
    text = "\n".join(rows)
    at = len(text) - len(rows[-1])
    return any(a <= at < b and text[a] == "`" for a, b in scan_inline(text).literal)


def tag_line(state: StateBlock, start_line: int, end_line: int) -> tuple[int, str] | None:
    """(last line, text) when ``start_line`` starts with a component tag (which may wrap over lines)."""
    pos = state.bMarks[start_line] + state.tShift[start_line]
    text = state.src[pos : state.eMarks[start_line]]
    if text.startswith("<!--"):  # '<!-- note --> <Tip>hi</Tip>': CommonMark's comment block would keep it raw
        found = scan_inline(text)
        if found.tags and all(
            source.startswith("<!--") for offset, source in found.html if offset < found.tags[0].start
        ):
            before = text[: found.tags[0].start]
            for offset, source in found.html:
                if offset < found.tags[0].start:
                    before = before.replace(source, "", 1)
            if not before.strip():
                return start_line, text
        return None
    head = TAG_NAME_RE.match(text)
    if not head or not is_component_name(head.group(2)):
        return None
    last = start_line
    while True:
        found = scan_inline(text)
        if found.tags and found.tags[0].start == 0:
            return last, text
        last += 1
        if last >= end_line or last - start_line >= MAX_TAG_LINES or state.isEmpty(last):
            return None
        if state.sCount[last] < state.blkIndent:
            return None
        text += "\n" + state.src[state.bMarks[last] + state.tShift[last] : state.eMarks[last]]


def _html_block_rule(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """markdown-it's HTML block, ending before a component tag line (types 6 and 7 only)."""
    tokens_before = len(state.tokens)
    if not _html_block(state, start_line, end_line, silent):
        return False
    if silent:
        return True
    first = state.src[state.bMarks[start_line] + state.tShift[start_line] : state.eMarks[start_line]]
    if RAW_HTML_START.match(first):
        return True
    for line in range(start_line + 1, state.line):
        if state.sCount[line] - state.blkIndent < 4 and tag_line(state, line, end_line):
            token = state.tokens[tokens_before]
            token.map = [start_line, line]
            token.content = state.getLines(start_line, line, state.blkIndent, True)
            state.line = line
            break
    return True


ATTR_NAME_RE = re.compile(r"[A-Za-z_:@][\w.:-]*")


def _svelte_tag_end(src: str, at: int, closing: bool) -> int | None:
    """Where a component tag whose name ends at ``at`` ends, reading attributes as Svelte does: values
    quoted with " or ', unquoted (``id=tiZFewofSLM/>``), or an expression in braces that may hold quotes and
    spaces (``warning={ true }``, ``id={"x"}``); None if it is not a tag."""
    end, lines = len(src), 0
    while at < end:
        ch = src[at]
        if ch in " \t\n":
            lines += ch == "\n"
            if lines >= MAX_TAG_LINES:
                return None
            at += 1
        elif ch == ">":
            return at + 1
        elif src.startswith("/>", at) and not closing:
            return at + 2
        elif closing:
            return None
        else:
            name = ATTR_NAME_RE.match(src, at)
            if not name:
                return None
            at = name.end()
            while at < end and src[at] in " \t":
                at += 1
            if at >= end or src[at] != "=":
                continue
            at += 1
            while at < end and src[at] in " \t":
                at += 1
            if at >= end:
                return None
            if src[at] in "\"'":
                close = src.find(src[at], at + 1)
                if close < 0:
                    return None
                at = close + 1
            elif src[at] == "{":
                depth, quote = 0, ""
                while at < end:
                    c = src[at]
                    if quote:
                        quote = "" if c == quote else quote
                    elif c in "\"'`":
                        quote = c
                    elif c == "{":
                        depth += 1
                    elif c == "}":
                        depth -= 1
                        if depth == 0:
                            break
                    at += 1
                if at >= end:
                    return None
                at += 1
            else:
                start = at
                while at < end and src[at] not in " \t\n\"'=<>`" and not src.startswith("/>", at):
                    at += 1
                if at == start:
                    return None
    return None


def _svelte_tag_rule(state: StateInline, silent: bool) -> bool:
    """A component tag as Svelte reads it (see _svelte_tag_end), as an html_inline token; other tags are
    left to CommonMark's raw HTML rule."""
    src, pos = state.src, state.pos
    if src[pos] != "<":
        return False
    head = TAG_NAME_RE.match(src, pos)
    if not head or not is_component_name(head.group(2)):
        return False
    end = _svelte_tag_end(src, head.end(), bool(head.group(1)))
    if end is None:
        return False
    if not silent:
        token = state.push("html_inline", "", 0)
        token.content = src[pos:end]
    state.pos = end
    return True


def _build() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable("table")
    md.validateLink = lambda url: True  # type: ignore[method-assign]  # see every link; the checks judge them
    md.block.ruler.before(
        "html_block", "mdx_line", _mdx_line_rule, {"alt": ["paragraph", "reference", "blockquote", "list"]}
    )
    md.block.ruler.at("html_block", _html_block_rule, {"alt": ["paragraph", "reference", "blockquote"]})
    for name in ("escape", "backticks", "link", "image", "autolink", "html_inline"):
        rule = next(r for r in md.inline.ruler.__rules__ if r.name == name)
        md.inline.ruler.at(name, _recording(rule.fn))
    md.inline.ruler.before("html_inline", "svelte_tag", _recording(_svelte_tag_rule))
    return md


MD = _build()
BLOCKS = _build().disable("inline")  # block structure only: inline content is read on demand (scan_inline)


def parse(text: str, env: dict[str, Any] | None = None) -> list[Token]:
    """Block tokens with line maps (inline tokens keep their content, unparsed); ``env`` gets what the parse
    collects on the way (``references``: the link reference definitions).

    A lone carriage return would end a line for markdown-it but not for the callers, whose lines are
    the text split on '\\n': it is read as a space (same length, same offsets).

    The last few texts' parses are kept: a page's body is read for its code lines (theory expansion), its
    recipe markers and, with no snippet in it, its blocks; callers read tokens, never change them."""
    tokens, found = _parsed(text)
    if env is not None:
        env.update(found)
    return list(tokens)


@functools.lru_cache(maxsize=32)
def _parsed(text: str) -> tuple[tuple[Token, ...], dict[str, Any]]:
    env: dict[str, Any] = {}
    tokens = BLOCKS.parse(text.replace("\r", " ") if "\r" in text else text, env)
    return tuple(tokens), env


@functools.lru_cache(maxsize=8192)
def scan_inline(text: str) -> Inline:
    """Component tags, other raw HTML, links and code spans in ``text`` read as inline Markdown.

    Cached: pages repeat the same tag lines and phrases; callers must not change the result."""
    tokens = MD.parseInline(text)
    return inline_of(tokens[0].children or [] if tokens else [])


def inline_of(children: list[Token]) -> Inline:
    found = Inline([], [], [], [], [], [])
    for token in _walk(children):
        start, end = token.meta.get("start"), token.meta.get("end")
        if start is None or end is None:
            continue
        if token.type in ("code_inline", "image", "link_open"):
            found.ends.append(end)
        if token.type == "code_inline":
            found.opaque.append((start, end))
            found.literal.append((start, end))
        elif token.type == "text_special" or (token.type == "link_open" and token.markup == "autolink"):
            found.literal.append((start, end))
            if token.type == "link_open":
                found.links.append((start, str(token.attrGet("href") or "")))
        elif token.type == "html_inline":
            found.opaque.append((start, end))
            tag = _component_tag(token.content, start)
            if tag:
                found.tags.append(tag)
            else:
                found.html.append((start, token.content))
        elif token.type == "image" or (token.type == "link_open" and token.markup != "autolink"):
            found.links.append((start, str(token.attrGet("href") or token.attrGet("src") or "")))
    return found


def _walk(tokens: list[Token]) -> Iterator[Token]:
    for token in tokens:
        yield token
        if token.children:
            yield from _walk(token.children)


def _component_tag(source: str, start: int) -> Tag | None:
    head = TAG_NAME_RE.match(source)
    if not head or not is_component_name(head.group(2)):
        return None
    closing = bool(head.group(1))
    body = source[head.end() : -1]
    self_closing = body.rstrip().endswith("/")
    if self_closing:
        body = body.rstrip()[:-1]
    return Tag(head.group(2), closing, self_closing, body, start, start + len(source))


# -- blocks ---------------------------------------------------------------------------------------


@dataclass
class Block:
    """One top-level block of a text: its kind, its lines [start, end) and its tokens."""

    kind: str  # token type without _open: paragraph, heading, fence, code_block, html_block, blockquote,
    #            bullet_list, ordered_list, table, hr, mdx_line, blank
    start: int
    end: int
    tokens: list[Token] = field(default_factory=list)


def blocks(text: str, n_lines: int, env: dict[str, Any] | None = None) -> list[Block]:
    """The top-level blocks of ``text`` in order; lines no block claims are 'blank' or 'reference' blocks.
    ``env``: as for parse."""
    lines = text.split("\n")[:n_lines] + [""] * max(0, n_lines - text.count("\n") - 1)
    return blocks_of(parse(text, env), 0, 0, lines)


def blocks_of(tokens: list[Token], level: int, first: int, lines: list[str]) -> list[Block]:
    """The blocks at ``level`` of a token stream whose lines start at ``first``, with line numbers made
    relative to ``first`` (the content of a list item or blockquote, already parsed with the page)."""
    found: list[Block] = []
    current: Block | None = None
    for token in tokens:
        if current is not None:
            current.tokens.append(token)
            if token.level == level and token.nesting == -1:
                found.append(current)
                current = None
            continue
        if token.map is None or token.level != level:
            continue
        block = Block(token.type.removesuffix("_open"), token.map[0] - first, token.map[1] - first, [token])
        if token.nesting == 1:
            current = block
        else:
            found.append(block)
    out: list[Block] = []
    line = 0
    for block in found:
        if block.start < line:  # cannot happen with markdown-it; keep the text whole if it ever does
            continue
        out.extend(_unclaimed(lines, line, block.start))
        out.append(block)
        line = min(block.end, len(lines))
    out.extend(_unclaimed(lines, line, len(lines)))
    return out


def _unclaimed(lines: list[str], start: int, end: int) -> list[Block]:
    """Lines no token claims: blank lines, and link reference definitions (markdown-it keeps those in env)."""
    return [Block("blank" if not lines[i].strip() else "reference", i, i + 1) for i in range(start, end)]


def list_items(block: Block) -> list[tuple[int, int, list[Token]]]:
    """(start, end, tokens inside) of each item of a list block; lines as the block's tokens number them."""
    opening = block.tokens[0]
    items: list[tuple[int, int, list[Token]]] = []
    inside: list[Token] = []
    for token in block.tokens[1:-1]:
        if token.type == "list_item_open" and token.level == opening.level + 1:
            assert token.map is not None
            items.append((token.map[0], token.map[1], []))
            inside = items[-1][2]
        elif not (token.type == "list_item_close" and token.level == opening.level + 1):
            inside.append(token)
    assert opening.map is not None
    spans = []
    for i, (start, end, tokens) in enumerate(items):
        following = items[i + 1][0] if i + 1 < len(items) else opening.map[1]
        spans.append((start, max(end, following) if i + 1 < len(items) else end, tokens))
    return spans


def code_lines(text: str) -> list[bool]:
    """True for each line of ``text`` that is part of a fenced or indented code block, at any depth
    (in list items and blockquotes too), fence lines included."""
    lines = text.split("\n")
    mask = [False] * len(lines)
    for token in parse(text):
        if token.type in ("fence", "code_block") and token.map:
            for i in range(token.map[0], min(token.map[1], len(lines))):
                mask[i] = True
    return mask


def expand_tabs(line: str) -> str:
    """Leading tabs as spaces to the next multiple of 4 (CommonMark's tab stops), the rest untouched."""
    if "\t" not in line:
        return line
    out = []
    col = 0
    for i, ch in enumerate(line):
        if ch == "\t":
            out.append(" " * (4 - col % 4))
            col += 4 - col % 4
        elif ch == " ":
            out.append(ch)
            col += 1
        else:
            return "".join(out) + line[i:]
    return "".join(out)


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def content_indent(first_line: str) -> tuple[int, str]:
    """(columns before an item's content, the marker) for a list item's first line."""
    line = expand_tabs(first_line)
    pos = indent_of(line)
    marker_end = pos
    while marker_end < len(line) and line[marker_end].isdigit():
        marker_end += 1
    marker_end += 1  # the bullet or the '.' / ')' after the number
    marker = line[pos:marker_end]
    rest = line[marker_end:]
    spaces = indent_of(rest)
    if not rest.strip() or spaces > 4:
        return marker_end + 1, marker
    return marker_end + spaces, marker


__all__ = [
    "Block",
    "HTML_ELEMENTS",
    "Inline",
    "Tag",
    "blocks",
    "code_lines",
    "content_indent",
    "expand_tabs",
    "indent_of",
    "is_component_name",
    "list_items",
    "parse",
    "scan_inline",
]
