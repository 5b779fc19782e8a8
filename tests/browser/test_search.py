"""Search as a reader uses it, in Chromium: queries typed into Material's search box key by key, the results
read from the result list, a result followed to its page. The index is fetched on first use
(docs/assets/search.js and search-worker.js, hooks/perfdocs/search.py)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from .conftest import Watch, settle

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
        if (data && "query" in data)
          setTimeout(() => { window.__searchAnswered = data.query })
      })
    }
  }
})()
"""


@pytest.fixture
def page(context: Any, watch: Watch) -> Any:
    context.add_init_script(ANSWERS)
    page = watch.attach(context.new_page())
    page.goto("performance/infer/")
    settle(page)
    return page


def search(page: Any, query: str) -> None:
    """Type `query` key by key, as a reader does, and wait until the results for all of it are shown."""
    box = page.locator(".md-search__input")
    box.click()
    box.fill("")
    box.press_sequentially(query, delay=5)
    page.wait_for_function("query => window.__searchAnswered === query", arg=query)


def results(page: Any) -> list[str]:
    """Every result link, in the order shown (pages, then their sections)."""
    return page.locator(".md-search-result__item a").evaluate_all("els => els.map(e => e.getAttribute('href'))")


def marked(page: Any) -> set[str]:
    """The words highlighted in the results, those folded under "more results" included."""
    texts = page.locator(".md-search-result__item mark").evaluate_all("els => els.map(e => e.textContent)")
    return {text.lower() for text in texts}


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


def test_deep_speed_is_highlighted_as_deepspeed(page: Any, watch: Watch) -> None:
    search(page, "deep speed")
    link = page.locator(".md-search-result__item a[href*='#']").first
    href = link.get_attribute("href") or ""
    assert parse_qs(urlsplit(href).query)["h"] == ["deepspeed"], href
    link.click()
    page.wait_for_url(re.compile(r"h=deepspeed"))
    settle(page)
    highlighted = {m.lower() for m in page.locator("article mark[data-md-highlight]").all_inner_texts()}
    assert highlighted == {"deepspeed"}
    assert watch.problems == []


def test_a_link_with_deep_plus_speed_highlights_deepspeed(context: Any, watch: Watch) -> None:
    page = watch.attach(context.new_page())
    page.goto("performance/train/gpu_many/?h=deep+speed")
    settle(page)
    highlighted = [m.lower() for m in page.locator("article mark[data-md-highlight]").all_inner_texts()]
    assert highlighted and set(highlighted) == {"deepspeed"}, "not every speed"
    assert parse_qs(urlsplit(page.url).query)["h"] == ["deepspeed"]
    # a term that does not occur joined on the page stays as it was
    page.goto("performance/train/gpu_many/?h=gradient+accumulation")
    settle(page)
    highlighted = [m.lower() for m in page.locator("article mark[data-md-highlight]").all_inner_texts()]
    assert {"gradient", "accumulation"} <= set(highlighted)
    assert watch.problems == []


def test_the_index_is_fetched_on_first_use_only(context: Any, watch: Watch) -> None:
    context.add_init_script(ANSWERS)
    fetched: list[str] = []
    context.on("request", lambda request: fetched.append(urlsplit(request.url).path))
    page = watch.attach(context.new_page())
    page.goto("performance/infer/cpu/")
    settle(page)
    page.wait_for_load_state("networkidle")
    assert "/search/search_index.json" in fetched, "the stub: the theme's configuration for highlighting"
    assert "/search/search_index.full.json" not in fetched
    search(page, "bf16")
    search(page, "int8")
    assert fetched.count("/search/search_index.full.json") == 1
    assert results(page)
    assert watch.problems == []
