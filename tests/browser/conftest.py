"""Fixtures for the browser tests: the real site built once per session with `mkdocs build --strict`,
served on 127.0.0.1 by a host that behaves like GitHub Pages, and driven with Playwright in Chromium.

Without a browser the tests skip with the reason, except under CI (the CI variable set), where a
missing browser, Playwright or npm is a failure: CI must test what readers get."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .contexts import Lease, Pool
from .support import ARTIFACTS, DESKTOP, browser_problem, install_axe, launch, nav_sources, page_url, serve

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Everything under tests/browser/ is marked `browser` (deselect with -m "not browser")."""
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.browser)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def unavailable(reason: str) -> None:
    """Fail under CI, skip elsewhere."""
    if in_ci():
        pytest.fail(f"{reason} (CI is set, so this is a failure, not a skip)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def site(site_as_deployed: Path) -> Path:
    return site_as_deployed


@pytest.fixture(scope="session")
def base_url(site: Path) -> Iterator[str]:
    with serve(site) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    problem = browser_problem()
    if problem:
        unavailable(problem)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        patient = Patient(chromium)
        yield patient
        patient.contexts.close()
        chromium.close()


# Playwright gives up on an action after 30 s (15 s was set here): a shared, loaded machine took longer than
# that to paint a phone screenshot, and the suite failed with nothing wrong. Waits are on conditions; this
# limit only stops a page that never gets there from hanging the run.
WAIT_MS = 300_000


class Patient:
    """The browser, whose every new context is a fresh profile (contexts.py: kept warm between tests) that waits on
    conditions for as long as a slow machine needs."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser
        self.contexts = Pool(browser, WAIT_MS)

    def new_context(self, **options: Any) -> Lease:
        return self.contexts.lease(options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


@pytest.fixture
def context(browser: Any, base_url: str) -> Iterator[Any]:
    """A fresh profile per test (empty localStorage), desktop-sized, light scheme."""
    ctx = browser.new_context(viewport=DESKTOP, base_url=base_url, color_scheme="light")
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def axe_script() -> str:
    try:
        return install_axe().read_text(encoding="utf-8")
    except RuntimeError as err:
        unavailable(str(err))
        raise


@pytest.fixture(scope="session")
def screenshots() -> Path:
    out = ARTIFACTS / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    return out


NAV_SOURCES = nav_sources()
PAGE_URLS = [page_url(src) for src in NAV_SOURCES]
MISSING_URL = "perf_train_gpu_oen.html"  # a typo of an old name: what a reader with a bad link gets


def slug(url: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "-", url).strip("-") or "root"


@dataclass
class Watch:
    """Everything that went wrong while a page was open: console errors, uncaught exceptions,
    failed requests and HTTP errors, except the status of a deliberately missing URL."""

    base_url: str
    expected_404: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    superseded_navigations: bool = False  # a redirect page navigates away while it is still loading
    navigations: int = 0  # main-frame navigation requests so far
    _issued: dict[Any, int] = field(default_factory=dict, repr=False)  # request -> navigations when it was issued

    def attach(self, page: Any) -> Any:
        for event, handler in self._handlers():
            page.on(event, handler)
        return page

    def detach(self, page: Any) -> None:
        """Stop watching a page that lives on (a tab shared by the cases of a module)."""
        for event, handler in self._handlers():
            page.remove_listener(event, handler)

    def _handlers(self) -> list[tuple[str, Any]]:
        return [("console", self._console), ("pageerror", self._error), ("requestfailed", self._failed),
                ("response", self._response), ("request", self._request)]

    def _error(self, err: Any) -> None:
        self.problems.append(f"uncaught exception: {err}")

    def _console(self, message: Any) -> None:
        if message.type != "error":
            return
        where = (message.location or {}).get("url", "")
        if where in self.expected_404 and "status of 404" in message.text:
            return
        self.problems.append(f"console error: {message.text} (at {where})")

    def _failed(self, request: Any) -> None:
        if "ERR_ABORTED" in (request.failure or ""):
            if request.is_navigation_request():
                if self.superseded_navigations:
                    return
            elif self._issued.get(request, self.navigations) < self.navigations:
                # issued before the page began to navigate away: the reader who followed a link cut it short
                # (Chromium aborts the old page's fetches before the next page commits)
                return
        self.problems.append(f"request failed: {request.url} ({request.failure})")

    def _response(self, response: Any) -> None:
        if response.status >= 400 and not (response.status == 404 and response.url in self.expected_404):
            self.problems.append(f"HTTP {response.status}: {response.url}")

    def _request(self, request: Any) -> None:
        if request.is_navigation_request() and request.frame.parent_frame is None:
            self.navigations += 1
        else:
            self._issued[request] = self.navigations
        if not request.url.startswith((self.base_url, "data:", "blob:", "about:")):
            self.external.append(request.url)


@pytest.fixture
def watch(base_url: str) -> Watch:
    return Watch(base_url)


def settle(page: Any) -> None:
    """Wait until the page has loaded and Material's scripts have laid it out."""
    page.wait_for_load_state("load")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
