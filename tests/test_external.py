"""The external link check against a real HTTP server on 127.0.0.1; no other traffic."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from perfdocs.external import ExternalConfig, ExternalResult, check_external, parse_retry_after

HANG_GUARD_S = 30  # not a performance limit: only stops a hanging check from hanging the suite
SLOW_S = 20  # how long the slow paths stall, unless the server is stopped first
FAST = ExternalConfig(timeout=5.0, retries=0, total_timeout=60.0)


@dataclass
class Site:
    """What the server saw; handlers run on their own threads, so everything goes through the lock."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    requests: list[tuple[str, str]] = field(default_factory=list)  # (method, path)
    stop: threading.Event = field(default_factory=threading.Event)
    body_bytes_sent: int = 0
    body_stopped: threading.Event = field(default_factory=threading.Event)
    in_flight: int = 0
    most_in_flight: int = 0

    def record(self, method: str, path: str) -> int:
        """Records a request; returns how many requests this path has had, this one included."""
        with self.lock:
            self.requests.append((method, path))
            return sum(1 for _, p in self.requests if p == path)

    def counts(self) -> Counter[tuple[str, str]]:
        with self.lock:
            return Counter(self.requests)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    site: Site

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that hang up early are the point of several tests


class Handler(BaseHTTPRequestHandler):
    server: Server

    def setup(self) -> None:
        self.request.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
        super().setup()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_HEAD(self) -> None:
        self.route("HEAD")

    def do_GET(self) -> None:
        self.route("GET")

    def answer(self, status: int, headers: dict[str, str] | None = None, body: bytes = b"") -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command == "GET":
            self.wfile.write(body)

    def redirect(self, location: str, status: int = 302) -> None:
        self.answer(status, {"Location": location})

    def route(self, method: str) -> None:
        site = self.server.site
        path = self.path.split("?")[0]
        nth = site.record(method, path)
        if path == "/ok" or path.startswith("/private/"):
            self.answer(200, body=b"ok")
        elif path == "/missing":
            self.answer(404)
        elif path == "/error":
            self.answer(500)
        elif path in ("/head-405", "/head-403", "/head-501"):
            self.answer(int(path[-3:]) if method == "HEAD" else 200)
        elif path == "/slow":
            site.stop.wait(SLOW_S)
            self.answer(200)
        elif path == "/drip":
            self.drip_headers()
        elif path == "/flaky":
            self.answer(429, {"Retry-After": "1"}) if nth == 1 else self.answer(200)
        elif path == "/limited":
            self.answer(429, {"Retry-After": "3600"})
        elif path == "/unavailable":
            self.answer(503)
        elif path == "/chain/a":
            self.redirect("/chain/b", 301)
        elif path == "/chain/b":
            self.redirect(f"http://127.0.0.1:{self.server.server_port}/ok#top", 307)
        elif path == "/loop/a":
            self.redirect("/loop/b")
        elif path == "/loop/b":
            self.redirect("/loop/a")
        elif path.startswith("/hop/"):
            self.redirect(f"/hop/{int(path[5:]) + 1}")
        elif path == "/to-file":
            self.redirect("file:///etc/passwd")
        elif path == "/endless":
            self.endless_body() if method == "GET" else self.answer(405)
        elif path == "/concurrent":
            self.concurrent()
        else:
            self.answer(418)

    def drip_headers(self) -> None:
        """A status line, then one header byte every 0.1 s: no single read ever waits long."""
        self.wfile.write(b"HTTP/1.0 200 OK\r\n")
        while not self.server.site.stop.wait(0.1):
            self.wfile.write(b"X")

    def endless_body(self) -> None:
        site = self.server.site
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        chunk = b"x" * 65536
        try:
            while not site.stop.is_set():
                self.wfile.write(chunk)
                with site.lock:
                    site.body_bytes_sent += len(chunk)
        except OSError:
            site.body_stopped.set()

    def concurrent(self) -> None:
        site = self.server.site
        with site.lock:
            site.in_flight += 1
            site.most_in_flight = max(site.most_in_flight, site.in_flight)
        site.stop.wait(0.5)
        with site.lock:
            site.in_flight -= 1
        self.answer(200)


@pytest.fixture
def server() -> Iterator[tuple[Site, Callable[[str], str]]]:
    httpd = Server(("127.0.0.1", 0), Handler)
    httpd.site = Site()
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{httpd.server_port}"
    try:
        yield httpd.site, lambda path: base + path
    finally:
        httpd.site.stop.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(HANG_GUARD_S)


def run(urls: list[str], config: ExternalConfig = FAST, **kwargs: Any) -> dict[str, ExternalResult]:
    started = time.monotonic()
    results = check_external(urls, config, **kwargs)
    assert time.monotonic() - started < HANG_GUARD_S
    return results


def outcome(result: ExternalResult) -> tuple[str, int | None, str]:
    return result.status, result.http_status, result.message


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Records every connection attempt and refuses it, so nothing leaves the machine."""
    attempts: list[tuple[str, int]] = []

    def refuse(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        attempts.append(address)
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(socket, "create_connection", refuse)
    return attempts


# --- answers -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, expected, requests",
    [
        ("/ok", ("ok", 200, "HTTP 200"), [("HEAD", "/ok")]),
        ("/missing", ("broken", 404, "HTTP 404"), [("HEAD", "/missing")]),
        ("/error", ("broken", 500, "HTTP 500"), [("HEAD", "/error")]),
        ("/head-405", ("ok", 200, "HTTP 200"), [("HEAD", "/head-405"), ("GET", "/head-405")]),
        ("/head-403", ("ok", 200, "HTTP 200"), [("HEAD", "/head-403"), ("GET", "/head-403")]),
        ("/head-501", ("ok", 200, "HTTP 200"), [("HEAD", "/head-501"), ("GET", "/head-501")]),
    ],
)
def test_answers(
    server: tuple[Site, Callable[[str], str]],
    path: str,
    expected: tuple[str, int, str],
    requests: list[tuple[str, str]],
) -> None:
    site, url = server
    results = run([url(path)])
    assert {u: outcome(r) for u, r in results.items()} == {url(path): expected}
    assert results[url(path)].from_cache is False
    assert site.requests == requests


def test_slow_response_times_out(server: tuple[Site, Callable[[str], str]]) -> None:
    _, url = server
    results = run([url("/slow")], ExternalConfig(timeout=0.5, retries=0))
    assert outcome(results[url("/slow")]) == ("timeout", None, "timed out after 0.5 s")


def test_dripping_headers_time_out_although_no_single_read_does(server: tuple[Site, Callable[[str], str]]) -> None:
    _, url = server
    results = run([url("/drip")], ExternalConfig(timeout=0.5, retries=0))
    assert outcome(results[url("/drip")]) == ("timeout", None, "timed out after 0.5 s")


def test_connection_refused_is_retried_then_an_error() -> None:
    url = f"http://127.0.0.1:{closed_port()}/"
    results = run([url], ExternalConfig(retries=1))
    assert outcome(results[url]) == ("error", None, "connection refused after 2 attempts")


# --- rate limits -------------------------------------------------------------------------------------


def test_429_with_retry_after_is_retried_and_ends_ok(server: tuple[Site, Callable[[str], str]]) -> None:
    site, url = server
    results = run([url("/flaky")], ExternalConfig(retries=2))
    assert outcome(results[url("/flaky")]) == ("ok", 200, "HTTP 200")
    assert site.requests == [("HEAD", "/flaky"), ("HEAD", "/flaky")]


def test_retry_after_beyond_the_cap_gives_up_at_once(server: tuple[Site, Callable[[str], str]]) -> None:
    site, url = server
    results = run([url("/limited")], ExternalConfig(retries=2, max_retry_after=30.0))
    assert outcome(results[url("/limited")]) == (
        "rate-limited",
        429,
        "HTTP 429: Retry-After 3600.0 s exceeds max_retry_after 30.0 s",
    )
    assert site.requests == [("HEAD", "/limited")]


def test_503_is_retried_with_backoff_then_broken(server: tuple[Site, Callable[[str], str]]) -> None:
    site, url = server
    results = run([url("/unavailable")], ExternalConfig(retries=1))
    assert outcome(results[url("/unavailable")]) == ("broken", 503, "HTTP 503 after 2 attempts")
    assert site.requests == [("HEAD", "/unavailable")] * 2


@pytest.mark.parametrize(
    "value, expected",
    [
        (None, None),
        ("1", 1.0),
        (" 120 ", 120.0),
        ("0", 0.0),
        ("-5", None),
        ("1.5", None),
        ("soon", None),
        ("", None),
        (formatdate(1_000_090, usegmt=True), 90.0),
        (formatdate(999_000, usegmt=True), 0.0),  # a date in the past: retry now
    ],
)
def test_parse_retry_after(value: str | None, expected: float | None) -> None:
    assert parse_retry_after(value, now=1_000_000.0) == expected


# --- redirects ---------------------------------------------------------------------------------------


def test_redirect_chain_is_followed(server: tuple[Site, Callable[[str], str]]) -> None:
    site, url = server
    results = run([url("/chain/a")])
    assert outcome(results[url("/chain/a")]) == (
        "ok",
        200,
        f"HTTP 200 (redirected: {url('/chain/a')} -> {url('/chain/b')} -> {url('/ok')})",
    )
    assert site.requests == [("HEAD", "/chain/a"), ("HEAD", "/chain/b"), ("HEAD", "/ok")]


def test_redirect_loop(server: tuple[Site, Callable[[str], str]]) -> None:
    site, url = server
    results = run([url("/loop/a")])
    assert outcome(results[url("/loop/a")]) == (
        "redirect-loop",
        302,
        f"redirect loop: {url('/loop/a')} -> {url('/loop/b')} -> {url('/loop/a')}",
    )
    assert site.requests == [("HEAD", "/loop/a"), ("HEAD", "/loop/b")]


def test_too_many_redirects(server: tuple[Site, Callable[[str], str]]) -> None:
    site, url = server
    results = run([url("/hop/0")], ExternalConfig(max_redirects=3, retries=0))
    hops = " -> ".join(url(f"/hop/{i}") for i in range(5))
    assert outcome(results[url("/hop/0")]) == ("too-many-redirects", 302, f"more than 3 redirects: {hops}")
    assert site.requests == [("HEAD", f"/hop/{i}") for i in range(4)]


def test_redirect_to_a_file_url_is_not_followed(server: tuple[Site, Callable[[str], str]]) -> None:
    site, url = server
    results = run([url("/to-file")])
    assert outcome(results[url("/to-file")]) == (
        "error",
        302,
        "redirect to file:///etc/passwd not followed: unsupported scheme 'file'",
    )
    assert site.requests == [("HEAD", "/to-file")]


def test_redirect_to_an_ignored_url_is_not_followed(server: tuple[Site, Callable[[str], str]]) -> None:
    site, url = server
    results = run([url("/chain/b")], ExternalConfig(ignore=("/ok$",), retries=0))
    assert outcome(results[url("/chain/b")]) == (
        "ignored",
        307,
        f"redirect to {url('/ok')} not followed: matches ignore pattern '/ok$'",
    )
    assert site.requests == [("HEAD", "/chain/b")]


# --- bodies ------------------------------------------------------------------------------------------


def test_an_endless_body_is_read_only_up_to_max_body_bytes(server: tuple[Site, Callable[[str], str]]) -> None:
    site, url = server
    results = run([url("/endless")], ExternalConfig(max_body_bytes=100_000, retries=0))
    assert outcome(results[url("/endless")]) == ("ok", 200, "HTTP 200")
    assert site.requests == [("HEAD", "/endless"), ("GET", "/endless")]
    assert site.body_stopped.wait(HANG_GUARD_S), "the client never hung up"
    # The server pushes what fits in the socket buffers before it notices; an unbounded reader would take GBs.
    assert site.body_bytes_sent < 8 * 2**20


# --- what is never requested -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url, expected",
    [
        ("file:///etc/passwd", ("unsupported-scheme", None, "unsupported scheme 'file'")),
        ("ftp://ftp.example.org/pub", ("unsupported-scheme", None, "unsupported scheme 'ftp'")),
        ("javascript:alert(1)", ("unsupported-scheme", None, "unsupported scheme 'javascript'")),
        ("data:text/plain,hi", ("unsupported-scheme", None, "unsupported scheme 'data'")),
        ("mailto:someone@example.org", ("unsupported-scheme", None, "unsupported scheme 'mailto'")),
        ("MAILTO:someone@example.org", ("unsupported-scheme", None, "unsupported scheme 'mailto'")),
        ("../page.md", ("unsupported-scheme", None, "not an absolute http(s) URL")),
        ("//example.org/x", ("unsupported-scheme", None, "not an absolute http(s) URL")),
        ("http:///path", ("error", None, "invalid URL: no host")),
        ("http://example.org:http/", ("error", None, "invalid URL: Port could not be cast to integer value as 'http'")),
    ],
)
def test_urls_that_are_never_requested(
    no_network: list[tuple[str, int]], url: str, expected: tuple[str, None, str]
) -> None:
    results = run([url])
    assert {u: outcome(r) for u, r in results.items()} == {url: expected}
    assert no_network == []


def test_ignore_patterns(server: tuple[Site, Callable[[str], str]]) -> None:
    site, url = server
    results = run([url("/private/a"), url("/ok")], ExternalConfig(ignore=(r"/private/",), retries=0))
    assert {u: outcome(r) for u, r in results.items()} == {
        url("/private/a"): ("ignored", None, "matches ignore pattern '/private/'"),
        url("/ok"): ("ok", 200, "HTTP 200"),
    }
    assert site.requests == [("HEAD", "/ok")]


def test_allow_hosts_admits_the_host_and_its_subdomains_only(no_network: list[tuple[str, int]]) -> None:
    urls = [
        "https://example.org/a",
        "https://docs.example.org/b",
        "https://badexample.org/c",
        "https://example.org.evil.net/d",
        "http://127.0.0.1:9/e",
    ]
    results = run(urls, ExternalConfig(allow_hosts=("Example.ORG",), retries=0))
    assert {u: outcome(r) for u, r in results.items()} == {
        "https://example.org/a": ("error", None, "connection refused"),
        "https://docs.example.org/b": ("error", None, "connection refused"),
        "https://badexample.org/c": ("ignored", None, "host 'badexample.org' is not in allow_hosts"),
        "https://example.org.evil.net/d": ("ignored", None, "host 'example.org.evil.net' is not in allow_hosts"),
        "http://127.0.0.1:9/e": ("ignored", None, "host '127.0.0.1' is not in allow_hosts"),
    }
    assert sorted(no_network) == [("docs.example.org", 443), ("example.org", 443)]


def test_allow_hosts_lets_the_local_server_through(server: tuple[Site, Callable[[str], str]]) -> None:
    site, url = server
    results = run([url("/ok")], ExternalConfig(allow_hosts=("127.0.0.1",), retries=0))
    assert outcome(results[url("/ok")]) == ("ok", 200, "HTTP 200")
    assert site.requests == [("HEAD", "/ok")]


# --- the run -----------------------------------------------------------------------------------------


def test_fragments_share_one_request_and_results_keep_input_order(server: tuple[Site, Callable[[str], str]]) -> None:
    site, url = server
    urls = [url("/missing"), url("/ok#a"), "mailto:x@example.org", url("/ok#b"), url("/ok"), url("/ok#a")]
    progress: list[tuple[int, int]] = []
    results = run(urls, progress=lambda done, total: progress.append((done, total)))
    assert list(results) == [url("/missing"), url("/ok#a"), "mailto:x@example.org", url("/ok#b"), url("/ok")]
    assert [(u, outcome(r)) for u, r in results.items()] == [
        (url("/missing"), ("broken", 404, "HTTP 404")),
        (url("/ok#a"), ("ok", 200, "HTTP 200")),
        ("mailto:x@example.org", ("unsupported-scheme", None, "unsupported scheme 'mailto'")),
        (url("/ok#b"), ("ok", 200, "HTTP 200")),
        (url("/ok"), ("ok", 200, "HTTP 200")),
    ]
    assert all(r.url == u for u, r in results.items())
    assert site.counts() == Counter({("HEAD", "/ok"): 1, ("HEAD", "/missing"): 1})
    assert progress == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]


def test_per_host_bounds_parallel_requests(server: tuple[Site, Callable[[str], str]]) -> None:
    site, url = server
    urls = [url(f"/concurrent?{i}") for i in range(4)]
    results = run(urls, ExternalConfig(concurrency=8, per_host=2, retries=0))
    assert {outcome(r) for r in results.values()} == {("ok", 200, "HTTP 200")}
    assert site.most_in_flight == 2


def test_total_timeout_bounds_the_whole_run(server: tuple[Site, Callable[[str], str]]) -> None:
    _, url = server
    urls = [url(f"/slow?{i}") for i in range(10)]
    started = time.monotonic()
    results = check_external(urls, ExternalConfig(timeout=SLOW_S, total_timeout=1.0, concurrency=4, retries=0))
    # Hang guard: without the total bound this run would take at least SLOW_S seconds.
    assert time.monotonic() - started < SLOW_S / 2
    assert {u: outcome(r) for u, r in results.items()} == {
        u: ("timeout", None, "not finished within the total timeout of 1.0 s") for u in urls
    }


@pytest.mark.parametrize(
    "field_values, message",
    [
        ({"concurrency": 0}, "invalid ExternalConfig: concurrency must be >= 1, got 0"),
        (
            {"timeout": 0, "per_host": 0},
            "invalid ExternalConfig: timeout must be > 0, got 0; per_host must be >= 1, got 0",
        ),
        (
            {"ignore": "^https://x/", "allow_hosts": "example.org"},
            "invalid ExternalConfig: ignore must be a tuple of strings, got a string; "
            "allow_hosts must be a tuple of strings, got a string",
        ),
        (
            {"ignore": ("(",)},
            "invalid ExternalConfig: ignore pattern '(' is not a valid regex: "
            "missing ), unterminated subpattern at position 0",
        ),
    ],
)
def test_invalid_config_is_reported_whole(field_values: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        ExternalConfig(**field_values)
    assert str(caught.value) == message


# --- the cache ---------------------------------------------------------------------------------------


def test_second_run_is_answered_from_the_cache(server: tuple[Site, Callable[[str], str]], tmp_path: Path) -> None:
    site, url = server
    cache = tmp_path / "cache" / "external.json"
    urls = [url("/ok"), url("/missing"), url("/slow")]
    config = ExternalConfig(timeout=0.5, retries=0)
    first = run(urls, config, cache_path=cache)
    assert [(outcome(r), r.from_cache) for r in first.values()] == [
        (("ok", 200, "HTTP 200"), False),
        (("broken", 404, "HTTP 404"), False),
        (("timeout", None, "timed out after 0.5 s"), False),
    ]
    stored = json.loads(cache.read_text(encoding="utf-8"))
    assert {u: (e["status"], e["http_status"], e["message"]) for u, e in stored.items()} == {
        url("/ok"): ("ok", 200, "HTTP 200"),
        url("/missing"): ("broken", 404, "HTTP 404"),
    }
    assert all(isinstance(e["checked_at"], float) for e in stored.values())
    assert [p.name for p in cache.parent.iterdir()] == ["external.json"]  # no temporary file left

    site.requests.clear()
    second = run([url("/ok#x"), url("/missing")], config, cache_path=cache)
    assert [(outcome(r), r.from_cache) for r in second.values()] == [
        (("ok", 200, "HTTP 200"), True),
        (("broken", 404, "HTTP 404"), True),
    ]
    assert site.requests == []


def write_cache(path: Path, checked_at: float, url: str) -> None:
    entry = {"status": "broken", "http_status": 410, "message": "HTTP 410", "checked_at": checked_at}
    path.write_text(json.dumps({url: entry}), encoding="utf-8")


def test_an_expired_entry_is_checked_again(server: tuple[Site, Callable[[str], str]], tmp_path: Path) -> None:
    site, url = server
    cache = tmp_path / "external.json"
    write_cache(cache, time.time() - 100, url("/ok"))
    results = run([url("/ok")], ExternalConfig(cache_ttl=50, retries=0), cache_path=cache)
    assert (outcome(results[url("/ok")]), results[url("/ok")].from_cache) == (("ok", 200, "HTTP 200"), False)
    assert site.requests == [("HEAD", "/ok")]
    assert json.loads(cache.read_text(encoding="utf-8"))[url("/ok")]["status"] == "ok"


def test_a_fresh_entry_is_used(server: tuple[Site, Callable[[str], str]], tmp_path: Path) -> None:
    site, url = server
    cache = tmp_path / "external.json"
    write_cache(cache, time.time() - 10, url("/ok"))
    results = run([url("/ok")], ExternalConfig(cache_ttl=50, retries=0), cache_path=cache)
    assert (outcome(results[url("/ok")]), results[url("/ok")].from_cache) == (("broken", 410, "HTTP 410"), True)
    assert site.requests == []


def test_cache_ttl_zero_neither_reads_nor_writes(server: tuple[Site, Callable[[str], str]], tmp_path: Path) -> None:
    site, url = server
    cache = tmp_path / "external.json"
    write_cache(cache, time.time(), url("/ok"))
    before = cache.read_text(encoding="utf-8")
    results = run([url("/ok"), url("/missing")], ExternalConfig(cache_ttl=0, retries=0), cache_path=cache)
    assert [(outcome(r), r.from_cache) for r in results.values()] == [
        (("ok", 200, "HTTP 200"), False),
        (("broken", 404, "HTTP 404"), False),
    ]
    assert site.counts() == Counter({("HEAD", "/ok"): 1, ("HEAD", "/missing"): 1})
    assert cache.read_text(encoding="utf-8") == before


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        "[1, 2, 3]",
        "\xff\xfe{}",  # not UTF-8
        json.dumps({"URL": {"status": "timeout", "http_status": None, "message": "timed out", "checked_at": 1e18}}),
        json.dumps({"URL": {"status": "ok", "http_status": "200", "message": "HTTP 200", "checked_at": 1e18}}),
        json.dumps({"URL": "ok"}),
    ],
)
def test_a_corrupt_cache_is_treated_as_empty(
    server: tuple[Site, Callable[[str], str]], tmp_path: Path, text: str
) -> None:
    site, url = server
    cache = tmp_path / "external.json"
    cache.write_text(text.replace("URL", url("/ok")), encoding="latin-1")
    results = run([url("/ok")], ExternalConfig(retries=0), cache_path=cache)
    assert (outcome(results[url("/ok")]), results[url("/ok")].from_cache) == (("ok", 200, "HTTP 200"), False)
    assert site.requests == [("HEAD", "/ok")]
    assert list(json.loads(cache.read_text(encoding="utf-8"))) == [url("/ok")]


def test_a_503_is_not_cached(server: tuple[Site, Callable[[str], str]], tmp_path: Path) -> None:
    _, url = server
    cache = tmp_path / "external.json"
    results = run([url("/unavailable"), url("/limited")], ExternalConfig(retries=0), cache_path=cache)
    assert [outcome(r) for r in results.values()] == [
        ("broken", 503, "HTTP 503"),
        ("rate-limited", 429, "HTTP 429: Retry-After 3600.0 s exceeds max_retry_after 30.0 s"),
    ]
    assert json.loads(cache.read_text(encoding="utf-8")) == {}
