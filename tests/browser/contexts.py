"""Browser contexts for the tests: each test gets a fresh profile, without paying for a new renderer each time.

A test asks for a new context where a reader would open a fresh profile: nothing cached or stored, no cookies,
no permissions. A real new context per test also started a new renderer process, cold, for its first page:
about 1 s of CPU per page on this machine, as much as loading the page itself, for some 160 contexts a run. So a
context is kept open between the tests that ask for the same options, with one blank tab left in it: that tab's
renderer serves the next test's pages of the same site. Before the next test gets the context, everything else
a test could leave in it is gone: its pages are closed, its HTTP cache emptied, what its pages stored for their
sites cleared (cookies, local storage, IndexedDB...), its permissions, routes and listeners removed. A test that
changes the context in a way this cannot undo (an init script, an exposed function, extra headers, going
offline...) has the context closed after it instead."""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

# What a test may call on a kept context: calls that change nothing, and those whose effect the pool undoes before
# the next test (routes, permissions; Lease tracks listeners itself). Any other call retires the context.
UNDONE_OR_HARMLESS = frozenset(
    {
        "request",
        "cookies",
        "storage_state",
        "expect_event",
        "expect_page",
        "wait_for_event",
        "browser",
        "new_cdp_session",
        "is_closed",
        "clear_cookies",
        "clear_permissions",
        "grant_permissions",
        "route",
        "unroute",
        "unroute_all",
    }
)
KEPT = 8  # kept contexts at most (one per set of options in use; the least recently used goes first)


@dataclass
class Kept:
    """An open context kept for the options it was made with, and the blank tab that holds its renderer."""

    key: str
    context: Any
    tab: Any = None


@dataclass
class Lease:
    """One test's use of a kept context: a stand-in for Playwright's BrowserContext."""

    _pool: Pool
    _kept: Kept
    _pages: list[Any] = field(default_factory=list)
    _listeners: list[tuple[str, Any]] = field(default_factory=list)
    _origins: set[str] = field(default_factory=set)
    retired_by: str | None = None  # the first call that changed the context for good
    closed: bool = False

    @property
    def context(self) -> Any:
        return self._kept.context

    @property
    def pages(self) -> list[Any]:
        """The pages this test opened and has not closed (not the kept blank tab)."""
        return [page for page in self._pages if not page.is_closed()]

    def new_page(self) -> Any:
        page = self.context.new_page()
        self._pages.append(page)
        page.on("framenavigated", self._navigated)
        return page

    def _navigated(self, frame: Any) -> None:
        parts = urlsplit(frame.url)
        if parts.scheme in ("http", "https"):
            self._origins.add(f"{parts.scheme}://{parts.netloc}")

    def on(self, event: str, handler: Any) -> None:
        self.context.on(event, handler)
        self._listeners.append((event, handler))

    def remove_listener(self, event: str, handler: Any) -> None:
        self.context.remove_listener(event, handler)
        self._listeners.remove((event, handler))

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._pool.give_back(self._kept, self)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # not the context's API (Playwright looks for its own marks on a handler's owner)
            raise AttributeError(name)
        if name not in UNDONE_OR_HARMLESS and self.retired_by is None:
            self.retired_by = name
        return getattr(self.context, name)


class Pool:
    """The contexts kept open in one browser, by the options they were made with."""

    def __init__(self, browser: Any, wait_ms: int, size: int = KEPT) -> None:
        self._browser = browser
        self._wait_ms = wait_ms
        self._size = size
        self._idle: OrderedDict[str, Kept] = OrderedDict()

    def lease(self, options: dict[str, Any]) -> Lease:
        key = json.dumps(options, sort_keys=True, default=repr)
        kept = self._idle.pop(key, None) or Kept(key, self._open(options))
        return Lease(self, kept)

    def _open(self, options: dict[str, Any]) -> Any:
        context = self._browser.new_context(**options)
        context.set_default_timeout(self._wait_ms)
        context.set_default_navigation_timeout(self._wait_ms)
        return context

    def give_back(self, kept: Kept, lease: Lease) -> None:
        try:
            if lease.retired_by is None and self._empty(kept, lease):
                self._idle[kept.key] = kept
                while len(self._idle) > self._size:
                    self._idle.popitem(last=False)[1].context.close()
                return
        except Exception:
            pass  # a context that cannot be emptied (a crashed tab, a closed browser) is not kept
        kept.context.close()

    def _empty(self, kept: Kept, lease: Lease) -> bool:
        """Empty the context as a fresh one is; False when it is closed, or has no tab to keep (the test opened
        none)."""
        context = kept.context
        if context.is_closed():
            return False
        for event, handler in lease._listeners:
            context.remove_listener(event, handler)
        context.unroute_all(behavior="ignoreErrors")
        open_pages = lease.pages
        tab = open_pages.pop() if open_pages else kept.tab
        if tab is None:
            return False  # nothing was opened: no renderer to keep
        if tab is not kept.tab:
            tab.goto("about:blank")  # its scripts stop; its renderer stays
            if kept.tab is not None:
                open_pages.append(kept.tab)
            kept.tab = tab
        for page in open_pages:
            page.close()
        cdp = context.new_cdp_session(tab)
        try:
            cdp.send("Network.clearBrowserCache")
            for origin in lease._origins:
                cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        finally:
            cdp.detach()
        context.clear_permissions()
        return True

    def close(self) -> None:
        while self._idle:
            self._idle.popitem()[1].context.close()
