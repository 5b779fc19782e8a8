"""The contexts the browser fixture hands out (contexts.py) are fresh profiles although they are kept between
tests: what one test left (storage, cookies, cache, permissions, routes, listeners, an init script) never reaches
the next test that asks for the same options."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .support import QuietServer, StaticHost

STORE = """async () => {
  localStorage.setItem('left', 'by the last test')
  document.cookie = 'left=1; max-age=3600'
  await new Promise(done => { const open = indexedDB.open('left', 1)
    open.onupgradeneeded = () => open.result.createObjectStore('things'); open.onsuccess = done })
}"""
FOUND = """async () => ({storage: localStorage.getItem('left'), cookie: document.cookie,
  databases: (await indexedDB.databases()).map(d => d.name), marked: window.__marked === true})"""


class CountingHost(StaticHost):
    """Serves the folder with a long max-age (a cache that is kept answers without asking) and counts the GETs."""

    hits: list[str] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        super().do_GET()

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=3600")
        super(StaticHost, self).end_headers()


@pytest.fixture
def host(tmp_path: Path) -> Iterator[str]:
    (tmp_path / "index.html").write_text("<!doctype html><title>t</title><p>A page.</p>", encoding="utf-8")
    CountingHost.hits = []
    server = QuietServer(("127.0.0.1", 0), functools.partial(CountingHost, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def visit(browser: Any, host: str, change: Any = None) -> tuple[Any, dict[str, Any]]:
    """Lease a context, open the page, report what it finds, let ``change`` alter things; give it back."""
    lease = browser.new_context(base_url=host)
    try:
        page = lease.new_page()
        page.goto("")
        found = page.evaluate(FOUND)
        if change:
            change(lease, page)
        return lease.context, found
    finally:
        lease.close()


def test_what_a_test_leaves_in_a_kept_context_is_gone_for_the_next(browser: Any, host: str) -> None:
    heard: list[str] = []
    routed: list[str] = []

    def leave_everything(lease: Any, page: Any) -> None:
        page.evaluate(STORE)
        lease.grant_permissions(["clipboard-read"])
        lease.on("request", lambda request: heard.append(request.url))
        lease.route("**/nowhere", lambda route: (routed.append(route.request.url), route.fulfill(body="x")))

    first, clean = visit(browser, host, leave_everything)
    assert clean == {"storage": None, "cookie": "", "databases": [], "marked": False}
    assert CountingHost.hits.count("/") == 1
    heard.clear()

    def look_further(lease: Any, page: Any) -> None:
        clipboard = page.evaluate("async () => (await navigator.permissions.query({name: 'clipboard-read'})).state")
        assert clipboard == "prompt"
        assert page.evaluate("async () => (await fetch('nowhere')).status") == 404  # not the route's answer

    second, found = visit(browser, host, look_further)
    assert second is first, "the context was kept"
    assert found == clean
    assert CountingHost.hits.count("/") == 2, "the page was fetched again: no cache kept"
    assert CountingHost.hits.count("/nowhere") == 1, "no route kept"
    assert heard == [] and routed == []


def test_a_test_that_changes_its_context_for_good_gets_it_closed(browser: Any, host: str) -> None:
    first, _ = visit(browser, host, lambda lease, page: lease.add_init_script("window.__marked = true"))
    assert first.is_closed()
    second, found = visit(browser, host)
    assert second is not first
    assert found["marked"] is False
