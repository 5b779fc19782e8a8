"""The external stage of the link checker: ask every http(s) URL once, bounded in time, threads and bytes.

``check_external`` returns one ``ExternalResult`` per input URL with a status from a closed set and
never prints or logs. Only http and https are requested; redirects are followed by hand; a GET body is
read at most ``max_body_bytes``. The calling thread runs a watchdog that shuts down the socket of every
request past its deadline, so the run returns within ``total_timeout`` (plus one watchdog tick) whatever
servers do. Results that describe the target rather than the moment ("ok", "broken") are cached in a
JSON file.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import os
import re
import socket
import ssl
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import SplitResult, quote, urldefrag, urljoin, urlsplit

__all__ = [
    "STATUSES",
    "ExternalConfig",
    "ExternalResult",
    "check_external",
    "parse_retry_after",
]

STATUSES = (
    "ok",
    "broken",
    "timeout",
    "rate-limited",
    "redirect-loop",
    "too-many-redirects",
    "error",
    "ignored",
    "unsupported-scheme",
)
HTTP_SCHEMES = frozenset({"http", "https"})
HEAD_REFUSED = frozenset({403, 405, 501})  # answers to HEAD that send us to GET
RETRIED = frozenset({429, 503})
CACHED_STATUSES = frozenset({"ok", "broken"})
FIRST_BACKOFF_S = 0.5
TICK_S = 0.05  # how often the watchdog looks at the requests in flight
CHUNK_BYTES = 64 * 1024
PATH_SAFE = "/%:@!$&'()*+,;=-._~"
QUERY_SAFE = PATH_SAFE + "?"


@dataclass(frozen=True)
class ExternalConfig:
    timeout: float = 10.0  # seconds per request (connect + read)
    retries: int = 2  # extra attempts after 429/503/connection errors
    max_retry_after: float = 30.0  # cap on honoured Retry-After seconds; longer -> give up, "rate-limited"
    concurrency: int = 8  # total parallel requests
    per_host: int = 2  # parallel requests per host
    max_body_bytes: int = 1_000_000  # stop reading a body after this many bytes
    max_redirects: int = 5
    cache_ttl: float = 86400.0  # seconds a cached result stays valid; 0 disables the cache
    ignore: tuple[str, ...] = ()  # regexes (re.search): matching URLs are not requested ("ignored")
    allow_hosts: tuple[str, ...] = ()  # if non-empty, only these hosts (exact or subdomain) are requested
    total_timeout: float = 300.0  # hard bound on the whole run; unfinished URLs get "timeout"
    user_agent: str = "perfdocs-linkcheck/0.1"

    def __post_init__(self) -> None:
        """Reports every invalid field at once, as one ValueError."""
        rules = [
            ("timeout", self.timeout > 0, "> 0"),
            ("retries", self.retries >= 0, ">= 0"),
            ("max_retry_after", self.max_retry_after >= 0, ">= 0"),
            ("concurrency", self.concurrency >= 1, ">= 1"),
            ("per_host", self.per_host >= 1, ">= 1"),
            ("max_body_bytes", self.max_body_bytes >= 0, ">= 0"),
            ("max_redirects", self.max_redirects >= 0, ">= 0"),
            ("cache_ttl", self.cache_ttl >= 0, ">= 0"),
            ("total_timeout", self.total_timeout > 0, "> 0"),
        ]
        problems = [f"{name} must be {rule}, got {getattr(self, name)!r}" for name, valid, rule in rules if not valid]
        problems += [
            f"{name} must be a tuple of strings, got a string"
            for name in ("ignore", "allow_hosts")
            if isinstance(getattr(self, name), str)
        ]
        for pattern in () if isinstance(self.ignore, str) else self.ignore:
            try:
                re.compile(pattern)
            except re.error as exc:
                problems.append(f"ignore pattern {pattern!r} is not a valid regex: {exc}")
        if problems:
            raise ValueError("invalid ExternalConfig: " + "; ".join(problems))


@dataclass(frozen=True)
class ExternalResult:
    url: str  # the URL as given, fragment included
    status: str  # one of STATUSES
    http_status: int | None  # the last HTTP status seen, if any
    message: str  # one line, e.g. "HTTP 500", "redirect loop: a -> b -> a", "timed out after 2.0 s"
    from_cache: bool = False


class _Outcome(NamedTuple):
    status: str
    http_status: int | None
    message: str


class _Reply(NamedTuple):
    status: int
    location: str | None
    retry_after: str | None


class _CacheEntry(NamedTuple):
    outcome: _Outcome
    checked_at: float


class _RequestTimeout(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _Cancelled(Exception):
    """The run reached its total timeout: stop, whatever this worker was doing."""


def check_external(
    urls: Iterable[str],
    config: ExternalConfig,
    cache_path: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, ExternalResult]:
    """One result per distinct input URL, in input order.

    URLs that differ only in their fragment share one request. ``progress(done, total)`` is called on
    the calling thread once per finished input URL. Raises OSError when the cache file cannot be written.
    """
    deadline = time.monotonic() + config.total_timeout
    inputs = list(dict.fromkeys(urls))
    ignore = tuple(re.compile(p) for p in config.ignore)
    cache_file = cache_path if config.cache_ttl > 0 else None
    cache = _fresh_entries(_read_cache(cache_file), time.time(), config.cache_ttl) if cache_file else {}
    tally = _Tally(len(inputs), progress)
    answers: dict[str, list[str]] = {}  # request URL -> the input URLs it answers
    for url in inputs:
        settled = _settled_without_request(url, ignore, config.allow_hosts, cache)
        if settled is None:
            answers.setdefault(urldefrag(url).url, []).append(url)
        else:
            tally.finish(settled)

    def record(target: str, outcome: _Outcome) -> None:
        for url in answers[target]:
            tally.finish(ExternalResult(url, *outcome))
        if cache_file and _is_cacheable(outcome):
            cache[target] = _CacheEntry(outcome, time.time())

    _check_all(_interleaved_by_host(list(answers)), config, deadline, record)
    if cache_file:
        _write_cache(cache_file, cache)
    return {url: tally.results[url] for url in inputs}


class _Tally:
    """The results so far; each finished input URL is reported to ``progress``."""

    def __init__(self, total: int, progress: Callable[[int, int], None] | None) -> None:
        self.results: dict[str, ExternalResult] = {}
        self._total = total
        self._progress = progress

    def finish(self, result: ExternalResult) -> None:
        self.results[result.url] = result
        if self._progress is not None:
            self._progress(len(self.results), self._total)


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a Retry-After header (delay-seconds or HTTP-date, ``now`` in epoch seconds)."""
    if value is None:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - now)


# --- what is never requested -------------------------------------------------------------------------


def _settled_without_request(
    url: str, ignore: tuple[re.Pattern[str], ...], allow_hosts: tuple[str, ...], cache: dict[str, _CacheEntry]
) -> ExternalResult | None:
    """The result of ``url`` when it must not be requested or is answered by the cache, else None."""
    skip = _skip_reason(url, ignore, allow_hosts)
    if skip is not None:
        return ExternalResult(url, *skip)
    cached = cache.get(urldefrag(url).url)
    return None if cached is None else ExternalResult(url, *cached.outcome, from_cache=True)


def _skip_reason(url: str, ignore: tuple[re.Pattern[str], ...], allow_hosts: tuple[str, ...]) -> _Outcome | None:
    """Why ``url`` must not be requested, or None when it may be."""
    for pattern in ignore:
        if pattern.search(url):
            return _Outcome("ignored", None, f"matches ignore pattern {pattern.pattern!r}")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        return _Outcome("error", None, f"invalid URL: {exc}")
    scheme = parts.scheme.lower()
    if scheme not in HTTP_SCHEMES:
        return _Outcome(
            "unsupported-scheme", None, f"unsupported scheme {scheme!r}" if scheme else "not an absolute http(s) URL"
        )
    host = (parts.hostname or "").rstrip(".")
    if not host:
        return _Outcome("error", None, "invalid URL: no host")
    if allow_hosts and not _host_allowed(host, allow_hosts):
        return _Outcome("ignored", None, f"host {host!r} is not in allow_hosts")
    return None


def _host_allowed(host: str, allow_hosts: tuple[str, ...]) -> bool:
    host = host.lower()
    return any(host == h or host.endswith("." + h) for h in (a.lower().strip(".") for a in allow_hosts))


# --- the run -----------------------------------------------------------------------------------------


def _check_all(
    targets: list[str], config: ExternalConfig, deadline: float, record: Callable[[str, _Outcome], None]
) -> None:
    """Checks ``targets`` in a thread pool; the calling thread waits, runs the watchdog and records."""
    if not targets:
        return
    checker = _Checker(config, deadline)
    pool = ThreadPoolExecutor(max_workers=min(config.concurrency, len(targets)), thread_name_prefix="perfdocs-external")
    pending: dict[Future[_Outcome], str] = {pool.submit(checker.check, target): target for target in targets}
    try:
        while pending and (left := deadline - time.monotonic()) > 0:
            finished, _ = wait(pending, timeout=min(TICK_S, left), return_when=FIRST_COMPLETED)
            checker.watchdog.expire(time.monotonic())
            for future in finished:
                record(pending.pop(future), future.result())
    finally:
        checker.stop()
        pool.shutdown(wait=False, cancel_futures=True)
    for target in pending.values():
        record(target, _Outcome("timeout", None, _total_timeout_message(config)))


def _interleaved_by_host(urls: list[str]) -> list[str]:
    """Round-robin over hosts, so that workers blocked on one busy host's slots are few."""
    by_host: dict[str, list[str]] = {}
    for url in urls:
        by_host.setdefault(_host_key(url), []).append(url)
    queues = list(by_host.values())
    return [queue[i] for i in range(max(map(len, queues), default=0)) for queue in queues if i < len(queue)]


def _host_key(url: str) -> str:
    return (urlsplit(url).hostname or "").rstrip(".").lower()


@dataclass(eq=False)
class _InFlight:
    conn: http.client.HTTPConnection
    deadline: float
    expired: bool = False


class _Watchdog:
    """Shuts down the socket of each request past its deadline; driven by the calling thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._flights: set[_InFlight] = set()

    def start(self, conn: http.client.HTTPConnection, deadline: float) -> _InFlight:
        flight = _InFlight(conn, deadline)
        with self._lock:
            self._flights.add(flight)
        return flight

    def finish(self, flight: _InFlight) -> None:
        with self._lock:
            self._flights.discard(flight)

    def expire(self, now: float) -> None:
        with self._lock:
            for flight in self._flights:
                if now >= flight.deadline:
                    flight.expired = True
                    _shut_down(flight.conn)


def _shut_down(conn: http.client.HTTPConnection) -> None:
    """Wakes the thread blocked on ``conn``; the plain-socket call leaves a TLS wrapper's state alone."""
    sock = conn.sock
    if sock is not None:
        with suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Checker:
    """What the worker threads share: the config, the deadline, the per-host slots and the watchdog."""

    def __init__(self, config: ExternalConfig, deadline: float) -> None:
        self.config = config
        self.deadline = deadline
        self.ignore = tuple(re.compile(p) for p in config.ignore)
        self.watchdog = _Watchdog()
        self._cancelled = threading.Event()
        self._slots: dict[str, threading.BoundedSemaphore] = {}
        self._slots_lock = threading.Lock()
        self._tls = ssl.create_default_context()
        self._headers = {"User-Agent": config.user_agent, "Accept": "*/*", "Connection": "close"}

    def stop(self) -> None:
        self._cancelled.set()
        self.watchdog.expire(float("inf"))

    def check(self, url: str) -> _Outcome:
        """Follows ``url`` through its redirects to a verdict."""
        chain = [url]
        try:
            while True:
                reply = self._fetch(chain[-1])
                if isinstance(reply, _Outcome):
                    return _with_chain(reply, chain)
                if not 300 <= reply.status < 400:
                    return _with_chain(_verdict(reply.status), chain)
                step = self._redirect(chain, reply)
                if isinstance(step, _Outcome):
                    return step
                chain.append(step)
        except _Cancelled:
            return _Outcome("timeout", None, _total_timeout_message(self.config))

    def _redirect(self, chain: list[str], reply: _Reply) -> str | _Outcome:
        """The next URL to request, or why the chain ends here."""
        if reply.location is None:
            return _with_chain(_Outcome("error", reply.status, f"HTTP {reply.status} without a Location header"), chain)
        target = urldefrag(urljoin(chain[-1], reply.location.strip())).url
        skip = _skip_reason(target, self.ignore, self.config.allow_hosts)
        if skip is not None:
            status = "ignored" if skip.status == "ignored" else "error"
            return _with_chain(
                _Outcome(status, reply.status, f"redirect to {target} not followed: {skip.message}"), chain
            )
        hops, most = " -> ".join([*chain, target]), self.config.max_redirects
        if target in chain:
            return _Outcome("redirect-loop", reply.status, f"redirect loop: {hops}")
        if len(chain) > most:
            return _Outcome("too-many-redirects", reply.status, f"more than {most} redirects: {hops}")
        return target

    def _fetch(self, url: str) -> _Reply | _Outcome:
        """One answer for ``url``: HEAD, GET when HEAD is refused, retries after 429/503/connection errors."""
        config = self.config
        method, attempt = "HEAD", 1
        while True:
            try:
                reply = self._exchange(method, url)
            except _RequestTimeout as exc:
                return _Outcome("timeout", None, exc.message)
            except ConnectionError as exc:
                if attempt > config.retries:
                    return _Outcome("error", None, _after_attempts(_describe(exc), attempt))
                self._pause(_backoff(attempt, config.max_retry_after))
                attempt += 1
                continue
            except (OSError, http.client.HTTPException, ValueError) as exc:
                return _Outcome("error", None, _describe(exc))
            if method == "HEAD" and reply.status in HEAD_REFUSED:
                method = "GET"
                continue
            if reply.status not in RETRIED:
                return reply
            delay = parse_retry_after(reply.retry_after, time.time())
            if delay is not None and delay > config.max_retry_after:
                return _Outcome(
                    "rate-limited",
                    reply.status,
                    f"HTTP {reply.status}: Retry-After {_seconds(delay)} s "
                    f"exceeds max_retry_after {_seconds(config.max_retry_after)} s",
                )
            if attempt > config.retries:
                status = "rate-limited" if reply.status == 429 else "broken"
                return _Outcome(status, reply.status, _after_attempts(f"HTTP {reply.status}", attempt))
            self._pause(_backoff(attempt, config.max_retry_after) if delay is None else delay)
            attempt += 1

    def _exchange(self, method: str, url: str) -> _Reply:
        """One request; the connection is closed before returning, a GET body drained at most max_body_bytes."""
        parts = urlsplit(url)
        with self._slot(_host_key(url)):
            start = time.monotonic()
            deadline = min(start + self.config.timeout, self.deadline)
            if deadline <= start:
                raise _Cancelled
            conn = self._connection(parts, deadline - start)
            flight = self.watchdog.start(conn, deadline)
            try:
                conn.request(method, _request_target(parts), headers=self._headers)
                response = conn.getresponse()
                if flight.expired:  # a shut-down socket reads as the end of the headers: the answer is cut
                    raise _RequestTimeout(self._timeout_message(deadline))
                reply = _Reply(response.status, response.getheader("Location"), response.getheader("Retry-After"))
                if method == "GET":
                    _drain(response, self.config.max_body_bytes)
                return reply
            except (OSError, http.client.HTTPException) as exc:
                if flight.expired or isinstance(exc, TimeoutError):
                    raise _RequestTimeout(self._timeout_message(deadline)) from exc
                raise
            finally:
                self.watchdog.finish(flight)
                conn.close()

    def _connection(self, parts: SplitResult, timeout: float) -> http.client.HTTPConnection:
        host = parts.hostname or ""
        if parts.scheme.lower() == "https":
            return http.client.HTTPSConnection(host, parts.port or 443, timeout=timeout, context=self._tls)
        return http.client.HTTPConnection(host, parts.port or 80, timeout=timeout)

    @contextmanager
    def _slot(self, host: str) -> Iterator[None]:
        with self._slots_lock:
            slot = self._slots.get(host)
            if slot is None:
                slot = self._slots[host] = threading.BoundedSemaphore(self.config.per_host)
        while not slot.acquire(timeout=TICK_S):
            if self._cancelled.is_set():
                raise _Cancelled
        try:
            if self._cancelled.is_set():
                raise _Cancelled
            yield
        finally:
            slot.release()

    def _pause(self, seconds: float) -> None:
        if self._cancelled.wait(seconds):
            raise _Cancelled

    def _timeout_message(self, deadline: float) -> str:
        if deadline == self.deadline:
            return _total_timeout_message(self.config)
        return f"timed out after {_seconds(self.config.timeout)} s"


def _request_target(parts: SplitResult) -> str:
    path = quote(parts.path or "/", safe=PATH_SAFE)
    return f"{path}?{quote(parts.query, safe=QUERY_SAFE)}" if parts.query else path


def _drain(response: http.client.HTTPResponse, limit: int) -> None:
    """Reads and drops at most ``limit`` body bytes; a body cut short does not change the answer."""
    left = limit
    with suppress(OSError, http.client.HTTPException):
        while left > 0:
            chunk = response.read1(min(CHUNK_BYTES, left))
            if not chunk:
                return
            left -= len(chunk)


def _verdict(http_status: int) -> _Outcome:
    if 200 <= http_status < 300:
        return _Outcome("ok", http_status, f"HTTP {http_status}")
    if http_status >= 400:
        return _Outcome("broken", http_status, f"HTTP {http_status}")
    return _Outcome("error", http_status, f"unexpected HTTP {http_status}")


def _with_chain(outcome: _Outcome, chain: list[str]) -> _Outcome:
    if len(chain) == 1:
        return outcome
    return outcome._replace(message=f"{outcome.message} (redirected: {' -> '.join(chain)})")


def _backoff(attempt: int, cap: float) -> float:
    return min(FIRST_BACKOFF_S * 2.0 ** (attempt - 1), cap)


def _after_attempts(message: str, attempts: int) -> str:
    return message if attempts == 1 else f"{message} after {attempts} attempts"


def _total_timeout_message(config: ExternalConfig) -> str:
    return f"not finished within the total timeout of {_seconds(config.total_timeout)} s"


def _seconds(value: float) -> str:
    return repr(round(float(value), 3))


def _describe(exc: BaseException) -> str:
    """A one-line reason for a failed request."""
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, http.client.RemoteDisconnected):
        return "server closed the connection without a response"
    if isinstance(exc, ConnectionResetError):
        return "connection reset by peer"
    if isinstance(exc, socket.gaierror):
        return f"cannot resolve host: {exc.strerror}"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS certificate error: {exc.verify_message}"
    if isinstance(exc, ssl.SSLError):
        return f"TLS error: {exc.reason or exc}"
    if isinstance(exc, http.client.InvalidURL):
        return f"invalid URL: {exc}"
    if isinstance(exc, http.client.HTTPException):
        return f"invalid HTTP response: {type(exc).__name__}"
    return " ".join((str(exc) or type(exc).__name__).split())


# --- the cache ---------------------------------------------------------------------------------------


def _is_cacheable(outcome: _Outcome) -> bool:
    """Only "ok" and "broken" describe the target, and a 503 even after retries describes the moment."""
    return outcome.status in CACHED_STATUSES and outcome.http_status != 503


def _read_cache(path: Path) -> dict[str, _CacheEntry]:
    """The valid entries of the cache file; a missing or corrupt file, or a corrupt entry, counts as absent."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    entries = {url: _parse_entry(value) for url, value in raw.items()}
    return {url: entry for url, entry in entries.items() if entry is not None}


def _parse_entry(value: Any) -> _CacheEntry | None:
    if not isinstance(value, dict):
        return None
    status, http_status = value.get("status"), value.get("http_status")
    message, checked_at = value.get("message"), value.get("checked_at")
    if (
        status not in CACHED_STATUSES
        or not isinstance(message, str)
        or not (http_status is None or (isinstance(http_status, int) and not isinstance(http_status, bool)))
        or not isinstance(checked_at, (int, float))
        or isinstance(checked_at, bool)
    ):
        return None
    return _CacheEntry(_Outcome(status, http_status, message), float(checked_at))


def _fresh_entries(entries: dict[str, _CacheEntry], now: float, ttl: float) -> dict[str, _CacheEntry]:
    return {url: entry for url, entry in entries.items() if 0 <= now - entry.checked_at < ttl}


def _write_cache(path: Path, entries: dict[str, _CacheEntry]) -> None:
    """Writes the cache atomically: a temporary file in the same directory, then os.replace."""
    data = {
        url: {
            "status": e.outcome.status,
            "http_status": e.outcome.http_status,
            "message": e.outcome.message,
            "checked_at": e.checked_at,
        }
        for url, e in sorted(entries.items())
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1)
            out.write("\n")
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
