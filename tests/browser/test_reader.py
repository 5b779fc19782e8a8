"""What a reader does on the site: picks a tab once, searches, lands on a missing page, switches
the colour scheme, and finds the page furniture (edit link, last update, copy buttons)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import pytest

from ..sitetools import DEPLOYMENT
from .conftest import MISSING_URL, NAV_SOURCES, Watch, settle
from .support import front_matter, page_url

SELECTED_TABS = """(label) => [...document.querySelectorAll('.tabbed-set')]
  .filter(set => [...set.querySelectorAll(':scope > .tabbed-labels > label')].some(l => l.textContent.trim() === label))
  .map(set => {
    const checked = set.querySelector(':scope > input:checked');
    return set.querySelector(`:scope > .tabbed-labels > label[for="${checked.id}"]`).textContent.trim();
  })"""

SHOWN_BLOCK = """(label) => {
  const set = [...document.querySelectorAll('.tabbed-set')].find(set =>
      [...set.querySelectorAll(':scope > .tabbed-labels > label')].some(l => l.textContent.trim() === label));
  const shown = [...set.querySelectorAll(':scope > .tabbed-content > .tabbed-block')].filter(b => b.offsetParent !== null);
  return shown.length === 1 ? shown[0].innerText : `${shown.length} blocks shown`;
}"""

HEADING_TOP = """(id) => {
  const el = document.getElementById(id);
  return el ? el.getBoundingClientRect().top : null;
}"""


def selected(page: Any, label: str) -> list[str]:
    return page.evaluate(SELECTED_TABS, label)


def choose_tab(page: Any, label: str) -> None:
    tab = page.locator(".tabbed-set > .tabbed-labels > label", has_text=re.compile(f"^{label}$")).first
    tab.scroll_into_view_if_needed()
    tab.click()


def test_linked_tabs_follow_the_reader_across_pages(context: Any, watch: Watch) -> None:
    page = watch.attach(context.new_page())
    page.goto("performance/train/gpu_one/")
    settle(page)
    assert set(selected(page, "Accelerate")) == {"Trainer"}, "a fresh reader starts on the first tab"
    choose_tab(page, "Accelerate")
    assert set(selected(page, "Accelerate")) == {"Accelerate"}, "every Trainer/Accelerate set on the page follows"

    # Navigate the way a reader does: the Training tab, then the sidebar link to the other page.
    page.locator(".md-tabs__link", has_text="Training").click()
    page.wait_for_url(re.compile(r"/performance/train/$"))
    page.locator(".md-nav--primary a.md-nav__link[href='gpu_many/']:visible").click()
    page.wait_for_url(re.compile(r"/performance/train/gpu_many/$"))
    settle(page)
    accelerate = selected(page, "Accelerate")
    assert accelerate and set(accelerate) == {"Accelerate"}, accelerate
    assert "from accelerate import" in page.evaluate(SHOWN_BLOCK, "Accelerate"), "the Accelerate code shows"

    # A later choice wins where a set offers it; the choice lives in localStorage, so a fresh load of
    # another page follows it too.
    choose_tab(page, "PyTorch")
    assert set(selected(page, "PyTorch")) == {"PyTorch"}
    page.goto("performance/infer/cpu/")
    settle(page)
    pytorch = selected(page, "PyTorch")
    assert pytorch and set(pytorch) == {"PyTorch"}, pytorch
    assert watch.problems == []


def test_search_finds_a_technique_and_lands_on_its_section(context: Any, watch: Watch) -> None:
    page = watch.attach(context.new_page())
    page.goto("")
    settle(page)
    search(page, "gradient checkpointing")
    hit = page.locator(".md-search-result__item a[href*='#gradient-checkpointing']").first
    hit.wait_for(state="visible")
    href = hit.get_attribute("href") or ""
    target = urlsplit(href)
    assert re.search(r"/performance/train/gpu_(one|many)/$", target.path), href
    assert target.fragment == "gradient-checkpointing"
    assert "checkpointing" in hit.inner_text().lower()

    hit.click()
    page.wait_for_url(re.compile(r"/performance/train/gpu_(one|many)/.*#gradient-checkpointing$"))
    settle(page)
    heading = page.locator("#gradient-checkpointing")
    assert heading.evaluate("el => /^H[1-6]$/.test(el.tagName)")
    assert "checkpointing" in heading.inner_text().lower()
    assert_at_top(page, "gradient-checkpointing")
    assert watch.problems == []


@pytest.mark.parametrize(("query", "words", "section"), [
    # A Trainer argument is one word: only sections that use it match, and it is highlighted whole.
    ("per_device_train_batch_size", {"per_device_train_batch_size"}, "/performance/train/gpu_one/#"),
    ("gradient_checkpointing", {"gradient_checkpointing"}, "/performance/train/gpu_one/#"),
    # Dotted names split into their parts, as in the code that mentions them; a CamelCase name is one word
    # whatever its case (tests/browser/test_search.py).
    ("torch.compile", {"torch", "compile"}, "/#torch-compile"),  # one copy of the shared explanation
    ("FlashAttention", {"flashattention"}, "/performance/train/gpu_one/#attention-kernels"),
])
def test_search_finds_api_names(context: Any, query: str, words: set[str], section: str) -> None:
    """Trainer arguments and dotted API names are one search away (the search separator in mkdocs.yml)."""
    page = context.new_page()
    page.goto("")
    settle(page)
    search(page, query)
    meta = page.locator(".md-search-result__meta").inner_text()
    assert "No matching documents" not in meta, f"{query}: {meta}"
    marked = {m.lower() for m in page.locator(".md-search-result__item mark").all_inner_texts()}
    hrefs = page.locator(".md-search-result__item a").evaluate_all("els => els.map(e => e.href)")
    # each word highlighted whole, as the word or the start of a longer name (gradient_checkpointing_enable),
    # and a Trainer argument never split at its underscores
    assert all(any(m.startswith(w) for m in marked) for w in words), f"{query}: highlighted {sorted(marked)[:12]}"
    parts = {part for w in words if "_" in w for part in w.split("_")}
    assert not parts & marked, f"{query}: split into {sorted(parts & marked)}"
    assert any(section in re.sub(r"\?h=[^#]*", "", h) for h in hrefs), f"{query}: no hit on {section}: {hrefs[:8]}"


def search(page: Any, query: str) -> None:
    """Type into Material's search box the way a reader does (it listens to key presses)."""
    box = page.locator(".md-search__input")
    box.click()
    box.fill("")
    box.press_sequentially(query, delay=5)
    page.locator(".md-search-result__item a").first.wait_for(state="visible")
    # the results shown first may be those of a prefix the worker answered while the rest was typed ("g"):
    # wait until they are the query's, whose first word is highlighted
    first = re.split(r"[^\w]+", query.lower())[0]
    page.wait_for_function(
        "w => [...document.querySelectorAll('.md-search-result__item mark')]"
        ".some(m => m.textContent.toLowerCase().startsWith(w))",
        arg=first,
    )


def test_missing_page_offers_search_and_the_scenarios(context: Any, watch: Watch, base_url: str) -> None:
    deep = "no/such/section/" + MISSING_URL
    watch.expected_404.add(base_url + deep)
    page = watch.attach(context.new_page())
    response = page.goto(deep)
    settle(page)
    assert response is not None and response.status == 404
    assert page.title() == "Page not found - perfdocs"
    assert page.locator("h1").inner_text() == "Page not found"
    # Served three folders deep, the page still has its styles (root-relative asset URLs).
    assert page.locator(".md-header").evaluate("el => getComputedStyle(el).position") == "sticky"

    links = page.locator(".md-content .perfdocs-scenario-map a")
    # paths: instant navigation may have made a link absolute (http://host/ for the home page)
    hrefs = [urlsplit(links.nth(i).get_attribute("href") or "").path for i in range(links.count())]
    scenarios = ["/" + page_url(src) for src in NAV_SOURCES if front_matter(src).get("scenario")]
    assert len(scenarios) == 7 and hrefs == scenarios, "the overview, the 5 scenario pages and scalability"
    for href in hrefs:
        assert context.request.get(href.lstrip("/")).status == 200, href

    page.get_by_role("button", name="Search the guide").click()
    query = page.locator(".md-search__input")
    assert query.is_visible()
    assert query.input_value() == "perf train gpu oen"
    page.locator(".md-search-result__item a").first.wait_for(state="visible")
    search(page, "gradient checkpointing")
    page.locator(".md-search-result__item a[href*='#gradient-checkpointing']").first.wait_for(state="visible")

    page.keyboard.press("Escape")
    page.locator(".perfdocs-scenario-map a", has_text="Training on one GPU").click()
    page.wait_for_url(re.compile(r"/performance/train/gpu_one/$"))
    assert watch.problems == []


def test_colour_scheme_toggle_is_remembered(context: Any, watch: Watch) -> None:
    page = watch.attach(context.new_page())
    page.goto("")
    settle(page)
    scheme = "() => document.body.getAttribute('data-md-color-scheme')"
    assert page.evaluate(scheme) == "default"
    page.locator("form[data-md-component=palette] label:visible").first.click()
    assert page.evaluate(scheme) == "slate"
    page.goto("performance/scalability/")
    settle(page)
    assert page.evaluate(scheme) == "slate"
    assert watch.problems == []


def test_page_furniture(context: Any) -> None:
    """Edit link, last update, copy buttons, table of contents, tabs across the top, prev/next."""
    page = context.new_page()
    page.goto("performance/train/gpu_one/")
    settle(page)
    edit = page.locator("a.md-content__button[rel=edit]")
    assert edit.get_attribute("href") == DEPLOYMENT["REPO_URL"] + "/edit/main/docs/performance/train/gpu_one.md"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", page.locator(".md-source-file time").get_attribute("datetime") or "")
    copy = page.locator("pre .md-code__button[data-md-type=copy], pre button.md-clipboard")  # Material >=9.7, <9.7
    assert copy.count() == page.locator("pre > code").count() >= 5, "a copy button on every code block"
    assert copy.first.get_attribute("title") == "Copy to clipboard"
    assert page.locator(".md-sidebar--secondary .md-nav__link").count() >= 10, "a table of contents"
    tabs = page.locator(".md-tabs__link").all_inner_texts()
    assert [t.strip() for t in tabs] == ["Overview", "Inference", "Training", "Scalability", "Memory calculator", "API reference"]
    assert page.locator(".md-footer__link--next").count() == 1
    assert page.locator("a.md-source").first.get_attribute("href") == DEPLOYMENT["REPO_URL"]


def assert_at_top(page: Any, anchor: str) -> None:
    """The element is just below the sticky header, or as high as it gets on a page scrolled to its end."""
    top = page.evaluate(HEADING_TOP, anchor)
    assert top is not None, f"no element #{anchor}"
    header, at_end = page.evaluate("""() => [document.querySelector('.md-header').getBoundingClientRect().bottom,
        Math.ceil(scrollY + innerHeight) >= document.scrollingElement.scrollHeight - 1]""")
    assert top >= -2 and (top <= header + 120 or at_end), \
        f"#{anchor} is {top:.0f}px from the top (header ends at {header:.0f}px)"
