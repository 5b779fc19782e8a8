"""MkDocs hook entry: wires build events to perfdocs.mkdocs_adapter.MkDocsBuild, which translates them for
perfdocs.build.BuildState (and, under mkdocs serve, to perfdocs.serve.LIVE, which makes a save re-render only
what it changes, and Material's search index to perfdocs.search's reading of each page) and does nothing else."""

from __future__ import annotations

from typing import Any

from mkdocs.plugins import event_priority
from perfdocs.mkdocs_adapter import MkDocsBuild
from perfdocs.search import index_pages_by_walk, search_plugin
from perfdocs.serve import LIVE

BUILD = MkDocsBuild()


def on_startup(command: str, dirty: bool, **_: Any) -> None:
    LIVE.startup(command, dirty)


def on_config(config: Any, **_: Any) -> None:
    BUILD.config(config)
    search = search_plugin(config)  # made in its own on_config, which runs before the hooks'
    if search is not None:
        index_pages_by_walk(search, BUILD.search_sections)
    LIVE.started(BUILD, config, [*BUILD.state.watch_paths(), *config.watch])


def on_files(files: Any, config: Any, **_: Any) -> Any:
    LIVE.files = BUILD.files(files)
    return LIVE.files


def on_nav(nav: Any, config: Any, files: Any, **_: Any) -> None:
    BUILD.nav(nav, config, files)
    LIVE.nav = nav


def on_page_read_source(page: Any, config: Any, **_: Any) -> str | None:
    return BUILD.read_source(page)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    return BUILD.page_markdown(markdown, page)


def on_page_content(html: str, page: Any, **_: Any) -> str:
    return BUILD.page_content(html, page)


@event_priority(-100)  # after every plugin's on_env (mkdocs-autorefs rewrites page content there, at -50)
def on_env(env: Any, config: Any, files: Any, **_: Any) -> None:
    BUILD.env(files)
    LIVE.env = env


@event_priority(-100)  # the last to see the content before the template prints it
def on_page_context(context: Any, page: Any, **_: Any) -> None:
    BUILD.page_context(page)


def on_post_page(output: str, page: Any, **_: Any) -> None:
    BUILD.post_page(output, page)


def on_post_build(config: Any, **_: Any) -> None:
    BUILD.post_build(config)


def on_serve(server: Any, config: Any, builder: Any, **_: Any) -> None:
    for path in BUILD.state.watch_paths():
        server.watch(path)
    LIVE.serve(server, builder)
