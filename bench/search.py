"""How well search answers what readers type, and how fast, in Chromium against the built site.

For every query of tests/search_queries.yml the reader's page is opened (a fresh profile: the index is
fetched and set up there as a reader's browser does), the query goes to the site's search worker as
Material's search box sends it, and the answer is read as the result list shows it: one entry per page,
led by its best section. Printed per query: the first result, whether it is the section the reader wants
(and where the wanted one ranks otherwise), and the titles of the first three results. Then the totals:
first-result hits, top-3 lists in which a title repeats, and the time from the index being loaded (fetched
and parsed) to the first answer, which includes building the lunr index, plus the time of later queries.

    python bench/search.py                 # builds the site with mkdocs build --strict first
    python bench/search.py --site site     # an existing build
    python bench/search.py --json out.json

Exits 2 when the site cannot be built or the browser cannot run; the scores are reported, not judged
(tests/browser/test_search.py holds the search to them).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from html import unescape
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.support import DESKTOP, browser_problem, launch, serve  # noqa: E402

QUERIES = ROOT / "tests" / "search_queries.yml"

# Keeps Material's search worker at hand and records its answers (each says which query it answers).
CAPTURE = """
(() => {
  const Native = window.Worker
  const state = window.__bench = { worker: null, ready: false, answers: new Map() }
  window.Worker = class extends Native {
    constructor(url, options) {
      super(url, options)
      if (!String(url).includes("search"))
        return
      state.worker = this
      this.addEventListener("message", event => {
        const message = event.data || {}
        if (message.type === 1)
          state.ready = true
        else if (message.type === 3 && message.data && "query" in message.data)
          state.answers.set(message.data.query, { data: message.data, at: performance.now() })
      })
    }
  }
})()
"""

ASK = """
async query => {
  const state = window.__bench
  state.answers.delete(query)
  const start = performance.now()
  state.worker.postMessage({ type: 2, data: query })
  while (!state.answers.has(query))
    await new Promise(resolve => setTimeout(resolve, 2))
  const { data, at } = state.answers.get(query)
  return { items: data.items.map(group => group.map(item => ({ location: item.location, title: item.title,
                                                               score: item.score }))),
           timing: data.timing ?? null, ms: at - start }
}
"""


@dataclass
class Answer:
    query: str
    origin: str
    want: str
    first: str | None
    hit: bool
    rank: int | None  # of the wanted section among all results shown, 1-based
    top3: list[str]
    repeats: bool
    ms: float
    timing: dict[str, float] | None = None


@dataclass
class Report:
    answers: list[Answer] = field(default_factory=list)
    first_after_load_ms: list[float] = field(default_factory=list)  # one per fresh page
    steps_ms: dict[str, list[float]] = field(default_factory=dict)  # of that: the worker's steps (timing)
    first_total_ms: list[float] = field(default_factory=list)
    later_ms: list[float] = field(default_factory=list)

    @property
    def hits(self) -> int:
        return sum(a.hit for a in self.answers)

    @property
    def repeats(self) -> int:
        return sum(a.repeats for a in self.answers)


def plain(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", "", html)).split())


def read(items: list[list[dict[str, str]]], query: dict[str, str], ms: float, timing: Any) -> Answer:
    """The answer as the result list shows it: a page per entry, its best section (the first) leading."""
    leads = [group[0] for group in items if group]
    shown = [item["location"] for group in items for item in group]
    first = leads[0]["location"] if leads else None
    top3 = [plain(lead["title"]) for lead in leads[:3]]
    want = query["want"]
    return Answer(query["query"], query.get("from", ""), want, first, first == want,
                  shown.index(want) + 1 if want in shown else None, top3, len(set(top3)) < len(top3), ms, timing)


def run(browser: Any, base: str, queries: list[dict[str, str]], report: Report) -> None:
    by_page: dict[str, list[dict[str, str]]] = {}
    for query in queries:
        by_page.setdefault(query.get("from", ""), []).append(query)
    for origin, asked in by_page.items():
        context = browser.new_context(viewport=DESKTOP, base_url=base)  # a fresh profile: cold cache
        try:
            context.add_init_script(CAPTURE)
            page = context.new_page()
            page.goto(origin or "./", wait_until="load")
            page.wait_for_function("() => window.__bench.ready")
            for i, query in enumerate(asked):
                result = page.evaluate(ASK, query["query"])
                answer = read(result["items"], query, result["ms"], result["timing"])
                report.answers.append(answer)
                if i == 0:
                    report.first_total_ms.append(result["ms"])
                    timing = result["timing"] or {}
                    if "loaded_to_answer" in timing:
                        report.first_after_load_ms.append(timing["loaded_to_answer"])
                    for step, ms in timing.items():
                        if step != "loaded_to_answer":
                            report.steps_ms.setdefault(step, []).append(ms)
                else:
                    report.later_ms.append(result["ms"])
        finally:
            context.close()


def show(report: Report) -> str:
    lines = []
    for a in report.answers:
        mark = "HIT " if a.hit else f"miss (wanted at {a.rank})" if a.rank else "miss (wanted not shown)"
        lines.append(f"{'R' if a.repeats else ' '} {a.query!r:32} from /{a.origin:28} {mark}")
        if not a.hit:
            lines.append(f"      first: {a.first}\n      want:  {a.want}")
        lines.append(f"      top 3: {' | '.join(a.top3)}")
    n = len(report.answers)
    lines.append(f"\nfirst result is the wanted section: {report.hits}/{n}")
    lines.append(f"top-3 lists that repeat a title:    {report.repeats}/{n}")
    if report.first_after_load_ms:
        after = report.first_after_load_ms
        lines.append(f"first answer after the index loaded: median {statistics.median(after):.0f} ms, "
                     f"max {max(after):.0f} ms ({len(after)} pages)")
        for step, values in report.steps_ms.items():
            lines.append(f"  of which {step + ':':31} median {statistics.median(values):.0f} ms, "
                         f"max {max(values):.0f} ms")
    first = report.first_total_ms
    lines.append(f"first answer, fetch included:        median {statistics.median(first):.0f} ms, "
                 f"max {max(first):.0f} ms")
    if report.later_ms:
        later = report.later_ms
        lines.append(f"later answers:                       median {statistics.median(later):.1f} ms, "
                     f"max {max(later):.1f} ms")
    return "\n".join(lines)


def build_site(out: Path) -> None:
    import subprocess

    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(ROOT / "mkdocs.yml"),
                             "-d", str(out)], capture_output=True, text=True,
                            env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1", "NO_COLOR": "1"})
    if result.returncode != 0:
        print(f"mkdocs build --strict failed:\n{result.stderr[-3000:]}", file=sys.stderr)
        raise SystemExit(2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, help="a built site (default: build one)")
    parser.add_argument("--queries", type=Path, default=QUERIES)
    parser.add_argument("--json", type=Path, help="write the answers and timings here")
    args = parser.parse_args(argv)
    problem = browser_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 2
    queries = yaml.safe_load(args.queries.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site
        if site is None:
            site = Path(tmp) / "site"
            build_site(site)
        from playwright.sync_api import sync_playwright

        report = Report()
        with serve(site) as base, sync_playwright() as playwright:
            browser = launch(playwright)
            try:
                run(browser, base, queries, report)
            finally:
                browser.close()
    print(show(report))
    if args.json:
        args.json.write_text(json.dumps({
            "answers": [asdict(a) for a in report.answers],
            "first_after_load_ms": report.first_after_load_ms,
            "steps_ms": report.steps_ms,
            "first_total_ms": report.first_total_ms,
            "later_ms": report.later_ms,
        }, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
