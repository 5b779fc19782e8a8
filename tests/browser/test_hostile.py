"""The attacker's site (tests/hostile.py), built as previews are built, opened in Chromium as a reader would: every
page loaded, focus moved through it, the pointer over each element, and a search for the payload's word from
the home page (Material shows result titles as HTML). Any dialog, any request to another host, or a page whose
theme settings are not the theme's fails."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..hostile import PAGES
from .conftest import DESKTOP, Watch, settle
from .support import serve

PAGE_URLS = ["" if name == "index.md" else name.removesuffix(".md") + "/" for name in PAGES]


@pytest.fixture(scope="module")
def hostile_url(hostile: tuple[Path, str, Path]) -> Iterator[str]:
    with serve(hostile[2]) as url:
        yield url


@pytest.fixture
def visit(browser: Any, hostile_url: str) -> Iterator[tuple[Any, list[str], Watch]]:
    context = browser.new_context(viewport=DESKTOP, base_url=hostile_url, color_scheme="light")
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(f"{dialog.type}: {dialog.message}"), dialog.dismiss()))
    watch = Watch(hostile_url)
    watch.attach(page)
    yield page, dialogs, watch
    context.close()


@pytest.mark.parametrize("url", PAGE_URLS)
def test_no_script_of_the_page_runs(visit: tuple[Any, list[str], Watch], url: str) -> None:
    page, dialogs, watch = visit
    page.goto(url)
    settle(page)
    for _ in range(12):  # autofocus and onfocus: move the focus through the page
        page.keyboard.press("Tab")
    for element in page.locator("article *").all()[:400]:  # onmouseover and friends
        if element.is_visible():
            element.hover(force=True, no_wait_after=True)
    settle(page)
    assert dialogs == []
    assert watch.external == []
    # the theme reads its settings from the first #__config: it is the theme's, and its search worker the site's
    config = page.evaluate("() => JSON.parse(document.getElementById('__config').textContent).search")
    assert config.endswith(".js") and "://" not in config and not config.startswith("data:")


def test_searching_for_the_payload_runs_nothing(visit: tuple[Any, list[str], Watch]) -> None:
    page, dialogs, watch = visit
    page.goto("fanout/")
    settle(page)
    box = page.locator(".md-search__input")
    box.click()
    box.press_sequentially("alert", delay=5)
    page.locator(".md-search-result__meta").wait_for(state="visible")
    page.wait_for_function(
        "() => !/Initializing|Type to start/i.test(document.querySelector('.md-search-result__meta').textContent)"
    )
    settle(page)
    assert dialogs == []
    assert watch.external == []


def test_the_listener_sees_a_dialog(visit: tuple[Any, list[str], Watch]) -> None:
    # what the tests above would see from the old build's title, written into the page as it was
    page, dialogs, _ = visit
    page.set_content("<title></title><script>alert('title')</script> - x</title><p>page</p>")
    assert dialogs == ["alert: title"]
