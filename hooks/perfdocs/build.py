"""Per-build state behind the MkDocs hooks: each method is one event's work, logging included.

The hook module only forwards events here. State is reset in ``start`` (``on_config``) because
``mkdocs serve`` keeps the hook module loaded across rebuilds. Paths come from the one
``Project`` built from the config MkDocs passes in; the work itself is in the pure modules.
"""

from __future__ import annotations

import logging
import os
import posixpath
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from html import escape, unescape
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from mkdocs.utils.meta import get_data
from selectolax.lexbor import LexborHTMLParser

from .apiconfig import ApiConfig, api_config
from .apirefs import ApiIndex, build_index
from .assistants import LLMS_TXT, markdown_url, write_files, write_llms_txt
from .budgets import calculator_pages
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
    check_site,
    link_targets,
    to_diagnostics,
)
from .matrix import generated_components
from .measured import RESULTS
from .parallel import fork_map
from .pipeline import Rendered, page_problems, page_scenario, render_body, unshown_parts
from .project import Project
from .recipes import marker_problems
from .redirects import NETLIFY_FILE
from .sanitize import Finding, clean_page
from .search import FULL_INDEX, INDEX, SearchPage, search_page, write_index
from .sitecheck import missing_nav_entries, nav_missing_pages, not_in_nav
from .siteredirects import SiteRedirects
from .text import body_offset, split_front_matter
from .theory import THEORY_DIR, Inclusion, SnippetLibrary

log = logging.getLogger("mkdocs.plugins.perfdocs")

REQUIRED_EXTENSIONS = ("admonition", "attr_list", "md_in_html", "toc", "pymdownx.superfences", "pymdownx.tabbed")


_RENDERING: BuildState | None = None  # the state forked workers render pages with (see BuildState.prerender)


def _render_chunk(pages: list[tuple[str, str, str, str]]) -> list[tuple[list[Diagnostic], Rendered, frozenset[str]]]:
    assert _RENDERING is not None
    return [_RENDERING.render_page(*page) for page in pages]


@dataclass
class PageMarkdown:
    """What a page's Markdown became, kept to locate what the sanitiser removes from its HTML (and served to
    assistants beside the page: assistants.py)."""

    text: str
    source_map: SourceMap
    reported: set[tuple[str, int, str]]  # (path, line, code) of the diagnostics already reported
    links: list[tuple[str, Location]] = field(default_factory=list)  # every link, where the Markdown wrote it


@dataclass
class BuildState:
    project: Project | None = None
    library: SnippetLibrary | None = None
    redirects: SiteRedirects = field(default_factory=SiteRedirects)
    page_urls: dict[str, str] = field(default_factory=dict)
    page_titles: dict[str, str] = field(default_factory=dict)  # docs path -> title, as text
    page_descriptions: dict[str, str | None] = field(default_factory=dict)  # docs path -> description, as text
    cleaned: dict[str, str] = field(default_factory=dict)  # docs path -> content as the sanitiser left it
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
    prerendered: dict[str, tuple[str, tuple[list[Diagnostic], Rendered, frozenset[str]]]] = field(default_factory=dict)
    content_links: dict[str, PageHTML] = field(default_factory=dict)  # dest file -> links and ids of its content
    renames: Mapping[str, str] = field(default_factory=dict)  # docs path -> new path, as git sees HEAD (start)
    search_texts: dict[str, SearchPage] = field(default_factory=dict)  # page URL -> search.search_page
    reporter: Reporter = field(default_factory=lambda: Reporter(log))  # each problem logged once
    page_scenarios: dict[str, str | None] = field(default_factory=dict)  # docs path -> its scenario, as rendered
    part_checks: dict[tuple[str, str, frozenset[str | None]], list[Diagnostic]] = field(default_factory=dict)
    boxes: ErrorBoxes = field(default_factory=ErrorBoxes)  # each page's "Build error" box
    site_nav: Any = None  # MkDocs' nav, for /llms.txt
    themed: set[str] = field(default_factory=set)  # docs paths whose title and description env() escaped
    nav_titles: dict[str, str | None] = field(default_factory=dict)  # docs path -> the nav's title of it, as set
    assistant_copies: dict[str, tuple[tuple[str, str], str]] = field(default_factory=dict)  # assistants.write_files
    parsed_pages: Parsed = field(default_factory=dict)  # what the link check parsed of pages the theme alone made
    nav_missing: set[str] = field(default_factory=set)  # the pages nav: names that are not in the docs

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
    def start(self, config: Any) -> None:
        self.__init__()  # type: ignore[misc]
        self.project = project = Project.from_config(config)
        # the pages git saw renamed, for the hints of what still names an old path (git is asked when one does)
        self.renames = GitRenames(project.root, "HEAD", self.display(project.docs_dir).rstrip("/") + "/")
        self.report([*project.embed_hosts.problems, *project.gated_models.problems])
        self.library = SnippetLibrary(project.theory_dir, project.root)
        self.check_snippets(self.library.names())
        quiet_link_validation(config)
        self.api_config = api_config(config, self.display(config.config_file_path or "mkdocs.yml"))
        without_repository(config)
        require_extensions(config, self.display(config.config_file_path))

    def files(self, files: Any) -> Any:
        for file in [f for f in files if f.src_uri.startswith(THEORY_DIR + "/")]:
            files.remove(file)
        assert self.project is not None
        docs = self.project.docs_dir
        outside = outside_project([(f.src_uri, f.abs_src_path) for f in files if f.abs_src_path], docs, self.root)
        self.report(outside.problems(docs, self.display))
        for file in [f for f in files if f.src_uri in outside.files]:
            files.remove(file)
        for file in list(files.documentation_pages()):
            source, problem = read_page(file, self.display(file.abs_src_path))
            if problem:  # MkDocs would stop with a traceback; the build goes on without the page instead
                self.report([problem])
                files.remove(file)
            else:
                self.sources[file.src_uri] = source
        assert self.library is not None
        texts = [self.page_text(file) for file in files.documentation_pages()]
        self.theory = PageExpansions(self.library, self.project.edit_url if self.project else None)
        self.theory.scan(texts)
        self.page_urls = {f.src_uri: f.url for f in files.documentation_pages()}
        self.dest_of = {f.src_uri: f.dest_uri for f in files}
        self.doc_files = frozenset(f.src_uri for f in files if f.inclusion.is_included())
        self.calculators = calculator_pages({f.src_uri: self.sources[f.src_uri] for f in files.documentation_pages()})
        self.api = self._api_index(files)
        self.load_redirects(files)
        self.prerender(texts)
        return files

    def load_redirects(self, files: Any) -> None:
        """redirects.yml, checked against the site's pages and files (also again alone, when only it changed)."""
        assert self.project is not None
        path = self.project.redirects_file
        site_files = {NETLIFY_FILE, MAP_FILE, LLMS_TXT, INDEX, FULL_INDEX, *self.project.templates}
        site_files |= {f.dest_uri for f in files} | {markdown_url(url) for url in self.page_urls.values()}
        pages = [f.src_uri for f in files.documentation_pages()]
        hosts = self.project.redirect_hosts
        self.report(self.redirects.load(path, self.display(path), pages, site_files, hosts, self.renames))

    def _api_index(self, files: Any) -> ApiIndex | None:
        """Every [[autodoc]] entry of the site, registered before any page is converted (links need them all)."""
        if self.api_config is None:
            return None
        pages = [
            (f.src_uri, self.display(f.abs_src_path), self.sources[f.src_uri]) for f in files.documentation_pages()
        ]
        index = build_index(self.api_config, pages)
        self.report(index.problems)
        return index

    def read_again(self, file: Any) -> bool:
        """The page's text read again (saved under mkdocs serve); False when it cannot be built now."""
        source, problem = read_page(file, self.display(file.abs_src_path))
        if problem is None:
            self.sources[file.src_uri] = source
        return problem is None

    def nav(self, nav: Any, config: Any, files: Any) -> None:
        """With an explicit nav in mkdocs.yml, every page must be in it."""
        self.site_nav = nav
        if not config.nav:
            return
        in_nav = {page.file.src_uri for page in nav.pages}
        pages = ((f.src_uri, self.display(f.abs_src_path)) for f in files.documentation_pages())
        self.report(not_in_nav(pages, in_nav))
        if config.config_file_path:  # the nav's own entries, at their line of mkdocs.yml
            config_file = Path(config.config_file_path)
            known = {f.src_uri for f in files.documentation_pages()}
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

    def page_text(self, file: Any) -> PageText:
        """A page as PageExpansions and the forked renderers read it: its source with "\n" line ends and its body
        as MkDocs hands it over."""
        source = self.sources[file.src_uri].replace("\r\n", "\n")
        return file.src_uri, self.display(file.abs_src_path), source, get_data(source)[0]

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

    def prerender(self, texts: list[PageText]) -> None:
        """Every page rendered ahead, in forked workers (MkDocs renders pages one by one on one core).

        page_markdown uses the result when MkDocs hands over the same Markdown; pages with a component
        generated from every page (<TechniqueMatrix/>) are left to page_markdown.
        """
        global _RENDERING
        pages = [text for text in texts if "<TechniqueMatrix" not in text[2]]
        _RENDERING = self
        try:
            done = fork_map(_render_chunk, pages)
        finally:
            _RENDERING = None
        self.prerendered = {page[0]: (page[3], result) for page, result in zip(pages, done)}

    def page_markdown(self, markdown: str, page: Any) -> str:
        ahead = self.prerendered.pop(page.file.src_uri, None)
        display = self.display(page.file.abs_src_path)
        if ahead is not None and ahead[0] == markdown:
            problems, rendered, refused = ahead[1]
        else:
            source = self.sources.get(page.file.src_uri)
            problems, rendered, refused = self.render_page(
                page.file.src_uri, display, page.file.content_string if source is None else source, markdown
            )
        self.report(problems + rendered.diagnostics)
        # the calculator's script and styles load on the pages that show it (overrides/main.html), not on every page
        page.perfdocs_calculator = page.file.src_uri in self.calculators
        for key in refused:  # what the page may not say has no effect either
            page.meta.pop(key, None)
        self.page_scenarios[page.file.src_uri] = rendered.scenario
        self.markdown[page.file.src_uri] = PageMarkdown(
            rendered.text,
            rendered.source_map,
            {(d.location.path, d.location.line, d.code) for d in problems + rendered.diagnostics},
            rendered.links,
        )
        dest = page.file.dest_uri
        self.link_map.sources[dest] = display  # also for a page with errors: its broken links are located too
        for target, link in link_targets(page.file.src_uri, dest, rendered.links, self.dest_of, self.base):
            self.link_map.add(dest, target, link)
        for name in rendered.snippets_used:
            self.snippet_users.setdefault(name, set()).add(page.file.src_uri)
        errors = [d for d in problems + rendered.diagnostics if d.level == "error"]
        if errors:  # under mkdocs serve the author sees them on the page too (post_build); --strict fails anyway
            self.boxes.add(dest, errors)
        else:
            self.inclusions[page.file.src_uri] = rendered.inclusions
        return rendered.text

    def page_content(self, html: str, page: Any) -> str:
        """The page's HTML through the allowlist; each removal the Markdown side missed is reported.

        The links and ids of the cleaned content are kept for the link check: what the author wrote is
        checked from here, without parsing the theme around it on every page (`perfdocs check-links`
        still reads whole pages, theme included)."""
        cleaned = self.sanitise(html, page)
        tree = LexborHTMLParser(f"<body>{cleaned}</body>")  # one parse for the links and the search index
        self.content_links[page.file.dest_uri] = read_tree(tree)
        expanded = self.markdown.get(page.file.src_uri)  # tells which sections are theory snippets' copies
        self.search_texts[page.url] = search_page(
            tree,
            page.meta.get("scenario"),
            expanded.text if expanded else "",
            expanded.source_map if expanded else None,
            self.inclusions.get(page.file.src_uri, ()),
        )
        self.cleaned[page.file.src_uri] = cleaned
        return cleaned

    def env(self, files: Any) -> None:
        """After every plugin's on_env, before any template runs: each page's title and description kept as the
        text they are (redirect pages, llms.txt), and escaped on the page objects the theme prints. Material
        prints page.title, page.meta.title and page.meta.description as they are, in the head and header of the
        page and in the nav and footer of its neighbours, so every page is escaped before any is rendered.
        Each page once: an incremental rebuild (serve.py) runs the event again for the pages it re-rendered."""
        self.check_unshown_parts()
        for file in files.documentation_pages():
            if file.page is not None and file.src_uri not in self.themed:
                self.nav_titles[file.src_uri] = vars(file.page).get("title")
                self.page_titles[file.src_uri], self.page_descriptions[file.src_uri] = theme_text(file.page)
                self.themed.add(file.src_uri)

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

    def begin_rebuild(self, snippets: set[str]) -> None:
        """An incremental rebuild starts (serve.py): its problems are reported afresh, and the snippets that
        changed are read again."""
        self.reporter.forget()
        self.boxes.begin_rebuild()
        assert self.library is not None and self.theory is not None
        self.library.forget(snippets)
        self.theory.forget_snippets(snippets)
        self.check_snippets(sorted(snippets))

    def check_snippets(self, names: list[str]) -> None:
        """What every snippet is checked for once, whichever pages show it (and whether any does): its recipe
        markers."""
        assert self.library is not None
        for name in names:
            snippet, _ = self.library.get(name)
            if snippet is not None:
                self.report(marker_problems(snippet.body, snippet.body_first_line, snippet.path))

    def refresh_site_index(self, files: Any, changed: set[str]) -> bool | None:
        """The technique matrix's index of pages, updated for the pages in ``changed`` (docs paths) as they are
        now: whether it changed. None when the pages that show the calculator changed (every budget table links
        the first): that needs the full build."""
        pages = list(files.documentation_pages())
        if calculator_pages({f.src_uri: self.sources[f.src_uri] for f in pages}) != self.calculators:
            return None
        assert self.theory is not None
        saved = [self.page_text(f) for f in pages if f.src_uri in changed]
        return self.theory.refresh([f.src_uri for f in pages], saved)

    def forget(self, page: Any) -> None:
        """Drop what this build kept of ``page``, before it is rendered again (an incremental rebuild, serve.py),
        and give it back the title the nav set (env() replaced it with its escaped text)."""
        src, dest = page.file.src_uri, page.file.dest_uri
        for kept, key in (
            (self.markdown, src),
            (self.inclusions, src),
            (self.cleaned, src),
            (self.prerendered, src),
            (self.content_links, dest),
            (self.search_texts, page.url),
        ):
            kept.pop(key, None)
        self.link_map.forget(dest)
        self.boxes.forget(dest)
        for users in self.snippet_users.values():
            users.discard(src)
        if src in self.themed:
            self.themed.discard(src)
            title = self.nav_titles.get(src)
            if title is None:
                vars(page).pop("title", None)
            else:
                page.title = title

    def page_context(self, page: Any) -> None:
        """The last look at a page's content before its template prints it: a plugin that changed the content
        after the sanitiser (mkdocs-autorefs rewrites <autoref> into links in on_env, re-reading attributes
        with their entities decoded) gets its output through the same allowlist, and what that removes is an
        error at the Markdown line that wrote it."""
        cleaned = self.cleaned.get(page.file.src_uri)
        if page.content is None or cleaned is None or page.content == cleaned:
            return
        page.content = self.sanitise(page.content, page, late=True)

    def sanitise(self, html: str, page: Any, late: bool = False) -> str:
        """``html``, content of ``page``, through the allowlist; what it removes is reported at the Markdown line
        that wrote it, unless the Markdown side reported it. ``late``: the content as plugins left it after the
        first pass (what the allowlist removes then, a plugin wrote)."""
        cleaned, findings = clean_page(html, after_plugins=late)
        if findings:
            markdown = self.markdown.get(page.file.src_uri)
            located = locate_findings(findings, markdown, self.display(page.file.abs_src_path))
            if late:  # the Markdown side never saw what a plugin wrote
                hint = "written by a plugin after the sanitiser; removed from the page"
                new = [replace(d, hint=hint) for d in located]
            else:
                new = [d for d in located if not markdown or _key(d) not in markdown.reported]
            self.report(new)
            self.boxes.add(page.file.dest_uri, new)
        return cleaned

    def post_page(self, output: str, page: Any) -> None:
        """The page as the theme printed it: post_build puts its "Build error" box in a copy of it."""
        self.boxes.printed(page.file.dest_uri, output)

    def post_build(self, config: Any) -> None:
        assert self.project is not None
        site = Path(config.site_dir)
        path = self.display(self.project.redirects_file)
        urls, titles = self.page_urls.__getitem__, lambda page: self.page_titles.get(page, str(page))
        files, problems = self.redirects.write(site, path, urls, titles, self.dest_of, self.content_links, self.base)
        self.report(problems)
        self.write_for_assistants(site, config, set(self.dest_of.values()) | set(files))
        log.debug("perfdocs: wrote %d redirect files", len(files))
        map_file = site / MAP_FILE
        map_file.parent.mkdir(parents=True, exist_ok=True)
        map_file.write_text(self.link_map.to_json(), encoding="utf-8")
        report = check_site(site, self.base, known=self.content_links, cache=self.parsed_pages)
        # the theme's menu on the pages it makes alone (404.html) links each nav entry: one that names no page
        # is already a nav-missing-page error at its line of mkdocs.yml, not another broken link
        menu = self.content_links, self.nav_missing, self.base
        report = replace(report, problems=[p for p in report.problems if not nav_menu_link(p, *menu)])
        if not self.redirects.complete:  # a link to an old URL cannot be checked without its redirect
            report = replace(report, problems=[p for p in report.problems if p.status != "missing-file"])
            log.info("perfdocs: redirects.yml has errors; links to missing files are checked once it is fixed")
        # each page with problems gets its "Build error" box (errorboxes.py): its own errors, and what the link
        # check found in it
        by_page: dict[str, list[Diagnostic]] = {}
        label = self.site_label(site)
        self.report(to_diagnostics(report, site, self.link_map, label, self.base, self.renames, by_page))
        self.boxes.write(site, {page: found for page, found in by_page.items() if page in self.content_links})
        log.info("perfdocs: checked %d links to %d targets in %d pages", report.links, report.targets, report.pages)
        size = write_index(site, self.search_texts)
        if size:
            log.info(
                "perfdocs: search index: %d sections, %d bytes (gzip %d), fetched on the first query; page loads "
                "fetch %d bytes",
                size.sections,
                size.raw,
                size.gzip,
                size.stub,
            )

    def write_for_assistants(self, site: Path, config: Any, taken: set[str]) -> None:
        """Each page's Markdown beside its HTML, and /llms.txt (assistants.py)."""
        pages = {src: (m.text, m.source_map, m.links) for src, m in self.markdown.items()}
        written, problems = write_files(
            site,
            pages,
            self.page_urls,
            self.dest_of,
            taken,
            self.display(config.config_file_path),
            self.assistant_copies,
        )
        self.report(problems)
        write_llms_txt(site, config, self.site_nav, written, self.page_titles, self.page_descriptions)

    def site_label(self, site: Path) -> str:
        """How diagnostics name the built site: its path under the project, else (a temporary directory, as
        under ``mkdocs serve``, or any other place) the URL path it is served under."""
        if site.resolve().is_relative_to(self.root.resolve()):
            return self.display(site)
        return self.base.rstrip("/")

    def watch_paths(self) -> list[str]:
        """What mkdocs serve watches besides docs/ and mkdocs.yml: redirects.yml and the benchmark results pages
        show with <Measured/> (bench/results/), where the project has them (a path that does not exist stops the
        watcher, and the server with it)."""
        if self.project is None:
            return []
        paths = [self.project.redirects_file, self.project.root / RESULTS]
        return [os.fspath(path) for path in paths if path.exists()]


def require_extensions(config: Any, where: str) -> None:
    """Stops the build when mkdocs.yml lacks a Markdown extension the dialect's output needs."""
    missing = [ext for ext in REQUIRED_EXTENSIONS if ext not in config.markdown_extensions]
    if not config.mdx_configs.get("pymdownx.tabbed", {}).get("alternate_style"):
        missing.append("pymdownx.tabbed with alternate_style: true")
    if missing:
        from mkdocs.exceptions import PluginError

        raise PluginError(f"{where}: perfdocs needs these markdown_extensions: " + ", ".join(missing))


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


def read_page(file: Any, display: str) -> tuple[str, Diagnostic | None]:
    """A page's text, read once (BuildState.sources), or why it cannot be built."""
    try:
        source = file.content_string
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


def theme_text(page: Any) -> tuple[str, str | None]:
    """A page's title and description as text, after escaping both on ``page`` for the theme's templates.

    A front matter title or description is text (metadata.py reports markup in them, and a value that is not
    a string, which is dropped here so the H1 gives the title); a title from the H1, the nav or the file name
    is HTML already, as Python-Markdown escapes a heading's text."""
    meta = page.meta
    for key in ("title", "description"):
        if key in meta and not isinstance(meta[key], str):
            del meta[key]
    # page.title: the nav's title (mkdocs.yml, set on the instance), else the front matter's, else the H1's
    nav_title = vars(page).get("title")
    shown = unescape(nav_title) if isinstance(nav_title, str) else meta.get("title") or unescape(page.title or "")
    title = meta.get("title") or shown or page.file.src_uri
    description = meta.get("description")
    page.title = escape(shown)
    if "title" in meta:
        meta["title"] = escape(meta["title"])
    if description is not None:
        meta["description"] = escape(description)
    return title, description


def quiet_link_validation(config: Any) -> None:
    """MkDocs' own checks of Markdown links and anchors down to "ignore": the link check after the build
    covers both (on the final HTML, with lines), and one broken link should make one report, not two."""
    links = config.validation.links
    links.not_found = links.anchors = logging.DEBUG  # what `validation: links: ...: ignore` sets


def without_repository(config: Any) -> None:
    """No repository, no edit links: edit_uri is a path under repo_url (mkdocs.yml gives it a default), and
    without repo_url MkDocs would make each page's "edit" link a relative path, and warn on every page."""
    if not config.repo_url:
        config.edit_uri = None


def _key(d: Diagnostic) -> tuple[str, int, str]:
    return (d.location.path, d.location.line, d.code)


def locate_findings(findings: list[Finding], markdown: PageMarkdown | None, page_path: str) -> list[Diagnostic]:
    """Each sanitiser finding at the Markdown line that most likely wrote it.

    HTML carries no line numbers, so the construct is searched for in the Markdown the page
    rendered from (after theory expansion, so the source map leads into snippets): for a URL its
    scheme (``javascript:``, as a Markdown link writes it), then the attribute name (``onclick``,
    as raw HTML or an attr_list writes it) or the tag (``<iframe``). Findings come in document
    order, so each search starts at the line of the previous one, and each occurrence in the
    Markdown explains one finding at most. A construct not found there is reported at the page's
    first line.
    """
    diagnostics = []
    lines = [line.lower() for line in markdown.text.split("\n")] if markdown else []
    used: set[tuple[int, int]] = set()
    cursor = 0
    for finding in findings:
        found = _search(lines, finding, cursor, used)
        if found is None or markdown is None:
            location = Location(page_path, 1)
        else:
            used.add(found)
            cursor, col = found
            location = markdown.source_map.at(cursor, col + 1)
        diagnostics.append(Diagnostic(location, finding.message, finding.code, hint="removed from the page"))
    return diagnostics


def _search(lines: list[str], finding: Finding, start: int, used: set[tuple[int, int]]) -> tuple[int, int] | None:
    needles = [finding.construct.lower()]
    if finding.code == "unsafe-url" and finding.scheme:
        needles.insert(0, finding.scheme + ":")
    for needle in needles:
        for index in [*range(start, len(lines)), *range(start)]:
            for col in _construct_columns(lines[index], needle):
                if (index, col) not in used:
                    return index, col
    return None


def _construct_columns(line: str, needle: str) -> Iterator[int]:
    """Columns where ``needle`` starts a construct: a tag, an attribute name or a URL scheme."""
    at = line.find(needle)
    while at >= 0:
        before = line[at - 1] if at else " "
        after = line[at + len(needle)] if at + len(needle) < len(line) else " "
        starts = needle.startswith("<") or not (before.isalnum() or before in "-_:")
        ends = needle.endswith(":") or not (after.isalnum() or after in "-_:")
        if starts and ends:
            yield at
        at = line.find(needle, at + 1)
