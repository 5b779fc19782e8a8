"""Every page as a reader opens it: loads cleanly, shows no raw dialect, has its title and
description, fits a phone, and leaves a desktop and a phone screenshot in test-artifacts/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..sitetools import DEPLOYMENT
from .conftest import MISSING_URL, NAV_SOURCES, PAGE_URLS, Watch, settle, slug
from .support import PHONE, front_matter, page_url

RAW_DIALECT = ["<Tip", "<Theory", "[[", "{#", "<hfoption", "<frameworkcontent", "<Only", "<Youtube",
               "<literalinclude", "[!NOTE]", "[!TIP]", "[!WARNING]"]
ALL_URLS = [*PAGE_URLS, MISSING_URL]


def open_page(context: Any, watch: Watch, url: str) -> tuple[Any, Any]:
    page = watch.attach(context.new_page())
    response = page.goto(url)
    settle(page)
    return page, response


@pytest.mark.parametrize("url", ALL_URLS, ids=slug)
def test_page_loads_cleanly(context: Any, watch: Watch, base_url: str, screenshots: Path, url: str) -> None:
    missing = url == MISSING_URL
    if missing:
        watch.expected_404.add(base_url + url)
    page, response = open_page(context, watch, url)
    assert response is not None and response.status == (404 if missing else 200), url
    page.wait_for_timeout(300)  # late requests: the search worker fetches its index after load
    page.screenshot(path=str(screenshots / f"{slug(url)}-desktop.png"), full_page=True, animations="disabled")
    assert watch.problems == [], f"{url}:\n" + "\n".join(watch.problems)
    assert watch.external == [], f"{url} requests outside the site: {watch.external}"


@pytest.mark.parametrize("url", PAGE_URLS, ids=slug)
def test_no_raw_dialect_in_rendered_text(context: Any, watch: Watch, url: str) -> None:
    page, _ = open_page(context, watch, url)
    text = page.inner_text("body")
    # Outside code: an API signature's `Callable[[Module], None]` is Python, not a doc-builder marker.
    prose = page.evaluate("""() => { const body = document.body.cloneNode(true);
        body.querySelectorAll('pre, code, script, style').forEach(el => el.remove()); return body.textContent; }""")
    leftovers = {token: prose[max(0, prose.index(token) - 60):prose.index(token) + 60]
                 for token in RAW_DIALECT if token in prose}
    assert leftovers == {}, f"{url} shows raw dialect: {leftovers}"
    assert "Build error" not in text


@pytest.mark.parametrize("src", NAV_SOURCES, ids=lambda src: slug(page_url(src)))
def test_title_and_description(context: Any, watch: Watch, src: str) -> None:
    meta, url = front_matter(src), page_url(src)
    page, _ = open_page(context, watch, url)
    assert page.title() == f"{meta['title']} - perfdocs"
    description = page.get_attribute('meta[name="description"]', "content")
    assert description == meta["description"].strip()
    assert page.locator("h1").count() == 1, f"{url}: one h1 per page"


def test_site_map_lists_every_page(context: Any, base_url: str) -> None:
    response = context.request.get("sitemap.xml")
    assert response.status == 200
    xml = response.text()
    for url in PAGE_URLS:
        assert f"<loc>{DEPLOYMENT['SITE_URL']}{url}</loc>" in xml, url
    assert context.request.get("sitemap.xml.gz").status == 200


PHONE_LAYOUT = """() => {
  const width = window.innerWidth, report = [];
  const scrollsX = el => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const describe = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
      (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  if (document.scrollingElement.scrollWidth > width)
    report.push(`page scrolls sideways: scrollWidth ${document.scrollingElement.scrollWidth} > ${width}`);
  // Anything in the article that reaches past the right edge must sit in a box that scrolls.
  for (const el of document.querySelectorAll('.md-content *')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 1) continue;
    let up = el.parentElement, held = false;
    while (up && up !== document.body && !held) {
      held = scrollsX(up) && up.getBoundingClientRect().right <= width + 1;
      up = up.parentElement;
    }
    if (!held) report.push(`${describe(el)} overflows the screen (right edge ${Math.round(box.right)}px)`);
  }
  // Tables and code blocks: their own box fits and scrolls.
  for (const el of document.querySelectorAll('.md-typeset__scrollwrap, .md-typeset pre > code')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0) continue;
    if (box.right > width + 1) report.push(`${describe(el)} is wider than the screen`);
    if (el.scrollWidth > el.clientWidth + 1 && !scrollsX(el) && !scrollsX(el.parentElement))
      report.push(`${describe(el)} is cut off instead of scrolling`);
  }
  return [...new Set(report)].slice(0, 20);
}"""


@pytest.mark.parametrize("url", ALL_URLS, ids=slug)
def test_phone_no_horizontal_scrolling(browser: Any, base_url: str, screenshots: Path, url: str) -> None:
    context = browser.new_context(viewport=PHONE, base_url=base_url, is_mobile=True, has_touch=True,
                                  color_scheme="light")
    try:
        page = context.new_page()
        page.goto(url)
        settle(page)
        problems = page.evaluate(PHONE_LAYOUT)
        page.screenshot(path=str(screenshots / f"{slug(url)}-phone.png"), full_page=True, animations="disabled")
        assert problems == [], f"{url} at 390x844:\n" + "\n".join(problems)
    finally:
        context.close()
