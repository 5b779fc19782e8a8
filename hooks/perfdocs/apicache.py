"""The API reference's entries as they were collected and rendered, kept across builds (issue 19, item 6).

An entry's HTML is a function of the libraries' sources, the renderer (mkdocstrings, its Python handler,
griffe, Markdown and their versions), perfdocs' own code (the docstring converter), the settings in mkdocs.yml
and the site's set of entries (a docstring links to the others). All of that is the *generation* a cache
folder is named by; within it each entry is one JSON file, by its identifier and options. A build whose
generation has every entry skips griffe's load of the module subset and mkdocstrings' templates: on this site,
two thirds of what the API reference adds to a build.

What the renderer logged at WARNING and above (which ``--strict`` counts) is kept with each entry and logged
again when the entry is reused, so a reused entry fails a strict build exactly as the first one did.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import pickle
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any

RENDER_DIR = Path(".cache") / "perfdocs" / "api-render"
INDEX_DIR = Path(".cache") / "perfdocs" / "api-index"
FORMAT = "1"  # the layout of a record; changing it starts a new generation
KEEP = 4  # generations kept (other configurations, other source versions): older ones are deleted
# the distributions that turn a collected object into HTML
RENDERERS = (
    "mkdocs",
    "mkdocstrings",
    "mkdocstrings-python",
    "mkdocs-autorefs",
    "griffelib",
    "griffe",
    "markdown",
    "pymdown-extensions",
    "jinja2",
    "markupsafe",
    "pygments",
    "mkdocs-material",
    "ruff",
    "black",
)

log = logging.getLogger("mkdocs.plugins.perfdocs")


@functools.cache
def code_digest() -> str:
    """perfdocs' own code, as this process loaded it (taken once: a file saved later is not the code running)."""
    package = Path(__file__).parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def renderer_versions(names: Iterable[str] = RENDERERS) -> list[str]:
    """'name version' of each distribution in ``names`` ('name -' when it is not installed)."""
    versions = []
    for name in names:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} -")
    return versions


def stable(value: Any) -> str:
    """A value of a config as JSON sees it, for a key: a function or an object without a repr of its own is
    named by where it is defined (its default repr holds a memory address, which changes every run)."""
    if callable(value) or type(value).__repr__ is object.__repr__:
        kind = value if callable(value) and hasattr(value, "__qualname__") else type(value)
        return f"<{getattr(kind, '__module__', '')}.{getattr(kind, '__qualname__', '')}>"
    return repr(value)


def settings_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=stable)


class RenderCache:
    """One generation's records: ``get``/``put`` by a kind ('checked', 'rendered') and a key."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.hits = 0
        self.misses = 0
        self._unwritable: str | None = None

    @classmethod
    def open(cls, root: Path, parts: Iterable[str]) -> RenderCache:
        return cls(root / RENDER_DIR / generation_key(parts))

    def _file(self, kind: str, key: str) -> Path:
        return self.folder / f"{kind}-{hashlib.sha256(key.encode()).hexdigest()[:24]}.json"

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        try:
            record = json.loads(self._file(kind, key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = None
        if not isinstance(record, dict) or record.get("key") != key:  # absent, half-written by a killed build
            self.misses += 1
            return None
        self.hits += 1
        return record

    def put(self, kind: str, key: str, record: dict[str, Any]) -> None:
        """Writes the record (whole or not at all); a cache that cannot be written costs speed, not the build,
        and is said once."""
        if self._unwritable is not None:
            return
        try:
            if not self.folder.is_dir():
                self.folder.mkdir(parents=True, exist_ok=True)
                prune(self.folder.parent, keep=self.folder)
            write_whole(self._file(kind, key), json.dumps({**record, "key": key}).encode())
        except OSError as exc:
            self._unwritable = str(exc)
            log.info("perfdocs: the API entries are not kept for the next build (%s)", exc)


def write_whole(path: Path, data: bytes) -> None:
    """``data`` into ``path`` by a rename: a reader sees the old file or the whole new one, never a part."""
    handle, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        os.fchmod(handle, 0o644)  # mkstemp's 0600 would keep the cache from a CI job run as another user
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def prune(parent: Path, keep: Path) -> None:
    """Deletes all but the ``KEEP`` entries of ``parent`` used last (``keep`` among them)."""
    try:
        entries = sorted((p for p in parent.iterdir() if p != keep), key=lambda p: p.stat().st_mtime)
    except OSError:
        return
    for old in entries[: max(0, len(entries) - (KEEP - 1))]:
        if old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink(missing_ok=True)


def generation_key(parts: Iterable[str]) -> str:
    """The name of a cache entry for ``parts``, with perfdocs' code and the renderers' versions in it."""
    return hashlib.sha256("\n".join([FORMAT, code_digest(), *renderer_versions(), *parts]).encode()).hexdigest()[:20]


class Snapshot:
    """One object kept by pickle under ``folder``/key (the API index after its entries are registered, whose
    griffe parse is most of its cost; what the build read from each page's content, contentcache.py). Written
    only by perfdocs into the project's own cache folder."""

    def __init__(self, folder: Path, parts: Iterable[str], what: str = "the API index"):
        self.file = folder / f"{generation_key(parts)}.pickle"
        self.what = what

    def load(self) -> Any:
        try:
            with self.file.open("rb") as f:
                return pickle.load(f)
        except FileNotFoundError:
            return None
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError) as exc:
            log.info("perfdocs: %s cannot be read (%s); it is made again", self.file.name, exc)
            return None

    def save(self, value: Any) -> None:
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            write_whole(self.file, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
            os.utime(self.file)
            prune(self.file.parent, keep=self.file)
        except (OSError, pickle.PicklingError, RecursionError) as exc:
            log.info("perfdocs: %s is not kept for the next build (%s)", self.what, exc)


class LogCapture(logging.Handler):
    """Records at WARNING and above, each once, whichever of the watched loggers it reaches."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not any(r is record for r in self.records):
            self.records.append(record)


@contextmanager
def captured_logs() -> Iterator[list[list[Any]]]:
    """What is logged inside the block at WARNING and above, as [logger, level, message] (logged as usual
    too). MkDocs' logger does not propagate to the root, so both are watched."""
    capture = LogCapture()
    loggers = [logging.getLogger(), logging.getLogger("mkdocs")]
    for logger in loggers:
        logger.addHandler(capture)
    out: list[list[Any]] = []
    try:
        yield out
    finally:
        for logger in loggers:
            logger.removeHandler(capture)
        out += [[r.name, r.levelno, r.getMessage()] for r in capture.records]


def replay_logs(logs: Iterable[list[Any]]) -> None:
    for name, level, message in logs:
        logging.getLogger(name).log(level, "%s", message)
