"""Incremental rebuilds under ``mkdocs serve``: a save re-renders the pages it can change, and nothing else.

MkDocs' server calls one builder after any change under a watched path, and that builder rebuilds the whole
site. ``on_serve`` puts ``LiveBuilds.rebuild`` in its place. It tells what changed since the last build (each
watched file's size and modification time) and, when only pages, theory snippets or redirects.yml changed,
renders just the pages that show them, with MkDocs' own page functions on the objects the last full build
made (a forked worker renders and converts the pages from the last on: mkdocs_adapter.MkDocsBuild.render_ahead);
then it redoes what spans the site (the link check, redirect pages, the search index, the assistants'
copies, each page's "Build error" box). Anything else (the config and its nav, a file added or deleted, an
asset, a template, a benchmark result, an API page, a page whose title changed) gets the full build, as before.

This module is the one place that drives MkDocs' build internals (``mkdocs.commands.build``) and the search
plugin's index; ``tests/test_serve_incremental.py`` pins what it relies on.
"""

from __future__ import annotations

import html
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .search import search_plugin
from .theory import THEORY_DIR

log = logging.getLogger("mkdocs.plugins.perfdocs")

Snapshot = dict[str, tuple[int, int]]  # absolute path -> (mtime in ns, size)

API_MARKER = "[[autodoc]]"  # a page with API entries: the API index (and every API link) depends on it
MATRIX_MARKER = "<TechniqueMatrix"  # a page generated from every page and snippet


def snapshot(paths: Iterable[str]) -> Snapshot:
    """Size and modification time of every file under ``paths`` (files or folders), dotfiles left out."""
    found: Snapshot = {}
    for root in paths:
        if os.path.isfile(root):
            stat = os.stat(root)
            found[root] = (stat.st_mtime_ns, stat.st_size)
            continue
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
            for name in files:
                if name.startswith("."):  # an editor's swap file; MkDocs leaves dotfiles out of the site
                    continue
                path = os.path.join(folder, name)
                try:
                    stat = os.stat(path)
                except OSError:  # gone since it was listed
                    continue
                found[path] = (stat.st_mtime_ns, stat.st_size)
    return found


@dataclass
class Plan:
    """What an incremental rebuild renders again."""

    pages: list[str]  # docs paths, in the order MkDocs builds them
    snippets: set[str] = field(default_factory=set)  # theory snippets that changed
    changed_pages: set[str] = field(default_factory=set)  # pages whose own file changed
    redirects: bool = False  # redirects.yml changed
    nav: list[Any] | None = None  # the config's new nav, when nothing else in it changed

    def describe(self) -> str:
        what = [f"{len(self.pages)} page{'s' if len(self.pages) != 1 else ''}"]
        if self.redirects:
            what.append("redirects.yml")
        if self.nav is not None:
            what.append("the nav")
        return " and ".join(what)


# How long the server waits after a file event for more before it builds. MkDocs waits 0.1 s (build_delay), a
# ninth of a snippet save here; system events arrive within a millisecond of the write (bench/serve_latency.py saw
# "Detected file changes" 0.001 s after it), and an editor's save (a write, or a temporary file renamed over the
# page) is a burst of such events: half the wait still gathers one. A later event wakes another build.
EVENTS_SETTLE_S = 0.05
# Logged once the server watches with the system's file events (tests wait less between saves then).
WATCHING_EVENTS = "perfdocs: watching for changes with the system's file events"


def native_watcher(server: Any) -> None:
    """MkDocs watches with watchdog's PollingObserver, a scan of every watched folder each 0.5 s, so a save waits
    for the next scan (0.25 s on average) and every scan takes CPU from the build. The system's own file events
    (inotify on Linux, FSEvents on macOS) report a save at once: the paths watched so far move to such an
    observer before the server starts it. Where the system has none, or it refuses (inotify's watch limit), the
    server keeps polling (as with a watchdog older than 4.0, which cannot filter events). With system events the
    server waits EVENTS_SETTLE_S after the last one before it builds. Uses livereload's ``observer``,
    ``_watched_paths``, ``_watch_refs`` and ``build_delay``."""
    from watchdog import events
    from watchdog.observers import Observer
    from watchdog.observers.polling import PollingObserver

    # what polling sees: a file written, made, removed or moved. The system also reports a file opened or closed
    # unread, which the build itself does to every page: left unfiltered, each build would wake the next.
    writes = [events.FileCreatedEvent, events.FileDeletedEvent, events.FileModifiedEvent, events.FileMovedEvent]

    class Writes(Observer):  # type: ignore[misc,valid-type]
        def schedule(self, handler: Any, path: Any, *, recursive: bool = False, **_: Any) -> Any:
            return super().schedule(handler, path, recursive=recursive, event_filter=writes)

    watched = getattr(server, "_watched_paths", None)
    refs = getattr(server, "_watch_refs", None)
    if Observer is PollingObserver or not isinstance(server.observer, PollingObserver):
        return
    if not isinstance(watched, dict) or not isinstance(refs, dict):
        return
    polling, counts, scheduled = server.observer, dict(watched), dict(refs)
    server.observer = Writes()
    try:
        for path in counts:
            del watched[path]
            refs.pop(path, None)
            server.watch(path)
    except (OSError, TypeError) as exc:  # the polling observer still has every path: it was never told otherwise
        log.info("perfdocs: watching for changes by polling (%s)", exc)
        server.observer = polling
        refs.clear()
        refs.update(scheduled)
    watched.clear()
    watched.update(counts)
    if server.observer is not polling:
        server.build_delay = EVENTS_SETTLE_S
        log.info(WATCHING_EVENTS)


@dataclass
class LiveBuilds:
    """The builds of one ``mkdocs serve``: the last full build's MkDocs objects and perfdocs state, and what the
    watched files looked like when it started."""

    serving: bool = False
    build: Any = None  # perfdocs.mkdocs_adapter.MkDocsBuild of the last build (its BuildState: build.state)
    config: Any = None
    files: Any = None
    nav: Any = None
    env: Any = None
    watched: list[str] = field(default_factory=list)
    seen: Snapshot = field(default_factory=dict)
    config_text: str = ""  # the config file as the last full build read it
    full_builder: Callable[[], None] | None = None

    def startup(self, command: str, dirty: bool) -> None:
        """``mkdocs serve`` without ``--dirty`` rebuilds incrementally (``--dirty`` is MkDocs' own way)."""
        self.serving = command == "serve" and not dirty

    def started(self, build: Any, config: Any, watched: list[str]) -> None:
        """A build starts (on_config): what it will read is what later saves are compared with."""
        if not self.serving:
            return
        self.build, self.config = build, config
        self.files = self.nav = self.env = None
        # the theme's folders too (custom_dir first): an edit there under --watch-theme is a full build
        theme = [os.fspath(d) for d in (config.theme.dirs if config.theme is not None else []) if os.path.isdir(d)]
        self.watched = [os.fspath(Path(config.docs_dir)), os.fspath(Path(config.config_file_path)), *watched, *theme]
        self.seen = snapshot(self.watched)
        self.config_text = Path(config.config_file_path).read_text(encoding="utf-8")

    def serve(self, server: Any, builder: Callable[[], None]) -> None:
        """on_serve: rebuilds go through ``rebuild``."""
        if not self.serving:
            return
        self.full_builder = builder
        server.builder = self.rebuild
        native_watcher(server)

    def rebuild(self) -> None:
        assert self.full_builder is not None
        now = snapshot(self.watched)
        plan = self.plan(now)
        if plan is None:
            self.full_builder()
            return
        self.seen = now
        start = time.monotonic()
        try:
            done = self.render(plan)
        except Exception:  # the full build reports whatever this was, with MkDocs' own handling
            log.exception("perfdocs: the incremental rebuild failed; building the whole site")
            done = False
        if not done:
            self.full_builder()
            return
        log.info("perfdocs: rebuilt %s in %.2f seconds", plan.describe(), time.monotonic() - start)

    def plan(self, now: Snapshot) -> Plan | None:
        """What to render again for the changes from ``self.seen`` to ``now``; None for a full build."""
        if self.build is None or self.files is None or self.env is None:
            return None  # the last build did not get that far
        changed = {path for path in set(now) | set(self.seen) if now.get(path) != self.seen.get(path)}
        docs = Path(self.config.docs_dir)
        state = self.build.state
        redirects = os.fspath(state.project.redirects_file)
        config_file = os.fspath(Path(self.config.config_file_path))
        plan = Plan([])
        for path in changed:
            if path not in now or path not in self.seen:
                return None  # a file added or deleted: the nav, the links and the site's files change
            if path == redirects:
                plan.redirects = True
                continue
            if path == config_file:
                plan.nav = nav_change(self.config_text, Path(path).read_text(encoding="utf-8"))
                if plan.nav is None:
                    return None
                continue
            rel = Path(path).relative_to(docs).as_posix() if Path(path).is_relative_to(docs) else None
            if rel is None or not rel.endswith(".md"):
                return None
            if rel.startswith(THEORY_DIR + "/"):
                name = rel[len(THEORY_DIR) + 1 : -3]
                if "/" in name:
                    return None
                plan.snippets.add(name)
            elif rel in state.sources:
                plan.changed_pages.add(rel)
            else:
                return None  # a page the last build did not build (unreadable, or not a page)
        affected = set(plan.changed_pages)
        for name in plan.snippets:
            affected |= state.snippet_users.get(name, set())
        order = [f.src_uri for f in self.files.documentation_pages()]
        plan.pages = [src for src in order if src in affected]
        return plan

    def render(self, plan: Plan) -> bool:
        """Renders ``plan`` on the last build's objects; False when it turns out to need the full build."""
        from mkdocs.commands.build import _build_extra_template, _build_page, _build_theme_template, _populate_page
        from mkdocs.structure.files import InclusionLevel

        build, config, files = self.build, self.config, self.files
        state = build.state
        by_src = {f.src_uri: f for f in files.documentation_pages()}
        before = {src: state.sources[src] for src in plan.changed_pages}
        for src in plan.changed_pages:
            if not build.read_again(by_src[src]):
                return False  # the full build reports it and leaves the page out
            if API_MARKER in before[src] or API_MARKER in state.sources[src]:
                return False  # its entries are in the API index every page's links resolve with
        rows_changed = state.begin_rebuild(plan.snippets)
        matrix_changed = build.refresh_site_index(files, set(plan.pages))
        if matrix_changed is None:
            return False
        if matrix_changed or rows_changed:  # the matrix shows each page's snippets and the snippets' titles
            matrix = {src for src, text in state.sources.items() if MATRIX_MARKER in text}
            again = matrix | set(plan.pages)
            plan.pages = [f.src_uri for f in files.documentation_pages() if f.src_uri in again]
        if plan.nav is not None:
            self.new_nav(plan.nav)
        pages = [by_src[src].page for src in plan.pages]
        titles = {page.file.src_uri: state.page_titles.get(page.file.src_uri) for page in pages}
        for page in pages:
            build.forget(page)
        build.render_ahead(pages, config, files)
        for page in pages:
            with build.converted(page):
                _populate_page(page, config, files)
        build.settle_contents(pages)
        # on_env, for the pages rendered again: autorefs turns their cross-references into links (the other
        # plugins' on_env write site files once per full build: mkdocstrings' CSS would come out empty now)
        autorefs = config.plugins.get("autorefs")
        if autorefs is not None:
            autorefs.on_env(self.env, config=config, files=files)
        build.env(files)
        if any(state.page_titles.get(src) != title for src, title in titles.items()):
            return False  # the nav, the footers and the redirect pages of other pages show it
        if plan.redirects:
            build.load_redirects(files)
        search = search_plugin(config)
        order = _forget_search_entries(search, [page.url for page in pages])
        doc_files = files.documentation_pages(inclusion=InclusionLevel.is_in_serve)
        for page in pages:
            _build_page(page, config, doc_files, self.nav, self.env)
        if plan.nav is not None:  # every page shows the nav; the others' content, and so their search entries, stay
            for template in config.theme.static_templates:
                _build_theme_template(template, self.env, files, config, self.nav)
            for template in config.extra_templates:
                _build_extra_template(template, files, config, self.nav)
            rendered = set(plan.pages)
            with _search_paused(search):
                for file in doc_files:
                    if file.src_uri not in rendered:
                        _build_page(file.page, config, doc_files, self.nav, self.env)
        if search is not None:
            _restore_search_order(search, order)
            search.on_post_build(config=config)
        build.post_build(config)
        return True

    def new_nav(self, nav_config: list[Any]) -> None:
        """The nav built again from ``nav_config`` over the same pages: MkDocs makes a new page object for each
        entry (with the nav's title), which takes what the old one was rendered to."""
        from mkdocs.structure.nav import get_navigation

        config, files = self.config, self.files
        old = {f.src_uri: f.page for f in files.documentation_pages()}
        for file in files.documentation_pages():
            file.page = None
        config["nav"] = nav_config
        self.config_text = Path(config.config_file_path).read_text(encoding="utf-8")
        nav = get_navigation(files, config)
        for file in files.documentation_pages():
            _carry_over(old[file.src_uri], file.page)
        self.build.themed.clear()  # every page's title is taken again from the new nav (MkDocsBuild.env)
        self.nav = config.plugins.on_nav(nav, config=config, files=files)


NAV_ATTRIBUTES = {"file", "title", "parent", "children", "previous_page", "next_page", "active"}


def _carry_over(old: Any, new: Any) -> None:
    """What ``old`` (a page of the last build) was rendered to, onto ``new`` (its page in a new nav); its title
    and description as the front matter gave them (MkDocsBuild.env escaped them in place)."""
    for key, value in vars(old).items():
        if key not in NAV_ATTRIBUTES:
            setattr(new, key, value)
    new.meta = {
        key: html.unescape(value) if key in ("title", "description") and isinstance(value, str) else value
        for key, value in old.meta.items()
    }


def nav_change(before: str, after: str) -> list[Any] | None:
    """The new nav when it is all that differs between two texts of the config file, else None. Both are read
    as MkDocs reads them (``!ENV``, ``!relative``, Python names)."""
    from mkdocs.utils.yaml import yaml_load

    try:
        old, new = yaml_load(before), yaml_load(after)
    except Exception:  # the full build reports the config's error
        return None
    if not isinstance(old, dict) or not isinstance(new, dict) or not isinstance(new.get("nav"), list):
        return None
    nav = new.pop("nav")
    old.pop("nav", None)
    return nav if old == new else None


@contextmanager
def _search_paused(search: Any) -> Iterator[None]:
    """Material's search plugin does not index the pages built meanwhile (their entries are still right); it
    stays enabled, as the theme prints the search box only then."""
    if search is None:
        yield
        return
    index = search.search_index
    indexing = index.add_entry_from_context
    index.add_entry_from_context = lambda page: None
    try:
        yield
    finally:
        index.add_entry_from_context = indexing


def _page_of(location: str) -> str:
    return location.partition("#")[0]


def _forget_search_entries(search: Any, urls: list[str]) -> list[str]:
    """Drops the index entries of the pages at ``urls``; the order of the pages in the index, for
    ``_restore_search_order`` (the plugin adds a rebuilt page's entries at the end)."""
    if search is None:
        return []
    entries = search.search_index.entries
    order = list(dict.fromkeys(_page_of(entry["location"]) for entry in entries))
    gone = set(urls)
    search.search_index.entries = [entry for entry in entries if _page_of(entry["location"]) not in gone]
    return order


def _restore_search_order(search: Any, order: list[str]) -> None:
    by_page: dict[str, list[Any]] = {}
    for entry in search.search_index.entries:
        by_page.setdefault(_page_of(entry["location"]), []).append(entry)
    ordered = [entry for url in order for entry in by_page.pop(url, [])]
    search.search_index.entries = ordered + [entry for entries in by_page.values() for entry in entries]


LIVE = LiveBuilds()  # one per process: mkdocs serve loads the hooks module again on every full rebuild
