"""What the build reads from a page's content HTML, kept by the hash of that HTML, within a build and across
builds (issue 19, item 6): the sanitiser's output and findings, the links and ids the link check needs, the
sections the search index takes, and the sections Material's index makes entries of.

Each is a function of the HTML alone, given perfdocs' code and the versions of the libraries that read it (the
cache's generation, apicache.generation_key): a page whose HTML a later build makes again, byte for byte, is not
sanitised, parsed or walked again. On this site that is every page of a build whose sources did not change,
the API reference's 690 kB among them. Only what the last build used is written back.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from .apicache import Snapshot, renderer_versions

CONTENT_DIR = Path(".cache") / "perfdocs" / "content"
READERS = ("nh3", "selectolax")  # beside apicache.RENDERERS (Material's section parser among them)
T = TypeVar("T")


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

    def get(self, kind: str, html: str, make: Callable[[], T]) -> T:
        key = self.key(kind, html)
        if key not in self.used:
            if key in self.kept:
                self.used[key] = self.kept[key]
            else:
                self.used[key] = make()
                self.misses += 1
        return self.used[key]  # type: ignore[no-any-return]

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
