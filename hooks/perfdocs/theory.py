"""``<Theory name="x"/>`` expansion and ``<Only scenario="...">`` selection, with a source map.

Runs before the dialect conversion: snippets may use the whole dialect, and every line of the
expanded text keeps its origin (snippet file and line, plus the chain of include sites).
"""

from __future__ import annotations

import html
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from .components import is_void
from .diagnostics import Diagnostic, Location, SourceMap, did_you_mean, display_path
from .document import error_block
from .markdown import Tag, scan_inline
from .metadata import text_problem
from .text import (
    code_line_mask,
    front_matter_key_line,
    mask_code_spans,
    parse_heading,
    snippet_slug,
    split_front_matter,
)

SCENARIOS = (
    "overview",
    "infer-cpu",
    "infer-gpu-one",
    "infer-gpu-many",
    "train-gpu-one",
    "train-gpu-many",
    "scalability",
)
HELPS = ("speed", "memory", "scale")
SNIPPET_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_]*$")
THEORY_DIR = "performance/_theory"  # docs-relative home of the snippets
MAX_DEPTH = 10  # a real guide needs two or three levels; deeper is a mistake
# Inclusions on one page, all levels counted: the largest scenario page has 11; ten includes a level, five
# levels deep, would be 100,000 copies.
MAX_INCLUSIONS = 300
NAME_ATTR_RE = re.compile(r"""^\s*name\s*=\s*(?:"([^"]*)"|'([^']*)')\s*/?$""")
SCENARIO_ATTR_RE = re.compile(r"""^\s*scenario\s*=\s*(?:"([^"]*)"|'([^']*)')\s*$""")
# Pages of these scenarios show each snippet collapsed, under "<title> explained": the page keeps what to do open
# and the explanation one click away. The overview shows its snippet open.
COLLAPSED_SCENARIOS = frozenset(SCENARIOS) - {"overview"}
DETAILS_TAG_RE = re.compile(r"<(/?)details\b", re.IGNORECASE)
INLINE_LINK_RE = re.compile(r"(\]\()(<?)([^)\s>]+)")
REF_DEF_RE = re.compile(r"^(\s{0,3}\[[^\]]+\]:\s*)(<?)(\S+)")


@dataclass(frozen=True, eq=False)
class Snippet:
    name: str
    path: str  # display path, relative to the repository root
    title: str
    helps: tuple[str, ...]
    summary: str
    body: str
    body_first_line: int

    @cached_property
    def lines(self) -> list[str]:
        lines = self.body.split("\n")
        return lines[:-1] if lines and lines[-1] == "" else lines

    @cached_property
    def code_mask(self) -> list[bool]:
        return code_line_mask(self.lines)

    @cached_property
    def top_heading_level(self) -> int | None:
        """The smallest heading level in the body (outside code), or None without headings."""
        levels = [h.level for h, code in zip(map(parse_heading, self.lines), self.code_mask) if h and not code]
        return min(levels) if levels else None


@dataclass(frozen=True)
class Inclusion:
    """One expansion of a snippet on a page, for the overview matrix and edit links."""

    name: str
    section_id: str | None
    section_title: str | None
    depth: int


@dataclass
class Expansion:
    text: str
    source_map: SourceMap
    diagnostics: list[Diagnostic]
    inclusions: list[Inclusion] = field(default_factory=list)
    snippets_used: set[str] = field(default_factory=set)
    code: list[bool] = field(default_factory=list)  # per line of ``text``: code, as its own file reads it


class SnippetLibrary:
    """Loads ``_theory/*.md`` on demand, once per build; front matter problems become diagnostics."""

    def __init__(self, directory: Path, root: Path):
        self.directory = directory
        self.root = root
        self._cache: dict[str, tuple[Snippet | None, list[Diagnostic]]] = {}

    def display(self, path: Path) -> str:
        return display_path(path, self.root)

    def names(self) -> list[str]:
        if not self.directory.is_dir():
            return []
        return sorted(p.stem for p in self.directory.glob("*.md"))

    def forget(self, names: set[str]) -> dict[str, Snippet | None]:
        """Read these snippets again on their next use (they changed on disk); those that were read, as they were."""
        return {name: self._cache.pop(name)[0] for name in names if name in self._cache}

    def get(self, name: str) -> tuple[Snippet | None, list[Diagnostic]]:
        if name not in self._cache:
            self._cache[name] = self._load(name)
        return self._cache[name]

    def _load(self, name: str) -> tuple[Snippet | None, list[Diagnostic]]:
        path = self.directory / f"{name}.md"
        shown = self.display(path)
        if not path.is_file():
            return None, []
        directory = self.directory.resolve()
        if not path.resolve().is_relative_to(directory):
            return None, [
                Diagnostic(
                    Location(shown, 1),
                    f"snippet '{name}' resolves outside {self.display(directory)}",
                    "path-outside-root",
                )
            ]
        try:
            source = path.read_text(encoding="utf-8").replace("\r\n", "\n")
        except UnicodeDecodeError as exc:
            return None, [
                Diagnostic(
                    Location(shown, 1), f"snippet is not UTF-8 text ({exc.reason} at byte {exc.start})", "bad-encoding"
                )
            ]
        front = split_front_matter(source)
        problems = []
        if not front.body.strip():
            problems.append(
                Diagnostic(Location(shown, front.body_first_line), "snippet has no content", "empty-snippet")
            )
        if front.error:
            problems.append(Diagnostic(Location(shown, front.error_line), front.error, "bad-front-matter"))
        data = front.data
        title, summary, helps = data.get("title"), data.get("summary"), data.get("helps", [])
        if "title" in data or not front.error:
            if not isinstance(title, str) or not title.strip():
                problems.append(
                    Diagnostic(
                        Location(shown, front_matter_key_line(source, "title")),
                        "snippet front matter needs 'title' (a string)",
                        "bad-front-matter",
                    )
                )
                title = name
            if not isinstance(summary, str) or not summary.strip():
                problems.append(
                    Diagnostic(
                        Location(shown, front_matter_key_line(source, "summary")),
                        "snippet front matter needs 'summary' (a one-line string)",
                        "bad-front-matter",
                    )
                )
                summary = ""
            if not isinstance(helps, list) or any(h not in HELPS for h in helps):
                problems.append(
                    Diagnostic(
                        Location(shown, front_matter_key_line(source, "helps")),
                        f"snippet front matter 'helps' must be a list drawn from {', '.join(HELPS)}; got {helps!r}",
                        "bad-front-matter",
                    )
                )
                helps = [h for h in helps if h in HELPS] if isinstance(helps, list) else []
            for key, value in (("title", title), ("summary", summary)):
                markup = text_problem(key, value, source, shown) if isinstance(value, str) else None
                if markup:
                    problems.append(markup)
        return Snippet(
            name, shown, str(title or name), tuple(helps), str(summary or ""), front.body, front.body_first_line
        ), problems


@dataclass
class _Frame:
    path: str  # display path of the file being expanded
    chain: tuple[tuple[str, int], ...]
    names: tuple[str, ...]  # snippet names on the include stack, outermost first


class _Expander:
    def __init__(
        self,
        library: SnippetLibrary,
        page_path: str,
        scenario: str | None,
        edit_url: Callable[[Snippet], str | None] | None = None,
    ):
        self.edit_url = edit_url
        self.library = library
        self.page_path = page_path
        self.scenario = scenario
        self.out: list[str] = []
        self.origins: list[Location] = []
        self.code: list[bool] = []
        self.diagnostics: list[Diagnostic] = []
        self.inclusions: list[Inclusion] = []
        self.used: set[str] = set()
        self.expansion_count: dict[str, int] = {}
        self.capped = False  # MAX_INCLUSIONS reached
        self.section: tuple[int, str | None, str | None] = (1, None, None)  # level, id, title
        self.collapse = scenario in COLLAPSED_SCENARIOS
        self.nesting = 0  # components and <details> open on the page at the current line

    def emit(self, line: str, loc: Location, code: bool = False) -> None:
        self.out.append(line)
        self.origins.append(loc)
        self.code.append(code)

    def error(self, loc: Location, message: str, code: str, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(loc, message, code, hint=hint))

    def emit_error(self, loc: Location, message: str) -> None:
        for line in error_block(f"{loc}: {message}"):
            self.emit(line, loc)

    def expand(
        self,
        lines: list[str],
        first_line: int,
        frame: _Frame,
        shift: int,
        id_prefix: str | None,
        id_suffix: str,
        code: list[bool] | None = None,
    ) -> None:
        code = code if code is not None else code_line_mask(lines)
        only_stack: list[tuple[bool, Location]] = []
        for i, line in enumerate(lines):
            loc = Location(frame.path, first_line + i, 1, frame.chain)
            if code[i]:
                if all(keep for keep, _ in only_stack):
                    self.emit(line, loc, True)
                continue
            masked = mask_code_spans(line) if "<" in line else line
            if "<Only" in masked or "</Only" in masked:
                if self._only_tag(masked, loc, only_stack):
                    continue
            if not all(keep for keep, _ in only_stack):
                continue
            if "<Theory" in masked:
                self._theory(masked, line, loc, frame)
                continue
            if not frame.names and "<" in masked:
                self.nesting = max(0, self.nesting + _nesting_change(masked))
            heading = parse_heading(line) if line.startswith("#") else None
            if heading:
                line = self._heading(heading, line, loc, shift, id_prefix, id_suffix)
            elif frame.names:
                line = self._rewrite_links(line, frame.path)
            self.emit(line, loc)
        for _, loc in only_stack:
            self.error(loc, "<Only> opened here is never closed", "unclosed-component", "add </Only>")

    def _only_tag(self, masked: str, loc: Location, only_stack: list[tuple[bool, Location]]) -> bool:
        tag = _alone(masked, "Only")
        if tag is not None and tag.closing:
            if only_stack:
                only_stack.pop()
            else:
                self.error(loc, "</Only> closes nothing", "unmatched-close")
            return True
        if tag is None or tag.self_closing:
            col = masked.find("<Only") + 1 if "<Only" in masked else masked.find("</Only") + 1
            self.error(loc.with_col(col), "<Only ...> and </Only> must each stand on a line of their own", "bad-only")
            return False
        attr = SCENARIO_ATTR_RE.match(tag.attrs)
        if not attr:
            self.error(loc, '<Only> needs exactly one attribute: scenario="name[,name...]"', "bad-attribute")
            only_stack.append((False, loc))
            return True
        wanted = _scenario_names(attr)
        unknown = [s for s in wanted if s not in SCENARIOS]
        for name in unknown:
            self.error(
                loc,
                f"unknown scenario '{name}' in <Only>",
                "unknown-scenario",
                did_you_mean(name, SCENARIOS) or f"known: {', '.join(SCENARIOS)}",
            )
        if not wanted:
            self.error(loc, '<Only scenario="..."> names no scenario', "unknown-scenario")
        only_stack.append((self.scenario in wanted, loc))
        return True

    def _theory(self, masked: str, line: str, loc: Location, frame: _Frame) -> None:
        col = masked.find("<Theory") + 1
        loc = loc.with_col(col)
        name = self._theory_name(masked, loc, frame)
        if name is None:
            return
        snippet, problems = self.library.get(name)
        self.diagnostics.extend(p for p in problems if name not in self.used)
        if snippet is None:
            if not problems:
                self.error(
                    loc,
                    f"theory snippet '{name}' not found in {self.library.display(self.library.directory)}",
                    "missing-snippet",
                    did_you_mean(name, self.library.names()),
                )
            self.emit_error(loc, f"theory snippet '{name}' could not be included")
            return
        self._include(snippet, name, line, loc, frame)

    def _theory_name(self, masked: str, loc: Location, frame: _Frame) -> str | None:
        """The snippet a <Theory> line includes, or None when the tag is bad, the include is a cycle or too deep,
        or the page's inclusions are capped (each reported, with an error block in place of the snippet)."""
        tag = _alone(masked, "Theory")
        if tag is None or not tag.self_closing:
            self.error(loc, '<Theory name="..."/> must stand alone on its line and be self-closing', "bad-theory")
            self.emit_error(loc, "bad <Theory> tag")
            return None
        m = NAME_ATTR_RE.match(tag.attrs)
        name = (m.group(1) or m.group(2) or "") if m else ""
        if not m or not SNIPPET_NAME_RE.match(name):
            self.error(
                loc, '<Theory> needs exactly one attribute: name="snippet_name" (lowercase, digits, _)', "bad-attribute"
            )
            self.emit_error(loc, "bad <Theory> tag")
            return None
        if name in frame.names:
            cycle = " -> ".join([*frame.names[frame.names.index(name) :], name])
            self.error(loc, f"include cycle: {cycle}", "include-cycle")
            self.emit_error(loc, f"include cycle: {cycle}")
            return None
        if len(frame.names) >= MAX_DEPTH:
            self.error(loc, f"snippets nested deeper than {MAX_DEPTH} levels", "include-depth")
            self.emit_error(loc, "snippets nested too deep")
            return None
        if len(self.inclusions) >= MAX_INCLUSIONS:
            if not self.capped:  # once: the rest of the page is left out the same way
                self.capped = True
                message = (
                    f"more than {MAX_INCLUSIONS} snippet inclusions on one page (the limit); the rest are left out"
                )
                self.error(loc, message, "include-limit", hint="include each snippet once, where the page needs it")
                self.emit_error(loc, message)
            return None
        return name

    def _include(self, snippet: Snippet, name: str, line: str, loc: Location, frame: _Frame) -> None:
        """Expands ``snippet`` in place of the <Theory> tag on ``line``: under the including heading, collapsed
        in a <details> box where the scenario wants one, with its edit link."""
        self.used.add(name)
        count = self.expansion_count[name] = self.expansion_count.get(name, 0) + 1
        level, section_id, section_title = self.section
        self.inclusions.append(Inclusion(name, section_id, section_title, len(frame.names)))
        top = snippet.top_heading_level
        shift = (level + 1 - top) if top else 0
        inner = _Frame(snippet.path, ((loc.path, loc.line), *frame.chain), (*frame.names, name))
        self.emit("", loc)
        collapsed = self.collapse and not frame.names and not self.nesting and not line[:1].isspace()
        box = len(self.out) if collapsed else None  # where the <details> starts
        if box is not None:
            self.emit('<details class="perfdocs-theory info">', loc)
            self.emit(f"<summary>{html.escape(snippet.title, quote=False)} explained</summary>", loc)
            self.emit("", loc)
        start = len(self.out)
        self.expand(
            snippet.lines,
            snippet.body_first_line,
            inner,
            shift,
            snippet_slug(name.replace("_", "-")),
            "" if count == 1 else f"-{count}",
            snippet.code_mask,
        )
        if box is not None and not any(text.strip() for text in self.out[start:]):
            del self.out[box:], self.origins[box:], self.code[box:]  # nothing holds for this scenario: no empty box
            box = None
        url = self.edit_url(snippet) if self.edit_url else None
        if url:
            self.emit("", loc)
            self.emit(
                f'<p class="perfdocs-edit"><a href="{html.escape(url, quote=True)}" title="Edit the shared '
                f'explanation in {html.escape(snippet.path, quote=True)}">Edit this explanation</a></p>',
                loc,
            )
        self.emit("", loc)
        if box is not None:
            self.emit("</details>", loc)
            self.emit("", loc)
        self.section = (level, section_id, section_title)

    def _heading(self, heading, line: str, loc: Location, shift: int, id_prefix: str | None, id_suffix: str) -> str:
        level = heading.level + shift
        if level > 6:
            self.diagnostics.append(
                Diagnostic(
                    loc,
                    f"heading would be level {level} after shifting under the including heading; kept at level 6",
                    "heading-too-deep",
                    level="warning",
                )
            )
            level = 6
        if id_prefix is None:
            if heading.explicit_id is None and shift == 0:
                self.section = (heading.level, heading.id, heading.text)
                return line
            anchor = heading.id
        else:
            anchor = (heading.explicit_id or f"{id_prefix}-{snippet_slug(heading.text)}") + id_suffix
        self.section = (level, anchor, heading.text)
        if heading.id_syntax == "[[]]" and id_prefix is None:
            return line  # the dialect turns [[id]] into an attribute, with validation
        return f"{'#' * level} {heading.text} {{ #{anchor} }}"

    def _rewrite_links(self, line: str, snippet_path: str) -> str:
        base = posixpath.dirname(snippet_path)
        page_dir = posixpath.dirname(self.page_path)

        def fix(target: str) -> str:
            if re.match(r"^[a-zA-Z][\w+.-]*:|^/|^#|^\{", target):
                return target
            path, sep, frag = target.partition("#")
            if not path:
                return target
            absolute = posixpath.normpath(posixpath.join(base, path))
            return posixpath.relpath(absolute, page_dir) + sep + frag

        if "](" not in line and "]:" not in line:
            return line
        masked = mask_code_spans(line)
        pieces, pos = [], 0
        for m in INLINE_LINK_RE.finditer(masked):
            pieces.append(line[pos : m.start(3)])
            pieces.append(fix(line[m.start(3) : m.end(3)]))
            pos = m.end(3)
        pieces.append(line[pos:])
        line = "".join(pieces)
        ref = REF_DEF_RE.match(line)
        if ref:
            line = ref.group(1) + ref.group(2) + fix(ref.group(3)) + line[ref.end() :]
        return line


def _nesting_change(masked: str) -> int:
    """How many components and ``<details>`` the line opens, less those it closes: a snippet gets a ``<details>``
    of its own only where nothing holds it, since the dialect renders Markdown in a ``<details>`` at the top level
    of a page."""
    found = scan_inline(masked)
    change = sum(-1 if t.closing else 1 for t in found.tags if not t.self_closing and not is_void(t.name))
    for _, tag in found.html:
        m = DETAILS_TAG_RE.match(tag)
        if m and not tag.rstrip().endswith("/>"):
            change += -1 if m.group(1) else 1
    return change


@dataclass(frozen=True)
class OnlyPart:
    """An outermost ``<Only>`` part of a snippet: the scenarios it is shown on and its lines, between its tags."""

    scenarios: frozenset[str]
    first_line: int  # the file line of its first line
    text: str


def only_parts(snippet: Snippet) -> list[OnlyPart]:
    """The snippet's outermost ``<Only>`` parts, as the expansion reads the tags (a tag it reports as bad opens
    none; one never closed runs to the end)."""
    parts: list[OnlyPart] = []
    depth, start, wanted = 0, 0, frozenset[str]()
    lines = snippet.lines
    for i, (line, code) in enumerate(zip(lines, snippet.code_mask)):
        if code or "Only" not in line:
            continue
        tag = _alone(mask_code_spans(line), "Only")
        if tag is None or tag.self_closing:
            continue
        if tag.closing:
            depth = max(depth - 1, 0)
            if depth == 0:
                parts.append(OnlyPart(wanted, snippet.body_first_line + start, "\n".join(lines[start:i])))
            continue
        attr = SCENARIO_ATTR_RE.match(tag.attrs)
        if depth == 0:
            start, wanted = i + 1, frozenset(_scenario_names(attr) if attr else ()) & frozenset(SCENARIOS)
        depth += 1
    if depth:
        parts.append(OnlyPart(wanted, snippet.body_first_line + start, "\n".join(lines[start:])))
    return parts


def _scenario_names(attr: re.Match[str]) -> list[str]:
    """The scenarios an ``<Only scenario="...">`` attribute names, as written."""
    return [s.strip() for s in (attr.group(1) or attr.group(2) or "").split(",") if s.strip()]


def _alone(masked: str, name: str) -> Tag | None:
    """The ``<name ...>`` tag that is the whole of the line (blanks aside), as the inline parser reads it."""
    text = masked.strip(" \t")
    tags = scan_inline(text).tags
    if len(tags) == 1 and tags[0].name == name and tags[0].start == 0 and tags[0].end == len(text):
        return tags[0]
    return None


def expand(
    text: str,
    page_path: str,
    library: SnippetLibrary,
    scenario: str | None = None,
    first_line: int = 1,
    scenario_line: int = 1,
    edit_url: Callable[[Snippet], str | None] | None = None,
) -> Expansion:
    """Expands every ``<Theory>`` and resolves every ``<Only>`` in a page body.

    ``page_path`` is the page's display path (relative to the repository root) and
    ``first_line`` the file line where ``text`` starts (after front matter), ``scenario_line`` the
    line of the ``scenario:`` key, for the diagnostic when it names no known scenario.
    ``edit_url`` gives the "edit this explanation" link placed after each expanded snippet.
    """
    expander = _Expander(library, page_path, scenario, edit_url)
    if scenario is not None and scenario not in SCENARIOS:
        expander.error(
            Location(page_path, scenario_line),
            f"unknown scenario '{scenario}' in front matter",
            "unknown-scenario",
            did_you_mean(scenario, SCENARIOS) or f"known: {', '.join(SCENARIOS)}",
        )
    lines = text.split("\n")
    expander.expand(lines, first_line, _Frame(page_path, (), ()), 0, None, "")
    return Expansion(
        "\n".join(expander.out),
        SourceMap(expander.origins),
        expander.diagnostics,
        expander.inclusions,
        expander.used,
        expander.code,
    )


__all__ = [
    "COLLAPSED_SCENARIOS",
    "SCENARIOS",
    "Expansion",
    "Inclusion",
    "Snippet",
    "SnippetLibrary",
    "expand",
    "OnlyPart",
    "only_parts",
    "THEORY_DIR",
]
