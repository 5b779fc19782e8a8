"""doc-builder's Markdown in the libraries' docstrings, as mkdocstrings renders them (the griffe extension
``DocBuilderDocstrings``, named in mkdocs.yml): parameter heads read as doc-builder reads them, ``[`Name`]`` links
resolved against the build's API index (perfdocs.apirefs), ``<Tip>`` blocks and ``> [!NOTE]`` alerts as admonitions,
lists and code as CommonMark reads them."""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

import griffe

from . import markdown as md
from .admonitions import ALERTS, alert_head, tip_head
from .apilinks import api_link, api_link_text


class Documented(Protocol):
    """What a docstring's links ask of the build's API index (apirefs.ApiIndex)."""

    def documented(self, name: str, prefer: str | None = None) -> tuple[str | None, str]:
        """(id of the entry ``name`` links to, kind), from the documented entries alone."""
        ...


# GitHub-style alerts in docstrings ("> [!TIP]" and the quoted lines under it), as the dialect renders them on pages
DOCSTRING_ALERT_RE = re.compile(r"^(?P<indent>[ \t]*)>[ \t]*\[!(?P<kind>[A-Za-z]+)\][ \t]*$")
DOCSTRING_TIPS = {"<Tip>": False, "<Tip warning={true}>": True}  # a docstring's tip lines, as written: warning?
ARGS_SECTIONS = ("Args:", "Arguments:", "Parameters:", "Params:", "Attributes:")
# A parameter head of doc-builder's docstrings: "    output_dir (`str`, *optional*, defaults to `"out"`):", its
# description on the same line or under it. Written without the space ("local_files_only(`bool`):"), with a colon
# before the parenthesis ("use_mtp: (`bool`):") or a parenthesis too many ("(`dict`, *optional*)):"): as meant.
PARAMETER_HEAD_RE = re.compile(
    r"^(?P<indent>[ \t]+)(?P<name>\*{0,2}[A-Za-z_]\w*)(?::[ \t]*|[ \t]*)\((?P<inner>.*?)(?P<close>\)+):(?P<rest>.*)$"
)
HEAD_MARKUP_RE = re.compile(r"[`*\[]|\bdefaults?[ \t]+to\b", re.I)  # a head written the doc-builder way
HEAD_DEFAULT_RE = re.compile(r"(?:^|,)[ \t]*defaults?[ \t]+to[ \t]+(?P<value>.*)$", re.I)  # "defaults to `20`"
HEAD_OPTIONAL_RE = re.compile(r"(?:^|,)[ \t]*(?:\*optional\*|_optional_)[ \t]*(?=,|$)")
TYPE_API_LINK_RE = re.compile(r"\[`(?P<tilde>~?)(?P<name>[^`\]]+)`\]")  # [`~utils.Strategy`] in a type: Strategy
TYPE_LINK_RE = re.compile(r"\[(?P<text>[^\]]*)\]\([^)]*\)")  # [text](url) in a type: its text
IMPLIED_DEFAULT = "None"  # an *optional* parameter with no "defaults to": doc-builder's convention (see read_docstring)
_CURRENT: list[Documented] = []  # the index of the build in progress, for the griffe extension below


def use_index(index: Documented) -> None:
    """The index the extension resolves docstrings' links against, for the build in progress."""
    _CURRENT[:] = [index]


@dataclass(frozen=True)
class ParameterHead:
    """A doc-builder parameter head, ``name (`type`, *optional*, defaults to X): description``, as read."""

    indent: str
    name: str
    type: str | None  # the type as griffe's Google parser reads it (``str or os.PathLike``); None: none given
    default: str | None  # what "defaults to" says (``20``, ``"main"``); None when it says nothing
    optional: bool  # written *optional*
    rest: str  # the description on the head's line

    def google(self) -> str:
        """The head as griffe's Google-style parser reads it: ``name (type): description``."""
        head = f"{self.indent}{self.name} ({self.type}):" if self.type else f"{self.indent}{self.name}:"
        return f"{head} {self.rest}" if self.rest else head


def parameter_head(line: str) -> ParameterHead | None:
    """The doc-builder head on ``line``; None for any other line (a plain Google head, ``x (int): ...``, is
    already what griffe reads)."""
    m = PARAMETER_HEAD_RE.match(line)
    if m is None or not HEAD_MARKUP_RE.search(m.group("inner")):
        return None
    inner, default = m.group("inner"), None
    inner += ")" * max(0, min(inner.count("(") - inner.count(")"), len(m.group("close")) - 1))  # its own, closed
    if (d := HEAD_DEFAULT_RE.search(inner)) is not None:
        inner, default = inner[: d.start()], _plain(d.group("value"))
    optional = HEAD_OPTIONAL_RE.search(inner) is not None
    shown = _plain(HEAD_OPTIONAL_RE.sub("", inner)).strip(" ,")
    # griffe splits the head at its first colon: a type with one cannot be given (the signature's is shown)
    kind = shown if shown and ":" not in shown else None
    return ParameterHead(m.group("indent"), m.group("name"), kind, default or None, optional, m.group("rest").strip())


def _plain(text: str) -> str:
    """doc-builder's Markdown in a head as plain text: ``[`~a.B`]`` is ``B``, ``[text](url)`` its text, no backticks."""
    text = TYPE_API_LINK_RE.sub(lambda m: m["name"].rsplit(".", 1)[-1] if m["tilde"] else m["name"], text)
    text = TYPE_LINK_RE.sub(r"\g<text>", text)
    return " ".join(text.replace("`", "").split())


@dataclass(frozen=True)
class DocstringText:
    """A library docstring as this site renders it: its Markdown, and the defaults its parameter heads give."""

    markdown: str
    defaults: dict[str, str]  # parameter -> the default its head writes ("defaults to X")
    optional: frozenset[str]  # parameters written *optional* with no "defaults to"


def read_docstring(text: str, index: Documented | None, prefer: str | None = None) -> DocstringText:
    """A docstring of a library as doc-builder reads it (``convert_rst_to_mdx.parse_rst_docstring``: a parameter
    head's type and default are the text between its parentheses; the description is CommonMark).

    Parameter heads become Google heads with a type (``name (`int`, *optional*, defaults to 20):`` reads
    ``name (int):``) and their defaults are kept aside: griffe takes a default from the signature only, and
    doc-builder's parameters often go through ``**kwargs``. Its doc-builder API links link to the entries this
    site has and are code otherwise (the library's text is not the author's: never an error); its links to the
    library's own doc pages keep their text only (those pages are not part of this site), also when the link
    wraps onto the next line; any other bracket is escaped, so Python-Markdown reads no reference link into
    prose (``[@<revision>][:<name>]``), and so is a tag that is no HTML element (``<namespace>``), which a
    browser would drop. A list gets the blank line Python-Markdown needs before it (CommonMark needs none), and
    one indented under its text moves left (else it would be code). Fenced examples are left as they are;
    ``<Tip>`` blocks and ``> [!TIP]`` alerts become admonitions, as doc-builder shows them."""
    lines = _docstring_tips(text.split("\n"))
    out: list[str] = []
    heads: dict[int, int] = {}  # line -> length of its head (``name (type):``), which inline rewrites leave alone
    defaults: dict[str, str] = {}
    optional: set[str] = set()
    fence = ""
    section = items = -1  # indentation of the Args-like section line and of its items, or -1
    parameters = False  # the section's items are parameters (not attributes)
    for line in lines:
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if fence:
            fence = "" if stripped.startswith(fence) else fence
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif stripped.rstrip() in ARGS_SECTIONS:
            section, items, parameters = indent, -1, stripped.rstrip() != "Attributes:"
        elif stripped and section >= 0 and indent <= section:
            section = -1
        elif stripped and section >= 0:
            items = indent if items < 0 else items
            head = parameter_head(line) if indent == items else None
            if head is not None:
                line = head.google()
                heads[len(out)] = len(line) - len(head.rest)
                if parameters and head.default is not None:
                    defaults[head.name] = head.default
                elif parameters and head.optional:
                    optional.add(head.name)
        out.append(line)
    out = _inline_runs(out, heads, index, prefer)
    markdown = "\n".join(_lists_after_text(_lists_not_code(out, heads), heads))
    return DocstringText(markdown, defaults, frozenset(optional))


def docstring_markdown(text: str, index: Documented | None, prefer: str | None = None) -> str:
    """A docstring of a library as this site renders it (``read_docstring``), as Markdown."""
    return read_docstring(text, index, prefer).markdown


def _inline_runs(lines: list[str], heads: Mapping[int, int], index: Documented | None, prefer: str | None) -> list[str]:
    """The lines with their inline Markdown rewritten (``_docstring_inline``) a paragraph at a time, so that a
    link whose text wraps onto the next line is read whole. A paragraph ends at a blank line, a fence, a doctest
    line or a parameter head, whose own text (``name (type):``) is left alone."""
    out = list(lines)
    fence = ""
    run: list[int] = []

    def flush() -> None:
        if run:
            text = "\n".join(out[i] for i in run)
            if "[" in text or "<" in text:
                masked = "\n".join(" " * heads[i] + out[i][heads[i] :] if i in heads else out[i] for i in run)
                rewritten = _docstring_inline(text, masked, index, prefer).split("\n")
                if len(rewritten) == len(run):  # edits keep the line breaks they cover
                    for i, new in zip(run, rewritten):
                        out[i] = new
            run.clear()

    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if fence:
            fence = "" if stripped.startswith(fence) else fence
            continue
        if stripped.startswith(("```", "~~~")):
            flush()
            fence = stripped[:3]
        elif not stripped or stripped.startswith((">>>", "...")):
            flush()
        else:
            if i in heads:
                flush()
            run.append(i)
    flush()
    return out


DOCSTRING_LIST_RE = re.compile(r"(?:[-*+]|\d+[.)])\s")
LIST_START_RE = re.compile(r"(?:[-*+]|1[.)])[ \t]+\S")  # a list item that may interrupt a paragraph (CommonMark)


def _lists_not_code(lines: list[str], heads: Container[int] = ()) -> list[str]:
    """A list indented deeper than the text it belongs to (``Possible values are:`` then the items 4 spaces
    further in) is a list to doc-builder, which takes the indentation out of lists (``remove_indent``); to
    Python-Markdown, 4 spaces past the edge of its container, it is an indented code block. Such a list, with
    its continuation lines, moves left to the text's indentation; a list nested in another stays. The edge of a
    parameter's description is twice its head's indentation, where griffe reads its lines from
    (``_read_block_items``); ``heads`` are the heads' lines. Fenced code stays as it is."""
    out: list[str] = []
    fence, shift, inner = "", 0, 0
    base = edge = 0  # the indentation of the text; the edge of its container
    head = -1  # the indentation of the head whose description the lines are, or -1
    listed = -1  # the indentation of the list the previous lines belong to, or -1
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if fence:
            fence = "" if stripped.startswith(fence) else fence
            out.append(line)
            continue
        if not stripped:
            out.append(line)
            continue
        if shift and indent >= inner:
            out.append(line[shift:])
            continue
        shift = 0
        if i in heads:
            head, base, edge, listed = indent, 2 * indent, 2 * indent, -1
        elif head >= 0 and indent <= head:
            head, edge = -1, 0
        if stripped.startswith(("```", "~~~")):
            fence, listed = stripped[:3], -1
        elif DOCSTRING_LIST_RE.match(stripped):
            if listed < 0 and indent > base and (indent >= base + 4 or indent >= edge + 4):
                shift, inner, listed = indent - base, indent, base
                out.append(line[shift:])
                continue
            listed = indent if listed < 0 else listed
        elif i not in heads and not stripped.startswith((">>>", "...")) and not (listed >= 0 and indent > listed):
            base, listed = indent, -1  # text (not a line of a list item)
        out.append(line)
    return out


def _lists_after_text(lines: list[str], heads: Container[int] = ()) -> list[str]:
    """A blank line between a line of text and the list item right under it: CommonMark (doc-builder) starts
    the list there, Python-Markdown would run the items into the paragraph. A line of text right after an item
    continues it (CommonMark's lazy continuation), so the list goes on after it. Fenced code stays as it is."""
    out: list[str] = []
    fence = ""
    listed = -1  # indentation of the list the previous lines belong to, or -1
    blank = False  # the previous line is blank
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if fence:
            fence = "" if stripped.startswith(fence) else fence
        elif stripped.startswith(("```", "~~~")):
            fence, listed = stripped[:3], -1
        elif not stripped:
            pass  # a list goes on after a blank line
        elif i in heads:
            listed = -1  # a parameter: griffe reads a new item
        elif DOCSTRING_LIST_RE.match(stripped) and listed >= 0 and indent >= listed:
            pass  # the next item, or one of a nested list
        elif LIST_START_RE.match(stripped):
            if out and out[-1].strip() and not out[-1].lstrip().startswith((">>>", "...")):
                out.append("")
            listed = indent
        elif listed >= 0 and indent <= listed and blank:
            listed = -1  # text at the list's indentation after a blank line: the list ended
        blank = not stripped
        out.append(line)
    return out


def _docstring_tips(lines: list[str]) -> list[str]:
    """doc-builder's ``<Tip>`` / ``<Tip warning={true}>`` ... ``</Tip>`` lines in a docstring (outside fenced
    code) as Material admonitions at the tag's indentation; a tip never closed stays as it is."""
    out: list[str] = []
    fence = ""
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if fence:
            fence = "" if stripped.startswith(fence) else fence
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif (alert := DOCSTRING_ALERT_RE.match(lines[i])) and alert.group("kind").upper() in ALERTS:
            indent, head = alert.group("indent"), alert_head(alert.group("kind").upper())
            body = []
            i += 1
            while i < len(lines):
                if lines[i].startswith(indent + ">"):
                    body.append(lines[i][len(indent) + 1 :].removeprefix(" "))
                elif body and body[-1].strip() and _lazy_line(lines[i], len(indent)):
                    body.append(lines[i].strip())  # continues the quote's paragraph (CommonMark's lazy line)
                else:
                    break
                i += 1
            out += [f"{indent}{head}", ""] + [f"{indent}    {x}" if x.strip() else "" for x in body] + [""]
            continue
        elif (warning := DOCSTRING_TIPS.get(stripped)) is not None:
            close = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "</Tip>"), None)
            if close is not None:
                indent = " " * (len(lines[i]) - len(lines[i].lstrip()))
                body = lines[i + 1 : close]
                while body and not body[0].strip():
                    body.pop(0)
                while body and not body[-1].strip():
                    body.pop()
                shift = min((len(x) - len(x.lstrip()) for x in body if x.strip()), default=0)
                out += [f"{indent}{tip_head(warning)}", ""]
                out += [f"{indent}    {x[shift:]}" if x.strip() else "" for x in body]
                i = close + 1
                continue
        out.append(lines[i])
        i += 1
    return out


def _lazy_line(line: str, indent: int) -> bool:
    """Whether ``line``, right under a quoted paragraph at ``indent``, continues that paragraph: text, not less
    indented (a parameter head is), and nothing that starts a block of its own."""
    stripped = line.lstrip()
    return (
        bool(stripped)
        and len(line) - len(stripped) >= indent
        and not DOCSTRING_LIST_RE.match(stripped)
        and not stripped.startswith(("```", "~~~", "#", "<", ">"))
    )


def _docstring_inline(text: str, masked: str, index: Documented | None, prefer: str | None) -> str:
    """``text`` (a paragraph, perhaps of several lines) with its API links, relative links, stray brackets and
    tags rewritten; ``masked`` is the same text with what must stay as it is blanked out."""
    found = md.scan_inline(masked)
    edits: list[tuple[int, int, str]] = []
    kept: list[tuple[int, int]] = list(found.literal) + list(found.opaque)
    for start, end in found.literal:
        link = api_link(masked, start, end)
        if link is None:
            continue
        if link.name is None:
            edits.append((start - 1, end + 1, text[start:end]))  # not a name: code, as doc-builder shows it
            continue
        bare = link.name.removeprefix("~").partition("#")[0]
        anchor, kind = index.documented(bare, prefer) if index is not None else (None, "unknown")
        shown = api_link_text(link.name, "function" if link.code != link.name else kind)
        edits.append((start - 1, end + 1, f"[`{shown}`][{anchor}]" if anchor else f"`{shown}`"))
    for offset, href in found.links:
        close = masked.find("](", offset)
        if close < 0 or masked[offset : offset + 1] != "[":
            continue
        stop = _closing_paren(masked, close + 1)
        if stop is None:
            continue
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith(("#", "/")) or not href:
            kept.append((offset, stop))  # an absolute link: it works here too
            continue
        edits.append((offset, stop, text[offset + 1 : close]))  # a page of the library's docs: its text only
    for tag in found.tags:  # '<namespace>/<repo>': placeholders in prose, not HTML (a browser would drop them)
        edits.append((tag.start, tag.start + 1, "&lt;"))
    taken = sorted([*((a, b) for a, b, _ in edits), *kept])
    for i, char in enumerate(masked):
        if char == "[" and not any(a <= i < b for a, b in taken) and not (i and masked[i - 1] == "\\"):
            edits.append((i, i + 1, "\\["))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _closing_paren(text: str, at: int) -> int | None:
    """Offset just past the ')' that closes the '(' at ``at``."""
    depth = 0
    for i in range(at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


class DocBuilderDocstring(griffe.Docstring):
    """A docstring read the doc-builder way (``read_docstring``), whose parsed parameters get the defaults the
    text and the code give. griffe takes a parameter's default from the signature only, so a parameter that
    goes through ``**kwargs`` (all of ``GenerationConfig``'s) would show as required. In order: the head's
    "defaults to X" (what doc-builder shows); the signature's default; for a parameter the signature takes
    through ``**kwargs``, the default the function's own ``kwargs.pop("name", X)`` or ``kwargs.get("name", X)``
    gives (one such default only); for a parameter written *optional* with none of these, ``None``:
    doc-builder's convention ("we always omit the 'defaults to `None`' when None is the default", its README,
    "Parmeter typing and default value")."""

    def __init__(self, value: str, *, defaults: Mapping[str, str], optional: Iterable[str], **kwargs: Any) -> None:
        super().__init__(value, **kwargs)
        self.defaults = dict(defaults)
        self.optional = frozenset(optional)

    def parse(self, parser: Any = None, **options: Any) -> list[griffe.DocstringSection]:
        sections = super().parse(parser, **options)
        kinds = (griffe.DocstringSectionKind.parameters, griffe.DocstringSectionKind.other_parameters)
        through_kwargs: dict[str, str] | None = None
        for section in sections:
            if section.kind not in kinds:
                continue
            for parameter in section.value:
                written = self.defaults.get(parameter.name)
                if written is not None:
                    parameter.value = written
                    continue
                if parameter.value is not None:
                    continue
                if through_kwargs is None:
                    through_kwargs = kwargs_defaults(self.parent)
                if parameter.name in through_kwargs:
                    parameter.value = through_kwargs[parameter.name]
                elif parameter.name in self.optional:
                    parameter.value = IMPLIED_DEFAULT
        return sections


def kwargs_defaults(obj: griffe.Object | griffe.Alias | None) -> dict[str, str]:
    """The defaults a function (a class: its ``__init__``) gives the parameters it takes through ``**kwargs``
    and its signature does not name: ``kwargs.pop("do_sample", None)`` gives ``do_sample`` the default
    ``None``. A name given two different defaults gets none."""
    function = obj.members.get("__init__") if obj is not None and obj.is_class else obj
    if function is None or function.is_alias or not function.is_function:
        return {}
    parameters = function.parameters  # type: ignore[union-attr]
    var = next((p.name for p in parameters if p.kind is griffe.ParameterKind.var_keyword), None)
    if var is None:
        return {}
    try:
        tree = ast.parse(textwrap.dedent(function.source))
    except (OSError, ValueError, SyntaxError, griffe.BuiltinModuleError):
        return {}
    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and len(node.args) == 2):
            continue
        owner, (key, default) = node.func.value, node.args
        if node.func.attr in ("pop", "get") and isinstance(owner, ast.Name) and owner.id == var:
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value not in parameters:
                found.setdefault(key.value, set()).add(ast.unparse(default))
    return {name: next(iter(values)) for name, values in found.items() if len(values) == 1}


class DocBuilderDocstrings(griffe.Extension):
    """The griffe extension mkdocstrings loads (mkdocs.yml: ``extensions``): docstrings read as doc-builder reads
    them (``read_docstring``), with the index of the build in progress."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        docstring = obj.docstring
        if docstring is None:
            return
        index = _CURRENT[-1] if _CURRENT else None
        read = read_docstring(docstring.value, index, obj.path.split(".", 1)[0])
        obj.docstring = DocBuilderDocstring(
            read.markdown,
            defaults=read.defaults,
            optional=read.optional,
            lineno=docstring.lineno,
            endlineno=docstring.endlineno,
            parent=obj,
            parser=docstring.parser,
            parser_options=docstring.parser_options,
        )
