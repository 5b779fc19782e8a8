"""What a build checks across pages, read from the sources alone: for ``perfdocs lint``, which reports what
``mkdocs build --strict`` reports without building (the build checks the same from its HTML, linkcheck.py).

- pages an explicit nav leaves out (the build's own check, from MkDocs' nav, uses ``not_in_nav`` too);
- links to pages and files that are not in the docs;
- fragments that no heading and no explicit id of the target page gives (an API page's entries get their ids
  from mkdocstrings, so fragments into pages with ``[[autodoc]]`` entries are left to the build).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

import yaml

from .diagnostics import Diagnostic, Location
from .linkcheck import missing_page_hint
from .text import code_line_mask, parse_heading

NOT_IN_NAV = "page is not in the nav of mkdocs.yml"
IDCOUNT_RE = re.compile(r"^(.*)_([0-9]+)$")


def not_in_nav(pages: Iterable[tuple[str, str]], in_nav: set[str]) -> list[Diagnostic]:
    """The pages (docs path, display path) an explicit nav leaves out."""
    return [
        Diagnostic(Location(shown, 1), NOT_IN_NAV, "not-in-nav", hint="add it to nav: so readers can find it")
        for page, shown in pages
        if page not in in_nav
    ]


def nav_missing_pages(
    config_text: str, shown: str, pages: Iterable[str], renames: Mapping[str, str] | None = None
) -> list[Diagnostic]:
    """The entries of the config's ``nav:`` that name a page (``.md``) not in the docs, at their line of the
    config file ``shown`` (``renames``: the pages git saw renamed, for the hint). The file is composed, not
    constructed: its tags (``!ENV``, Python names) need no loader, and every node keeps its line."""
    try:
        root = yaml.compose(config_text)
    except yaml.YAMLError:
        return []  # MkDocs reports a config it cannot read
    if not isinstance(root, yaml.MappingNode):
        return []
    nav = next((value for key, value in root.value if isinstance(key, yaml.ScalarNode) and key.value == "nav"), None)
    known = set(pages)
    problems = []
    for node in _nav_targets(nav):
        target = node.value.lstrip("/")
        if target.endswith(".md") and not urlsplit(target).scheme and target not in known:
            problems.append(
                Diagnostic(
                    Location(shown, node.start_mark.line + 1, node.start_mark.column + 1),
                    f"the nav names {target}, which is not a page in the docs",
                    "nav-missing-page",
                    hint=missing_page_hint(target, known, "", renames or {}),
                )
            )
    return problems


def _nav_targets(node: Any) -> Iterator[Any]:
    """The scalar nodes of a nav that name a target: list items and mapping values, never titles."""
    if isinstance(node, yaml.ScalarNode):
        yield node
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _nav_targets(item)
    elif isinstance(node, yaml.MappingNode):
        for _, value in node.value:
            yield from _nav_targets(value)


def nav_pages(nav: Any) -> set[str]:
    """The docs paths an explicit nav of mkdocs.yml (as MkDocs loads it) names."""
    found: set[str] = set()
    items = nav if isinstance(nav, list) else [nav]
    for item in items:
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, dict):
            for value in item.values():
                if isinstance(value, list | dict):
                    found |= nav_pages(value)
                elif isinstance(value, str):
                    found.add(value)
    return found


def dest_path(page: str, use_directory_urls: bool = True) -> str:
    """The built file of docs page ``page``, as MkDocs names it."""
    stem = page.removesuffix(".md")
    if not use_directory_urls:
        return stem + ".html"
    if stem == "index" or stem.endswith("/index") or stem in ("README",) or stem.endswith("/README"):
        return stem.rsplit("README", 1)[0].rsplit("index", 1)[0] + "index.html"
    return stem + "/index.html"


def page_ids(text: str, explicit: Iterable[str]) -> set[str]:
    """The ids a page's converted Markdown gives its headings, as the toc writes them (a repeated id gets _1,
    _2...), with its explicit ids. Headings inside admonitions and tabs are indented: every line outside code
    is read as a possible heading (a stray extra id only means one fragment less reported)."""
    lines = text.split("\n")
    ids = set(explicit)
    for line, code in zip(lines, code_line_mask(lines), strict=False):
        heading = parse_heading(line.lstrip()) if not code and line.lstrip().startswith("#") else None
        if heading is None:
            continue
        anchor = heading.id
        while anchor in ids and heading.explicit_id is None:
            m = IDCOUNT_RE.match(anchor)
            anchor = f"{m.group(1)}_{int(m.group(2)) + 1}" if m else f"{anchor}_1"
        ids.add(anchor)
    return ids


def link_problems(
    page: str,
    links: Iterable[tuple[str, Location]],
    pages: Mapping[str, set[str] | None],
    files: frozenset[str],
    dest_of: Mapping[str, str],
    renames: Mapping[str, str] | None = None,
) -> list[Diagnostic]:
    """The broken links of docs page ``page``: ``pages`` maps every page to its ids (None: not checked, an API
    page), ``files`` is every file of the docs, ``dest_of`` each page's built file, ``renames`` the pages git saw
    renamed (old docs path -> new), for the hint."""
    problems = []
    for href, where in links:
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or parts.path.startswith("/"):
            continue
        path, fragment = unquote(parts.path), unquote(parts.fragment)
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)) if path else page
        if target.endswith(".md"):
            if target not in pages:
                hint = missing_page_hint(target, pages, page, renames or {})
                problems.append(
                    Diagnostic(where, f"broken link '{href}': no page {target} in the docs", "missing-file", hint=hint)
                )
                continue
            ids = pages[target]
            if fragment and ids is not None and fragment not in ids:
                message = f"broken link '{href}': no id '{fragment}' in {dest_of.get(target, target)}"
                problems.append(Diagnostic(where, message, "missing-fragment"))
        elif path and target not in files and not path.endswith("/"):
            problems.append(Diagnostic(where, f"broken link '{href}': no file {target} in the docs", "missing-file"))
    return problems
