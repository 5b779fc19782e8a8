"""The doc-builder (MDX-style) dialect converted to Material for MkDocs Markdown.

``convert(text, source_map, root)`` is pure: it returns the converted text, a source map of the
output (one Location per output line) and the diagnostics found. It never logs and never raises
on bad input.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .diagnostics import Diagnostic, Location, SourceMap, did_you_mean
from .text import (
    CUSTOM_ID_RE,
    HEADING_RE,
    VALID_ID_RE,
    code_line_mask,
    mask_code_spans,
)

TAG_RE = re.compile(
    r"""<(?P<close>/)?(?P<name>[A-Za-z][\w-]*)"""
    r"""(?P<attrs>(?:\s(?:[^<>"'{}/]|/(?!>)|"[^"]*"|'[^']*'|\{[^{}]*\})*)?)(?P<self>/)?>"""
)
ATTR_RE = re.compile(
    r"""\s*(?P<name>[A-Za-z_][\w-]*)(?:\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|\{(?P<expr>[^{}]*)\}))?\s*"""
)
ALERT_RE = re.compile(r"^(?P<indent>[ \t]*)>[ \t]*\[!(?P<kind>[A-Za-z]+)\][ \t]*$")
QUOTE_RE = re.compile(r"^(?P<indent>[ \t]*)>[ \t]?(?P<rest>.*)$")
YOUTUBE_ID_RE = re.compile(r"^[A-Za-z0-9_-]{11}$")
YOUTUBE_EMBED = 'src="https://www.youtube-nocookie.com/embed/'

FRAMEWORK_LABELS = {"pt": "PyTorch", "tf": "TensorFlow", "jax": "JAX", "flax": "JAX"}
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
    "literalinclude": {},
    "TechniqueMatrix": {},
    "TestedWith": {},
}
VOID = {"Youtube", "TechniqueMatrix", "TestedWith"}
GENERATED = {"TechniqueMatrix", "TestedWith"}  # filled by the build from data no single page holds
PARENTS = {
    "hfoption": "hfoptions",
    "pt": "frameworkcontent",
    "tf": "frameworkcontent",
    "jax": "frameworkcontent",
    "flax": "frameworkcontent",
}
EXPANDED_EARLIER = {"Theory", "Only"}
FORBIDDEN_HTML = {"script", "style", "iframe", "object", "embed", "form", "base", "meta"}
EVENT_ATTR_RE = re.compile(r"""\s(on[a-z]+)\s*=""", re.I)
URL_ATTR_RE = re.compile(
    r"""\s(?:href|src|action|formaction|xlink:href|poster)\s*=\s*["']?\s*([a-z][a-z0-9+.-]*):""", re.I
)
MD_LINK_SCHEME_RE = re.compile(r"\]\(\s*<?\s*([a-z][a-z0-9+.-]*):", re.I)
UNSAFE_SCHEMES = {"javascript", "vbscript", "data", "file"}
HTML_ELEMENTS = frozenset(
    """
a abbr address area article aside audio b bdi bdo blockquote br button canvas caption center cite code
col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption figure font
footer form h1 h2 h3 h4 h5 h6 header hr i iframe img input ins kbd label legend li link main map mark
meta meter nav noscript object ol optgroup option output p param picture pre progress q rp rt ruby s samp
section select small source span strike strong sub summary sup svg path g circle rect line polyline polygon
table tbody td template textarea tfoot th thead time tr track tt u ul var video wbr
""".split()
)
LITERALINCLUDE_KEYS = {"path", "language", "start-after", "end-before", "dedent"}


@dataclass
class Text:
    text: str
    src: int
    code: bool = False


@dataclass
class Node:
    name: str
    attrs: dict[str, tuple[str, str]]
    src: int
    col: int
    indent: str
    children: list[Text | Node] = field(default_factory=list)
    closed: bool = False


@dataclass
class Converted:
    text: str
    source_map: SourceMap
    diagnostics: list[Diagnostic]


def error_block(message: str, indent: str = "", title: str = "Build error") -> list[str]:
    """A visible failure admonition, used where a construct could not be rendered."""
    body = [f"{indent}    {html.escape(line, quote=False)}" for line in message.split("\n")]
    return ["", f'{indent}!!! failure "{title}"', "", *body, ""]


class _Converter:
    def __init__(
        self, lines: list[str], smap: SourceMap, root: Path | None, generated: dict[str, list[str]] | None = None
    ):
        self.generated = generated or {}
        self.smap = smap
        self.root = root
        self.diagnostics: list[Diagnostic] = []
        self.out: list[str] = []
        self.out_src: list[int] = []
        self.reported_open: dict[str, int] = {}  # unknown or forbidden tags already reported: name -> count

    # -- diagnostics -------------------------------------------------------------------
    def error(self, src: int, col: int, message: str, code: str, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(self.smap.at(src, col), message, code, hint=hint))

    def location(self, src: int, col: int = 1) -> Location:
        return self.smap.at(src, col)

    # -- parsing -----------------------------------------------------------------------
    def parse(self, lines: list[tuple[str, int]]) -> list[Text | Node]:
        """Tree of components over ``lines`` (text, input line index)."""
        root = Node("#root", {}, 0, 1, "")
        stack: list[Node] = [root]
        code = code_line_mask([t for t, _ in lines])
        in_comment = False
        i = 0
        while i < len(lines):
            text, src = lines[i]
            if code[i]:
                stack[-1].children.append(Text(text, src, code=True))
                i += 1
                continue
            if in_comment or "<!--" in text:
                in_comment = self._comment_state(text, in_comment)
                stack[-1].children.append(Text(text, src))
                i += 1
                continue
            alert = ALERT_RE.match(text)
            if alert:
                i = self._parse_alert(lines, i, alert, stack[-1])
                continue
            self._parse_line(text, src, stack)
            i += 1
        for node in reversed(stack[1:]):
            self.error(
                node.src,
                node.col,
                f"<{node.name}> opened here is never closed",
                "unclosed-component",
                f"add </{node.name}>",
            )
        return root.children

    @staticmethod
    def _comment_state(text: str, in_comment: bool) -> bool:
        pos = 0
        while True:
            if in_comment:
                end = text.find("-->", pos)
                if end < 0:
                    return True
                in_comment, pos = False, end + 3
            else:
                start = text.find("<!--", pos)
                if start < 0:
                    return False
                in_comment, pos = True, start + 4

    def _parse_alert(self, lines: list[tuple[str, int]], i: int, alert: re.Match[str], parent: Node) -> int:
        kind = alert.group("kind").upper()
        src = lines[i][1]
        if kind not in ALERTS or alert.group("kind") != kind:
            self.error(
                src,
                len(alert.group("indent")) + 1,
                f"unknown alert type [!{alert.group('kind')}]",
                "unknown-alert",
                did_you_mean(kind, ALERTS) or f"use one of {', '.join(ALERTS)}",
            )
        node = Node("#alert", {"kind": ("str", kind)}, src, 1, alert.group("indent"), closed=True)
        body: list[tuple[str, int]] = []
        j = i + 1
        while j < len(lines):
            q = QUOTE_RE.match(lines[j][0])
            if not q or q.group("indent") != alert.group("indent"):
                break
            body.append((q.group("rest"), lines[j][1]))
            j += 1
        node.children = self.parse(body)
        parent.children.append(node)
        return j

    def _unsafe_urls(self, masked: str, src: int) -> None:
        for m in MD_LINK_SCHEME_RE.finditer(masked):
            if m.group(1).lower() in UNSAFE_SCHEMES:
                self.error(
                    src,
                    m.start(1) + 1,
                    f"link with the {m.group(1).lower()}: scheme is not allowed",
                    "unsafe-url",
                    "link to a page, a file in the repository or an https:// URL",
                )

    def _unsafe_html(self, tag: re.Match[str], src: int) -> None:
        for m in EVENT_ATTR_RE.finditer(tag.group(0)):
            self.error(
                src,
                tag.start() + m.start(1) + 1,
                f"event handler attribute '{m.group(1)}' is not allowed in pages",
                "forbidden-html",
            )
        for m in URL_ATTR_RE.finditer(tag.group(0)):
            if m.group(1).lower() in UNSAFE_SCHEMES:
                self.error(
                    src,
                    tag.start() + m.start(1) + 1,
                    f"URL with the {m.group(1).lower()}: scheme is not allowed",
                    "unsafe-url",
                )

    def _parse_line(self, text: str, src: int, stack: list[Node]) -> None:
        masked = mask_code_spans(text)
        if "](" in masked:
            self._unsafe_urls(masked, src)
        pos = 0
        pieces: list[tuple[str, re.Match[str] | None]] = []
        for m in TAG_RE.finditer(masked):
            name = m.group("name")
            if name.lower() == "iframe" and (m.group("close") or YOUTUBE_EMBED in m.group(0)):
                self._unsafe_html(m, src)
                continue  # what <Youtube> renders to: converting converted Markdown again changes nothing
            if name.lower() in HTML_ELEMENTS and name not in COMPONENTS and name.lower() not in FORBIDDEN_HTML:
                if not m.group("close"):
                    self._unsafe_html(m, src)
                continue
            if stack[-1].name == "literalinclude" and not (m.group("close") and name == "literalinclude"):
                continue
            pieces.append((text[pos : m.start()], None))
            pieces.append((text[m.start() : m.end()], m))
            pos = m.end()
        if not pieces:
            stack[-1].children.append(Text(text, src))
            return
        pieces.append((text[pos:], None))
        indent = text[: len(text) - len(text.lstrip())]
        for piece, tag in pieces:
            if tag is None:
                if piece.strip():
                    stack[-1].children.append(Text(piece if piece is pieces[0][0] else piece.strip(), src))
                continue
            self._tag(tag, src, indent, stack)

    def _tag(self, m: re.Match[str], src: int, indent: str, stack: list[Node]) -> None:
        name, col = m.group("name"), m.start() + 1
        if m.group("close"):
            self._close(name, src, col, stack)
            return
        if name.lower() in FORBIDDEN_HTML:
            self.error(src, col, f"raw <{name.lower()}> is not allowed in pages", "forbidden-html")
            stack[-1].children.append(Node("#error", {}, src, col, indent))
            if not m.group("self"):
                self.reported_open[name.lower()] = self.reported_open.get(name.lower(), 0) + 1
            return
        if name in EXPANDED_EARLIER:
            self.error(
                src,
                col,
                f"<{name}> must be expanded before the dialect conversion",
                "not-expanded",
                "run the page through perfdocs.pipeline.render_page",
            )
            return
        if name not in COMPONENTS:
            self.error(
                src,
                col,
                f"unknown component <{name}>",
                "unknown-component",
                did_you_mean(name, list(COMPONENTS) + sorted(EXPANDED_EARLIER))
                or "write it as inline code (`<...>`) if it is meant literally",
            )
            stack[-1].children.append(Node("#error", {}, src, col, indent))
            if not m.group("self"):
                self.reported_open[name] = self.reported_open.get(name, 0) + 1
            return
        attrs = self._attributes(name, m.group("attrs") or "", src, col)
        parent_name = PARENTS.get(name)
        if parent_name and stack[-1].name != parent_name:
            self.error(src, col, f"<{name}> must be directly inside <{parent_name}>", "misplaced-component")
        node = Node(name, attrs, src, col, indent)
        stack[-1].children.append(node)
        if m.group("self"):
            node.closed = True
            if name not in VOID:
                self.error(src, col, f"<{name}/> cannot be self-closing: it needs content", "empty-component")
        else:
            stack.append(node)

    def _close(self, name: str, src: int, col: int, stack: list[Node]) -> None:
        if self.reported_open.get(name.lower() if name.lower() in FORBIDDEN_HTML else name):
            self.reported_open[name.lower() if name.lower() in FORBIDDEN_HTML else name] -= 1
            return  # the opening tag was already reported; its close adds nothing
        open_names = [n.name for n in stack[1:]]
        if name not in open_names:
            self.error(
                src,
                col,
                f"</{name}> closes nothing",
                "unmatched-close",
                f"innermost open component is <{stack[-1].name}>" if len(stack) > 1 else None,
            )
            return
        while stack[-1].name != name:
            inner = stack.pop()
            self.error(
                src,
                col,
                f"</{name}> closes <{name}> but <{inner.name}> opened at line "
                f"{self.location(inner.src).line} is still open",
                "mismatched-close",
                f"add </{inner.name}> before it",
            )
        stack.pop().closed = True

    def _attributes(self, name: str, raw: str, src: int, col: int) -> dict[str, tuple[str, str]]:
        spec = COMPONENTS[name]
        attrs: dict[str, tuple[str, str]] = {}
        pos = 0
        while pos < len(raw):
            m = ATTR_RE.match(raw, pos)
            if not m or m.end() == pos:
                self.error(src, col, f"cannot parse attributes of <{name}>: {raw.strip()!r}", "bad-attribute")
                break
            pos = m.end()
            key = m.group("name")
            if m.group("expr") is not None:
                value = ("expr", m.group("expr").strip())
            elif m.group("dq") is not None or m.group("sq") is not None:
                value = ("str", m.group("dq") if m.group("dq") is not None else m.group("sq"))
            else:
                value = ("expr", "true")
            kind = spec.get(key)
            if kind is None:
                allowed = ", ".join(spec) or "none"
                self.error(
                    src,
                    col,
                    f"unknown attribute '{key}' on <{name}>",
                    "bad-attribute",
                    did_you_mean(key, spec) or f"allowed: {allowed}",
                )
                continue
            if kind == "bool" and value not in (("expr", "true"), ("expr", "false")):
                shown = "{" + value[1] + "}" if value[0] == "expr" else f'"{value[1]}"'
                self.error(
                    src, col, f"attribute {key}={shown} on <{name}> must be {{true}} or {{false}}", "bad-attribute"
                )
                continue
            if kind in ("str", "req") and value[0] != "str":
                self.error(src, col, f"attribute {key} on <{name}> must be a quoted string", "bad-attribute")
                continue
            attrs[key] = value
        for key, kind in spec.items():
            if kind == "req" and (key not in attrs or not attrs[key][1].strip()):
                self.error(src, col, f'<{name}> needs a non-empty {key}="..." attribute', "missing-attribute")
        return attrs

    # -- rendering ---------------------------------------------------------------------
    def emit(self, line: str, src: int) -> None:
        self.out.append(line)
        self.out_src.append(src)

    def blank(self, src: int) -> None:
        if self.out and self.out[-1].strip():
            self.emit("", src)

    def render(self, nodes: list[Text | Node], indent: str, dedent: int = 0) -> None:
        for node in nodes:
            if isinstance(node, Text):
                self._render_text(node, indent, dedent)
            else:
                self._render_node(node, indent)

    def _render_text(self, node: Text, indent: str, dedent: int) -> None:
        if node.code and node.text and not node.text.strip():  # whitespace inside code is content
            self.emit(indent + node.text[dedent:] if node.text[:dedent].strip() == "" else node.text, node.src)
            return
        if not node.text.strip():
            if node.code or (self.out and self.out[-1].strip()):
                self.emit("", node.src)
            return
        text = node.text[dedent:] if node.text[:dedent].strip() == "" else node.text.lstrip()
        if not node.code:
            text = self._heading_id(text, node.src)
        self.emit(indent + text, node.src)

    def _heading_id(self, text: str, src: int) -> str:
        if not HEADING_RE.match(text):
            return text
        m = CUSTOM_ID_RE.search(text)
        if not m:
            return text
        anchor = m.group("id").strip()
        if not VALID_ID_RE.match(anchor):
            self.error(
                src,
                m.start() + 1,
                f"invalid heading id [[{anchor}]]",
                "bad-heading-id",
                "ids start with a letter and use letters, digits, '-', '_', '.', ':'",
            )
            return text[: m.start()].rstrip()
        return f"{text[: m.start()].rstrip()} {{ #{anchor} }}"

    @staticmethod
    def _child_dedent(children: list[Text | Node]) -> int:
        widths = [len(c.text) - len(c.text.lstrip()) for c in children if isinstance(c, Text) and c.text.strip()]
        return min(widths, default=0)

    def _render_block(self, head: str, node: Node, indent: str, children: list[Text | Node]) -> None:
        self.blank(node.src)
        self.emit(indent + head, node.src)
        self.emit("", node.src)
        self.render(children, indent + "    ", self._child_dedent(children))
        self.blank(node.src)

    def _render_node(self, node: Node, indent: str) -> None:
        base = indent + node.indent if node.name != "#alert" else indent + node.indent
        if node.name == "#error":
            for line in error_block(self._last_message(node), base):
                self.emit(line, node.src)
        elif node.name == "#alert":
            admonition, title = ALERTS.get(node.attrs["kind"][1], ("note", None))
            head = f"!!! {admonition}" + (f' "{title}"' if title else "")
            self._render_block(head, node, base, node.children)
        elif node.name == "Tip":
            warning = node.attrs.get("warning", ("expr", "false"))[1] == "true"
            self._render_block("!!! warning" if warning else "!!! tip", node, base, node.children)
        elif node.name in ("hfoptions", "frameworkcontent"):
            self._render_tabs(node, base)
        elif node.name in PARENTS:  # a tab outside its group: already reported, keep its content
            self.render(node.children, base, self._child_dedent(node.children))
        elif node.name == "Youtube":
            self._render_youtube(node, base)
        elif node.name == "literalinclude":
            self._render_literalinclude(node, base)
        elif node.name in GENERATED:
            self._render_generated(node, base)

    def _last_message(self, node: Node) -> str:
        loc = self.location(node.src, node.col)
        for d in reversed(self.diagnostics):
            if d.location.path == loc.path and d.location.line == loc.line:
                return f"{d.location}: {d.message}"
        return f"{loc}: invalid component"

    def _render_tabs(self, group: Node, indent: str) -> None:
        child_name = "hfoption" if group.name == "hfoptions" else None
        seen: dict[str, int] = {}
        first = True
        for child in group.children:
            if isinstance(child, Text):
                if child.text.strip():
                    self.error(
                        child.src,
                        1,
                        f"text directly inside <{group.name}> is outside every tab",
                        "text-outside-tab",
                        "move it into a tab or after the closing tag",
                    )
                continue
            if child.name == "#error":
                self._render_node(child, indent)
                continue
            if (child_name and child.name != child_name) or (not child_name and child.name not in FRAMEWORK_LABELS):
                allowed = f"<{child_name}>" if child_name else "<pt>, <tf>, <jax>, <flax>"
                self.error(
                    child.src,
                    child.col,
                    f"<{child.name}> inside <{group.name}>; only {allowed} may be here",
                    "misplaced-component",
                )
                continue
            label = child.attrs.get("id", ("str", ""))[1] if child_name else FRAMEWORK_LABELS[child.name]
            if '"' in label:
                self.error(child.src, child.col, f"tab label {label!r} cannot contain '\"'", "bad-attribute")
                label = label.replace('"', "'")
            if label in seen:
                self.error(
                    child.src,
                    child.col,
                    f"tab '{label}' appears twice in this <{group.name}> (first at line {seen[label]})",
                    "duplicate-tab",
                )
                continue
            seen[label] = self.location(child.src).line
            self._render_block(f'==={"!" if first else ""} "{label}"', child, indent, child.children)
            first = False
        if not seen:
            self.error(group.src, group.col, f"<{group.name}> has no tabs", "empty-component")

    def _render_youtube(self, node: Node, indent: str) -> None:
        if any(isinstance(c, Node) or c.text.strip() for c in node.children):
            self.error(node.src, node.col, "<Youtube> takes no content", "bad-attribute")
        video = node.attrs.get("id", ("str", ""))[1]
        if video and not YOUTUBE_ID_RE.match(video):
            self.error(
                node.src,
                node.col,
                f"<Youtube id=\"{video}\"> is not a YouTube video id (11 characters of letters, digits, '-' and '_')",
                "bad-attribute",
            )
            return
        if not video:
            return
        title = html.escape(node.attrs.get("title", ("str", "YouTube video"))[1], quote=True)
        self.blank(node.src)
        self.emit(
            f'{indent}<div class="perfdocs-video"><iframe src="https://www.youtube-nocookie.com/embed/{video}" '
            f'title="{title}" loading="lazy" referrerpolicy="strict-origin-when-cross-origin" '
            'allow="encrypted-media; picture-in-picture; fullscreen" allowfullscreen></iframe></div>',
            node.src,
        )
        self.emit("", node.src)

    def _render_generated(self, node: Node, indent: str) -> None:
        content = self.generated.get(node.name)
        if content is None:
            self.error(
                node.src,
                node.col,
                f"<{node.name}/> is generated by the site build; it has no content here",
                "not-generated",
            )
            return
        self.blank(node.src)
        for line in content:
            self.emit(indent + line if line else "", node.src)
        self.emit("", node.src)

    def _render_literalinclude(self, node: Node, indent: str) -> None:
        raw = "\n".join(c.text for c in node.children if isinstance(c, Text))
        code = self._literalinclude_body(raw, node)
        if code is None:
            return
        body, language = code
        longest = max((len(run) for run in re.findall(r"`{3,}", body)), default=2)
        fence = "`" * max(3, longest + 1)
        self.blank(node.src)
        self.emit(f"{indent}{fence}{language}", node.src)
        for line in body.split("\n"):
            self.emit(indent + line if line else "", node.src)
        self.emit(indent + fence, node.src)
        self.emit("", node.src)

    def _literalinclude_body(self, raw: str, node: Node) -> tuple[str, str] | None:
        src, col = node.src, node.col
        try:
            spec = json.loads(raw)
        except json.JSONDecodeError as exc:
            self.error(src, col, f"<literalinclude> body is not JSON: {exc.msg}", "bad-literalinclude")
            return None
        if not isinstance(spec, dict):
            self.error(src, col, "<literalinclude> body must be a JSON object", "bad-literalinclude")
            return None
        unknown = sorted(set(spec) - LITERALINCLUDE_KEYS)
        if unknown:
            self.error(
                src,
                col,
                f"<literalinclude> has unknown key '{unknown[0]}'",
                "bad-literalinclude",
                did_you_mean(unknown[0], LITERALINCLUDE_KEYS) or f"allowed: {', '.join(sorted(LITERALINCLUDE_KEYS))}",
            )
            return None
        path = spec.get("path")
        dedent = spec.get("dedent", 0)
        if not isinstance(path, str) or not path:
            self.error(src, col, '<literalinclude> needs a "path"', "bad-literalinclude")
            return None
        if not isinstance(dedent, int) or isinstance(dedent, bool) or dedent < 0:
            self.error(src, col, '<literalinclude> "dedent" must be a non-negative integer', "bad-literalinclude")
            return None
        if self.root is None:
            self.error(src, col, "<literalinclude> needs a repository root", "bad-literalinclude")
            return None
        here = self.location(src)
        root = self.root.resolve()
        target = (root / here.path).parent / path
        try:
            resolved = target.resolve()
        except OSError as exc:
            self.error(src, col, f"<literalinclude> cannot resolve {path!r}: {exc}", "bad-literalinclude")
            return None
        if not resolved.is_relative_to(root):
            self.error(src, col, f"<literalinclude> path {path!r} points outside the repository", "path-outside-root")
            return None
        if not resolved.is_file():
            self.error(
                src,
                col,
                f"<literalinclude> file {path!r} not found (looked for {resolved.relative_to(root).as_posix()})",
                "missing-file",
            )
            return None
        try:
            lines = resolved.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            self.error(src, col, f"<literalinclude> cannot read {path!r}: {exc}", "bad-literalinclude")
            return None
        for key in ("start-after", "end-before"):
            marker = spec.get(key)
            if marker is None:
                continue
            hits = [i for i, line in enumerate(lines) if isinstance(marker, str) and marker in line]
            if not hits:
                self.error(src, col, f"<literalinclude> marker {key}={marker!r} not found in {path}", "missing-marker")
                return None
            lines = lines[hits[0] + 1 :] if key == "start-after" else lines[: hits[0]]
        if dedent:
            lines = [line[dedent:] if not line[:dedent].strip() else line.lstrip() for line in lines]
        language = spec.get("language", "")
        if not isinstance(language, str) or not re.fullmatch(r"[\w+#.-]*", language):
            self.error(src, col, '<literalinclude> "language" must be a plain language name', "bad-literalinclude")
            language = ""
        return "\n".join(lines), language


def convert(
    text: str, source_map: SourceMap, root: Path | None = None, generated: dict[str, list[str]] | None = None
) -> Converted:
    """Converts the dialect in ``text`` (whose lines ``source_map`` locates) to Material Markdown.

    ``generated`` holds the lines of build-generated components such as ``<TechniqueMatrix/>``.
    """
    lines = text.split("\n")
    conv = _Converter(lines, source_map, root, generated)
    tree = conv.parse([(line, i) for i, line in enumerate(lines)])
    conv.render(tree, "")
    if not conv.out:
        conv.emit("", 0)
    while len(conv.out) > 1 and conv.out[-1] == "" and (not lines or lines[-1] != "" or conv.out[-2] == ""):
        conv.out.pop()
        conv.out_src.pop()
    return Converted("\n".join(conv.out), source_map.compose(conv.out_src), conv.diagnostics)


__all__ = ["Converted", "convert", "error_block"]
