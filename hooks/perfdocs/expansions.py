"""Each page's theory expansion and the technique matrix's index of pages, for one build.

A page is expanded once for its text and the snippets it shows: the matrix's scan (which snippets each scenario
page includes), the page's ``<TestedWith/>`` badge and its rendering share that expansion, and the build's forked
renderers inherit what the scan made. Under ``mkdocs serve`` an expansion that shows a changed snippet is dropped
(``forget_snippets``), and the matrix's index is updated for the pages saved (``refresh``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .pipeline import expand_body
from .text import body_offset, split_front_matter
from .theory import Expansion, Inclusion, Snippet, SnippetLibrary

# (docs path, display path, source with "\n" line ends, its body as MkDocs hands it over)
PageText = tuple[str, str, str, str]


def page_text(page: str, display: str, source: str) -> PageText:
    """A page file's text as PageExpansions reads it without MkDocs (``perfdocs lint``): its body is what follows
    its front matter."""
    source = source.replace("\r\n", "\n")
    return page, display, source, split_front_matter(source).body


@dataclass
class PageExpansions:
    library: SnippetLibrary
    edit_url: Callable[[Snippet], str | None] | None = None  # a snippet's "Edit this explanation" link
    # docs path -> (scenario page, the snippets it includes) for <TechniqueMatrix/>; empty when no page shows it
    matrix: dict[str, tuple[str, list[Inclusion]]] = field(default_factory=dict)
    # docs path -> ((source, body, scenario), their expansion)
    kept: dict[str, tuple[tuple[str, str, str | None], Expansion]] = field(default_factory=dict)

    def expand(self, page: str, display: str, source: str, markdown: str, scenario: str | None) -> Expansion:
        """The expansion of the page ``page`` (docs path), made once for the same source, body and scenario."""
        key = (source, markdown, scenario)
        kept = self.kept.get(page)
        if kept is not None and kept[0] == key:
            return kept[1]
        first_line = body_offset(source, markdown)
        expansion = expand_body(markdown, display, self.library, scenario, first_line, source, self.edit_url)
        self.kept[page] = (key, expansion)
        return expansion

    def scan(self, pages: list[PageText]) -> None:
        """The matrix's index of the whole site: nothing when no page shows the matrix."""
        shown = any("<TechniqueMatrix" in source for _, _, source, _ in pages)
        self.matrix = self._scenario_pages(pages) if shown else {}

    def refresh(self, order: list[str], changed: list[PageText]) -> bool:
        """The matrix's index updated for the pages ``changed`` (as they are now), the site's pages being ``order``
        (docs paths, in the nav's order): whether it changed."""
        if not self.matrix:  # no page shows the matrix
            return False
        saved = {page[0] for page in changed}
        index = {src: entry for src, entry in self.matrix.items() if src not in saved} | self._scenario_pages(changed)
        index = {page: index[page] for page in order if page in index}
        if index == self.matrix:
            return False
        self.matrix = index
        return True

    def forget_snippets(self, names: set[str]) -> None:
        """Drop the expansions that show any of the snippets ``names`` (changed under mkdocs serve)."""
        self.kept = {page: kept for page, kept in self.kept.items() if not kept[1].snippets_used & names}

    def _scenario_pages(self, pages: list[PageText]) -> dict[str, tuple[str, list[Inclusion]]]:
        found = {}
        for page, display, source, markdown in pages:
            if "<Theory" not in source:
                continue
            scenario = split_front_matter(source).data.get("scenario")
            if isinstance(scenario, str) and scenario != "overview":
                found[page] = (scenario, self.expand(page, display, source, markdown, scenario).inclusions)
        return found
