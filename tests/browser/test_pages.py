"""Every page as a reader opens it: loads cleanly, shows no raw dialect, has its title and
description, and leaves a desktop screenshot in test-artifacts/ (test_phone.py: the phone's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..sitetools import DEPLOYMENT
from .accessibility import ANY, BLOCKING, violations_in_both_schemes
from .conftest import MISSING_URL, NAV_SOURCES, PAGE_URLS, WAIT_MS, Watch, settle, slug
from .support import front_matter, page_url
from .test_layout import SCENARIO_URLS as WITH_SUMMARY
from .test_layout import assert_code_fits_its_column
from .test_phone import SCENARIO_URLS, assert_code_never_breaks_inside_a_word

RAW_DIALECT = ["<Tip", "<Theory", "[[", "{#", "<hfoption", "<frameworkcontent", "<Only", "<Youtube",
               "<literalinclude", "[!NOTE]", "[!TIP]", "[!WARNING]"]
ALL_URLS = [*PAGE_URLS, MISSING_URL]


def open_page(context: Any, watch: Watch, url: str) -> tuple[Any, Any]:
    page = watch.attach(context.new_page())
    response = page.goto(url)
    settle(page)
    return page, response


SOURCE_OF = dict(zip(PAGE_URLS, NAV_SOURCES, strict=True))  # page URL -> its Markdown file


@pytest.mark.parametrize("url", ALL_URLS, ids=slug)
def test_page_loads_cleanly(
    context: Any, watch: Watch, base_url: str, screenshots: Path, axe_script: str, url: str
) -> None:
    """The page as a reader opens it: no error on the way, nothing fetched from outside the site, no accessibility
    violation in either scheme (accessibility.py), a screenshot in test-artifacts/; and for a page of the nav, no
    raw dialect in its text, its title, description and one h1 as its front matter gives them, no code in a table
    cell broken inside a word at 1280 px, and on a scenario page, code that fits its column (test_layout.py); one
    page load for all: they were six tests, each loading the pages."""
    missing = url == MISSING_URL
    if missing:
        watch.expected_404.add(base_url + url)
    page, response = open_page(context, watch, url)
    assert response is not None and response.status == (404 if missing else 200), url
    impacts = ANY if url in SCENARIO_URLS else BLOCKING
    inaccessible = violations_in_both_schemes(page, axe_script, f"{url or '/'} at 1280 px", impacts)
    page.wait_for_timeout(300)  # late requests: the search worker fetches its index after load
    page.screenshot(path=str(screenshots / f"{slug(url)}-desktop.png"), full_page=True, animations="disabled")
    assert watch.problems == [], f"{url}:\n" + "\n".join(watch.problems)
    assert watch.external == [], f"{url} requests outside the site: {watch.external}"
    if not missing:
        assert_no_raw_dialect(page, url)
        assert_title_and_description(page, SOURCE_OF[url])
        assert_code_never_breaks_inside_a_word(page, url)
    if url in WITH_SUMMARY:
        assert_code_fits_its_column(page, url)  # last: it shows every tab and opens every <details>
    assert inaccessible == [], "\n\n".join(inaccessible)


def assert_no_raw_dialect(page: Any, url: str) -> None:
    text = page.inner_text("body")
    # Outside code: an API signature's `Callable[[Module], None]` is Python, not a doc-builder marker.
    prose = page.evaluate("""() => { const body = document.body.cloneNode(true);
        body.querySelectorAll('pre, code, script, style').forEach(el => el.remove()); return body.textContent; }""")
    leftovers = {token: prose[max(0, prose.index(token) - 60):prose.index(token) + 60]
                 for token in RAW_DIALECT if token in prose}
    assert leftovers == {}, f"{url} shows raw dialect: {leftovers}"
    assert "Build error" not in text


def assert_title_and_description(page: Any, src: str) -> None:
    meta, url = front_matter(src), page_url(src)
    assert page.title() == f"{meta['title']} - perfdocs", url
    description = page.get_attribute('meta[name="description"]', "content")
    assert description == meta["description"].strip(), url
    assert page.locator("h1").count() == 1, f"{url}: one h1 per page"


def test_site_map_lists_every_page(context: Any, base_url: str) -> None:
    response = context.request.get("sitemap.xml")
    assert response.status == 200
    xml = response.text()
    for url in PAGE_URLS:
        assert f"<loc>{DEPLOYMENT['SITE_URL']}{url}</loc>" in xml, url
    assert context.request.get("sitemap.xml.gz").status == 200


def test_a_fetch_cut_short_by_following_a_link_is_no_failure_but_one_the_page_aborts_is(
    context: Any, watch: Watch
) -> None:
    """A reader who follows a link while the page still fetches something (Material's search configuration, right
    after load) cuts that fetch short: Chromium aborts it (net::ERR_ABORTED) before the next page commits, and the
    watch does not count it. A fetch the page aborts itself, the reader staying, is still a failure."""
    held: list[Any] = []  # the search configuration's requests, never answered: in flight when the reader leaves
    own: list[Any] = []
    page = watch.attach(context.new_page())
    page.route("**/search/search_index.json", lambda route: held.append(route))
    page.route("**/held-by-the-page", lambda route: own.append(route))
    page.goto("./")
    settle(page)
    wait_until(page, lambda: held)  # the handler runs as the page asks
    with page.expect_navigation():
        page.locator("article a[href$='performance/train/gpu_many/']").first.click()
    settle(page)
    assert watch.problems == []
    page.evaluate("""() => { const stop = new AbortController()
        fetch('held-by-the-page', {signal: stop.signal}).catch(() => {})
        setTimeout(() => stop.abort(), 200) }""")
    wait_until(page, lambda: own and watch.problems)
    assert [p.split(" (")[0] for p in watch.problems] == [f"request failed: {page.url}held-by-the-page"]


def wait_until(page: Any, condition: Any) -> None:
    """Let the page run until ``condition()`` holds (Playwright's events reach Python while it waits); the limit
    only stops a run that never gets there from hanging."""
    for _ in range(WAIT_MS // 50):
        if condition():
            return
        page.wait_for_timeout(50)
    raise AssertionError("the condition never held")
