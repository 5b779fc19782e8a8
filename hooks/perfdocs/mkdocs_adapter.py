"""MkDocs, translated: the one module of the build that knows MkDocs' events and objects (issue 19, item 5).

The hooks file (hooks/perfdocs_hooks.py) forwards each MkDocs event to ``MkDocsBuild``, which hands
``build.BuildState`` what the event means in perfdocs' own terms (``build.SiteFile``, a Project, paths and
text) and puts the answers back on MkDocs' objects: the files it drops, the front matter a page may not
set, the theme's escaped titles, the content a plugin rewrote. The config MkDocs validated becomes a
``Project`` and an ``ApiConfig`` here too, for the hooks and for the CLI (``load_project``).

Another engine (ProperDocs, another MkDocs fork) needs another module like this one and nothing else:
tests/test_layers.py checks that only this module and serve.py (MkDocs' live-reload server, patched for
incremental rebuilds) import MkDocs.
"""

from __future__ import annotations

import functools
import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from html import escape, unescape
from pathlib import Path
from typing import Any

from mkdocs.config import load_config
from mkdocs.exceptions import MkDocsException, PluginError
from mkdocs.structure.files import File
from mkdocs.utils.meta import get_data

from .apicache import settings_key
from .apiconfig import ApiConfig
from .build import (
    ENTRIES,
    BuildState,
    NavSections,
    PageRender,
    RenderedAhead,
    SiteFile,
    copy_jobs,
    printing_work,
)
from .diagnostics import display_path
from .embeds import embed_hosts
from .gated import gated_models
from .highlightmemo import install as keep_highlighted_code
from .mkdocstrings_adapter import HANDLER
from .project import CONFIG_NAMES, MissingConfig, Project, ProjectError
from .redirects import redirect_hosts
from .search import excluded, search_plugin
from .text import markdown_slug, use_slugify

REQUIRED_EXTENSIONS = ("admonition", "attr_list", "md_in_html", "toc", "pymdownx.superfences", "pymdownx.tabbed")


class MkDocsBuild:
    """One build's events, from MkDocs to ``BuildState``. The theme's copies of each page's title and
    description are escaped here (``env``), and given back when the page is rendered again (``forget``)."""

    def __init__(self) -> None:
        self.state = BuildState()
        self.nav_object: Any = None  # MkDocs' nav, for /llms.txt
        self.themed: set[str] = set()  # docs paths whose title and description env() escaped
        self.nav_titles: dict[str, str | None] = {}  # docs path -> the nav's title of it, as set
        self.searching = False  # Material's search plugin indexes the pages

    def config(self, config: Any) -> None:
        self.state.prerendered.stop()  # a build that stopped half-way (serve) left its workers
        self.state.contents.stop_ahead()
        self.__init__()  # type: ignore[misc]  # mkdocs serve keeps the hooks module loaded across full builds
        self.searching = search_plugin(config) is not None
        project = project_from_config(config)
        quiet_link_validation(config)
        settings = api_config(config, project.display(project.config_file))
        without_repository(config)
        require_extensions(config, project.display(project.config_file))
        keep_highlighted_code()
        self.state.start(project, settings, front_matter_body)
        self.state.checks.placeholders = placeholders(config)

    def files(self, files: Any) -> Any:
        for src in self.state.files([site_file(f) for f in files]):
            files.remove(files.get_file_from_path(src))
        return files

    def read_source(self, page: Any) -> str | None:
        return self.state.sources.get(page.file.src_uri)

    def read_again(self, file: Any) -> bool:
        return self.state.read_again(site_file(file))

    def load_redirects(self, files: Any) -> None:
        self.state.load_redirects([site_file(f) for f in files])

    def refresh_site_index(self, files: Any, changed: set[str]) -> bool | None:
        return self.state.refresh_site_index([site_file(f) for f in files.documentation_pages()], changed)

    def render_ahead(self, pages: list[Any], config: Any, files: Any) -> None:
        """An incremental rebuild (serve.py) renders ``pages`` again: all but the first rendered in a worker, which
        converts them to HTML as MkDocs would too (``converted`` gives MkDocs that)."""
        texts = [self.state.page_text(site_file(page.file)) for page in pages]
        self.state.prerender(texts, again=True, convert=functools.partial(convert_in_worker, self, config, files))

    @contextmanager
    def converted(self, page: Any) -> Iterator[None]:
        """MkDocs' ``page.render`` inside the block takes what the worker converted of ``page`` (render_ahead),
        where the worker converted the Markdown MkDocs has now; elsewhere it converts the page itself."""
        render = page.render

        def take(config: Any, files: Any) -> None:
            done: Converted | None = self.state.prerendered.conversion(page.file.src_uri)
            if done is None or done.markdown != page.markdown or not done.apply(page, config, files):
                render(config, files)

        page.render = take
        try:
            yield
        finally:
            del page.render

    def nav(self, nav: Any, config: Any, files: Any) -> None:
        self.nav_object = nav
        in_nav = {page.file.src_uri for page in nav.pages} if config.nav else None
        self.state.nav(in_nav, [site_file(f) for f in files.documentation_pages()])

    def page_markdown(self, markdown: str, page: Any) -> str:
        text, refused = self.state.page_markdown(markdown, site_file(page.file))
        # the calculator's script and styles load on the pages that show it (overrides/main.html), not on every page
        page.perfdocs_calculator = page.file.src_uri in self.state.calculators
        for key in refused:  # what the page may not say has no effect either
            page.meta.pop(key, None)
        return text

    def page_content(self, html: str, page: Any) -> str:
        return self.state.page_content(html, site_file(page.file), page.meta.get("scenario"))

    def settle_contents(self, pages: list[Any]) -> None:
        """The content of each of ``pages`` whose reading page_content handed to a worker (serve.py: before any
        plugin's on_env)."""
        state, by_src = self.state, {page.file.src_uri: page for page in pages}
        for file, html, scenario in state.prerendered.deferred(state.contents):
            by_src[file.src].content = state.page_content(html, file, scenario, deferred=True)

    def env(self, files: Any) -> None:
        """After every plugin's on_env, before any template runs: each page's title and description kept as the
        text they are (redirect pages, llms.txt), and escaped on the page objects the theme prints. Material
        prints page.title, page.meta.title and page.meta.description as they are, in the head and header of the
        page and in the nav and footer of its neighbours, so every page is escaped before any is rendered.
        Each page once: an incremental rebuild (serve.py) runs the event again for the pages it re-rendered.
        The content of each page converted in this build is checked again where the plugins changed it
        (BuildState.after_plugins)."""
        self.state.env()
        printed = []
        for file in files.documentation_pages():
            if file.page is not None and file.src_uri not in self.themed:
                self.nav_titles[file.src_uri] = vars(file.page).get("title")
                self.state.titled(file.src_uri, *theme_text(file.page))
                self.themed.add(file.src_uri)
            if file.page is not None and file.page.content:
                checked = site_file(file)
                content = self.state.after_plugins(checked, file.page.content)
                if content is not None:  # converted in this build: what printing reads of it is made ahead
                    file.page.content = content
                    indexed = self.searching and not excluded(file.page.meta)
                    printed.append((checked, content, indexed))
        work = printing_work(printed)
        self.state.contents.make_ahead(work, chunk=1 if len(work) < 64 else 4, extra=copy_jobs(self.state))

    def forget(self, page: Any) -> None:
        """What this build kept of ``page`` dropped before it is rendered again (serve.py), and the title the nav
        set given back (env() replaced it with its escaped text)."""
        self.state.forget(site_file(page.file))
        src = page.file.src_uri
        if src in self.themed:
            self.themed.discard(src)
            title = self.nav_titles.get(src)
            if title is None:
                vars(page).pop("title", None)
            else:
                page.title = title

    def page_context(self, page: Any) -> None:
        if page.content is not None:
            late = self.state.late_content(site_file(page.file), page.content)
            if late is not None:
                page.content = late

    def search_sections(self, content: str, read: Callable[[], Any]) -> Any:
        """The sections of a page's content Material's search index makes entries of (search.py), as this build
        keeps them."""
        return self.state.contents.get(ENTRIES, content, read)

    def post_page(self, output: str, page: Any) -> None:
        self.state.post_page(output, page.file.dest_uri)

    def post_build(self, config: Any) -> None:
        items = self.nav_object.items if self.nav_object is not None else []
        sections = nav_sections(items)
        nav: NavSections = [(title, [(p.file.src_uri, str(p.title)) for p in pages]) for title, pages in sections]
        self.state.post_build(Path(config.site_dir), nav)


# -- a page converted in a worker (an incremental rebuild) ---------------------------------------
@dataclass
class Converted:
    """What MkDocs' ``Page.render`` made of a page in a worker: what it sets on the page, the anchors mkdocs-autorefs
    was told of (identifier, anchor, title, primary), and what it logged, for the engine to take over."""

    markdown: str  # the Markdown it converted
    content: str
    toc: Any
    title: str | None  # _title_from_render
    anchor_ids: set[str] | None  # present_anchor_ids
    links_to_anchors: dict[str, dict[str, str]] | None  # by the linked file's docs path; None: render left it
    anchors: list[tuple[str, str | None, str | None, bool]]
    records: list[logging.LogRecord]

    def apply(self, page: Any, config: Any, files: Any) -> bool:
        """The conversion on ``page`` as ``page.render`` would leave it; False where it cannot be (nothing done)."""
        autorefs = config.plugins.get("autorefs")
        links = None
        if self.links_to_anchors is not None:
            links = {files.get_file_from_path(src): found for src, found in self.links_to_anchors.items()}
            if None in links:
                return False
        if self.anchors and autorefs is None:
            return False
        page.content, page.toc, page._title_from_render = self.content, self.toc, self.title
        page.present_anchor_ids = self.anchor_ids
        if links is not None:
            page.links_to_anchors = links
        for identifier, anchor, title, primary in self.anchors:
            autorefs.register_anchor(page, identifier, anchor, title=title, primary=primary)
        for record in self.records:
            logging.getLogger(record.name).handle(record)
        return True


def convert_in_worker(build: MkDocsBuild, config: Any, files: Any, src: str, body: str, result: PageRender) -> Any:
    """In a forked worker (RenderedAhead): the page at ``src``, rendered by perfdocs to ``result``, through MkDocs'
    own steps up to its HTML (_populate_page's, but for on_page_content), as a Converted; None where the worker
    leaves the conversion to the engine (an API page: mkdocstrings keeps what it renders for the whole site).
    Nothing is logged here: the engine logs what the conversion logged when it takes the page over."""
    state = build.state
    state.prerendered = RenderedAhead()  # the engine's workers are not this process's to ask
    state.prerendered.keep(src, body, result)
    page = files.get_file_from_path(src).page
    autorefs = config.plugins.get("autorefs")
    anchors: list[tuple[str, str | None, str | None, bool]] = []
    foreign: list[Any] = []

    def register_anchor(
        on: Any, identifier: str, anchor: str | None = None, *, title: str | None = None, primary: bool = True
    ) -> None:
        anchors.append((identifier, anchor, title, primary))
        if on is not page:
            foreign.append(on)

    with _records() as records:
        config._current_page = page
        page = config.plugins.on_pre_page(page, config=config, files=files)
        page.read_source(config)
        page.markdown = config.plugins.on_page_markdown(page.markdown, page=page, config=config, files=files)
        if ":::" in page.markdown:  # mkdocstrings' block: its handler keeps what it renders
            return None
        del records[:]  # what the engine's own on_page_markdown logs again
        if autorefs is not None:
            autorefs.register_anchor = register_anchor
        vars(page).pop("links_to_anchors", None)
        page.render(config, files)
    if foreign:
        return None
    links = vars(page).get("links_to_anchors")
    return Converted(
        page.markdown,
        page.content,
        page.toc,
        page._title_from_render,
        page.present_anchor_ids,
        None if links is None else {file.src_uri: found for file, found in links.items()},
        anchors,
        records,
    )


@contextmanager
def _records() -> Iterator[list[logging.LogRecord]]:
    """Every log record made inside the block, each once, printed by no handler (a worker's: the engine replays
    them). Each record's message is formatted here, so that it can be pickled."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if records and records[-1] is record:  # seen by a logger above the last one
                return
            if record.exc_info:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
            record.msg, record.args, record.exc_info = record.getMessage(), None, None
            records.append(record)

    keep = Keep()
    root = logging.getLogger()
    loggers = [root, *(x for x in logging.Logger.manager.loggerDict.values() if isinstance(x, logging.Logger))]
    saved = [(logger, logger.handlers) for logger in loggers if logger.handlers or logger is root]
    for logger, _ in saved:
        logger.handlers = [keep]
    try:
        yield records
    finally:
        for logger, handlers in saved:
            logger.handlers = handlers


def site_file(file: Any) -> SiteFile:
    """A MkDocs ``File`` as the build sees it."""
    return SiteFile(
        file.src_uri,
        file.dest_uri,
        file.url,
        file.abs_src_path,
        file.is_documentation_page(),
        file.inclusion.is_included(),
        lambda: file.content_string,
        "" if file.url in (".", "./") else file.url,  # MkDocs' Page.url
    )


def front_matter_body(source: str) -> str:
    """A page's body as MkDocs hands it to on_page_markdown (it drops front matter it cannot parse silently)."""
    return get_data(source)[0]


def page_dest(project: Project, page: str) -> str:
    """The site file MkDocs builds docs page ``page`` into (its dest_uri)."""
    return File(page, str(project.docs_dir), str(project.site_dir), project.use_directory_urls).dest_uri


def page_url(project: Project, page: str) -> str:
    """The URL MkDocs serves docs page ``page`` at, relative to the site's root."""
    return File(page, None, "", project.use_directory_urls).url


# -- the configuration -------------------------------------------------------------------------
def load_project(config_file: str | Path | None = None) -> Project:
    """Read ``config_file`` (default: mkdocs.yml in the working directory) the way ``mkdocs build -f`` does."""
    return project_from_config(read_config(config_file))


def read_config(config_file: str | Path | None = None) -> Any:
    """MkDocs' validated config of ``config_file``; ProjectError says what is wrong with it."""
    path = _config_path(config_file)
    with _captured("mkdocs") as messages:
        try:
            return load_config(str(path))
        except MkDocsException as exc:
            errors = [m for m in messages if m.startswith("Config value")] or [str(exc)]
            raise ProjectError(f"{path}: invalid configuration: " + " ".join("; ".join(errors).split())) from exc
        except (OSError, ValueError) as exc:  # unreadable file, YAML the loader rejects
            raise ProjectError(f"{path}: cannot read the configuration: {exc}") from exc


def project_from_config(config: Any) -> Project:
    """From a validated MkDocs config (what ``on_config`` receives)."""
    config_file = Path(os.path.abspath(config.config_file_path or CONFIG_NAMES[0]))
    root = config_file.parent
    shown = display_path(config_file, root)
    theme_dir = getattr(config.theme, "custom_dir", None) if config.theme is not None else None
    toc = (config.get("mdx_configs") or {}).get("toc") or {}
    use_slugify(toc.get("slugify") or markdown_slug)  # automatic heading ids, as the site's toc writes them
    extra = config.get("extra")
    return Project(
        root=root,
        config_file=config_file,
        docs_dir=_under(root, config.docs_dir),
        site_dir=_under(root, config.site_dir),
        site_url=config.site_url or None,
        custom_dir=_under(root, theme_dir) if theme_dir else None,
        extra_css=tuple(str(p) for p in config.extra_css or ()),
        extra_javascript=tuple(str(getattr(p, "path", p)) for p in config.extra_javascript or ()),
        hooks=tuple(_under(root, p) for p in (config.get("hooks") or ())),  # keys: paths as in mkdocs.yml
        watch=tuple(_under(root, p) for p in (config.get("watch") or ())),
        nav=config.nav,
        repo_url=config.repo_url or None,
        edit_uri=config.edit_uri,
        site_name=config.site_name or "",
        site_description=config.site_description or None,
        use_directory_urls=bool(config.use_directory_urls),
        notebooks=_notebooks(extra),
        redirect_hosts=redirect_hosts(_perfdocs_setting(extra, "redirect_hosts"), config_file, shown),
        templates=_templates(config),
        embed_hosts=embed_hosts(_perfdocs_setting(extra, "embed_hosts"), config_file, shown),
        gated_models=gated_models(_perfdocs_setting(extra, "gated_models"), config_file, shown),
    )


def api_config(config: Any, display: str = "mkdocs.yml") -> ApiConfig | None:
    """The API settings of a validated MkDocs config; None when the mkdocstrings plugin is not enabled."""
    plugins = config.get("plugins") if hasattr(config, "get") else None
    plugin = plugins.get("mkdocstrings") if plugins is not None else None
    if plugin is None:
        return None
    handlers = plugin.config.get("handlers") if hasattr(plugin, "config") else None
    if not isinstance(handlers, dict):
        return None
    handler = handlers.setdefault(HANDLER, {})
    options = handler.get("options") or {}
    namespaces = tuple(str(n) for n in options.get("preload_modules") or ())
    root = Path(os.path.abspath(config.config_file_path or "mkdocs.yml")).parent
    rendering = {
        "markdown_extensions": config.get("markdown_extensions"),
        "mdx_configs": config.get("mdx_configs"),
        "theme": getattr(config.get("theme"), "name", None),
        "mkdocstrings": {k: v for k, v in plugin.config.items() if k != "handlers"},
        "templates": template_files(plugin.config.get("custom_templates"), root),
    }
    return ApiConfig(root, namespaces, handler, display, plugin, settings_key(rendering))


def template_files(folder: str | None, root: Path) -> list[str]:
    """The custom templates mkdocstrings renders entries with, by name, size and time (none: [])."""
    if not folder:
        return []
    base = root / folder
    files = sorted(p for p in base.rglob("*") if p.is_file())
    return [f"{p.relative_to(base)} {p.stat().st_size} {p.stat().st_mtime_ns}" for p in files]


def load_api_config(config_file: Path, display: str) -> ApiConfig | None:
    """The API settings for commands that read the docs without building (``perfdocs lint``, ``render``), read
    from mkdocs.yml with MkDocs' own loader; None when the mkdocstrings plugin is off."""
    quiet = logging.getLogger("mkdocs")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        config = load_config(str(config_file))
    finally:
        quiet.setLevel(level)
    return api_config(config, display)


def require_extensions(config: Any, where: str) -> None:
    """Stops the build when mkdocs.yml lacks a Markdown extension the dialect's output needs."""
    missing = [ext for ext in REQUIRED_EXTENSIONS if ext not in config.markdown_extensions]
    if not config.mdx_configs.get("pymdownx.tabbed", {}).get("alternate_style"):
        missing.append("pymdownx.tabbed with alternate_style: true")
    if missing:
        raise PluginError(f"{where}: perfdocs needs these markdown_extensions: " + ", ".join(missing))


def placeholders(config: Any) -> re.Pattern[str] | None:
    """What a plugin replaces in the pages' content after the sanitiser, in its on_env: mkdocs-autorefs' <autoref>
    placeholders, by the pattern it finds them with (pagecontent.PageContents)."""
    if config.plugins.get("autorefs") is None:
        return None
    from mkdocs_autorefs import AUTOREF_RE

    return AUTOREF_RE


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


# -- pages and the nav, as the theme prints them -------------------------------------------------
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


def nav_sections(items: Iterable[Any]) -> list[tuple[str, list[Any]]]:
    """MkDocs nav items as (title, pages): each top-level section with every page under it, in nav order, and
    each top-level page as a section of its own under its nav title. Titles as text (the theme's are HTML)."""
    sections = []
    for item in items:
        if getattr(item, "is_page", False):
            sections.append((unescape(str(item.title)), [item]))
        elif getattr(item, "is_section", False):
            pages = list(_pages_under(item.children))
            if pages:
                sections.append((unescape(str(item.title)), pages))
    return sections


def _pages_under(items: Iterable[Any]) -> Iterable[Any]:
    for item in items:
        if getattr(item, "is_page", False):
            yield item
        elif getattr(item, "is_section", False):
            yield from _pages_under(item.children)


# -- helpers -----------------------------------------------------------------------------------
def _config_path(config_file: str | Path | None) -> Path:
    if config_file is not None:
        path = Path(config_file)
        if path.is_dir():
            path = next((path / n for n in CONFIG_NAMES if (path / n).is_file()), path / CONFIG_NAMES[0])
    else:
        path = next((Path(n) for n in CONFIG_NAMES if Path(n).is_file()), Path(CONFIG_NAMES[0]))
    if not path.is_file():
        raise MissingConfig(f"{path}: no such config file (give one with -f/--config-file)")
    return Path(os.path.abspath(path))


def _notebooks(extra: Any) -> str | None:
    """extra.perfdocs.notebooks as written (the dialect says what is wrong with it where a page needs it)."""
    value = _perfdocs_setting(extra, "notebooks")
    return None if value is None else str(value)


def _perfdocs_setting(extra: Any, name: str) -> Any:
    perfdocs = extra.get("perfdocs") if isinstance(extra, Mapping) else None
    return perfdocs.get(name) if isinstance(perfdocs, Mapping) else None


def _templates(config: Any) -> tuple[str, ...]:
    """The theme's static templates and extra_templates, as the files MkDocs writes (sitemap.xml also gzipped)."""
    names = {*(getattr(config.theme, "static_templates", None) or ()), *(config.get("extra_templates") or ())}
    return tuple(sorted(names | ({"sitemap.xml.gz"} if "sitemap.xml" in names else set())))


def _under(root: Path, path: str | os.PathLike[str]) -> Path:
    """``path`` as MkDocs means it: relative paths are relative to the directory of mkdocs.yml."""
    return Path(os.path.normpath(root / path))


@contextmanager
def _captured(logger_name: str) -> Iterator[list[str]]:
    """The messages logged on ``logger_name`` inside the block, not printed."""
    messages: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.ERROR:
                messages.append(record.getMessage())

    logger = logging.getLogger(logger_name)
    handler = Collect()
    previous = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield messages
    finally:
        logger.removeHandler(handler)
        logger.propagate = previous
