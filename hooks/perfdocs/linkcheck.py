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
from urllib.parse import unquote, urlsplit

from .diagnostics import Diagnostic, Location, SourceMap, did_you_mean
from .text import code_line_mask, mask_code_spans

LINK_TAG_RE = re.compile(r"<(?:a|img|link|script|iframe|source|area|audio|video|embed|track)\b[^<>]*>", re.I)
LINK_ATTR_RE = re.compile(r"""\s(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.I)
ID_RE = re.compile(r"""<[A-Za-z][\w:-]*\s[^<>]*?\b(?:id|name)\s*=\s*["']([^"']*)["']""")
REFRESH_RE = re.compile(r"""<meta\s+http-equiv=["']refresh["']\s+content=["']\d+\s*;\s*url=([^"']+)["']""", re.I)
ANCHOR_MAP_RE = re.compile(r"var t=(\"(?:[^\"\\]|\\.)*\"),m=(\{.*?\}),h=")
SKIP_LINK_RELS = re.compile(r"""\srel=["'](?:preconnect|dns-prefetch)["']""", re.I)
MAP_FILE = ".perfdocs/links.json"
MAX_REDIRECT_HOPS = 10


@dataclass(frozen=True)
class Target:
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
        rows = [[page, path, frag, link.location.path, link.location.line, link.location.col,
                 [list(x) for x in link.location.included_from], link.text, link.missing_page]
                for (page, path, frag), links in sorted(self.entries.items()) for link in links]
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
                found.append((line[m.start(1):m.end(1)], source_map.at(i, m.start(1) + 1)))
    return found


def link_targets(page_src: str, page_dest: str, links: Iterable[tuple[str, Location]],
                 dest_of: Mapping[str, str], base: str = "/") -> list[tuple[Target, SourceLink]]:
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
        joined = path[len(base):]
    else:
        joined = posixpath.join(posixpath.dirname(page), path)
    trailing = joined.endswith("/") or path.endswith("/")
    normal = posixpath.normpath(joined) if joined else "."
    if normal == ".." or normal.startswith("../"):
        return None
    normal = "" if normal == "." else normal
    return Target(normal + ("/" if trailing and normal else ""), fragment)


def scan_html(path: str, text: str, base: str = "/") -> PageScan:
    """Ids, resolved links and redirect data of one HTML file."""
    ids = set(ID_RE.findall(text))
    links: dict[Target, tuple[str, int]] = {}
    external: dict[str, tuple[str, int]] = {}
    outside: list[tuple[str, int]] = []
    for tag in LINK_TAG_RE.finditer(text):
        attr = LINK_ATTR_RE.search(tag.group(0))
        if attr is None or SKIP_LINK_RELS.search(tag.group(0)):
            continue
        raw = attr.group(1) if attr.group(1) is not None else attr.group(2) if attr.group(2) is not None \
            else attr.group(3)
        href = html.unescape(raw).strip()
        if not href:
            continue
        target = resolve_href(path, href, base)
        offset = tag.start() + attr.start()
        if isinstance(target, Target):
            links.setdefault(target, (href, offset))
        elif target is None:
            outside.append((href, offset))
        elif urlsplit(href).scheme in ("http", "https", ""):
            external.setdefault(href.split("#", 1)[0], (href, offset))
    scan = PageScan(path, ids, links, external, outside=outside)
    refresh = REFRESH_RE.search(text[:4000])
    if refresh:
        target = resolve_href(path, html.unescape(refresh.group(1)), base)
        scan.redirect = target if isinstance(target, Target) else None
        remap = ANCHOR_MAP_RE.search(text[:4000])
        if remap:
            for frag, href in json.loads(remap.group(2)).items():
                mapped = resolve_href(path, href, base)
                if isinstance(mapped, Target):
                    scan.fragment_map[frag] = mapped
    return scan


def _scan_file(args: tuple[str, str, str]) -> PageScan:
    root, rel, base = args
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
        return scan_html(rel, fh.read(), base)


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


def scan_site(site: Path, pages: list[str], base: str, jobs: int) -> dict[str, PageScan]:
    work = [(str(site), rel, base) for rel in pages]
    if jobs <= 1 or len(work) < 64:
        return {s.path: s for s in map(_scan_file, work)}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return {s.path: s for s in pool.map(_scan_file, work, chunksize=max(1, len(work) // (jobs * 8)))}


@dataclass
class Report:
    pages: int
    links: int  # distinct (page, target) pairs checked
    targets: int  # distinct targets resolved
    problems: list[Problem]
    external: dict[str, list[tuple[str, str, int]]]  # URL -> [(page, href, offset)]


class _Resolver:
    def __init__(self, files: set[str], dirs: set[str], scans: Mapping[str, PageScan]):
        self.files, self.dirs, self.scans = files, dirs, scans
        self.cache: dict[Target, tuple[str, str, str | None] | None] = {}

    def file_for(self, path: str) -> str | None:
        if path == "" or path.endswith("/"):
            candidate = path + "index.html"
            return candidate if candidate in self.files else None
        if path in self.files:
            return path
        if path in self.dirs and f"{path}/index.html" in self.files:
            return f"{path}/index.html"
        return None

    def check(self, target: Target) -> tuple[str, str, str | None] | None:
        """None when the target resolves; else (status, message, hint)."""
        if target not in self.cache:
            self.cache[target] = self._check(target, [])
        return self.cache[target]

    def _check(self, target: Target, hops: list[str]) -> tuple[str, str, str | None] | None:
        file = self.file_for(target.path)
        if file is None:
            shown = target.path or "/"
            return ("missing-file", f"no file {shown} in the site", None)
        scan = self.scans.get(file)
        if scan is None or not target.fragment:
            return None
        if scan.redirect is not None:
            if file in hops:
                return ("redirect-loop", "redirect loop: " + " -> ".join([*hops, file]), None)
            if len(hops) >= MAX_REDIRECT_HOPS:
                return ("redirect-loop", f"more than {MAX_REDIRECT_HOPS} redirects", None)
            nxt = scan.fragment_map.get(target.fragment) or Target(scan.redirect.path, target.fragment)
            return self._check(nxt, [*hops, file])
        if target.fragment in scan.ids:
            return None
        return ("missing-fragment", f"no id '{target.fragment}' in {file}",
                did_you_mean(target.fragment, scan.ids))

    def check_redirect_page(self, file: str) -> tuple[str, str, str | None] | None:
        scan = self.scans[file]
        assert scan.redirect is not None
        return self._check(scan.redirect, [file]) if scan.redirect.fragment else (
            None if self.file_for(scan.redirect.path) else ("missing-file", f"redirect target {scan.redirect.path} "
                                                           "is not in the site", None))


def check_site(site: Path, base: str = "/", jobs: int | None = None) -> Report:
    files, dirs, pages = collect(site)
    scans = scan_site(site, pages, base, jobs if jobs is not None else min(2, os.cpu_count() or 1))
    resolver = _Resolver(files, dirs, scans)
    problems: list[Problem] = []
    external: dict[str, list[tuple[str, str, int]]] = {}
    n_links = 0
    for page in pages:
        scan = scans[page]
        for href, offset in scan.outside:
            problems.append(Problem("outside-site", page, href, offset, f"'{href}' points outside the site"))
        for target, (href, offset) in scan.links.items():
            n_links += 1
            result = resolver.check(target)
            if result is not None:
                status, message, hint = result
                problems.append(Problem(status, page, href, offset, message, hint))
        for url, (href, offset) in scan.external.items():
            external.setdefault(url, []).append((page, href, offset))
    return Report(len(pages), n_links, len(resolver.cache), problems, external)


def html_line(site: Path, page: str, offset: int) -> int:
    with open(site / page, encoding="utf-8", errors="replace") as fh:
        return fh.read(offset).count("\n") + 1


def to_diagnostics(report: Report, site: Path, link_map: LinkMap | None, site_label: str,
                   base: str = "/") -> list[Diagnostic]:
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
                    hint = did_you_mean(src.missing_page, link_map.sources_docs()) if kind == "page" else None
                else:
                    shown = f"broken link '{src.text}': {problem.message}"
                    hint = problem.hint
                out.append(Diagnostic(src.location, shown, problem.status, hint=hint))
            continue
        where = f"{site_label.rstrip('/')}/{problem.page}"
        source = link_map.sources.get(problem.page) if link_map else None
        hint = problem.hint if not source else "; ".join(filter(None, [problem.hint, f"page built from {source}"]))
        out.append(Diagnostic(Location(where, html_line(site, problem.page, problem.offset)), message,
                              problem.status, hint=hint))
    unique = list(dict.fromkeys(out))
    return sorted(unique, key=lambda d: (d.location.path, d.location.line, d.location.col, d.message))


def external_diagnostics(report: Report, results: Mapping[str, object], site: Path, link_map: LinkMap | None,
                         site_label: str) -> list[Diagnostic]:
    """Broken external URLs, located at every Markdown line (or HTML page) that links them."""
    out: list[Diagnostic] = []
    for url, uses in sorted(report.external.items()):
        result = results.get(url)
        status = getattr(result, "status", "ok")
        if status in ("ok", "ignored"):
            continue
        message = f"external link '{url}': {getattr(result, 'message', status)}"
        for page, href, offset in uses:
            sources = link_map.find(page, Target(url, "")) if link_map else []
            if sources:
                out += [Diagnostic(s.location, message, f"external-{status}") for s in sources]
            else:
                out.append(Diagnostic(Location(f"{site_label.rstrip('/')}/{page}", html_line(site, page, offset)),
                                      message, f"external-{status}"))
    return sorted(dict.fromkeys(out), key=lambda d: (d.location.path, d.location.line, d.location.col))


__all__ = ["external_diagnostics", "link_targets", "markdown_links", "LinkMap", "PageScan", "Problem", "Report", "SourceLink", "Target", "base_path", "check_site",
           "collect", "resolve_href", "scan_html", "to_diagnostics", "MAP_FILE"]
