"""redirects.yml in one build: read and checked against the site's pages and files when the files are known
(again alone when only it changed under ``mkdocs serve``), then, once every page is built, the ids its old deep
links name are checked and its redirect pages and Netlify file written (redirects.py does each step)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .diagnostics import Diagnostic
from .html import PageHTML, page_ids
from .redirects import (
    NETLIFY_FILE,
    RedirectHosts,
    RedirectMap,
    load_redirects,
    missing_anchor_problems,
    netlify_redirects,
    redirect_pages,
    site_file_clashes,
    write_redirect_pages,
)


@dataclass
class SiteRedirects:
    redirects: RedirectMap = field(default_factory=RedirectMap)
    complete: bool = True  # False when redirects.yml did not load: old URLs may then be missing
    anchor_targets: set[str] = field(default_factory=set)  # docs paths an old deep link sends a fragment to
    # what the last write wrote, by everything it wrote it from: a rebuild under mkdocs serve that changes none of
    # it (a snippet edit that leaves the target pages' titles and ids alone) writes nothing again
    written: tuple[Any, tuple[dict[str, str], list[Diagnostic]]] | None = None

    def load(
        self,
        path: Path,
        display: str,
        pages: Collection[str],
        site_files: set[str],
        hosts: RedirectHosts,
        renames: Mapping[str, str],
    ) -> list[Diagnostic]:
        """``path`` (shown as ``display``) against the site's ``pages`` (docs paths) and the files the build writes
        (``site_files``): its problems. A project without redirects.yml has none."""
        self.written = None
        if not path.is_file():
            return []
        self.redirects, problems = load_redirects(path.read_bytes(), display, set(pages), hosts, renames)
        problems += site_file_clashes(self.redirects, site_files, display)
        self.complete = not any(d.code == "bad-redirects" for d in problems)
        self.anchor_targets = {t.page for t in self.redirects.targets() if t.page and t.anchor}
        return problems

    def write(
        self,
        site: Path,
        display: str,
        page_url: Callable[[str], str],
        page_title: Callable[[str], str],
        dest_of: Mapping[str, str],
        content: Mapping[str, PageHTML],
        base: str,
    ) -> tuple[dict[str, str], list[Diagnostic]]:
        """The redirect pages and the Netlify file, written into ``site``: the pages (file -> HTML) and the
        problems (an old deep link to an id its page does not have, a page that cannot be written)."""
        ids = target_ids(self.anchor_targets, dest_of, content, site)
        rmap = self.redirects
        shown = sorted((page, page_url(page), page_title(page)) for page in {t.page for t in rmap.targets()} if page)
        found_ids = sorted((page, sorted(found)) for page, found in ids.items())
        key = (site, display, base, found_ids, shown, len(rmap.pages))
        if self.written is not None and self.written[0] == key and (site / NETLIFY_FILE).is_file():
            files, problems = self.written[1]
            return files, list(problems)
        problems = missing_anchor_problems(rmap, ids, display)
        files = redirect_pages(rmap, page_url, page_title, ids)
        problems += write_redirect_pages(site, files, rmap, display)
        (site / NETLIFY_FILE).write_text(netlify_redirects(rmap, page_url, base), encoding="utf-8")
        self.written = (key, (files, list(problems)))
        return files, problems


def target_ids(
    targets: set[str], dest_of: Mapping[str, str], content: Mapping[str, PageHTML], site: Path
) -> dict[str, set[str]]:
    """The ids of each page that redirects.yml sends a fragment to (``targets``, docs paths): of its content where
    this build parsed it, else of the page built in ``site`` (one ``mkdocs serve --dirty`` did not rebuild)."""
    found = {}
    for src in sorted(targets):
        dest = dest_of.get(src)
        if dest is None:
            continue
        parsed = content.get(dest)
        if parsed is not None:
            found[src] = parsed.ids
        elif (site / dest).is_file():
            found[src] = page_ids((site / dest).read_text(encoding="utf-8"))
    return found
