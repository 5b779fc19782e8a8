"""Per-build state: each method is one build event's work, logging included.

It knows no engine: mkdocs_adapter.py translates MkDocs' events and objects into these calls (files as
``SiteFile``, pages by their docs path) and puts the answers back on MkDocs' objects. State is reset in
``start`` because ``mkdocs serve`` keeps the hook module loaded across rebuilds. Paths come from the one
``Project`` the adapter made of the engine's config; the work itself is in the pure modules.
"""

from __future__ import annotations

import functools
import logging
import os
import posixpath
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from selectolax.lexbor import LexborHTMLParser

from .apiconfig import ApiConfig
from .apirefs import ApiIndex, build_index
from .assistants import (
    LLMS_TXT,
    kept_copy,
    markdown_url,
    page_markdown,
    served_paths,
    write_files,
    write_llms_txt,
)
from .budgets import calculator_pages
from .contentcache import ContentCache, Extra, Work
from .diagnostics import Diagnostic, Location, Reporter, SourceMap
from .dialect import Site
from .embeds import EmbedHosts
from .errorboxes import ErrorBoxes
from .expansions import PageExpansions, PageText
from .gated import GatedModels
from .history import GitRenames
from .html import PageHTML, read_tree
from .linkcheck import (
    MAP_FILE,
    LinkMap,
    Parsed,
    Problem,
    Report,
    check_site,
    link_targets,
    to_diagnostics,
)
from .matrix import generated_components, shown_differently
from .measured import RESULTS
from .pagecontent import CLEAN, Cleaned, PageContents
from .parallel import Ahead
from .pipeline import Rendered, page_problems, page_scenario, render_body, unshown_parts
from .project import Project
from .recipes import marker_problems
from .redirects import NETLIFY_FILE
from .sanitize import REMOVED_HINT, Finding, clean_page, construct_columns
from .search import (
    FULL_INDEX,
    INDEX,
    SearchPage,
    SectionFacts,
    entry_sections,
    section_facts,
    with_shared,
    write_index,
)
from .sitecheck import missing_nav_entries, nav_missing_pages, not_in_nav
from .siteredirects import SiteRedirects
from .text import body_offset, split_front_matter
from .theory import THEORY_DIR, Inclusion, SnippetLibrary

log = logging.getLogger("mkdocs.plugins.perfdocs")

NavSections = list[tuple[str, list[tuple[str, str]]]]  # the nav for /llms.txt: (title, [(docs path, title)])


# What a page's HTML gives the build, by ContentCache kind, besides the sanitiser's passes (pagecontent.py): the
# links and ids and the search sections of the first pass's output (read_cleaned), the sections Material's index
# makes entries of (MkDocsBuild.search_sections), and the synonym keys of each search section (search.shape_index)
READ, ENTRIES, SEARCH_KEYS = "read", "entries", "search keys"
PageRender = tuple[list[Diagnostic], Rendered, frozenset[str]]  # what BuildState.render_page returns
# what else a worker makes of a page it rendered (docs path, body, what it rendered), for the engine: the adapter's
# conversion of the page to HTML, in an incremental rebuild (mkdocs_adapter.MkDocsBuild.render_ahead)
Convert = Callable[[str, str, PageRender], Any]
_RENDERING: BuildState | None = None  # the state forked workers render pages with (see BuildState.prerender)
_CONVERT: Convert | None = None  # and what they convert the pages with, if anything
_SERVED: dict[str, str] = {}  # and where each docs path is served to assistants (assistants.served_paths)
Copy = tuple[str, str]  # a page's Markdown copy for assistants: (where it is served, the copy)
Prerendered = tuple[PageRender, Any, Copy | None]  # what a worker makes of a page (_render_chunk)


def _render_chunk(pages: list[PageText]) -> list[Prerendered]:
    """Each page rendered (BuildState.render_page), converted (_CONVERT) and, in an incremental rebuild, its
    Markdown copy for assistants made (what write_for_assistants would make of it: the engine keeps it in
    BuildState.assistant_copies)."""
    assert _RENDERING is not None
    done = []
    for page in pages:
        rendered = _RENDERING.render_page(*page)
        converted = _CONVERT(page[0], page[3], rendered) if _CONVERT is not None else None
        done.append((rendered, converted, _copy(page[0], rendered[1], _SERVED)))
    return done


def _copy(src: str, markdown: Rendered | PageMarkdown, served: dict[str, str]) -> Copy | None:
    """The page's Markdown copy for assistants (write_for_assistants), from what its Markdown became."""
    if src not in served:
        return None
    return served[src], page_markdown(markdown.text, markdown.source_map, markdown.links, src, served)


ContentRead = tuple[Cleaned, tuple[PageHTML, SectionFacts]]  # what page_content reads of a page's HTML


def read_cleaned(cleaned: str) -> tuple[PageHTML, SectionFacts]:
    """The links and ids (for the link check) and the search sections of a page's cleaned content, from one parse
    (the links first: section_facts edits the tree)."""
    tree = LexborHTMLParser(f"<body>{cleaned}</body>")
    return read_tree(tree), section_facts(tree)


def _content_chunk(pages: list[str]) -> list[ContentRead]:
    """What BuildState.page_content reads of each page's HTML: the sanitiser's pass and read_cleaned of its output."""
    read = []
    for html in pages:
        cleaned = clean_page(html)
        read.append((cleaned, read_cleaned(cleaned[0])))
    return read


@dataclass
class RenderedAhead:
    """The site's pages rendered in forked workers while MkDocs goes on with the pages one by one on this core
    (BuildState.prerender). Pages with a component generated from every page (<TechniqueMatrix/>) are not.

    An incremental rebuild of several pages (``again``) also hands each page's HTML to a worker as MkDocs makes
    it (``defer``), and MkDocs goes on with the next page: ``deferred`` gives each page's reading, which its
    content waits for (serve.py sets it before any plugin's on_env)."""

    ahead: Ahead[PageText, Prerendered] | None = None
    places: dict[str, tuple[int, str]] = field(default_factory=dict)  # docs path -> (place in ahead, its body)
    reading: Ahead[str, ContentRead] | None = None
    waiting: dict[str, tuple[int, SiteFile, str, Any]] = field(default_factory=dict)  # src -> (place, file, html...)
    converted: dict[str, Any] = field(default_factory=dict)  # docs path -> what the worker's Convert made of it
    copies: dict[str, Copy] = field(default_factory=dict)  # docs path -> its Markdown copy, as the worker made it
    kept: dict[str, tuple[str, PageRender]] = field(default_factory=dict)  # docs path -> (body, its result), given

    def start(
        self, state: BuildState, texts: list[PageText], again: bool = False, convert: Convert | None = None
    ) -> None:
        """``again``: the few pages an incremental rebuild renders (serve.py), the first by the engine while a
        worker renders the others, one a job, from the last page on (the engine takes the pages the worker has not
        started, from the first on: they meet half-way). ``convert``: what else the worker makes of each page
        (``conversion`` gives it)."""
        global _RENDERING, _CONVERT, _SERVED
        self.stop()
        pages = [text for text in texts[1 if again else 0 :] if "<TechniqueMatrix" not in text[2]]
        if again:
            pages.reverse()
        # the copies only for a rebuild's few pages: in a full build, sending every page's copy back to this
        # process costs it more than making them after the build (1,000 pages: about 1 s more, bench/build_overhead)
        served = served_paths(state.page_urls, state.dest_of) if again else {}
        _RENDERING, _CONVERT, _SERVED = state, convert, served
        try:
            self.ahead = (
                Ahead(_render_chunk, pages, chunk=1, least=1, lazy=True) if again else Ahead(_render_chunk, pages)
            )
        finally:
            _RENDERING, _CONVERT, _SERVED = None, None, {}
        self.places = {page[0]: (i, page[3]) for i, page in enumerate(pages)}
        if again and len(texts) > 1:
            self.reading = Ahead(_content_chunk, [], chunk=1, least=0, lazy=True)

    def defer(self, file: SiteFile, html: str, scenario: Any) -> bool:
        """The page's HTML handed to the reading worker; False when there is none (the caller reads it)."""
        place = self.reading.put(html) if self.reading is not None else None
        if place is not None:
            self.waiting[file.src] = (place, file, html, scenario)
        return place is not None

    def deferred(self, contents: ContentCache) -> Iterator[tuple[SiteFile, str, Any]]:
        """Each deferred page (file, HTML, scenario), in order, once what was read of it is in ``contents``: the
        worker's reading, or this process's, from the last page on, of each page the worker has not started (and
        where the worker failed)."""
        waiting, self.waiting = self.waiting, {}
        for place, _, html, _ in reversed(waiting.values()):
            read = self.reading.take(place) if self.reading is not None else None
            if read is None:  # read here now (what the cache holds is not read again), while the worker goes on
                cleaned = contents.get(CLEAN, html, functools.partial(clean_page, html))
                contents.get(READ, cleaned[0], functools.partial(read_cleaned, cleaned[0]))
            else:
                contents.put(CLEAN, html, read[0])
                contents.put(READ, read[0][0], read[1])
        for _, file, html, scenario in waiting.values():
            yield file, html, scenario

    def take(self, src: str, markdown: str) -> PageRender | None:
        """The page's result, when it was rendered from the same Markdown (``keep``, or the workers got there
        first)."""
        body, result = self.kept.pop(src, (None, None))
        if body is not None:
            return result if body == markdown else None
        place, body = self.places.pop(src, (-1, None))
        done = self.ahead.take(place) if self.ahead is not None and body == markdown else None
        if done is None:
            return None
        if done[1] is not None:
            self.converted[src] = done[1]
        if done[2] is not None:
            self.copies[src] = done[2]
        return done[0]

    def keep(self, src: str, body: str, result: PageRender) -> None:
        """``take`` gives ``result`` for the page rendered from ``body`` (the worker that rendered it converts it)."""
        self.kept[src] = (body, result)

    def conversion(self, src: str) -> Any:
        """What the worker's Convert made of the page whose result ``take`` gave; None if nothing."""
        return self.converted.pop(src, None)

    def stop(self) -> None:
        """The workers stopped: every page is converted, or the build starts again."""
        for workers in (self.ahead, self.reading):
            if workers is not None:
                workers.close()
        self.ahead, self.places, self.reading, self.waiting = None, {}, None, {}
        self.converted, self.kept, self.copies = {}, {}, {}


@dataclass(frozen=True)
class SiteFile:
    """A file of the site as the engine lists it."""

    src: str  # docs-relative path of the source
    dest: str  # site-relative path of the output
    url: str  # where it is served, relative to the site's root
    path: str | None  # the source's absolute path; None for a file a plugin generated
    page: bool  # a documentation page (Markdown)
    included: bool  # published (not excluded from the site)
    read: Callable[[], str] = field(compare=False, repr=False)  # its text, as the engine reads it
    location: str = ""  # a page's URL as the search index names it ("" for the site's home page, url "./")


@dataclass
class PageMarkdown:
    """What a page's Markdown became (served to assistants beside the page: assistants.py), and where it writes
    what the sanitiser may remove from its HTML (``markup``: locate_findings)."""

    text: str
    source_map: SourceMap
    links: list[tuple[str, Location]] = field(default_factory=list)  # every link, where the Markdown wrote it
    markup: list[tuple[Location, str]] = field(default_factory=list)  # see dialect.Converted.markup


@dataclass
class BuildState:
    project: Project | None = None
    library: SnippetLibrary | None = None
    redirects: SiteRedirects = field(default_factory=SiteRedirects)
    page_urls: dict[str, str] = field(default_factory=dict)
    page_titles: dict[str, str] = field(default_factory=dict)  # docs path -> title, as text
    page_descriptions: dict[str, str | None] = field(default_factory=dict)  # docs path -> description, as text
    # docs path -> the page file's text, read once in on_files; MkDocs gets it too (on_page_read_source), so a
    # page moved or deleted later in the build (a save under mkdocs serve) is built as it was read
    sources: dict[str, str] = field(default_factory=dict)
    inclusions: dict[str, list[Inclusion]] = field(default_factory=dict)
    snippet_users: dict[str, set[str]] = field(default_factory=dict)
    theory: PageExpansions | None = None  # each page's theory expansion, and the technique matrix's index
    dest_of: dict[str, str] = field(default_factory=dict)
    doc_files: frozenset[str] = frozenset()  # every file of the site, docs-relative (extension-less links)
    calculators: tuple[str, ...] = ()  # the pages that show the memory calculator (budgets.calculator_pages)
    api_config: ApiConfig | None = None  # the mkdocstrings plugin's settings (API links, [[autodoc]])
    api: ApiIndex | None = None  # what the site documents; built in on_files, before any page is converted
    link_map: LinkMap = field(default_factory=LinkMap)
    markdown: dict[str, PageMarkdown] = field(default_factory=dict)
    prerendered: RenderedAhead = field(default_factory=RenderedAhead)
    content_links: dict[str, PageHTML] = field(default_factory=dict)  # dest file -> links and ids of its content
    renames: Mapping[str, str] = field(default_factory=dict)  # docs path -> new path, as git sees HEAD (start)
    search_texts: dict[str, SearchPage] = field(default_factory=dict)  # page URL -> search.search_page
    reporter: Reporter = field(default_factory=lambda: Reporter(log))  # each problem logged once
    page_scenarios: dict[str, str | None] = field(default_factory=dict)  # docs path -> its scenario, as rendered
    part_checks: dict[tuple[str, str, frozenset[str | None]], list[Diagnostic]] = field(default_factory=dict)
    boxes: ErrorBoxes = field(default_factory=ErrorBoxes)  # each page's "Build error" box
    body: Callable[[str], str] = str  # a page's body, from its source, as the engine hands it over
    refused: dict[str, frozenset[str]] = field(default_factory=dict)  # docs path -> front matter keys it may not set
    assistant_copies: dict[str, tuple[tuple[str, str], str]] = field(default_factory=dict)  # assistants.write_files
    parsed_pages: Parsed = field(default_factory=dict)  # what the link check parsed of pages the theme alone made
    nav_missing: set[str] = field(default_factory=set)  # the pages nav: names that are not in the docs
    contents: ContentCache = field(default_factory=ContentCache)  # what each page's HTML gave, by its hash
    rebuilding: bool = False  # an incremental rebuild under mkdocs serve (begin_rebuild)
    checks: PageContents = field(init=False)  # each page's content through the allowlist

    def __post_init__(self) -> None:
        self.checks = PageContents(self.contents)

    # -- helpers -----------------------------------------------------------------------
    @property
    def root(self) -> Path:
        return self.project.root if self.project else Path.cwd()

    @property
    def base(self) -> str:
        return self.project.base if self.project else "/"

    def display(self, path: Path | str) -> str:
        return self.project.display(path) if self.project else Path(path).as_posix()

    def report(self, diagnostics: list[Diagnostic]) -> None:
        self.reporter.report(diagnostics)

    # -- events ------------------------------------------------------------------------
    def start(self, project: Project, api: ApiConfig | None, body: Callable[[str], str]) -> None:
        """A build starts: ``api`` is the API reference's settings, ``body`` splits a page's front matter off as
        the engine does (the body must be what page_markdown is handed, for the pages rendered ahead)."""
        self.prerendered.stop()  # a build that stopped half-way left its workers
        self.__init__()  # type: ignore[misc]
        self.project, self.api_config, self.body = project, api, body
        self.contents = self.checks.cache = ContentCache(project.root)
        # the pages git saw renamed, for the hints of what still names an old path (git is asked when one does)
        self.renames = GitRenames(project.root, "HEAD", self.display(project.docs_dir).rstrip("/") + "/")
        self.report([*project.embed_hosts.problems, *project.gated_models.problems])
        self.library = SnippetLibrary(project.theory_dir, project.root)
        self.check_snippets(self.library.names())

    def files(self, files: list[SiteFile]) -> set[str]:
        """The site's files as the engine found them; the docs paths of those the site goes without (theory
        snippets, links out of the project, pages that cannot be read), for the engine to drop."""
        assert self.project is not None and self.library is not None
        dropped = {f.src for f in files if f.src.startswith(THEORY_DIR + "/")}
        docs = self.project.docs_dir
        outside = outside_project([(f.src, f.path) for f in files if f.path and f.src not in dropped], docs, self.root)
        self.report(outside.problems(docs, self.display))
        dropped |= outside.files
        for file in [f for f in files if f.page and f.src not in dropped]:
            source, problem = read_page(file.read, self.file_display(file))
            if problem:  # MkDocs would stop with a traceback; the build goes on without the page instead
                self.report([problem])
                dropped.add(file.src)
            else:
                self.sources[file.src] = source
        files = [f for f in files if f.src not in dropped]
        pages = [f for f in files if f.page]
        texts = [self.page_text(file) for file in pages]
        self.theory = PageExpansions(self.library, self.project.edit_url)
        self.theory.scan(texts)
        self.page_urls = {f.src: f.url for f in pages}
        self.dest_of = {f.src: f.dest for f in files}
        self.doc_files = frozenset(f.src for f in files if f.included)
        self.calculators = calculator_pages({f.src: self.sources[f.src] for f in pages})
        self.api = self._api_index(pages)
        self.load_redirects(files)
        self.prerender(texts)
        return dropped

    def file_display(self, file: SiteFile) -> str:
        return self.display(file.path or file.src)

    def load_redirects(self, files: list[SiteFile]) -> None:
        """redirects.yml, checked against the site's pages and files (also again alone, when only it changed)."""
        assert self.project is not None
        path = self.project.redirects_file
        site_files = {NETLIFY_FILE, MAP_FILE, LLMS_TXT, INDEX, FULL_INDEX, *self.project.templates}
        site_files |= {f.dest for f in files} | {markdown_url(url) for url in self.page_urls.values()}
        pages = [f.src for f in files if f.page]
        hosts = self.project.redirect_hosts
        self.report(self.redirects.load(path, self.display(path), pages, site_files, hosts, self.renames))

    def _api_index(self, pages: list[SiteFile]) -> ApiIndex | None:
        """Every [[autodoc]] entry of the site, registered before any page is converted (links need them all)."""
        if self.api_config is None:
            return None
        index = build_index(self.api_config, [(f.src, self.file_display(f), self.sources[f.src]) for f in pages])
        self.report(index.problems)
        return index

    def read_again(self, file: SiteFile) -> bool:
        """The page's text read again (saved under mkdocs serve); False when it cannot be built now."""
        source, problem = read_page(file.read, self.file_display(file))
        if problem is None:
            self.sources[file.src] = source
        return problem is None

    def nav(self, in_nav: set[str] | None, pages: list[SiteFile]) -> None:
        """With an explicit nav in mkdocs.yml (``in_nav``: the pages it names), every page must be in it."""
        if in_nav is None:
            return
        assert self.project is not None
        self.report(not_in_nav(((f.src, self.file_display(f)) for f in pages), in_nav))
        # the nav's own entries, at their line of mkdocs.yml
        config_file, known = self.project.config_file, {f.src for f in pages}
        text = config_file.read_text(encoding="utf-8")
        self.report(nav_missing_pages(text, self.display(config_file), known, self.renames))
        self.nav_missing = {target for _, target in missing_nav_entries(text, known)}

    def render_page(
        self, src_uri: str, display: str, source: str, markdown: str
    ) -> tuple[list[Diagnostic], Rendered, frozenset[str]]:
        """A page's Markdown (its body, as MkDocs hands it over) through theory expansion and the dialect: the
        front matter problems, the result, and the front matter keys the page must go without."""
        assert self.library is not None
        source = source.replace("\r\n", "\n")
        # MkDocs drops front matter it cannot parse without a word, and a plugin (git-revision-date) may
        # already have filled page.meta by then: the source's own front matter is what is checked.
        front = split_front_matter(source) if source.startswith("---") else None
        scenario, problems, refused = page_scenario(
            source,
            front.data if front else {},
            front.error if front else None,
            front.error_line if front else 1,
            display,
        )
        assert self.theory is not None
        expansion = self.theory.expand(src_uri, display, source, markdown, scenario)
        rendered = render_body(
            markdown,
            display,
            self.library,
            self.root,
            scenario,
            body_offset(source, markdown),
            source,
            generated_components(markdown, self.library, self.theory.matrix, src_uri, expansion),
            site=self.site(src_uri),
            expansion=expansion,
        )
        return problems, rendered, refused

    def page_text(self, file: SiteFile) -> PageText:
        """A page as PageExpansions and the forked renderers read it: its source with "\n" line ends and its body
        as the engine hands it over."""
        source = self.sources[file.src].replace("\r\n", "\n")
        return file.src, self.file_display(file), source, self.body(source)

    def site(self, page: str) -> Site:
        """What the conversion of the page ``page`` (docs path) may know about the rest of the site."""
        project = self.project
        return Site(
            page,
            self.doc_files,
            self.api,
            notebooks=project.notebooks if project else None,
            embeds=project.embed_hosts if project else EmbedHosts(),
            gated=project.gated_models if project else GatedModels(),
            calculator=self.calculators[0] if self.calculators else None,
        )

    def prerender(self, texts: list[PageText], again: bool = False, convert: Convert | None = None) -> None:
        """Every page rendered ahead (RenderedAhead); page_markdown takes the result when MkDocs hands over the
        same Markdown, and renders the page itself when the workers are behind (``again``, ``convert``:
        RenderedAhead.start)."""
        self.prerendered.start(self, texts, again, convert)

    def page_markdown(self, markdown: str, file: SiteFile) -> tuple[str, frozenset[str]]:
        """The page's Markdown as the Markdown engine is to read it, and the front matter keys the page may not
        set (the engine drops them)."""
        src = file.src
        ahead = self.prerendered.take(src, markdown)
        display = self.file_display(file)
        if ahead is not None:
            problems, rendered, refused = ahead
        else:
            source = self.sources.get(src)
            problems, rendered, refused = self.render_page(
                src, display, file.read() if source is None else source, markdown
            )
        self.report(problems + rendered.diagnostics)
        self.page_scenarios[src] = rendered.scenario
        self.markdown[src] = PageMarkdown(rendered.text, rendered.source_map, rendered.links, rendered.markup)
        self.keep_copy(src, self.prerendered.copies.pop(src, None))
        dest = file.dest
        self.link_map.sources[dest] = display  # also for a page with errors: its broken links are located too
        for target, link in link_targets(src, dest, rendered.links, self.dest_of, self.base):
            self.link_map.add(dest, target, link)
        for name in rendered.snippets_used:
            self.snippet_users.setdefault(name, set()).add(src)
        errors = [d for d in problems + rendered.diagnostics if d.level == "error"]
        if errors:  # under mkdocs serve the author sees them on the page too (post_build); --strict fails anyway
            self.boxes.add(dest, errors)
        else:
            self.inclusions[src] = rendered.inclusions
        return rendered.text, refused

    def page_content(self, html: str, file: SiteFile, scenario: Any, deferred: bool = False) -> str:
        """The page's HTML through the allowlist ("" while a worker reads it: RenderedAhead.defer); each removal the
        Markdown side missed is reported. The links and ids of the cleaned content are kept for the link check:
        what the author wrote is checked from here, without parsing the theme around it on every page
        (`perfdocs check-links` still reads whole pages, theme included)."""
        if not deferred and self.prerendered.defer(file, html, scenario):
            return ""
        cleaned, given, findings = self.checks.clean(file.src, html)
        self.report_findings(findings, file, late=False)
        self.content_links[file.dest], facts = self.contents.get(READ, cleaned, lambda: read_cleaned(cleaned))
        expanded = self.markdown.get(file.src)  # tells which sections are theory snippets' copies
        self.search_texts[file.location] = with_shared(
            facts,
            scenario,
            expanded.text if expanded else "",
            expanded.source_map if expanded else None,
            self.inclusions.get(file.src, ()),
        )
        return given

    def keep_copy(self, src: str, copy: Copy | None) -> None:
        """The page's Markdown copy for assistants, made by a worker: write_for_assistants takes it."""
        if copy is not None:
            self.assistant_copies[src] = ((self.markdown[src].text, copy[0]), copy[1])

    def after_plugins(self, file: SiteFile, content: str) -> str | None:
        """The content of a page as the plugins' on_env left it, through the allowlist where they changed it
        (PageContents.after_plugins); what that removes, a plugin wrote. None: the page was not converted in this
        build (an incremental rebuild), its content is as it was printed."""
        return self._checked_late(self.checks.after_plugins(file.src, content), file)

    def env(self) -> None:
        """Every page is converted, none printed yet: the snippet parts no page showed are checked."""
        self.prerendered.stop()
        self.check_unshown_parts()

    def titled(self, src: str, title: str, description: str | None) -> None:
        """The page's title and description as text (redirect pages, llms.txt)."""
        self.page_titles[src], self.page_descriptions[src] = title, description

    def check_unshown_parts(self) -> None:
        """Every part of every snippet is checked once, whoever includes it (pipeline.unshown_parts); what the
        pages already reported is not reported again."""
        assert self.library is not None
        shown: dict[str, set[str | None]] = {}
        for name, users in self.snippet_users.items():
            shown[name] = {self.page_scenarios.get(src) for src in users}
        site = self.site(f"{THEORY_DIR}/.check.md")
        found = unshown_parts(self.library, self.root, site, shown, self.part_checks)
        self.report(self.reporter.unreported(found))

    def begin_rebuild(self, snippets: set[str]) -> bool:
        """An incremental rebuild starts (serve.py): its problems are reported afresh, and the snippets that
        changed are read again. Whether the technique matrix shows any of them differently now."""
        self.reporter.forget()
        self.boxes.begin_rebuild()
        self.contents.in_memory()
        self.rebuilding = True
        assert self.library is not None and self.theory is not None
        before = self.library.forget(snippets)
        self.theory.forget_snippets(snippets)
        self.check_snippets(sorted(snippets))
        return shown_differently(before, self.library, snippets)

    def check_snippets(self, names: list[str]) -> None:
        """What every snippet is checked for once, whichever pages show it (and whether any does): its recipe
        markers."""
        assert self.library is not None
        for name in names:
            snippet, _ = self.library.get(name)
            if snippet is not None:
                self.report(marker_problems(snippet.body, snippet.body_first_line, snippet.path))

    def refresh_site_index(self, pages: list[SiteFile], changed: set[str]) -> bool | None:
        """The technique matrix's index of pages, updated for the pages in ``changed`` (docs paths) as they are
        now: whether it changed. None when the pages that show the calculator changed (every budget table links
        the first): that needs the full build."""
        if calculator_pages({f.src: self.sources[f.src] for f in pages}) != self.calculators:
            return None
        assert self.theory is not None
        saved = [self.page_text(f) for f in pages if f.src in changed]
        return self.theory.refresh([f.src for f in pages], saved)

    def forget(self, file: SiteFile) -> None:
        """Drop what this build kept of the page, before it is rendered again (an incremental rebuild, serve.py)."""
        src, dest = file.src, file.dest
        for kept, key in (
            (self.markdown, src),
            (self.inclusions, src),
            (self.content_links, dest),
            (self.search_texts, file.location),
        ):
            kept.pop(key, None)
        self.link_map.forget(dest)
        self.checks.forget(src)
        self.boxes.forget(dest)
        for users in self.snippet_users.values():
            users.discard(src)

    def late_content(self, file: SiteFile, content: str) -> str | None:
        """The last look at a page's content before its template prints it (PageContents.last_look); None: it is as
        after_plugins left it."""
        return self._checked_late(self.checks.last_look(file.src, content), file)

    def _checked_late(self, checked: Cleaned | None, file: SiteFile) -> str | None:
        """The content a pass on what plugins wrote gave, what it removed reported; None where there was none."""
        if checked is None:
            return None
        self.report_findings(checked[1], file, late=True)
        return checked[0]

    def report_findings(self, findings: list[Finding], file: SiteFile, late: bool) -> None:
        """What the sanitiser removed from the page ``file``, in document order, each where the Markdown wrote it
        (locate_findings), and in its "Build error" box."""
        if not findings:
            return
        markdown = self.markdown.get(file.src)
        located = locate_findings(findings, markdown, self.file_display(file))
        if late:  # the Markdown side never saw what a plugin wrote
            hint = "written by a plugin after the sanitiser; removed from the page"
            located = [replace(d, hint=hint) for d in located]
            self.report(located)
        else:  # what the Markdown side already reported at that line, in its own words, is not reported again
            self.report(self.reporter.unreported(located, any_message=True))
        self.boxes.add(file.dest, located, new_places=not late)

    def post_page(self, output: str, dest: str) -> None:
        """The page as the theme printed it: post_build puts its "Build error" box in a copy of it."""
        self.boxes.printed(dest, output)

    def post_build(self, site: Path, nav: NavSections) -> None:
        """The site is written to ``site``: redirect pages, the pages' Markdown and /llms.txt (from ``nav``), the
        link check, the "Build error" boxes and the search index."""
        assert self.project is not None
        for src, copy in self.contents.made().items():  # the copies copy_jobs handed to the printing's worker
            self.keep_copy(src, copy)
        self.contents.stop_ahead()  # every page is printed
        # its size is measured while the rest goes on; each section's synonym keys are kept by its title and text
        size = write_index(site, self.search_texts, functools.partial(self.contents.get, SEARCH_KEYS))
        path = self.display(self.project.redirects_file)
        urls, titles = self.page_urls.__getitem__, lambda page: self.page_titles.get(page, str(page))
        files, problems = self.redirects.write(site, path, urls, titles, self.dest_of, self.content_links, self.base)
        self.report(problems)
        write_for_assistants(self, site, nav, set(self.dest_of.values()) | set(files))
        log.debug("perfdocs: wrote %d redirect files", len(files))
        map_file = site / MAP_FILE
        map_file.parent.mkdir(parents=True, exist_ok=True)
        map_file.write_text(self.link_map.to_json(), encoding="utf-8")
        report = site_links(site, self.base, self.content_links, self.parsed_pages, self.nav_missing)
        if not self.redirects.complete:  # a link to an old URL cannot be checked without its redirect
            report = replace(report, problems=[p for p in report.problems if p.status != "missing-file"])
            log.info("perfdocs: redirects.yml has errors; links to missing files are checked once it is fixed")
        # each page with problems gets its "Build error" box (errorboxes.py): its own errors, and what the link
        # check found in it
        by_page: dict[str, list[Diagnostic]] = {}
        label = self.project.site_label(site)
        self.report(to_diagnostics(report, site, self.link_map, label, self.base, self.renames, by_page))
        self.boxes.write(site, {page: found for page, found in by_page.items() if page in self.content_links})
        log.info("perfdocs: checked %d links to %d targets in %d pages", report.links, report.targets, report.pages)
        self.contents.save()
        if size:
            log.info("perfdocs: search index: %s", size())

    def watch_paths(self) -> list[str]:
        """What mkdocs serve watches besides docs/ and mkdocs.yml: redirects.yml and the benchmark results pages
        show with <Measured/> (bench/results/), where the project has them (a path that does not exist stops the
        watcher, and the server with it)."""
        if self.project is None:
            return []
        paths = [self.project.redirects_file, self.project.root / RESULTS]
        return [os.fspath(path) for path in paths if path.exists()]


def write_for_assistants(state: BuildState, site: Path, nav: NavSections, taken: set[str]) -> None:
    """Each page's Markdown beside its HTML, and /llms.txt from the nav (assistants.py)."""
    project = state.project
    assert project is not None
    pages = {src: (m.text, m.source_map, m.links) for src, m in state.markdown.items()}
    shown = state.display(project.config_file)
    copies = state.assistant_copies
    written, problems = write_files(site, pages, state.page_urls, state.dest_of, taken, shown, copies)
    state.report(problems)
    about = (project.site_name, project.site_description, project.site_url)
    write_llms_txt(site, about, nav, written, state.page_titles, state.page_descriptions)


def copy_jobs(state: BuildState) -> list[Extra]:
    """In an incremental rebuild, the Markdown copies for assistants still to make (of the pages MkDocs rendered
    itself), for the worker that works ahead of the printing (post_build takes them). In a full build, sending
    every page's copy back to this process costs more than making them here (RenderedAhead.start)."""
    if not state.rebuilding:
        return []
    served = served_paths(state.page_urls, state.dest_of)
    jobs: list[Extra] = []
    for src, markdown in state.markdown.items():
        if src in served and kept_copy(state.assistant_copies, src, markdown.text, served[src]) is None:
            jobs.append((src, functools.partial(_copy, src, markdown, served)))
    return jobs


def printing_work(pages: list[tuple[SiteFile, str, bool]]) -> list[Work]:
    """What printing each page reads of its content (ContentCache.make_ahead): the sections Material's index
    makes entries of, for each page search indexes (``pages`` gives file, content as after_plugins left it,
    indexed)."""
    return [(ENTRIES, content, entry_sections) for _, content, indexed in pages if indexed]


def site_links(site: Path, base: str, content: Mapping[str, PageHTML], parsed: Parsed, missing: set[str]) -> Report:
    """The link check of the built site; ``content``: what each page's content holds, as the build parsed it.
    The theme's menu on the pages it makes alone (404.html) links each nav entry: one that names no page
    (``missing``) is already a nav-missing-page error at its line of mkdocs.yml, not another broken link."""
    report = check_site(site, base, known=content, cache=parsed)
    return replace(report, problems=[p for p in report.problems if not nav_menu_link(p, content, missing, base)])


def nav_menu_link(problem: Problem, content: Mapping[str, PageHTML], missing: set[str], base: str) -> bool:
    """Whether ``problem`` is the link of a theme page (one not in ``content``) to a nav entry that names no page
    (``missing``): the theme's menu on 404.html links every entry."""
    if problem.status != "missing-file" or problem.page in content or not missing:
        return False
    path = unquote(urlsplit(problem.href).path)
    if path.startswith(base):
        path = path[len(base) :]
    else:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(problem.page), path))
    return path in missing


def read_page(read: Callable[[], str], display: str) -> tuple[str, Diagnostic | None]:
    """A page's text, read once (BuildState.sources) by ``read``, or why it cannot be built."""
    try:
        source = read()
    except UnicodeDecodeError as exc:
        return "", Diagnostic(
            Location(display, 1),
            f"page is not UTF-8 text ({exc.reason} at byte {exc.start})",
            "bad-encoding",
            hint="save the file as UTF-8",
        )
    except OSError as exc:  # renamed or deleted since MkDocs listed the files (a save under mkdocs serve)
        return "", Diagnostic(
            Location(display, 1),
            f"page could not be read ({exc.strerror or exc}): it was moved or deleted while the site was built",
            "unreadable-page",
            level="warning",
            hint="the next build picks up the change",
        )
    problems = page_problems(source, display)
    return source, problems[0] if problems else None


@dataclass
class Outside:
    links: dict[str, str]  # docs-relative symlink -> where it leads (the first link on each file's path)
    files: set[str]  # docs-relative paths of the files behind them

    def problems(self, docs_dir: Path, display: Callable[[Path], str]) -> list[Diagnostic]:
        """Each link out of the project, at the link."""
        return [
            Diagnostic(
                Location(display(docs_dir / link), 1),
                f"links to {target}, outside the project: it is not published",
                "path-outside-root",
                hint="copy the file into the project instead of linking to it",
            )
            for link, target in self.links.items()
        ]


def outside_project(files: list[tuple[str, str]], docs_dir: Path, root: Path) -> Outside:
    """The files of the site (docs-relative path, absolute path) that are symlinks, or lie under symlinked
    folders, leading out of the project: MkDocs follows both and would publish /etc/hostname as a page."""
    project = root.resolve()
    found = Outside({}, set())
    for rel, path in files:
        if not Path(path).is_relative_to(docs_dir) or Path(path).resolve().is_relative_to(project):
            continue  # a theme's file, or one inside the project
        found.files.add(rel)
        parts = Path(rel).parts
        heads = (Path(*parts[: i + 1]) for i in range(len(parts)))
        link = next((head for head in heads if (docs_dir / head).is_symlink()), Path(rel))
        found.links.setdefault(link.as_posix(), os.path.realpath(docs_dir / link))
    return found


def locate_findings(findings: list[Finding], markdown: PageMarkdown | None, page_path: str) -> list[Diagnostic]:
    """Each sanitiser finding at the place in the Markdown that wrote it.

    HTML carries no line numbers. The dialect recorded, in page order, where the page writes what Python-Markdown
    makes HTML attributes or raw HTML of (``markdown.markup``: raw HTML, link destinations, attribute lists), each
    piece at its place in the page's files (snippets included). A finding's construct is looked for in those
    pieces: for a URL its scheme (``javascript:``), then the attribute name (``onclick``), the reserved name
    (``md-dialog``) or the tag (``<iframe``). Findings come in document order, so each search starts at the piece
    of the previous one, and each place explains one finding at most. A construct in no piece (what a plugin
    wrote from nothing the page shows) is reported at the page's first line.
    """
    pieces = [(where, text.lower()) for where, text in markdown.markup] if markdown else []
    used: set[Location] = set()
    cursor = 0
    diagnostics = []
    for finding in findings:
        found = _search(pieces, finding, cursor, used)
        if found is None:
            location = Location(page_path, 1)
        else:
            cursor, location = found
            used.add(location)
        diagnostics.append(Diagnostic(location, finding.message, finding.code, hint=REMOVED_HINT))
    return diagnostics


def _search(
    pieces: list[tuple[Location, str]], finding: Finding, start: int, used: set[Location]
) -> tuple[int, Location] | None:
    for needle in finding.needles():
        for index in [*range(start, len(pieces)), *range(start)]:
            where, text = pieces[index]
            for col in construct_columns(text, needle):
                if (at := where.with_col(where.col + col)) not in used:
                    return index, at
    return None
