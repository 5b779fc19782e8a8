"""One page through the whole transform: theory expansion, then the dialect conversion."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .dialect import convert
from .diagnostics import Diagnostic, Location, SourceMap
from .text import front_matter_key_line, split_front_matter
from .theory import Inclusion, SnippetLibrary, expand


@dataclass
class Rendered:
    text: str
    source_map: SourceMap
    diagnostics: list[Diagnostic]
    inclusions: list[Inclusion]
    snippets_used: set[str]


def sort_key(d: Diagnostic) -> tuple[str, int, int, str]:
    return (d.location.path, d.location.line, d.location.col, d.message)


def render_body(body: str, page_path: str, library: SnippetLibrary, root: Path,
                scenario: str | None, first_line: int = 1, source: str = "",
                generated: dict[str, list[str]] | None = None) -> Rendered:
    """``body`` is the page without front matter; ``first_line`` its first line in ``source``."""
    expansion = expand(body, page_path, library, scenario, first_line, front_matter_key_line(source, "scenario"))
    converted = convert(expansion.text, expansion.source_map, root, generated)
    diagnostics = sorted(set(expansion.diagnostics + converted.diagnostics), key=sort_key)
    return Rendered(converted.text, converted.source_map, diagnostics, expansion.inclusions,
                    expansion.snippets_used)


def render_source(source: str, page_path: str, library: SnippetLibrary, root: Path,
                  generated: dict[str, list[str]] | None = None) -> Rendered:
    """A whole page file (front matter included), as the CLI and tests see it."""
    front = split_front_matter(source.replace("\r\n", "\n"))
    scenario, problems = page_scenario(source, front.data, front.error, front.error_line, page_path)
    rendered = render_body(front.body, page_path, library, root, scenario, front.body_first_line, source, generated)
    rendered.diagnostics[:0] = problems
    return rendered


def page_scenario(source: str, meta: dict, error: str | None, error_line: int,
                  page_path: str) -> tuple[str | None, list[Diagnostic]]:
    """The page's ``scenario`` front matter value, and the problems with its front matter."""
    problems: list[Diagnostic] = []
    if error:
        problems.append(Diagnostic(Location(page_path, error_line), error, "bad-front-matter"))
    scenario = meta.get("scenario")
    if scenario is not None and not isinstance(scenario, str):
        problems.append(Diagnostic(Location(page_path, front_matter_key_line(source, "scenario")),
                                   f"front matter 'scenario' must be a string, got {type(scenario).__name__}",
                                   "bad-front-matter"))
        scenario = None
    return scenario, problems
