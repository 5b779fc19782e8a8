"""Checks every internal link, image and fragment of a built site.

A small pipeline, each stage pure:
  collect   the site's files;
  scan      each HTML file once (in parallel): its ids, its links resolved to site paths, and
            where it redirects to when it is a redirect page;
  resolve   each distinct target once: file exists? fragment is an id there? redirects followed;
  report    problems as Diagnostics, mapped back to the Markdown source through a link map
            (written by the build) when one is available.
"""

from __future__ import annotations

import html
import json
import os
import posixpath
import re
from collections.abc import Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

from .diagnostics import Diagnostic, Location, SourceMap, did_you_mean
from .text import code_line_mask, mask_code_spans

LINK_RE = re.compile(
    r"""<(?:a|img|link|script|iframe|source|area|audio|video|embed|track)\s[^<>]*?"""
    r"""(?<=\s)(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))()""",
    re.I,
)
ID_RE = re.compile(r"""\sid\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
A_NAME_RE = re.compile(r"""<a\s[^<>]*?\bname\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.I)
COMMENT_RE = re.compile(r"<!--.*?-->", re.S)
FAST_ID_RE = re.compile(r' id="([^"]*)"')
FAST_LINK_RE = re.compile(
    r"<(?:a|img|link|script|iframe|source|area|audio|video|embed|track) [^>]*?(?<= )"
    r'(?:href|src)="([^"]*)"'
)
REFRESH_RE = re.compile(r"""<meta\s+http-equiv=["']refresh["']\s+content=["']\d+\s*;\s*url=([^"']+)["']""", re.I)
ANCHOR_MAP_RE = re.compile(r"var t=(\"(?:[^\"\\]|\\.)*\"),m=(\{.*?\}),h=")
MAP_FILE = ".perfdocs/links.json"
MAX_REDIRECT_HOPS = 10


class Target(NamedTuple):
    path: str  # site-relative path of a file ("" or ending "/" for directories), percent-decoded
    fragment: str  # "" when the link has none


@dataclass
class PageScan:
    path: str
    ids: set[str]
    links: dict[Target, tuple[str, int]]  # target -> (href as written, offset of its first use)
    external: dict[str, tuple[str, int]]  # http(s) URL -> (href, offset)
    redirect: Target | None = None
    fragment_map: dict[str, Target] = field(default_factory=dict)
    outside: list[tuple[str, int]] = field(default_factory=list)  # hrefs leaving the site's root


@dataclass(frozen=True)
class Problem:
    status: str  # missing-file | missing-fragment | outside-site | redirect-loop
    page: str  # site-relative HTML file holding the link
    href: str
    offset: int
    message: str
    hint: str | None = None


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

    def find(self, page: str, target: Target) -> list[SourceLink]:
        return self.entries.get((page, _canonical(target.path), target.fragment), [])

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


MD_LINK_RE = re.compile(r"\]\(\s*<?([^)\s>]+)")
MD_REF_DEF_RE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
MD_HTML_ATTR_RE = re.compile(r"""\s(?:href|src)\s*=\s*["']([^"']+)["']""")


def markdown_links(text: str, source_map: SourceMap) -> list[tuple[str, Location]]:
    """Link and image targets of Markdown (outside code), each with the place it was written."""
    found = []
    lines = text.split("\n")
    for i, (line, code) in enumerate(zip(lines, code_line_mask(lines))):
        if code or ("](" not in line and "]:" not in line and "=" not in line):
            continue
        masked = mask_code_spans(line)
        for regex in (MD_LINK_RE, MD_REF_DEF_RE, MD_HTML_ATTR_RE):
            for m in regex.finditer(masked):
                found.append((line[m.start(1) : m.end(1)], source_map.at(i, m.start(1) + 1)))
    return found


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
    """The site target of ``href`` on ``page``; a URL string when it leaves the site; None if outside."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        return href
    path = unquote(parts.path)
    fragment = unquote(parts.fragment)
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


def page_ids(text: str) -> set[str]:
    """Every id (and legacy <a name>) in an HTML page.

    Fast literal patterns first; when they do not account for every ``id=``/``name=`` in the page
    (odd quoting or spacing, upper case), the general pattern decides.
    """
    text = _without_comments(text)
    ids = FAST_ID_RE.findall(text)
    if len(ids) != text.count("id="):
        ids = [a or b or c for a, b, c in ID_RE.findall(text)]
    names = [a or b or c for a, b, c in A_NAME_RE.findall(text)] if "name=" in text else []
    return set(ids) | set(names)


def _without_comments(text: str) -> str:
    """HTML comments blanked out (line breaks kept, so offsets and lines stay right)."""
    if "<!--" not in text:
        return text
    return COMMENT_RE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def page_links(text: str) -> list[str]:
    """The distinct href/src values of a page, as written (entities decoded), in order of first use."""
    text = _without_comments(text)
    fast = FAST_LINK_RE.findall(text)
    if len(fast) == text.count("href=") + text.count("src=") and "HREF" not in text and "SRC" not in text:
        raw = dict.fromkeys(fast)
    else:
        raw = dict.fromkeys(a or b or c for a, b, c, _ in LINK_RE.findall(text))
    out = dict.fromkeys((html.unescape(k) if "&" in k else k).strip() for k in raw)
    out.pop("", None)
    return list(out)


def link_offset(text: str, href: str) -> int:
    """Where ``href`` is first used in the page (for the line of a report)."""
    for candidate in {href, html.escape(href, quote=True), href.replace("&", "&amp;")}:
        for quote in ('"', "'", ""):
            pos = text.find(f"={quote}{candidate}{quote}")
            if pos >= 0:
                return pos + 1 + len(quote)
    return 0


def page_redirect(path: str, text: str, base: str) -> tuple[Target | None, dict[str, Target]]:
    """Where a redirect page (meta refresh) sends readers, and its per-fragment remaps."""
    refresh = REFRESH_RE.search(text[:4000])
    if not refresh:
        return None, {}
    target = resolve_href(path, html.unescape(refresh.group(1)), base)
    remaps: dict[str, Target] = {}
    remap = ANCHOR_MAP_RE.search(text[:4000])
    if remap:
        for frag, href in json.loads(remap.group(2)).items():
            mapped = resolve_href(path, href, base)
            if isinstance(mapped, Target):
                remaps[frag] = mapped
    return (target if isinstance(target, Target) else None), remaps


def scan_html(path: str, text: str, base: str = "/") -> PageScan:
    """Ids, resolved links and redirect data of one HTML file."""
    links: dict[Target, tuple[str, int]] = {}
    external: dict[str, tuple[str, int]] = {}
    outside: list[tuple[str, int]] = []
    for href in page_links(text):
        offset = link_offset(text, href)
        target = resolve_href(path, href, base)
        if isinstance(target, Target):
            links.setdefault(target, (href, offset))
        elif target is None:
            outside.append((href, offset))
        elif urlsplit(href).scheme in ("http", "https"):
            external.setdefault(href.split("#", 1)[0], (href, offset))
    redirect, remaps = page_redirect(path, text, base)
    return PageScan(path, page_ids(text), links, external, redirect, remaps, outside)


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
    external: dict[str, list[tuple[str, str, int]]]  # URL -> [(page, href, offset)]


@dataclass
class _PageInfo:
    ids: set[str]
    redirect: Target | None
    remaps: dict[str, Target]


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


class _Checker:
    """Resolves hrefs and checks targets, each distinct one once (caches shared by every page)."""

    def __init__(
        self,
        files: set[str],
        dirs: set[str],
        info: Mapping[str, _PageInfo],
        base: str,
        site: Path | None = None,
        defer: bool = False,
    ):
        self.files, self.dirs, self.base, self.site = files, dirs, base, site
        self.info: dict[str, _PageInfo] = dict(info)
        self.defer = defer  # leave fragments on other pages to the caller (they need those pages' ids)
        self.current: tuple[str, str] | None = None  # (page, text) being checked
        self.pending: list[tuple[str, str, Target]] = []  # (page, href, target) deferred
        self.resolved: dict[tuple[str, str], Target | str | None] = {}
        self.results: dict[Target, tuple[str, str, str | None] | None] = {}
        self.links: dict[tuple[str, str], tuple[str, str, str | None] | str | None] = {}

    def resolve(self, page_dir: str, href: str) -> Target | str | None:
        """``href`` seen from a page in ``page_dir``; '../' steps are folded first, so sibling pages share."""
        directory, rest = page_dir, href
        while rest.startswith("../") and directory:
            directory, rest = directory.rpartition("/")[0], rest[3:]
        if not rest or rest[0] in "#?":  # '../' alone, or '../#x': the directory itself
            rest = "./" + rest
        key = (directory, rest)
        if key not in self.resolved:
            self.resolved[key] = resolve_href(directory + "/_" if directory else "_", rest, self.base)
        return self.resolved[key]

    def file_for(self, path: str) -> str | None:
        return file_for(path, self.files, self.dirs)

    def info_of(self, file: str) -> _PageInfo | None:
        """Ids and redirect data of an HTML file, read once and only when a fragment needs them."""
        if file not in self.info:
            if not file.endswith(".html") or self.site is None:
                return None
            if self.current is not None and self.current[0] == file:
                text = self.current[1]
            else:
                with open(self.site / file, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            redirect, remaps = page_redirect(file, text, self.base)
            self.info[file] = _PageInfo(page_ids(text), redirect, remaps)
        return self.info[file]

    def check(self, target: Target) -> tuple[str, str, str | None] | None:
        """None when the target resolves; else (status, message, hint)."""
        if target not in self.results:
            self.results[target] = self._check(target, [])
        return self.results[target]

    def _check(self, target: Target, hops: list[str]) -> tuple[str, str, str | None] | None:
        file = self.file_for(target.path)
        if file is None:
            return ("missing-file", f"no file {target.path or '/'} in the site", None)
        if not target.fragment:
            return None
        info = self.info_of(file)
        if info is None:
            return None
        if info.redirect is not None:
            if file in hops:
                return ("redirect-loop", "redirect loop: " + " -> ".join([*hops, file]), None)
            if len(hops) >= MAX_REDIRECT_HOPS:
                return ("redirect-loop", f"more than {MAX_REDIRECT_HOPS} redirects", None)
            nxt = info.remaps.get(target.fragment) or Target(info.redirect.path, target.fragment)
            return self._check(nxt, [*hops, file])
        if target.fragment in info.ids or target.fragment.lower() == "top":  # browsers scroll #top to the top
            return None
        return ("missing-fragment", f"no id '{target.fragment}' in {file}", did_you_mean(target.fragment, info.ids))

    def verdict(self, page: str, page_dir: str, parent: str, href: str) -> tuple[str, str, str | None] | str | None:
        """None when the link is fine, a problem (status, message, hint), or an external URL string.

        Cached by (directory, href): sibling pages share '../' links, so the nav is resolved once.
        """
        if href.startswith("#"):
            return self.check(Target(page, unquote(href[1:])))
        key = (parent, href) if href.startswith("../") else (page_dir, href)
        if key in self.links:
            return self.links[key]
        target = self.resolve(page_dir, href)
        if isinstance(target, Target) and target.fragment and self.defer and self.file_for(target.path) != page:
            missing = self.file_for(target.path) is None
            result: tuple[str, str, str | None] | str | None = self.check(target) if missing else ("defer", "", None)
        elif isinstance(target, Target):
            result = self.check(target)
        elif target is None:
            result = ("outside-site", f"'{href}' points outside the site", None)
        else:
            result = target.split("#", 1)[0] if urlsplit(target).scheme in ("http", "https") else None
        self.links[key] = result
        return result

    def check_page(self, page: str, text: str) -> tuple[int, list[Problem], list[tuple[str, str, int]]]:
        self.current = (page, text)
        problems, external = [], []
        page_dir = page.rpartition("/")[0]
        parent = page_dir.rpartition("/")[0]
        links = page_links(text)
        for href in links:
            result = self.verdict(page, page_dir, parent, href)
            if result is None:
                continue
            if isinstance(result, str):
                external.append((result, href, link_offset(text, href)))
            elif result[0] == "defer":
                target = self.resolve(page_dir, href)
                assert isinstance(target, Target)
                self.pending.append((page, href, target))
            else:
                problems.append(Problem(result[0], page, href, link_offset(text, href), result[1], result[2]))
        redirect, _ = page_redirect(page, text, self.base)
        if redirect is not None and self.file_for(redirect.path) is None:
            message = f"redirect target {redirect.path or '/'} is not in the site"
            problems.append(Problem("missing-file", page, redirect.path, 0, message))
        return len(links), problems, external


# Work shared with forked workers: set before a pool starts, read (copy-on-write) by the workers.
_SHARED: dict[str, object] = {}


def _read(rel: str) -> str:
    with open(os.path.join(str(_SHARED["site"]), rel), encoding="utf-8", errors="replace") as fh:
        return fh.read()


Chunk = tuple[
    list[tuple[str, int, list[Problem], list[tuple[str, str, int]]]], list[tuple[str, str, Target]], set[Target]
]


def _check_chunk(pages: list[str]) -> Chunk:
    checker = _SHARED["checker"]
    assert isinstance(checker, _Checker)
    checker.pending = []
    done = [(page, *checker.check_page(page, _read(page))) for page in pages]
    return done, checker.pending, set(checker.results)


def _chunks(items: list[str], n: int) -> list[list[str]]:
    size = max(1, -(-len(items) // n))
    return [items[i : i + size] for i in range(0, len(items), size)]


def _run_chunks(pages: list[str], jobs: int) -> list[Chunk]:
    import gc
    import multiprocessing

    if jobs <= 1 or len(pages) < 64 or "fork" not in multiprocessing.get_all_start_methods():
        return [_check_chunk(pages)]
    gc.freeze()  # forked workers then leave the parent's objects (a whole MkDocs build) untouched
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_check_chunk, _chunks(pages, jobs * 4)))
    finally:
        gc.unfreeze()


def check_site(site: Path, base: str = "/", jobs: int | None = None) -> Report:
    """Every internal link and fragment of the built site at ``site``.

    Workers check each page's links (file existence and same-page fragments need nothing else);
    fragments on other pages come back to this process, which reads just the pages they name.
    """
    jobs = jobs if jobs is not None else min(2, os.cpu_count() or 1)
    files, dirs, pages = collect(site)
    _SHARED.clear()
    _SHARED.update(site=str(site), base=base, checker=_Checker(files, dirs, {}, base, site, defer=True))
    problems: list[Problem] = []
    external: dict[str, list[tuple[str, str, int]]] = {}
    targets: set[Target] = set()
    pending: list[tuple[str, str, Target]] = []
    n_links = 0
    try:
        for chunk, deferred, checked in _run_chunks(pages, jobs):
            targets |= checked
            pending += deferred
            for page, count, page_problems, page_external in chunk:
                n_links += count
                problems += page_problems
                for url, href, offset in page_external:
                    external.setdefault(url, []).append((page, href, offset))
    finally:
        _SHARED.clear()
    checker = _Checker(files, dirs, {}, base, site)
    texts: dict[str, str] = {}
    for page, href, target in pending:
        targets.add(target)
        result = checker.check(target)
        if result is not None:
            if page not in texts:
                texts[page] = (site / page).read_text(encoding="utf-8", errors="replace")
            problems.append(Problem(result[0], page, href, link_offset(texts[page], href), result[1], result[2]))
    return Report(len(pages), n_links, len(targets), sorted(problems, key=lambda p: (p.page, p.offset)), external)


def html_line(site: Path, page: str, offset: int) -> int:
    with open(site / page, encoding="utf-8", errors="replace") as fh:
        return fh.read(offset).count("\n") + 1


def to_diagnostics(
    report: Report, site: Path, link_map: LinkMap | None, site_label: str, base: str = "/"
) -> list[Diagnostic]:
    """Problems as located diagnostics: at the Markdown source when the link map knows it."""
    out: list[Diagnostic] = []
    for problem in report.problems:
        target = resolve_href(problem.page, problem.href, base)
        if isinstance(target, str):
            target = Target(target.split("#", 1)[0], "")
        sources = link_map.find(problem.page, target) if link_map and isinstance(target, Target) else []
        message = f"broken link '{problem.href}': {problem.message}"
        if sources:
            for src in sources:
                if src.missing_page:
                    kind = "page" if src.missing_page.endswith(".md") else "file"
                    shown = f"broken link '{src.text}': no {kind} {src.missing_page} in the docs"
                    hint = (
                        did_you_mean(src.missing_page, link_map.sources_docs()) if link_map and kind == "page" else None
                    )
                else:
                    shown = f"broken link '{src.text}': {problem.message}"
                    hint = problem.hint
                out.append(Diagnostic(src.location, shown, problem.status, hint=hint))
            continue
        where = f"{site_label.rstrip('/')}/{problem.page}"
        source = link_map.sources.get(problem.page) if link_map else None
        hint = problem.hint if not source else "; ".join(filter(None, [problem.hint, f"page built from {source}"]))
        out.append(
            Diagnostic(
                Location(where, html_line(site, problem.page, problem.offset)), message, problem.status, hint=hint
            )
        )
    unique = list(dict.fromkeys(out))
    return sorted(unique, key=lambda d: (d.location.path, d.location.line, d.location.col, d.message))


def external_diagnostics(
    report: Report, results: Mapping[str, object], site: Path, link_map: LinkMap | None, site_label: str
) -> list[Diagnostic]:
    """Broken external URLs, located at every Markdown line (or HTML page) that links them."""
    out: list[Diagnostic] = []
    for url, uses in sorted(report.external.items()):
        result = results.get(url)
        status = getattr(result, "status", "ok")
        if status in ("ok", "ignored"):
            continue
        message = f"external link '{url}': {getattr(result, 'message', status)}"
        for page, _href, offset in uses:
            sources = link_map.find(page, Target(url, "")) if link_map else []
            if sources:
                out += [Diagnostic(s.location, message, f"external-{status}") for s in sources]
            else:
                out.append(
                    Diagnostic(
                        Location(f"{site_label.rstrip('/')}/{page}", html_line(site, page, offset)),
                        message,
                        f"external-{status}",
                    )
                )
    return sorted(dict.fromkeys(out), key=lambda d: (d.location.path, d.location.line, d.location.col))


__all__ = [
    "external_diagnostics",
    "link_targets",
    "markdown_links",
    "LinkMap",
    "PageScan",
    "Problem",
    "Report",
    "SourceLink",
    "Target",
    "base_path",
    "check_site",
    "collect",
    "resolve_href",
    "scan_html",
    "file_for",
    "to_diagnostics",
    "MAP_FILE",
]
