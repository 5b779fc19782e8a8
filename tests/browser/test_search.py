"""Search as a reader uses it, in Chromium: queries typed into Material's search box key by key, the results
read from the result list, a result followed to its page. The index is fetched on first use
(docs/assets/search.js and search-worker.js, hooks/perfdocs/search.py).

The reader queries of tests/search_queries.yml are typed on the page each reader is on: the first result must be
the section the reader wants for at least 20 in 24 of them, and no first three results may repeat a title; the
scores, and how long the first answer took after the index loaded, go to test-artifacts/search-queries.json
(bench/search.py measures the same outside pytest)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

from .conftest import Watch, settle
from .support import ARTIFACTS, DESKTOP, ROOT

QUERIES = yaml.safe_load((ROOT / "tests" / "search_queries.yml").read_text(encoding="utf-8"))

# Each search result message of the worker says which query it answers; this keeps the last one per page,
# recorded after Material (whose listener runs after this one) has rendered it.
ANSWERS = """
(() => {
  const Native = window.Worker
  window.__searchAnswered = null
  window.Worker = class extends Native {
    constructor(url, options) {
      super(url, options)
      this.addEventListener("message", event => {
        const data = event.data && event.data.type === 3 ? event.data.data : null
        if (data && data.timing)
          window.__searchTiming = data.timing
        if (data && "query" in data)
          setTimeout(() => { window.__searchAnswered = data.query })
      })
    }
  }
})()
"""


def answering(context: Any, watch: Watch, origin: str) -> Any:
    """A new watched tab on ``origin`` ("" for the home page), laid out, that records the search worker's answers
    (ANSWERS) from its first load on."""
    page = watch.attach(context.new_page())
    page.add_init_script(ANSWERS)
    page.goto(origin or "./")
    settle(page)
    return page


class ReaderTabs:
    """One tab per page a reader searches from, loaded once and shared by the module's searches: a search leaves
    nothing a later one reads (the box is filled again and each answer is awaited by its query), and a page, its
    search worker and the index it built cost 1.9 s of CPU to make. A test that follows a result, or needs a
    fresh page, opens its own."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self.tabs: dict[str, Any] = {}

    def on(self, origin: str, watch: Watch, request: pytest.FixtureRequest) -> Any:
        """The tab on ``origin``, watched by this test's ``watch`` until the test ends."""
        tab = self.tabs.get(origin)
        if tab is None:
            tab = self.tabs[origin] = answering(self.context, watch, origin)
        else:
            watch.attach(tab)
            tab.bring_to_front()  # a tab behind others has its timers slowed to one a second
        request.addfinalizer(lambda: watch.detach(tab))
        return tab


@pytest.fixture(scope="module")
def readers(browser: Any, base_url: str) -> Iterator[ReaderTabs]:
    context = browser.new_context(viewport=DESKTOP, base_url=base_url, color_scheme="light")
    yield ReaderTabs(context)
    context.close()


@pytest.fixture
def page(readers: ReaderTabs, watch: Watch, request: pytest.FixtureRequest) -> Any:
    """The shared tab on the scenario overview of inference."""
    return readers.on("performance/infer/", watch, request)


def search(page: Any, query: str, typed: bool = False) -> None:
    """Enter `query` and wait until the results for all of it are shown. Material searches on each key released:
    all but the last character are filled in at once and the last is typed, one search; ``typed`` types every key,
    as a reader does (a search per key, 0.5 s of CPU per query against 0.1 s). The last answer is forgotten first:
    on a shared tab it may be the same query's."""
    page.evaluate("() => { window.__searchAnswered = null }")
    box = page.locator(".md-search__input")
    box.click()
    if typed:
        box.fill("")
        box.press_sequentially(query, delay=5)
    else:
        box.fill(query[:-1])
        box.press(query[-1])
    page.wait_for_function("query => window.__searchAnswered === query", arg=query)


def results(page: Any) -> list[str]:
    """Every result link, in the order shown (pages, then their sections)."""
    return page.locator(".md-search-result__item a").evaluate_all("els => els.map(e => e.getAttribute('href'))")


def marked(page: Any) -> set[str]:
    """The words highlighted in the results, those folded under "more results" included."""
    texts = page.locator(".md-search-result__item mark").evaluate_all("els => els.map(e => e.textContent)")
    return {text.lower() for text in texts}


def highlights(page: Any) -> list[str]:
    """The words Material highlights on the page, those inside collapsed explanations (<details>) included."""
    return page.locator("article mark[data-md-highlight]").evaluate_all("els => els.map(e => e.textContent)")


def leads(page: Any, base_url: str) -> list[tuple[str, str]]:
    """The results as a reader reads them, one per page in the list: the page's best section (the first one
    shown under the page's title; the page itself when no section is), as (location, title). A location is
    written as the index writes it: site-relative path and anchor."""
    found = page.locator(".md-search-result__item").evaluate_all("""items => items.map(item => {
        const link = item.querySelector(":scope > a:has(h2)") || item.querySelector(":scope > a")
        return [link.getAttribute("href"), link.querySelector("h1, h2").textContent]
    })""")
    root = urlsplit(base_url).path
    located = []
    for href, title in found:
        parts = urlsplit(href)
        path = parts.path[len(root):] if parts.path.startswith(root) else parts.path.lstrip("/")
        located.append((path + (f"#{parts.fragment}" if parts.fragment else ""), " ".join(title.split())))
    return located


def first_teaser(page: Any) -> Any:
    """The first result that shows text (a page's own entry shows only its title when sections matched)."""
    return page.locator(".md-search-result__item article:has(p, li, ul, ol)").first


@pytest.mark.parametrize("pair", [("flashattention", "FlashAttention"), ("deepspeed", "DeepSpeed")])
def test_case_does_not_change_the_results(page: Any, watch: Watch, pair: tuple[str, str]) -> None:
    lower, mixed = pair
    search(page, lower)
    found = results(page)
    meta = page.locator(".md-search-result__meta").inner_text()
    search(page, mixed)
    assert results(page) == found
    assert page.locator(".md-search-result__meta").inner_text() == meta
    assert len(found) >= 6 and "matching documents" in meta, f"{lower}: {meta}: {found[:6]}"
    words = marked(page)
    assert lower in words and all(w.startswith(lower) for w in words), sorted(words)  # prefixes: DeepSpeedPlugin
    assert watch.problems == []


def test_stop_words_do_not_match_as_prefixes(page: Any, watch: Watch) -> None:
    search(page, "fsdp or deepspeed")
    first = page.locator(".md-search-result__item article h2").first.inner_text()
    assert first != "Recommended order"
    words = marked(page)
    assert words and all(w.startswith(("fsdp", "deepspeed")) for w in words), sorted(words)
    search(page, "or")
    assert page.locator(".md-search-result__meta").inner_text() == "No matching documents"
    assert results(page) == []
    assert watch.problems == []


def test_short_words_match_whole(page: Any, watch: Watch) -> None:
    search(page, "tp")
    assert results(page)
    assert marked(page) == {"tp"}, "not tpu, not the tp of output"
    assert watch.problems == []


def test_out_of_memory_finds_prose_about_memory_first(page: Any, watch: Watch) -> None:
    search(page, "out of memory")
    teaser = first_teaser(page)
    text = " ".join(teaser.inner_text().split()).lower()
    assert "out of memory" in text, text
    assert teaser.locator("pre, .highlight").count() == 0, "prose, not a code block"
    link = teaser.locator("xpath=..").get_attribute("href") or ""
    assert re.match(r"(\.\./)*performance/(train|infer)/", urlsplit(link).path.lstrip("/")), link
    assert watch.problems == []


def test_deep_speed_is_highlighted_as_deepspeed(context: Any, watch: Watch) -> None:
    page = answering(context, watch, "performance/infer/")  # its own: it follows a result
    search(page, "deep speed")
    link = page.locator(".md-search-result__item a[href*='#']").first
    href = link.get_attribute("href") or ""
    assert parse_qs(urlsplit(href).query)["h"] == ["deepspeed"], href
    link.click()
    page.wait_for_url(re.compile(r"h=deepspeed"))
    settle(page)
    highlighted = {m.lower() for m in highlights(page)}
    assert highlighted == {"deepspeed"}
    assert watch.problems == []


def test_a_link_with_deep_plus_speed_highlights_deepspeed(context: Any, watch: Watch) -> None:
    page = watch.attach(context.new_page())
    page.goto("performance/train/gpu_many/?h=deep+speed")
    settle(page)
    highlighted = [m.lower() for m in highlights(page)]
    assert highlighted and set(highlighted) == {"deepspeed"}, "not every speed"
    assert parse_qs(urlsplit(page.url).query)["h"] == ["deepspeed"]
    # a term that does not occur joined on the page stays as it was
    page.goto("performance/train/gpu_many/?h=gradient+accumulation")
    settle(page)
    highlighted = [m.lower() for m in highlights(page)]
    assert {"gradient", "accumulation"} <= set(highlighted)
    assert watch.problems == []


def test_the_index_is_fetched_on_first_use_only(context: Any, watch: Watch) -> None:
    fetched: list[str] = []
    context.on("request", lambda request: fetched.append(urlsplit(request.url).path))
    page = answering(context, watch, "performance/infer/cpu/")
    page.wait_for_load_state("networkidle")
    assert "/search/search_index.json" in fetched, "the stub: the theme's configuration for highlighting"
    assert "/search/search_index.full.json" not in fetched
    search(page, "bf16", typed=True)  # key by key: the answers to "b", "bf", "bf1" come and go first
    search(page, "int8", typed=True)
    assert fetched.count("/search/search_index.full.json") == 1
    assert results(page)
    assert watch.problems == []


def test_reader_queries_find_the_section_the_reader_wants(context: Any, watch: Watch, base_url: str) -> None:
    """Every kept query, typed on its reader's page: the first result is the wanted section for at least 20 in
    24 of them, and no query's first three results repeat a title (a shared explanation shows once)."""
    answers = []
    timings = []
    by_page: dict[str, list[dict[str, str]]] = {}
    for query in QUERIES:
        by_page.setdefault(query.get("from", ""), []).append(query)
    for origin, asked in by_page.items():
        page = answering(context, watch, origin)
        for query in asked:
            search(page, query["query"])
            shown = leads(page, base_url)
            top3 = [title for _, title in shown[:3]]
            answers.append({**query, "first": shown[0][0] if shown else None, "top3": top3,
                            "hit": bool(shown) and shown[0][0] == query["want"],
                            "repeats": len(set(top3)) < len(top3)})
        timings.append(page.evaluate("() => window.__searchTiming"))
        page.close()
    hits = sum(a["hit"] for a in answers)
    report = {"hits": hits, "queries": len(answers), "repeats": sum(a["repeats"] for a in answers),
              "first_answer_after_index_loaded_ms": [t and round(t["loaded_to_answer"]) for t in timings],
              "answers": answers}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "search-queries.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    misses = [f"{a['query']!r} from /{a['from']}: {a['first']} (wanted {a['want']})" for a in answers if not a["hit"]]
    assert hits >= math.ceil(len(answers) * 20 / 24), f"{hits}/{len(answers)} first results wanted; misses: {misses}"
    assert [a for a in answers if a["repeats"]] == []
    assert all(t is not None for t in timings), "every fresh page reports its first answer's timing"
    assert watch.problems == []


SPELLINGS = [
    ("performance/train/gpu_many/", ["zero3", "ZeRO-3", "zero stage 3", "stage 3"]),
    ("performance/train/gpu_one/", ["oom", "out of memory", "OOM", "out-of-memory"]),
    ("performance/train/gpu_one/", ["bf16", "bfloat16"]),
    ("performance/infer/gpu_one/", ["fa2", "FlashAttention-2", "flash attention 2", "flash_attention_2"]),
    ("performance/infer/gpu_many/", ["tp", "tensor parallel", "tensor parallelism"]),
    ("performance/infer/gpu_one/", ["kv cache", "kv-cache", "key-value cache"]),
]


@pytest.mark.parametrize(("origin", "spellings"), SPELLINGS, ids=[s[0] for _, s in SPELLINGS])
def test_every_spelling_of_a_term_leads_to_the_same_section(readers: ReaderTabs, watch: Watch, base_url: str,
                                                             request: pytest.FixtureRequest, origin: str,
                                                             spellings: list[str]) -> None:
    page = readers.on(origin, watch, request)
    firsts = {}
    for spelling in spellings:
        search(page, spelling)
        shown = leads(page, base_url)
        assert len(shown) >= 3, f"{spelling}: {shown}"
        firsts[spelling] = shown[0]
    assert len(set(firsts.values())) == 1, firsts
    assert watch.problems == []


@pytest.mark.parametrize(("origin", "query", "copy"), [
    ("performance/infer/cpu/", "speculative decoding", "performance/infer/cpu/"),
    ("performance/infer/gpu_one/", "speculative decoding", "performance/infer/gpu_one/"),
    ("performance/infer/gpu_many/", "speculative decoding", "performance/infer/gpu_many/"),
    ("performance/infer/gpu_one/", "speculative decoding on cpu", "performance/infer/cpu/"),  # the query names it
    ("performance/train/gpu_one/", "static cache", "performance/infer/gpu_one/"),  # the nearest: one GPU
    ("performance/train/gpu_one/", "graph breaks", "performance/train/gpu_one/"),
    ("performance/infer/cpu/", "graph breaks", "performance/infer/cpu/"),
])
def test_a_shared_explanation_is_one_result_on_the_readers_page_or_the_nearest(
    readers: ReaderTabs, watch: Watch, base_url: str, request: pytest.FixtureRequest, origin: str, query: str,
    copy: str
) -> None:
    """A theory snippet's section expanded into several pages is one result: the copy on the page the reader is
    on, or on the page of the situation the query names, or on the nearest one."""
    page = readers.on(origin, watch, request)
    search(page, query)
    first, title = leads(page, base_url)[0]
    assert first.startswith(copy + "#"), (first, title)
    anchor = first.partition("#")[2]
    every = [href for href in results(page) if urlsplit(href).fragment == anchor]
    assert len(every) == 1, f"{anchor} shown {len(every)} times: {every}"
    assert watch.problems == []


@pytest.mark.parametrize(("query", "entry"), [
    ("fp16 nan", None),
    ("num_workers", None),
    ("zero3", None),
    ("gradient checkpointing", None),
    ("TrainingArguments", "performance/api/transformers/#transformers.TrainingArguments"),
    ("trainingarguments", "performance/api/transformers/#transformers.TrainingArguments"),
    ("DeepSpeedPlugin", "performance/api/accelerate/#accelerate.DeepSpeedPlugin"),
    ("Trainer.train", "performance/api/transformers/#transformers.Trainer.train"),
])
def test_the_guide_comes_before_the_api_reference_unless_the_query_names_an_entry(
    page: Any, watch: Watch, base_url: str, query: str, entry: str | None
) -> None:
    search(page, query)
    shown = [location for location, _ in leads(page, base_url)]
    api = [i for i, location in enumerate(shown) if location.startswith("performance/api/")]
    if entry is None:
        assert api, f"{query}: the API reference has it too"
        assert api == list(range(len(shown) - len(api), len(shown))), f"{query}: API entries among the guide: {shown}"
    else:
        assert shown[0] == entry, shown[:3]
    assert watch.problems == []
