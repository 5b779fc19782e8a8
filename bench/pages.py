"""Page weight and first paint of every page of the built site, as Chromium loads it.

For each page of the nav (and the 404 page) a fresh browser profile (cold cache) opens the page
from a local static host, waits until the network is idle (Material's search worker fetches the
search index after load), and sums the bodies of every response: the document, scripts, styles,
fonts, images and the search index, including the worker's requests. Local hosts do not compress,
so each body is counted twice: as served (uncompressed) and gzip-compressed at level 6, which
estimates what a compressing host (GitHub Pages, Netlify) sends. First contentful paint comes
from performance.getEntriesByType('paint').

    python bench/pages.py                 # builds the site with mkdocs build --strict first
    python bench/pages.py --site site     # measures an existing build
    python bench/pages.py --json out.json

Exits 1 when the heaviest page exceeds the budget (default 1.5 MB = 1,500,000 bytes,
uncompressed: the weight on a host that does not compress; --budget-on gzip to judge the
compressed estimate instead), 2 when the site cannot be built or the browser cannot run.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.support import DESKTOP, browser_problem, launch, nav_sources, page_url, serve  # noqa: E402

KINDS = ("html", "js", "css", "search", "font", "image", "other")
MISSING = "no-such-page/"  # the 404 page, as a reader with a bad link gets it


@dataclass
class PageWeight:
    url: str
    requests: int = 0
    raw: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    gzip: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    fcp_ms: float | None = None
    external: list[str] = field(default_factory=list)

    @property
    def total_raw(self) -> int:
        return sum(self.raw.values())

    @property
    def total_gzip(self) -> int:
        return sum(self.gzip.values())


def kind_of(url: str, resource_type: str, content_type: str) -> str:
    path = urlsplit(url).path
    if path.endswith("search_index.json"):
        return "search"
    if resource_type == "document" or "text/html" in content_type:
        return "html"
    if resource_type == "script" or path.endswith(".js") or "javascript" in content_type:
        return "js"
    if resource_type == "stylesheet" or path.endswith(".css"):
        return "css"
    if resource_type == "font" or path.endswith((".woff2", ".woff", ".ttf")):
        return "font"
    if resource_type == "image" or content_type.startswith("image/"):
        return "image"
    return "other"


GZIP_CACHE: dict[bytes, int] = {}


def gzip_size(body: bytes) -> int:
    key = body[:64] + len(body).to_bytes(8, "little") + body[-64:]
    if key not in GZIP_CACHE:
        GZIP_CACHE[key] = len(gzip.compress(body, compresslevel=6, mtime=0))
    return GZIP_CACHE[key]


def measure(browser: Any, base: str, url: str) -> PageWeight:
    weight = PageWeight(url)
    context = browser.new_context(viewport=DESKTOP, base_url=base)  # a fresh profile: cold cache
    responses: list[Any] = []
    context.on("response", lambda response: responses.append(response))
    try:
        page = context.new_page()
        page.goto(url, wait_until="load")
        page.wait_for_load_state("networkidle")
        paint = page.evaluate("() => performance.getEntriesByType('paint')"
                              ".filter(e => e.name === 'first-contentful-paint').map(e => e.startTime)")
        weight.fcp_ms = round(paint[0], 1) if paint else None
        for response in responses:
            if not response.url.startswith(base):
                weight.external.append(response.url)
            if response.status in (204, 304) or 300 <= response.status < 400:
                continue
            try:
                body = response.body()
            except Exception:  # a response whose body the browser dropped (e.g. an aborted request)
                continue
            kind = kind_of(response.url, response.request.resource_type, response.headers.get("content-type", ""))
            weight.requests += 1
            weight.raw[kind] += len(body)
            weight.gzip[kind] += gzip_size(body)
    finally:
        context.close()
    return weight


def kb(n: int) -> str:
    return f"{n / 1000:,.0f}"


def table(weights: list[PageWeight]) -> str:
    head = ["page", "req", "HTML", "JS", "CSS", "search", "other", "total", "gzip", "FCP ms"]
    rows = []
    for w in weights:
        other = w.raw["font"] + w.raw["image"] + w.raw["other"]
        rows.append(["/" + w.url, str(w.requests), kb(w.raw["html"]), kb(w.raw["js"]), kb(w.raw["css"]),
                     kb(w.raw["search"]), kb(other), kb(w.total_raw), kb(w.total_gzip),
                     "-" if w.fcp_ms is None else f"{w.fcp_ms:.0f}"])
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    line = lambda r: "  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r))  # noqa: E731
    return "\n".join([line(head), line(["-" * w for w in widths]), *map(line, rows)])


def build_site(out: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true", "NO_COLOR": "1"}
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(ROOT / "mkdocs.yml"),
                             "-d", str(out)], capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise SystemExit(f"mkdocs build --strict failed:\n{result.stderr[-3000:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build one into a temporary folder)")
    parser.add_argument("--budget", type=float, default=1.5, help="largest page allowed, in MB (10^6 bytes)")
    parser.add_argument("--budget-on", choices=("raw", "gzip"), default="raw",
                        help="judge the uncompressed bytes (default) or the gzip estimate")
    parser.add_argument("--json", type=Path, help="also write the measurements here")
    args = parser.parse_args(argv)

    problem = browser_problem()
    if problem:
        print(f"bench/pages.py: {problem}", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="perfdocs-pages-") as tmp:
        site = args.site
        if site is None:
            site = Path(tmp) / "site"
            build_site(site)
        urls = [page_url(src) for src in nav_sources()] + [MISSING]
        with serve(site) as base, sync_playwright() as playwright:
            browser = launch(playwright)
            try:
                weights = [measure(browser, base, url) for url in urls]
            finally:
                browser.close()

    print(table(weights))
    print("\nkB = 1,000 bytes of response bodies; 'total' as served by a host that does not compress, "
          "'gzip' compressed at level 6 (what GitHub Pages or Netlify would send).")
    heaviest = max(weights, key=lambda w: w.total_raw if args.budget_on == "raw" else w.total_gzip)
    share = sorted(((heaviest.raw[k], k) for k in KINDS if heaviest.raw[k]), reverse=True)
    print(f"\nHeaviest page: /{heaviest.url}: {heaviest.total_raw:,} bytes uncompressed, "
          f"{heaviest.total_gzip:,} gzip-compressed, {heaviest.requests} requests")
    print("  by kind (uncompressed): " + ", ".join(
        f"{k} {b / heaviest.total_raw:.0%} ({kb(b)} kB, gzip {kb(heaviest.gzip[k])} kB)" for b, k in share))
    external = sorted({u for w in weights for u in w.external})
    if external:
        print(f"\nRequests outside the site: {external}")
    if args.json:
        args.json.write_text(json.dumps([{**asdict(w), "total_raw": w.total_raw, "total_gzip": w.total_gzip}
                                         for w in weights], indent=2), encoding="utf-8")

    limit = int(args.budget * 1_000_000)
    measured = heaviest.total_raw if args.budget_on == "raw" else heaviest.total_gzip
    label = "uncompressed" if args.budget_on == "raw" else "gzip-compressed"
    if measured > limit:
        print(f"\nOVER BUDGET: /{heaviest.url} transfers {measured:,} bytes {label}, budget {limit:,}")
        return 1
    print(f"\nWithin budget: heaviest page {measured:,} bytes {label} <= {limit:,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
