"""What the build reads from a page's content HTML, kept by the hash of that HTML, within a build and across
builds (issue 19, item 6): the sanitiser's output and findings, the links and ids the link check needs, the
sections the search index takes, and the sections Material's index makes entries of.

Each is a function of the HTML alone, given perfdocs' code and the versions of the libraries that read it (the
cache's generation, apicache.generation_key): a page whose HTML a later build makes again, byte for byte, is not
sanitised, parsed or walked again. On this site that is every page of a build whose sources did not change,
the API reference's 690 kB among them. Only what the last build used is written back.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from .apicache import Snapshot, renderer_versions
from .parallel import Ahead

CONTENT_DIR = Path(".cache") / "perfdocs" / "content"
READERS = ("nh3", "selectolax")  # beside apicache.RENDERERS (Material's section parser among them)
T = TypeVar("T")
Work = tuple[str, str, Callable[[str], Any]]  # kind, HTML, what makes the kind's value of that HTML
Extra = tuple[str, Callable[[], Any]]  # a job of make_ahead no key keeps: its name, what makes its value

AHEAD_LEAST = 3  # fewer values than this (one page's) are made by the caller: a worker would cost more
_MAKING: list[Callable[[], Any]] = []  # what the forked workers of ContentCache.make_ahead make, by place


def _make_chunk(places: list[int]) -> list[Any]:
    return [_MAKING[place]() for place in places]


class ContentCache:
    """``get(kind, html, make)``: what ``make()`` returns for ``html``, made once per HTML and kind. ``root``: the
    project, whose cache folder keeps it for the next build (None: this build only). A kept value is shared by
    every page with that HTML: callers read it, never change it."""

    def __init__(self, root: Path | None = None) -> None:
        self.snapshot = (
            Snapshot(root / CONTENT_DIR, ["content", *renderer_versions(READERS)], "what the pages' HTML gave")
            if root
            else None
        )
        kept = self.snapshot.load() if self.snapshot is not None else None
        self.kept: dict[str, Any] = kept if isinstance(kept, dict) else {}
        self.used: dict[str, Any] = {}
        self.misses = 0  # values made by this build (save writes them)
        self.ahead: Ahead[int, Any] | None = None
        self.pending: dict[str, int] = {}  # key -> its place in ahead
        self.extra: dict[str, int] = {}  # extra job's name -> its place in ahead

    def get(self, kind: str, html: str, make: Callable[[], T]) -> T:
        key = self.key(kind, html)
        if key not in self.used:
            if key in self.kept:
                self.used[key] = self.kept[key]
            else:
                place = self.pending.pop(key, None)
                made = self.ahead.take(place) if self.ahead is not None and place is not None else None
                self.used[key] = make() if made is None else made
                self.misses += 1
        return self.used[key]  # type: ignore[no-any-return]

    def make_ahead(self, work: list[Work], chunk: int, extra: Sequence[Extra] = ()) -> None:
        """What ``work`` needs and this cache does not hold, made in a forked worker from the end of the list while
        the build takes from its start: ``get`` takes each value the worker made (waiting while it is at it), and
        makes the rest itself. Values may not be None. Then the ``extra`` jobs, whose values ``made`` gives and
        nothing keeps. ``stop_ahead`` ends it."""
        global _MAKING
        self.stop_ahead()
        todo: dict[str, Work] = {}
        for kind, html, make in reversed(work):
            key = self.key(kind, html)
            if key not in self.used and key not in self.kept:
                todo.setdefault(key, (kind, html, make))
        _MAKING = [functools.partial(make, html) for _, html, make in todo.values()] + [make for _, make in extra]
        try:
            self.ahead = Ahead(_make_chunk, list(range(len(_MAKING))), chunk=chunk, least=AHEAD_LEAST, lazy=True)
        finally:
            _MAKING = []
        self.pending = dict(zip(todo, range(len(todo)), strict=True))
        self.extra = {name: len(todo) + index for index, (name, _) in enumerate(extra)}

    def made(self) -> dict[str, Any]:
        """The value of each extra job of make_ahead the worker made (waiting while it is at one), by name; one it
        had not started is left out, for the caller to make."""
        found = {}
        for name, place in self.extra.items():
            value = self.ahead.take(place) if self.ahead is not None else None
            if value is not None:
                found[name] = value
        self.extra = {}
        return found

    def stop_ahead(self) -> None:
        if self.ahead is not None:
            self.ahead.close()
        self.ahead, self.pending, self.extra = None, {}, {}

    def put(self, kind: str, html: str, value: Any) -> None:
        """``value``, made elsewhere (a forked worker), as ``get`` would have made it for ``html``."""
        key = self.key(kind, html)
        if key not in self.used:
            self.used[key] = value
            self.misses += key not in self.kept

    @staticmethod
    def key(kind: str, html: str) -> str:
        return f"{kind} {hashlib.sha256(html.encode('utf-8', 'surrogatepass')).hexdigest()}"

    def in_memory(self) -> None:
        """From now on nothing is written: an incremental rebuild under mkdocs serve keeps what it makes for this
        server's next rebuilds (each save would write the whole file again; the next full build writes it)."""
        self.snapshot = None

    def save(self) -> None:
        """What this build used, for the next (when it made anything new, or left anything out)."""
        if self.snapshot is not None and (self.misses or self.used.keys() != self.kept.keys()):
            self.snapshot.save(self.used)
            self.kept, self.misses = dict(self.used), 0
