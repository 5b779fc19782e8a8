"""What a build checks across pages, read from the sources alone: for ``perfdocs lint``, which reports what
``mkdocs build --strict`` reports without building (the build checks the same from its HTML, linkcheck.py).

- pages an explicit nav leaves out (the build's own check, from MkDocs' nav, uses ``not_in_nav`` too);
- links to pages and files that are not in the docs;
- fragments that no heading and no explicit id of the target page gives (an API page's entries get their ids
  from mkdocstrings, so fragments into pages with ``[[autodoc]]`` entries are left to the build).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

import yaml
from markdown.extensions.toc import unique

from .diagnostics import Diagnostic, Location
from .linkcheck import missing_page_hint
from .text import code_line_mask, parse_heading

NOT_IN_NAV = "page is not in the nav of mkdocs.yml"


def not_in_nav(pages: Iterable[tuple[str, str]], in_nav: set[str]) -> list[Diagnostic]:
    """The pages (docs path, display path) an explicit nav leaves out."""
    return [
        Diagnostic(Location(shown, 1), NOT_IN_NAV, "not-in-nav", hint="add it to nav: so readers can find it")
        for page, shown in pages
        if page not in in_nav
    ]


def nav_entries(config_text: str) -> list[Any]:
    """The YAML scalar nodes of the config's ``nav:`` that name a target (list items and mapping values, never
    titles), each with its line. The file is composed, not constructed: its tags (``!ENV``, Python names) need
    no loader. Empty when the config has no nav or cannot be read (MkDocs reports that)."""
    try:
        root = yaml.compose(config_text)
    except yaml.YAMLError:
        return []
    if not isinstance(root, yaml.MappingNode):
        return []
    nav = next((value for key, value in root.value if isinstance(key, yaml.ScalarNode) and key.value == "nav"), None)
    return list(_nav_targets(nav))


def missing_nav_entries(config_text: str, pages: Iterable[str]) -> list[tuple[Any, str]]:
    """The entries of the config's ``nav:`` that name a page (``.md``) not in the docs: (YAML node, page)."""
    known = set(pages)
    found = []
    for node in nav_entries(config_text):
        target = node.value.lstrip("/")
        if target.endswith(".md") and not urlsplit(target).scheme and target not in known:
            found.append((node, target))
    return found


def nav_missing_pages(
    config_text: str, shown: str, pages: Iterable[str], renames: Mapping[str, str] | None = None
) -> list[Diagnostic]:
    """The entries of the config's ``nav:`` that name a page not in the docs, at their line of the config file
    ``shown`` (``renames``: the pages git saw renamed, for the hint)."""
    known = set(pages)
    return [
        Diagnostic(
            Location(shown, node.start_mark.line + 1, node.start_mark.column + 1),
            f"the nav names {target}, which is not a page in the docs",
            "nav-missing-page",
            hint=missing_page_hint(target, known, "", {} if renames is None else renames),
        )
        for node, target in missing_nav_entries(config_text, known)
    ]


def _nav_targets(node: Any) -> Iterator[Any]:
    if isinstance(node, yaml.ScalarNode):
        yield node
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _nav_targets(item)
    elif isinstance(node, yaml.MappingNode):
        for _, value in node.value:
            yield from _nav_targets(value)


def heading_ids(text: str, explicit: Iterable[str]) -> set[str]:
    """The ids a page's converted Markdown gives its headings, as the toc writes them (Python-Markdown's own
    ``unique`` makes a repeated id _1, _2...), with its explicit ids. Headings inside admonitions and tabs are
    indented: every line outside code is read as a possible heading (a stray extra id only means one fragment
    less reported)."""
    lines = text.split("\n")
    ids = set(explicit)
    for line, code in zip(lines, code_line_mask(lines), strict=False):
        heading = parse_heading(line.lstrip()) if not code and line.lstrip().startswith("#") else None
        if heading is not None:
            ids.add(heading.explicit_id or unique(heading.id, ids))
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
                hint = missing_page_hint(target, pages, page, {} if renames is None else renames)
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
