"""Markdown facts shared by the transforms: which lines are code and what is a code span (both from the
CommonMark parser in perfdocs.markdown), heading syntax, slugs and front matter."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

import yaml

from .markdown import MD, code_lines, scan_inline

SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

HEADING_RE = re.compile(r"^(?P<hashes>#{1,6})(?P<space>[ \t]+)(?P<text>.*?)[ \t]*$")
CUSTOM_ID_RE = re.compile(r"[ \t]*\[\[(?P<id>[^\]]*)\]\][ \t]*$")
ATTR_ID_RE = re.compile(r"[ \t]*\{[ \t]*#(?P<id>[^\s}]+)[^}]*\}[ \t]*$")
VALID_ID_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]*$")
MARKER_RE = re.compile(r"^\[\[(?P<name>[A-Za-z][\w-]*)\]\](?P<rest>.*)$")  # [[open-in-colab]], [[autodoc]] X
MEMBER_RE = re.compile(r"^\s*-\s+(?P<name>\S+)\s*$")  # an [[autodoc]] member line: '    - train'
FRONT_MATTER_RE = re.compile(r"\A---[ \t]*\r?\n(?P<body>.*?)(?:\r?\n)?^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S | re.M)


def marker_groups(lines: list[str]) -> list[tuple[int, int]]:
    """The doc-builder marker lines of a paragraph that opens with one, as (first, end) index ranges: each
    ``[[name]]`` line with the lines under it up to the next marker line. doc-builder reads every
    ``[[autodoc]] X`` line on its own, so two of them need no blank line between them."""
    starts = [i for i, line in enumerate(lines) if MARKER_RE.match(line.strip())] or [0]
    if starts[0] != 0:
        starts.insert(0, 0)
    return list(zip(starts, [*starts[1:], len(lines)]))


def code_line_mask(lines: list[str]) -> list[bool]:
    """True for each line of a CommonMark text that is part of a fenced or indented code block, at any
    depth (list items, blockquotes, component bodies), fence lines included."""
    return code_lines("\n".join(lines))[: len(lines)]


def mask_code_spans(line: str) -> str:
    """The line with inline code spans replaced by spaces of equal length (positions kept)."""
    if "`" not in line:
        return line
    chars = list(line)
    for start, end in scan_inline(line).literal:
        if line[start] == "`":
            chars[start:end] = " " * (end - start)
    return "".join(chars)


def plain_heading_text(text: str) -> str:
    """Heading Markdown as the reader sees it (what Python-Markdown's toc hands to its slugify)."""
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"[`*_]{1,3}(?=\S)|(?<=\S)[`*_]{1,3}", "", text)
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)


def markdown_slug(value: str, separator: str = "-") -> str:
    """Python-Markdown's toc.slugify: ASCII only, '_' kept, runs of spaces and hyphens made one."""
    value = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(rf"[{separator}\s]+", separator, value)


def doc_builder_slug(value: str, separator: str = "-") -> str:
    """doc-builder's heading ids (kit/preprocessors/mdsvex: trim, lower-case, each run of white space
    becomes one hyphen, then everything but Unicode letters, numbers and hyphens goes), so a deep link
    to an hf.co page lands on the same heading here: 'set_adapters' -> 'setadapters', '🤗 Optimum' ->
    '-optimum', 'Trainer - a' -> 'trainer---a'. The site's toc uses it (mkdocs.yml, toc.slugify)."""
    value = re.sub(r"\s+", separator, value.strip().lower())
    return "".join(ch for ch in value if ch == separator or unicodedata.category(ch)[0] in "LN")


_slug = doc_builder_slug  # the site's toc.slugify; perfdocs.project sets it from mkdocs.yml


def use_slugify(function: Any) -> Any:
    """Predict automatic heading ids with ``function`` (the toc extension's ``slugify`` option); the function
    used until now."""
    global _slug
    before, _slug = _slug, function
    return before


def heading_words(text: str) -> str:
    """A heading's Markdown as doc-builder reads it for its id (kit/preprocessors/mdsvex, getTitleText): each
    inline node's text trimmed, the nodes joined with a space. Code spans, links and emphasis are nodes of their
    own, so "Reusing `generate`'s input" reads "Reusing generate 's input"; an image has no text; raw HTML tags
    are nodes whose text is the tag."""
    tokens = [t for top in MD.parseInline(text) for t in (top.children or [])]
    # an API link [`Name`] is a link to doc-builder by then: its text is the name, without the brackets
    links = {
        i
        for i in range(1, len(tokens) - 1)
        if tokens[i].type == "code_inline"
        and tokens[i - 1].type == "text"
        and tokens[i - 1].content.endswith("[")
        and tokens[i + 1].type == "text"
        and tokens[i + 1].content.startswith("]")
        and not tokens[i + 1].content.startswith("](")
    }
    words = []
    for i, token in enumerate(tokens):
        content = token.content
        if token.type == "text":
            content = content[: -1 if i + 1 in links else None][1 if i - 1 in links else 0 :]
        elif i in links:
            bare, _, param = content.removeprefix("~").partition("#")
            content = param or (bare.rsplit(".", 1)[-1] if content.startswith("~") else bare)
        elif token.type == "image":
            content = ""
        elif token.type not in ("code_inline", "html_inline"):
            continue
        words.append(content.strip())
    return " ".join(words).strip()


def doc_builder_ids() -> bool:
    """Whether the site's toc gives headings doc-builder's ids (mkdocs.yml: toc.slugify: doc_builder_slug)."""
    return _slug is doc_builder_slug


def slugify(text: str, separator: str = "-") -> str:
    """The id the site's toc gives a heading whose Markdown text is ``text`` (with doc-builder's ids, the id of
    doc-builder's reading of it: the dialect writes that id on the headings where the two differ)."""
    if doc_builder_ids():
        return doc_builder_slug(heading_words(text), separator)
    return str(_slug(plain_heading_text(text), separator))


def toc_slug(text: str) -> str:
    """The id Python-Markdown's toc would give a heading whose Markdown text is ``text``, from its plain text."""
    return str(_slug(plain_heading_text(text)))


def snippet_slug(text: str) -> str:
    """The heading part of a theory snippet's ids (``<name>-<heading>``): Python-Markdown's rule, kept
    whatever the toc uses, so snippet ids never change."""
    return markdown_slug(plain_heading_text(text))


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    explicit_id: str | None
    id_syntax: str | None  # "[[]]" or "{#}" when explicit

    @property
    def id(self) -> str:
        return self.explicit_id or slugify(self.text)


def parse_heading(line: str) -> Heading | None:
    m = HEADING_RE.match(line)
    if not m:
        return None
    text = m.group("text").rstrip("#").rstrip() if re.search(r"\s#+$", m.group("text")) else m.group("text")
    for syntax, regex in (("[[]]", CUSTOM_ID_RE), ("{#}", ATTR_ID_RE)):
        idm = regex.search(text)
        if idm:
            return Heading(len(m.group("hashes")), text[: idm.start()].rstrip(), idm.group("id").strip(), syntax)
    return Heading(len(m.group("hashes")), text, None, None)


@dataclass(frozen=True)
class FrontMatter:
    data: dict[str, Any]
    body: str
    body_first_line: int  # 1-based line number of the body's first line in the file
    error: str | None = None
    error_line: int = 1


def split_front_matter(source: str) -> FrontMatter:
    """Separates YAML front matter from the body; a YAML error is reported, not raised."""
    m = FRONT_MATTER_RE.match(source)
    if not m:
        return FrontMatter({}, source, 1)
    body = source[m.end() :]
    first = source.count("\n", 0, m.end()) + 1
    try:
        try:
            data = yaml.load(m.group("body"), Loader=SafeLoader)
        except yaml.YAMLError:  # parse again with the pure loader: its messages are the same everywhere
            data = yaml.safe_load(m.group("body"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = 2 + (mark.line if mark else 0)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return FrontMatter({}, body, first, f"front matter is not valid YAML: {problem}", line)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return FrontMatter({}, body, first, "front matter must be a YAML mapping", 2)
    return FrontMatter(data, body, first)


def body_offset(source: str, markdown: str) -> int:
    """1-based line in ``source`` where ``markdown`` (the body MkDocs handed over) starts."""
    stripped_source = source.replace("\r\n", "\n")
    if markdown and stripped_source.endswith(markdown):
        return stripped_source.count("\n", 0, len(stripped_source) - len(markdown)) + 1
    return split_front_matter(stripped_source).body_first_line


def front_matter_key_line(source: str, key: str) -> int:
    """1-based line of a top-level front matter ``key:`` (1 when absent)."""
    front = FRONT_MATTER_RE.match(source)
    if front:
        for i, line in enumerate(source[: front.end()].split("\n")):
            if line.startswith(f"{key}:"):
                return i + 1
    return 1
