"""One page through the whole transform: theory expansion, then the dialect conversion."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from .diagnostics import Diagnostic, Location, SourceMap, sort_key
from .dialect import Site, convert
from .metadata import page_front_matter_problems
from .recipes import marker_problems
from .scenariocheck import wrong_scenario_problems
from .text import front_matter_key_line, split_front_matter
from .theory import Expansion, Inclusion, Snippet, SnippetLibrary, expand, only_parts


@dataclass
class Rendered:
    text: str
    source_map: SourceMap
    diagnostics: list[Diagnostic]
    inclusions: list[Inclusion]
    snippets_used: set[str]
    links: list[tuple[str, Location]] = field(default_factory=list)  # every link, where the Markdown wrote it
    ids: list[tuple[str, Location]] = field(default_factory=list)  # ids the page gives explicitly
    scenario: str | None = None  # the page's scenario, which picked the <Only> parts it shows
    markup: list[tuple[Location, str]] = field(default_factory=list)  # see Converted.markup


def expand_body(
    body: str,
    page_path: str,
    library: SnippetLibrary,
    scenario: str | None,
    first_line: int = 1,
    source: str = "",
    edit_url: Callable[[Snippet], str | None] | None = None,
) -> Expansion:
    """The theory expansion render_body converts (the arguments are render_body's)."""
    return expand(body, page_path, library, scenario, first_line, front_matter_key_line(source, "scenario"), edit_url)


def render_body(
    body: str,
    page_path: str,
    library: SnippetLibrary,
    root: Path,
    scenario: str | None,
    first_line: int = 1,
    source: str = "",
    generated: dict[str, list[str]] | None = None,
    edit_url: Callable[[Snippet], str | None] | None = None,
    site: Site | None = None,
    expansion: Expansion | None = None,
) -> Rendered:
    """``body`` is the page without front matter; ``first_line`` its first line in ``source``; ``site`` what
    else is in the docs (extension-less links resolve against it); ``expansion`` the theory expansion of ``body``
    with these arguments, when the caller has it already (expand_body)."""
    if expansion is None:
        expansion = expand_body(body, page_path, library, scenario, first_line, source, edit_url)
    converted = convert(expansion.text, expansion.source_map, root, generated, site)
    duplicates = duplicate_ids(converted.ids)
    markers = marker_problems(body, first_line, page_path)  # a snippet's are checked once (BuildState.check_snippets)
    wrong = wrong_scenario_problems(expansion, scenario)
    diagnostics = sorted(
        set(expansion.diagnostics + converted.diagnostics + duplicates + markers + wrong), key=sort_key
    )
    return Rendered(
        converted.text,
        converted.source_map,
        diagnostics,
        expansion.inclusions,
        expansion.snippets_used,
        converted.links,
        converted.ids,
        scenario,
        converted.markup,
    )


def unshown_part_problems(
    snippet: Snippet, library: SnippetLibrary, root: Path, site: Site, shown: Collection[str | None]
) -> list[Diagnostic]:
    """The problems of the parts of ``snippet`` that no page shows (``shown``: the scenarios of the pages that
    include it): each ``<Only>`` part none of those scenarios shows, rendered alone at its lines, and the whole
    snippet as a page with no scenario when no page includes it. Only what lies in the snippet itself is kept (a
    nested snippet is checked alone)."""
    parts = only_parts(snippet) if "<Only" in snippet.body else []
    pieces = [(part.text, part.first_line) for part in parts if not part.scenarios & set(shown)]
    if not shown:
        pieces.insert(0, (snippet.body, snippet.body_first_line))
    problems: dict[Diagnostic, None] = {}
    for text, first_line in pieces:
        rendered = render_body(text, snippet.path, library, root, None, first_line, site=site)
        for d in rendered.diagnostics:
            if d.location.path == snippet.path:
                where = Location(d.location.path, d.location.line, d.location.col)
                problems[replace(d, location=where)] = None
    return list(problems)


def unshown_parts(
    library: SnippetLibrary,
    root: Path,
    site: Site,
    shown: Mapping[str, Collection[str | None]],
    cache: dict[tuple[str, str, frozenset[str | None]], list[Diagnostic]] | None = None,
) -> list[Diagnostic]:
    """What unshown_part_problems finds in every snippet of ``library`` (``shown``: snippet name -> the scenarios
    of the pages that include it; a snippet not there is included by no page). ``cache`` keeps each snippet's
    result for as long as its text and those scenarios stay the same (a save under mkdocs serve)."""
    problems: list[Diagnostic] = []
    for name in library.names():
        snippet, _ = library.get(name)
        if snippet is None:
            continue
        key = (name, snippet.body, frozenset(shown.get(name, ())))
        found = cache.get(key) if cache is not None else None
        if found is None:
            found = unshown_part_problems(snippet, library, root, site, key[2])
            if cache is not None:
                cache[key] = found
        problems += found
    return problems


MAX_PAGE_BYTES = 2_000_000


def duplicate_ids(ids: list[tuple[str, Location]]) -> list[Diagnostic]:
    """Explicit ids ({ #x } headings, id="x" in HTML) given twice on one page; MkDocs keeps both."""
    seen: dict[str, Location] = {}
    problems = []
    for anchor, here in ids:
        if anchor not in seen:
            seen[anchor] = here
            continue
        first = seen[anchor]
        problems.append(
            Diagnostic(
                here,
                f"duplicate id '{anchor}' on this page (first at {first.path}:{first.line})",
                "duplicate-id",
                hint="give one of them another id",
            )
        )
    return problems


def page_problems(source: str, page_path: str) -> list[Diagnostic]:
    """Problems with a page file as a whole, found before any conversion."""
    if len(source.encode("utf-8")) > MAX_PAGE_BYTES:
        return [
            Diagnostic(
                Location(page_path, 1),
                f"page is {len(source.encode('utf-8')) / 1e6:.1f} MB; pages are "
                f"limited to {MAX_PAGE_BYTES / 1e6:.0f} MB",
                "page-too-large",
                hint="split it into several pages",
            )
        ]
    if not split_front_matter(source).body.strip():
        return [Diagnostic(Location(page_path, 1), "page has no content", "empty-page")]
    return []


def render_source(
    source: str,
    page_path: str,
    library: SnippetLibrary,
    root: Path,
    generated: dict[str, list[str]] | Callable[[Expansion | None], dict[str, list[str]]] | None = None,
    site: Site | None = None,
    expand: Callable[[str, str | None], Expansion] | None = None,
) -> Rendered:
    """A whole page file (front matter included), as the CLI and tests see it; ``expand``: the expansion of
    (body, scenario), when the caller keeps them (the CLI's expansions.PageExpansions); ``generated``: the
    generated components' lines, or what makes them from the page's expansion (matrix.generated_components)."""
    source = source.replace("\r\n", "\n")
    whole = page_problems(source, page_path)
    if whole:
        return Rendered("", SourceMap(), whole, [], set())
    front = split_front_matter(source)
    scenario, problems, _ = page_scenario(source, front.data, front.error, front.error_line, page_path)
    expansion = expand(front.body, scenario) if expand is not None else None
    if callable(generated):
        generated = generated(expansion)
    rendered = render_body(
        front.body,
        page_path,
        library,
        root,
        scenario,
        front.body_first_line,
        source,
        generated,
        site=site,
        expansion=expansion,
    )
    rendered.diagnostics[:0] = problems
    return rendered


def page_scenario(
    source: str, data: dict, error: str | None, error_line: int, page_path: str
) -> tuple[str | None, list[Diagnostic], frozenset[str]]:
    """The page's ``scenario`` front matter value, the problems with its front matter (``data``: the front
    matter of ``source`` as parsed, never a dict a plugin filled), and the keys the page must go without."""
    problems: list[Diagnostic] = []
    if error:
        problems.append(Diagnostic(Location(page_path, error_line), error, "bad-front-matter"))
    found, refused = page_front_matter_problems(data, source, page_path)
    scenario = data.get("scenario")
    return (scenario if isinstance(scenario, str) else None), problems + found, refused
