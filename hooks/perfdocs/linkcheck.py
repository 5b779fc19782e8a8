"""Checks every internal link, image and fragment of a built site.

A small pipeline over the site's HTML:
  collect   the site's files;
  parse     each HTML page once (html.parse_page, one HTML5 parse): its links, ids, base URL and,
            for a redirect page, where it sends readers;
  resolve   each distinct target once: file exists? fragment is an id there (as a browser matches
            it)? redirect pages followed, with their fragment remaps;
  report    problems at the line of their tag, or at the Markdown line that wrote the link when the
            link map (written by the build) knows it.
Everything here is a function of the site on disk; nothing logs or prints.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import partial
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote, unquote, urljoin, urlsplit

from .diagnostics import Diagnostic, Location, did_you_mean, sort_key
from .html import PageHTML, locate, page_ids, parse_page
from .parallel import default_jobs, fork_map
from .theory import THEORY_DIR

MAP_FILE = ".perfdocs/links.json"
MAX_REDIRECT_HOPS = 10
# A browser percent-encodes these in a URL's fragment (the URL standard's fragment percent-encode set is
# C0 controls, space, '"', '<', '>', '`' and every non-ASCII code point); everything else stays as written.
FRAGMENT_SAFE = "!#$%&'()*+,-./:;=?@[\\]^_{|}~"
FRAGMENT_UNSAFE = re.compile(r'[^!-~]|["<>`]')


class Target(NamedTuple):
    path: str  # site-relative path of a file ("" or ending "/" for directories), percent-decoded
    fragment: str  # "" when the link has none


@dataclass(frozen=True)
class Problem:
    status: str  # missing-file | missing-fragment | outside-site | redirect-loop
    page: str  # site-relative HTML file holding the link
    href: str  # the link as the page's parser read it (entities decoded)
    line: int  # 1-based line and column of the tag in the page
    col: int
    message: str
    hint: str | None = None
    target: Target | None = None  # where the link points, spelled as the link map spells it


@dataclass(frozen=True)
class SourceLink:
    location: Location
    text: str  # the link target as written in the Markdown
    missing_page: str | None = None  # docs-relative path the link names when no such file exists


@dataclass
class LinkMap:
    """Where each page's links came from: (page file, target path, fragment) -> Markdown locations."""

    entries: dict[tuple[str, str, str], list[SourceLink]] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)  # page file -> its Markdown source path

    def add(self, page: str, target: Target, link: SourceLink) -> None:
        self.entries.setdefault((page, _canonical(target.path), target.fragment), []).append(link)

    def forget(self, page: str) -> None:
        """Drop the links of ``page`` (it is about to be rendered again)."""
        self.entries = {key: links for key, links in self.entries.items() if key[0] != page}

    def find(self, page: str, target: Target) -> list[SourceLink]:
        return self.entries.get((page, _canonical(target.path), target.fragment), [])

    def find_file(self, page: str, path: str) -> list[SourceLink]:
        """The links of ``page`` to the file ``path`` with any fragment (for a file that does not exist)."""
        path = _canonical(path)
        return [
            link for (p, target, _), links in self.entries.items() if p == page and target == path for link in links
        ]

    def sources_docs(self) -> list[str]:
        """The docs-relative paths of the pages in the map (for 'did you mean')."""
        return sorted(p.split("docs/", 1)[-1] for p in self.sources.values())

    def to_json(self) -> str:
        rows = [
            [
                page,
                path,
                frag,
                link.location.path,
                link.location.line,
                link.location.col,
                [list(x) for x in link.location.included_from],
                link.text,
                link.missing_page,
            ]
            for (page, path, frag), links in sorted(self.entries.items())
            for link in links
        ]
        return json.dumps({"version": 1, "sources": self.sources, "links": rows}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> LinkMap:
        data = json.loads(text)
        if data.get("version") != 1:
            raise ValueError("unknown link map version")
        lmap = cls(sources=dict(data["sources"]))
        for page, path, frag, src, line, col, chain, raw, missing in data["links"]:
            loc = Location(src, line, col, tuple((p, n) for p, n in chain))
            lmap.add(page, Target(path, frag), SourceLink(loc, raw, missing))
        return lmap


def _canonical(path: str) -> str:
    """One spelling per directory URL: 'a/index.html' and 'a/' are the same page."""
    if path == "index.html":
        return ""
    return path[: -len("index.html")] if path.endswith("/index.html") else path


def link_targets(
    page_src: str, page_dest: str, links: Iterable[tuple[str, Location]], dest_of: Mapping[str, str], base: str = "/"
) -> list[tuple[Target, SourceLink]]:
    """Where the built HTML will point for each Markdown link (MkDocs' own .md rewriting)."""
    out = []
    for raw, loc in links:
        parts = urlsplit(raw)
        if parts.scheme or parts.netloc:
            out.append((Target(raw.split("#", 1)[0], ""), SourceLink(loc, raw)))
            continue
        path = unquote(parts.path)
        missing = None
        if path and not path.startswith("/"):
            src = posixpath.normpath(posixpath.join(posixpath.dirname(page_src), path))
            if src in dest_of:
                out.append((Target(dest_of[src], unquote(parts.fragment)), SourceLink(loc, raw)))
                continue
            missing = src
        target = resolve_href(page_dest, raw, base)
        if isinstance(target, Target):
            out.append((target, SourceLink(loc, raw, missing)))
    return out


def base_path(site_url: str | None) -> str:
    """The URL path the site is served under ('/' or '/docs/')."""
    path = urlsplit(site_url or "").path or "/"
    return path if path.endswith("/") else path + "/"


def resolve_href(page: str, href: str, base: str = "/") -> Target | str | None:
    """The site target of ``href`` on ``page``; a URL string when it leaves the site; None if outside.

    The fragment comes back percent-decoded (the link map's spelling).
    """
    target = _resolve(page, href, base)
    return Target(target.path, unquote(target.fragment)) if isinstance(target, Target) else target


def _resolve(page: str, href: str, base: str) -> Target | str | None:
    """Like resolve_href, with the fragment as a browser holds it: percent-encoded, never decoded.

    ``page`` may be a directory URL ("a/", or "" for the root) when a <base href> names one.
    """
    if href.startswith("#"):
        return Target(page, _browser_fragment(href[1:]))
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        return href
    path = unquote(parts.path)
    fragment = _browser_fragment(parts.fragment)
    if not path:
        return Target(page, fragment)
    if path.startswith("/"):
        if not path.startswith(base) and path + "/" != base:
            return None
        joined = path[len(base) :]
    else:
        joined = posixpath.join(posixpath.dirname(page), path)
    trailing = joined.endswith("/") or path.endswith("/")
    normal = posixpath.normpath(joined) if joined else "."
    if normal == ".." or normal.startswith("../"):
        return None
    normal = "" if normal == "." else normal
    return Target(normal + ("/" if trailing and normal else ""), fragment)


def _browser_fragment(fragment: str) -> str:
    """A fragment as the URL parser stores it (what ``location.hash`` shows)."""
    return quote(fragment, safe=FRAGMENT_SAFE) if FRAGMENT_UNSAFE.search(fragment) else fragment


def _percent_decoded(fragment: str) -> str | None:
    """The fragment percent-decoded as UTF-8; None when the bytes are not UTF-8 (a browser then gives up)."""
    if "%" not in fragment:
        return fragment
    try:
        return unquote(fragment, errors="strict")
    except UnicodeDecodeError:
        return None


def fragment_found(fragment: str, ids: set[str]) -> bool:
    """Whether a browser scrolls to ``fragment`` (as held in the URL) on a page with these ids.

    The HTML standard's order: an id (or <a name>) equal to the fragment as written, then one equal
    to its percent-decoding, then 'top' in any case scrolls to the top.
    """
    if fragment in ids:
        return True
    decoded = _percent_decoded(fragment)
    return decoded is not None and (decoded in ids or decoded.lower() == "top")


def collect(site: Path) -> tuple[set[str], set[str], list[str]]:
    """All files, all directories and the HTML files of a site, site-relative."""
    files, dirs, pages = set(), {""}, []
    for dirpath, dirnames, filenames in os.walk(site):
        rel_dir = os.path.relpath(dirpath, site)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/")
        for d in dirnames:
            dirs.add(f"{rel_dir}/{d}" if rel_dir else d)
        for name in filenames:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            files.add(rel)
            if name.endswith(".html"):
                pages.append(rel)
    return files, dirs, sorted(pages)


@dataclass
class Report:
    pages: int
    links: int  # distinct (page, href) pairs checked
    targets: int  # distinct targets resolved
    problems: list[Problem]
    external: dict[str, list[tuple[str, str]]]  # URL (no fragment) -> [(page, href)]


def file_for(path: str, files: set[str], dirs: set[str]) -> str | None:
    """The site file a target path is served from (directory URLs serve their index.html)."""
    if path == "" or path.endswith("/"):
        candidate = path + "index.html"
        return candidate if candidate in files else None
    if path in files:
        return path
    if path in dirs and f"{path}/index.html" in files:
        return f"{path}/index.html"
    return None


Verdict = tuple[str, str, str | None]  # (status, message, hint)
Outcome = tuple[Target | str | None, Verdict | None]  # (site target, http(s) URL or None; what is wrong)


class _Checker:
    """Resolves hrefs and checks targets, each distinct one once, against the parsed pages of a site."""

    def __init__(self, files: set[str], dirs: set[str], pages: Mapping[str, PageHTML], base: str):
        self.files, self.dirs, self.pages, self.base = files, dirs, pages, base
        self.outcomes: dict[tuple[str, ...], Outcome] = {}  # (*scope, href) -> outcome
        self.fine: dict[tuple[str, ...], set[str]] = {}  # scope -> hrefs known to be fine from it
        self.results: dict[Target, Verdict | None] = {}
        self.served: dict[str, str | None] = {}  # target path -> the file serving it

    def origin(self, page: str, html: PageHTML) -> Target | str | None:
        """What the page's relative links resolve against: the page itself, or the URL of its <base href>."""
        if html.base is None:
            return Target(page, "")
        base = _resolve(page, html.base, self.base)
        return Target(base.path, "") if isinstance(base, Target) else base

    def resolve(self, origin: Target | str | None, href: str) -> Target | str | None:
        if isinstance(origin, Target):
            return _resolve(origin.path, href, self.base)
        parts = urlsplit(href)
        if parts.scheme or parts.netloc:
            return href
        # a <base href> outside the site: relative links leave it too, or become URLs of the other site
        return None if origin is None else urljoin(origin, href)

    def outcome(self, origin: Target | str | None, href: str) -> Outcome:
        target = self.resolve(origin, href)
        if isinstance(target, Target):
            return target, self.check(target)
        if target is None:
            return None, ("outside-site", "points outside the site", None)  # shared by hrefs: no href in it
        return (target if urlsplit(target).scheme in ("http", "https") else None), None

    def file_for(self, path: str) -> str | None:
        if path not in self.served:
            self.served[path] = file_for(path, self.files, self.dirs)
        return self.served[path]

    def check(self, target: Target) -> Verdict | None:
        """None when the target resolves; else (status, message, hint)."""
        if target in self.results:
            return self.results[target]
        result = self.results[target] = self._check(target, [])
        return result

    def _check(self, target: Target, hops: list[str]) -> Verdict | None:
        file = self.file_for(target.path)
        if file is None:
            return ("missing-file", f"no file {target.path or '/'} in the site", None)
        if not target.fragment:
            return None
        html = self.pages.get(file)
        if html is None:  # not an HTML page: nothing to say about its fragments
            return None
        if html.refresh is not None:
            if file in hops:
                return ("redirect-loop", "redirect loop: " + " -> ".join([*hops, file]), None)
            if len(hops) >= MAX_REDIRECT_HOPS:
                return ("redirect-loop", f"more than {MAX_REDIRECT_HOPS} redirects", None)
            nxt = self.redirected(file, html, target.fragment)
            return self._check(nxt, [*hops, file]) if isinstance(nxt, Target) else None
        if fragment_found(target.fragment, html.ids):
            return None
        shown = _percent_decoded(target.fragment) or target.fragment
        return ("missing-fragment", f"no id '{shown}' in {file}", did_you_mean(shown, html.ids))

    def redirected(self, file: str, html: PageHTML, fragment: str) -> Target | str | None:
        """Where a redirect page's script sends a reader who came for ``fragment``.

        The script looks the percent-decoded fragment up in its remaps; otherwise it appends the
        fragment to its target unless that target has a fragment of its own.
        """
        assert html.refresh is not None
        origin = self.origin(file, html)
        decoded = _percent_decoded(fragment)
        if decoded is not None and decoded in html.remaps:
            return self.resolve(origin, html.remaps[decoded])
        target = self.resolve(origin, html.refresh)
        if isinstance(target, Target) and not target.fragment:
            return Target(target.path, fragment)
        return target

    def check_page(
        self, page: str, html: PageHTML
    ) -> tuple[list[tuple[str, Verdict, Target | None]], list[tuple[str, str]]]:
        """The page's broken links (href, verdict, link-map target) and its http(s) links (href, URL).

        Outcomes are shared between pages by scope: '/x' links by every page, '../x' links by the
        children of one parent directory (so sibling pages share their nav), other relative links by
        the pages of one directory. The root page has no parent: its '../x.html' (which leaves the
        site) is scoped apart from 'dir/'s (which is 'x.html').
        """
        origin = self.origin(page, html)
        scopes = _scopes(origin.path) if isinstance(origin, Target) else None
        todo = set(html.urls)
        for scope in scopes or ():  # set differences, in C: most of a page's links are known to be fine
            todo.difference_update(self.fine.get(scope, ()))
        problems: list[tuple[str, Verdict, Target | None]] = []
        external: list[tuple[str, str]] = []
        for href in [h for h in html.urls if h in todo] if len(todo) < len(html.urls) else html.urls:
            if scopes is None or not href or href[0] in "#?":  # depends on the page (or base) itself
                target, verdict = self.outcome(origin, href)
            else:
                absolute, up, here = scopes
                scope = absolute if href[0] == "/" else up if up and href.startswith("../") else here
                key = (*scope, href)
                known = self.outcomes.get(key)
                if known is None:
                    known = self.outcomes[key] = self.shared_outcome(origin, key, href)
                target, verdict = known
                if verdict is None and isinstance(target, Target):
                    self.fine.setdefault(scope, set()).add(href)
            if verdict is not None:
                mapped = Target(target.path, unquote(target.fragment)) if isinstance(target, Target) else None
                problems.append((href, verdict, mapped))
            elif isinstance(target, str):
                external.append((href, target))
        return problems, external

    def shared_outcome(self, origin: Target | str | None, key: tuple[str, ...], href: str) -> Outcome:
        """The outcome of ``href`` (known by ``key``); its path is resolved once for all its fragments."""
        path, hash_, fragment = href.partition("#")
        if not hash_:
            return self.outcome(origin, href)
        path_key = (*key[:-1], key[-1].partition("#")[0])
        known = self.outcomes.get(path_key)
        if known is None:
            known = self.outcomes[path_key] = self.outcome(origin, path)
        target, verdict = known
        if isinstance(target, Target) and verdict is None:
            target = Target(target.path, _browser_fragment(fragment))
            return target, self.check(target)
        return known


def _scopes(origin: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Who shares a link's outcome with a page at ``origin``: for '/x', for '../x' and for other relative links.

    '../x' is shared by every child of the parent directory; the root has no parent (empty scope: its
    '../x' links are scoped with its other links).
    """
    directory = origin.rpartition("/")[0]
    up = ("..", directory.rpartition("/")[0]) if directory else ()
    return ("/",), up, (directory,)


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read()


def _parse_chunk(site: str, pages: list[str]) -> list[PageHTML]:
    return [parse_page(_read(Path(site, page))) for page in pages]


Parsed = dict[str, tuple[bytes, PageHTML]]  # page -> (digest of its bytes, what they parse to)


def _parse_pages(site: Path, pages: list[str], jobs: int, cache: Parsed | None = None) -> dict[str, PageHTML]:
    """Every page parsed once; parsing is nearly all of the checker's time, and on two cores two forked
    workers halve it (numbers in bench/linkcheck.py). With ``cache`` (what the last check parsed), a page whose
    bytes did not change is not parsed again; the cache is left holding this check's pages."""
    if cache is None:
        return dict(zip(pages, fork_map(partial(_parse_chunk, str(site)), pages, jobs)))
    digests = {page: hashlib.sha256((site / page).read_bytes()).digest() for page in pages}
    found = {page: cache[page][1] for page in pages if page in cache and cache[page][0] == digests[page]}
    missing = [page for page in pages if page not in found]
    found |= dict(zip(missing, fork_map(partial(_parse_chunk, str(site)), missing, jobs)))
    cache.clear()
    cache.update({page: (digests[page], found[page]) for page in pages})
    return found


def check_site(
    site: Path,
    base: str = "/",
    jobs: int | None = None,
    known: Mapping[str, PageHTML] | None = None,
    cache: Parsed | None = None,
) -> Report:
    """Every internal link and fragment of the built site at ``site``.

    Each page is read and parsed once (in ``jobs`` processes; default: up to 2), then every distinct
    target is checked once in this process. Only pages with problems are read again, to find the
    line of each broken link's tag. ``known`` holds pages already parsed by the caller (the build passes
    each Markdown page's content): those are not read again; ``cache``: see _parse_pages.
    """
    files, dirs, pages = collect(site)
    known = {page: known[page] for page in pages if page in known} if known else {}
    rest = [page for page in pages if page not in known]
    parsed = {**known, **_parse_pages(site, rest, jobs if jobs is not None else default_jobs(), cache)}
    checker = _Checker(files, dirs, parsed, base)
    found: list[tuple[str, str, Verdict, Target | None]] = []
    external: dict[str, list[tuple[str, str]]] = {}
    for page in pages:
        problems, links_out = checker.check_page(page, parsed[page])
        found += [(page, href, verdict, target) for href, verdict, target in problems]
        for href, url in links_out:
            external.setdefault(url.split("#", 1)[0], []).append((page, href))
    located = _locate_all(site, [(page, href) for page, href, _, _ in found])
    problems_out = [
        Problem(verdict[0], page, href, *located[page, href], verdict[1], verdict[2], target)
        for page, href, verdict, target in found
    ]
    problems_out.sort(key=lambda p: (p.page, p.line, p.col, p.href))
    n_links = sum(len(html.urls) for html in parsed.values())
    return Report(len(pages), n_links, len(checker.results), problems_out, external)


def _locate_all(site: Path, links: Iterable[tuple[str, str]]) -> dict[tuple[str, str], tuple[int, int]]:
    """(line, col) of each (page, href), reading each page once."""
    by_page: dict[str, list[str]] = {}
    for page, href in links:
        by_page.setdefault(page, []).append(href)
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for page, hrefs in by_page.items():
        text = _read(site / page)
        for href in hrefs:
            out[page, href] = locate(text, href)
    return out


def to_diagnostics(
    report: Report,
    site: Path,
    link_map: LinkMap | None,
    site_label: str,
    base: str = "/",
    renames: Mapping[str, str] | None = None,
    by_page: dict[str, list[Diagnostic]] | None = None,
) -> list[Diagnostic]:
    """Problems as located diagnostics: at the Markdown source when the link map knows it, else at the tag.

    ``site`` and ``base`` are kept for callers; the report already holds every line and target.
    ``renames`` (docs-relative old path -> new path, from git) names the successor of a renamed page.
    ``by_page``, when given, gets the same diagnostics by the built page each problem is in (its "Build error" box).
    """
    out: list[Diagnostic] = []
    for problem in report.problems:
        found = _problem_diagnostics(problem, link_map, site_label, {} if renames is None else renames)
        out += found
        if by_page is not None:
            by_page.setdefault(problem.page, []).extend(found)
    if by_page is not None:
        for page, found in by_page.items():
            by_page[page] = _unique_sorted(found)
    return _unique_sorted(out)


def _unique_sorted(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(dict.fromkeys(diagnostics), key=sort_key)


def _problem_diagnostics(
    problem: Problem, link_map: LinkMap | None, site_label: str, renames: Mapping[str, str]
) -> list[Diagnostic]:
    sources = link_map.find(problem.page, problem.target) if link_map and problem.target else []
    if link_map and problem.target and problem.status == "missing-file":
        # 'gone.md#x': the file is the problem; the link written as this href, else every link to the file
        # (the target comes without its fragment then, and would find 'gone.md' alone)
        to_file = link_map.find_file(problem.page, problem.target.path)
        sources = [s for s in to_file if s.text == problem.href] or sources or to_file
    if sources:
        return [_source_diagnostic(problem, src, link_map, renames) for src in sources]
    where = f"{site_label.rstrip('/')}/{problem.page}"
    source = link_map.sources.get(problem.page) if link_map else None
    hint = problem.hint if not source else "; ".join(filter(None, [problem.hint, f"page built from {source}"]))
    message = f"broken link '{problem.href}': {problem.message}"
    return [Diagnostic(Location(where, problem.line, problem.col), message, problem.status, hint=hint)]


def _source_diagnostic(
    problem: Problem, src: SourceLink, link_map: LinkMap | None, renames: Mapping[str, str]
) -> Diagnostic:
    if src.missing_page:
        kind = "page" if src.missing_page.endswith(".md") else "file"
        shown = f"broken link '{src.text}': no {kind} {src.missing_page} in the docs"
        hint = None
        if link_map and kind == "page":
            holder = _docs_relative(link_map.sources.get(problem.page, ""))
            hint = missing_page_hint(src.missing_page, link_map.sources_docs(), holder, renames)
        return Diagnostic(src.location, shown, problem.status, hint=hint)
    return Diagnostic(src.location, f"broken link '{src.text}': {problem.message}", problem.status, hint=problem.hint)


def missing_page_hint(missing: str, pages: Iterable[str], holder: str, renames: Mapping[str, str]) -> str | None:
    """What to tell an author whose link names the missing docs-relative page ``missing``.

    A snippet is not a page; a page git saw renamed has its successor; otherwise the closest page by file name
    (the directory breaks ties), never ``holder`` (the page holding the link) and nothing below the cutoff.
    """
    if missing.startswith(THEORY_DIR + "/"):
        return "snippets are not pages: link to the section of the page that shows it"
    candidates = [p for p in pages if p != holder]
    renamed = renames.get(missing)
    if renamed in candidates:
        return f"did you mean '{renamed}'? git saw {missing} renamed to it"
    close = closest_page(missing, candidates)
    return f"did you mean '{close}'?" if close else None


def closest_page(missing: str, pages: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The page whose file name is most like ``missing``'s (at least ``cutoff`` alike), then whose path is."""
    stem = posixpath.basename(missing).removesuffix(".md")
    scored = [
        (SequenceMatcher(None, stem, posixpath.basename(p).removesuffix(".md")).ratio(), p) for p in sorted(pages)
    ]
    alike = [(score, SequenceMatcher(None, missing, p).ratio(), p) for score, p in scored if score >= cutoff]
    return max(alike)[2] if alike else None


def _docs_relative(source: str) -> str:
    return source.split("docs/", 1)[-1] if source else ""


def external_diagnostics(
    report: Report, results: Mapping[str, object], site: Path, link_map: LinkMap | None, site_label: str
) -> list[Diagnostic]:
    """Broken external URLs, located at every Markdown line (or HTML tag) that links them."""
    out: list[Diagnostic] = []
    broken: list[tuple[str, str, str, str]] = []  # (page, href, message, code)
    for url, uses in sorted(report.external.items()):
        result = results.get(url)
        status = getattr(result, "status", "ok")
        if status in ("ok", "ignored"):
            continue
        message = f"external link '{url}': {getattr(result, 'message', status)}"
        for page, href in uses:
            sources = link_map.find(page, Target(url, "")) if link_map else []
            if sources:
                out += [Diagnostic(s.location, message, f"external-{status}") for s in sources]
            else:
                broken.append((page, href, message, f"external-{status}"))
    located = _locate_all(site, [(page, href) for page, href, _, _ in broken])
    for page, href, message, code in broken:
        line, col = located[page, href]
        out.append(Diagnostic(Location(f"{site_label.rstrip('/')}/{page}", line, col), message, code))
    return sorted(dict.fromkeys(out), key=lambda d: (d.location.path, d.location.line, d.location.col))


__all__ = [
    "MAP_FILE",
    "LinkMap",
    "Problem",
    "Report",
    "SourceLink",
    "Target",
    "base_path",
    "check_site",
    "collect",
    "external_diagnostics",
    "file_for",
    "fragment_found",
    "link_targets",
    "missing_page_hint",
    "page_ids",
    "resolve_href",
    "to_diagnostics",
]
