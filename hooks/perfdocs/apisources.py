"""Where each library's source comes from, for the API reference (perfdocs.apirefs): the installed distribution
when its version is the one the ``recipes`` extra pins, else that pinned version installed without dependencies
into ``.cache/perfdocs/api-sources/`` (``pip install --no-deps --target``: pure-Python files, no torch), checked at
each build against the manifest written with it and fetched again when it does not match (see MANIFEST)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from .apiconfig import ApiConfig
from .badges import recipe_pins
from .diagnostics import Diagnostic, Location, display_path

SOURCES_DIR = Path(".cache") / "perfdocs" / "api-sources"  # pinned sources installed without dependencies

# A cache entry (``.cache/perfdocs/api-sources/<name>-<version>``) is what ``pip install --no-deps --target``
# wrote, plus MANIFEST: every file's size, mtime and sha256, written last. pip writes into a FETCH_PREFIX
# folder next to the entry, renamed into place once complete, so an entry is all or nothing. Each build checks
# the entry against its manifest: the file list, sizes and mtimes (for transformers' 2,922 files, 54 MB:
# 0.04-0.09 s on a loaded 2-core machine, manifest read included), and hashes a file only when its mtime
# differs (hashing all of it: 0.13 s idle, 0.27-0.37 s loaded, each build, which is why it is not done).
# An entry that does not match (no manifest, a file missing, added or changed) is removed and fetched again.
MANIFEST = "perfdocs-manifest.json"
FETCH_PREFIX = ".perfdocs-fetch-"  # + '<pid>-<name>-<version>-<random>': a fetch in progress (or interrupted)
_STARTED = time.time()  # about when this process started: a fetch folder older than it is no fetch of its own
log = logging.getLogger("mkdocs.plugins.perfdocs")


@dataclass(frozen=True)
class Source:
    name: str  # the import name, e.g. 'transformers'
    version: str
    root: Path  # the directory that holds the package folder
    cache: Path | None = None  # the API sources cache it was fetched into; None for an installed distribution


class SourcesError(OSError):
    """The pinned sources could not be fetched into the cache: ``str()`` says why, naming the cache."""


def _installed(name: str) -> tuple[str, Path] | None:
    """(version, folder holding the package) of an installed distribution, read from its metadata (no import)."""
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return None
    base = Path(str(dist.locate_file("")))
    return (dist.version, base) if (base / name / "__init__.py").is_file() else None


def _pinned(root: Path) -> dict[str, str]:
    path = root / "pyproject.toml"
    if not path.is_file():
        return {}
    pins, _ = recipe_pins(path.read_text(encoding="utf-8"))
    return {name.lower(): version for name, version in pins}


def shown_path(path: Path, root: Path | None) -> str:
    return display_path(path, root) if root is not None else path.as_posix()


def _pip_install(name: str, version: str, target: Path) -> None:
    """``name==version`` installed without dependencies into ``target`` (what griffe's load_pypi does); an
    OSError with pip's last line when it fails."""
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "--no-compile",
        "--disable-pip-version-check",
        "--no-input",
        "--target",
        str(target),
        f"{name}=={version}",
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise OSError(f"cannot run pip: {exc}") from exc
    if done.returncode:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise OSError(said[-1] if said else f"pip exited with {done.returncode}")


def _files(entry: Path) -> dict[str, os.stat_result]:
    """Every file under ``entry`` (its manifest aside), by its '/'-separated relative path."""
    found: dict[str, os.stat_result] = {}
    stack = [(entry, "")]
    while stack:
        folder, prefix = stack.pop()
        with os.scandir(folder) as items:
            for item in items:
                rel = prefix + item.name
                if item.is_dir(follow_symlinks=False):
                    stack.append((Path(item.path), rel + "/"))
                elif rel != MANIFEST:
                    found[rel] = item.stat(follow_symlinks=False)
    return found


def _sha256(file: Path) -> str:
    with file.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _write_manifest(entry: Path, name: str, version: str, digests: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Writes the entry's manifest (to a temporary file, then renamed: it is whole or absent); returns it.
    ``digests``: the sha256 of each file, when they are known (else each file is hashed)."""
    files = {
        rel: {
            "size": st.st_size,
            "mtime_ns": st.st_mtime_ns,
            "sha256": digests[rel] if digests is not None else _sha256(entry / rel),
        }
        for rel, st in sorted(_files(entry).items())
    }
    manifest = {"format": 1, "package": name, "version": version, "files": files}
    tmp = entry / f".{MANIFEST}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(manifest, indent=0, sort_keys=True), encoding="utf-8")
    os.replace(tmp, entry / MANIFEST)
    return manifest


def _some(paths: list[str]) -> str:
    more = len(paths) - 1
    return paths[0] + (f" and {more} more file{'s' if more > 1 else ''}" if more else "")


def _entry_problem(entry: Path, name: str, version: str) -> str | None:
    """Why the cache entry cannot be used ('is incomplete (missing peft/x.py)'); None when it matches its
    manifest. Files whose size and mtime match are taken as they are; the others are hashed."""
    try:
        text = (entry / MANIFEST).read_text(encoding="utf-8")
    except FileNotFoundError:
        return f"is incomplete (it has no {MANIFEST})"
    except OSError as exc:
        return f"is unreadable ({MANIFEST}: {exc.strerror or exc})"
    except UnicodeDecodeError:
        text = ""
    try:
        manifest = json.loads(text)
        listed = {str(k): (int(v["size"]), int(v["mtime_ns"]), str(v["sha256"])) for k, v in manifest["files"].items()}
        package, pinned = manifest["package"], manifest["version"]
    except (ValueError, KeyError, TypeError, AttributeError):
        return f"is corrupt (its {MANIFEST} is not one perfdocs wrote)"
    if (package, pinned) != (name, version):
        return f"is corrupt (its {MANIFEST} is for {package} {pinned})"
    try:
        present = _files(entry)
    except OSError:
        return "is incomplete (its files went away while they were checked)"
    missing = sorted(set(listed) - set(present))
    if missing:
        return f"is incomplete (missing {_some(missing)})"
    extra = sorted(set(present) - set(listed))
    if extra:
        return f"is corrupt (it has files its {MANIFEST} does not list: {_some(extra)})"
    changed: list[str] = []
    touched: list[str] = []
    for rel, (size, mtime, digest) in sorted(listed.items()):
        st = present[rel]
        if st.st_size != size:
            changed.append(rel)
        elif st.st_mtime_ns != mtime:
            try:
                same = _sha256(entry / rel) == digest
            except OSError:
                return f"is incomplete (missing {rel})"
            (touched if same else changed).append(rel)
    if changed:
        return f"is corrupt ({_some(changed)} changed since it was fetched)"
    if touched:  # same content, new mtimes (a copy of the cache): the next build need not hash them again
        try:
            _write_manifest(entry, name, version, {rel: digest for rel, (_, _, digest) in listed.items()})
        except (OSError, KeyError):  # KeyError: a file came meanwhile; the next build sees it
            pass
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's process: alive
        return True
    return True


def _remove_stale_fetches(cache: Path, root: Path | None = None) -> None:
    """Removes the fetch folders an interrupted fetch of an earlier process left in ``cache``: named
    FETCH_PREFIX + the fetching process's id, older than this process, and that process gone. Nothing else
    in the cache is touched."""
    try:
        items = list(os.scandir(cache))
    except OSError:
        return
    for item in items:
        if not item.name.startswith(FETCH_PREFIX):
            continue
        pid = item.name[len(FETCH_PREFIX) :].split("-", 1)[0]
        try:
            stale = item.is_dir(follow_symlinks=False) and item.stat(follow_symlinks=False).st_mtime < _STARTED
        except OSError:
            continue
        if not stale or not pid.isdigit() or int(pid) == os.getpid() or _alive(int(pid)):
            continue
        shutil.rmtree(item.path, ignore_errors=True)
        if not os.path.exists(item.path):
            log.info(
                "perfdocs: removed %s, left by an interrupted fetch of API sources", shown_path(Path(item.path), root)
            )


def fetch_sources(name: str, version: str, cache: Path, root: Path | None = None, gone: bool = False) -> Path:
    """The cache entry with the pinned sources: checked against its manifest, else fetched (again). A
    SourcesError naming the cache when it cannot be. ``root``: what paths in messages are relative to;
    ``gone``: the entry was there earlier in this build (and may have been deleted since)."""
    target = cache / f"{name}-{version}"
    _remove_stale_fetches(cache, root)
    there = os.path.lexists(target)
    problem = _entry_problem(target, name, version) if there else "disappeared during the build" if gone else None
    if there and problem is None:
        return target
    shown = shown_path(target, root)
    if problem is not None:
        log.info("perfdocs: API sources cache %s %s; fetching it again", shown, problem)
    try:
        if there:
            _remove(target)
        cache.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f"{FETCH_PREFIX}{os.getpid()}-{name}-{version}-", dir=cache))
    except OSError as exc:
        raise SourcesError(_fetch_failure(name, version, shown, problem, f"{exc.strerror or exc}")) from exc
    started = time.perf_counter()
    if problem is None:
        log.info(
            "perfdocs: fetching the API sources of %s %s into %s (first build only)...",
            name,
            version,
            shown_path(cache, root),
        )
    try:
        _pip_install(name, version, tmp)
        if not (tmp / name / "__init__.py").is_file():
            raise OSError(f"pip installed no {name}/__init__.py")
        manifest = _write_manifest(tmp, name, version)
        try:
            os.replace(tmp, target)
        except OSError:
            if _entry_problem(target, name, version) is not None:  # another build put it there first: fine
                raise
    except OSError as exc:
        raise SourcesError(_fetch_failure(name, version, shown, problem, str(exc))) from exc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    size = sum(f["size"] for f in manifest["files"].values())
    log.info(
        "perfdocs: fetched the API sources of %s %s (%d file%s, %.0f MB) in %.1f s",
        name,
        version,
        len(manifest["files"]),
        "" if len(manifest["files"]) == 1 else "s",
        size / 1e6,
        time.perf_counter() - started,
    )
    return target


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)  # a file another process deletes first is no error
    elif os.path.lexists(path):
        os.unlink(path)
    if os.path.lexists(path):
        raise OSError(f"cannot remove {path}")


def why_failed(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"{exc.msg} ({exc.filename}:{exc.lineno})"
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    return str(exc) or type(exc).__name__


def _fetch_failure(name: str, version: str, shown: str, problem: str | None, why: str) -> str:
    if problem is None:
        return f"cannot fetch the sources of {name}=={version} into the API sources cache {shown}: {why}"
    return f"the API sources cache {shown} {problem}, and fetching {name}=={version} again failed: {why}"


def library_sources(config: ApiConfig, fetch: bool = True) -> tuple[dict[str, Source], list[Diagnostic]]:
    """Each library's source: installed at the pinned version, else the pinned version fetched into the cache."""
    pins = _pinned(config.root)
    found: dict[str, Source] = {}
    problems: list[Diagnostic] = []
    where = Location(config.config_file, 1)
    for name in config.namespaces:
        pin = pins.get(name.lower())
        installed = _installed(name)
        if installed and (pin is None or installed[0] == pin):
            found[name] = Source(name, installed[0], installed[1])
            continue
        if pin is None:
            problems.append(
                Diagnostic(
                    where,
                    f"the API reference needs the sources of {name}: it is not installed and the recipes extra "
                    "does not pin it",
                    "api-sources",
                    hint=f'pin it in pyproject.toml (recipes = ["{name}==..."]) or pip install it',
                )
            )
            continue
        if not fetch:
            continue
        cache = config.root / SOURCES_DIR
        try:
            found[name] = Source(name, pin, fetch_sources(name, pin, cache, config.root), cache)
        except OSError as exc:
            problems.append(sources_problem(where, name, pin, str(exc)))
    return found, problems


def sources_problem(where: Location, name: str, version: str, message: str) -> Diagnostic:
    return Diagnostic(
        where,
        message,
        "api-sources",
        hint=f"pip install --no-deps {name}=={version} (the build reads its files; nothing imports it); until "
        f"then the API entries and links of {name} are left out",
    )
