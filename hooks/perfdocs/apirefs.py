"""API references: doc-builder's ``[`Name`]`` links and ``[[autodoc]] Name`` entries, from the libraries' sources.

mkdocstrings (its Python handler, with griffe) renders an entry's signature and documented parameters, and
mkdocs-autorefs turns ``[text][identifier]`` into a link to it. Both read source statically: nothing here
imports the libraries (accelerate and peft import torch, which the site's install must not pull).

griffe reading all of transformers takes about 50 s, so the index reads each library module by module, as the
names in the docs need them, and hands mkdocstrings a copy of just those modules (``write_subset``), set as its
handler's search path. Where the sources come from: the installed distribution when its version is the one the
``recipes`` extra pins, else that pinned version installed without dependencies into ``.cache/perfdocs/``
(``pip install --no-deps --target``: pure-Python files, no torch), checked at each build against the manifest
written with it and fetched again when it does not match (see MANIFEST).

How a name is looked up (doc-builder's rules, over several libraries): the libraries are the Python handler's
``preload_modules`` in mkdocs.yml, in order. A name whose first part is one of them is fully qualified and
looked up there only; any other name is tried in each library in that order, and the first that has it wins.
The link goes to the entry an ``[[autodoc]]`` gives the object, or to the entry of its nearest documented
parent (``Trainer.evaluate`` when only ``Trainer`` is documented); an object the library has but no page
documents renders as code, as doc-builder renders it; a name no library has is an error.
"""

from __future__ import annotations

import ast
import hashlib
import json
import logging
import os
import re
import shutil
import string
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import griffe

from . import markdown as md
from .badges import recipe_pins
from .diagnostics import Diagnostic, Location, display_path
from .mkdocstrings_adapter import HANDLER, forget_loaded, made_handler, python_handler, search_path
from .text import MARKER_RE, MEMBER_RE, marker_groups

__all__ = [
    "ApiConfig",
    "ApiIndex",
    "ApiLink",
    "Entry",
    "Problem",
    "Resolved",
    "api_config",
    "api_link",
    "autodoc_blocks",
    "build_index",
    "check_entries",
    "misread_brackets",
    "read_docstring",
    "reference_labels",
    "signature_formatter",
    "twin_heading",
]

SOURCES_DIR = Path(".cache") / "perfdocs" / "api-sources"  # pinned sources installed without dependencies
SUBSET_DIR = Path(".cache") / "perfdocs" / "api-subset"  # the modules mkdocstrings reads, one folder per set
DEFINITIONS_DIR = Path(".cache") / "perfdocs" / "api-names"  # which module defines which name, per version
MAX_ALIAS_HOPS = 12
UNAVAILABLE = "unavailable"  # the kind of an entry whose library's sources this build does not have
DEFINITION_RE = re.compile(rb"^(?:class|def)[ \t]+(\w+)|^(\w+)[ \t]*=", re.M)  # candidates only


@dataclass(frozen=True)
class Problem:
    """What went wrong with an API link or an [[autodoc]] entry: the dialect reports it where it was written."""

    message: str
    code: str
    hint: str | None = None
    member: str | None = None  # the member line it is about, when it is one (an [[autodoc]] member)


# -- configuration -------------------------------------------------------------------------------------------
@dataclass
class ApiConfig:
    """The API reference's settings, read from the mkdocstrings plugin in mkdocs.yml."""

    root: Path  # the directory of mkdocs.yml
    namespaces: tuple[str, ...]  # the libraries, in lookup order (the handler's preload_modules)
    handler: dict[str, Any] | None = None  # the Python handler's live config: its ``paths`` are set per build
    config_file: str = "mkdocs.yml"  # as diagnostics name it
    plugin: Any = None  # the mkdocstrings plugin, whose Python handler may already exist (see use_subset)


def api_config(config: Any, display: str = "mkdocs.yml") -> ApiConfig | None:
    """The API settings of a validated MkDocs config; None when the mkdocstrings plugin is not enabled."""
    plugins = config.get("plugins") if hasattr(config, "get") else None
    plugin = plugins.get("mkdocstrings") if plugins is not None else None
    if plugin is None:
        return None
    handlers = plugin.config.get("handlers") if hasattr(plugin, "config") else None
    if not isinstance(handlers, dict):
        return None
    handler = handlers.setdefault(HANDLER, {})
    options = handler.get("options") or {}
    namespaces = tuple(str(n) for n in options.get("preload_modules") or ())
    root = Path(os.path.abspath(config.config_file_path or "mkdocs.yml")).parent
    return ApiConfig(root, namespaces, handler, display, plugin)


# -- where each library's source comes from ------------------------------------------------------------------
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


def _shown(path: Path, root: Path | None) -> str:
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
            log.info("perfdocs: removed %s, left by an interrupted fetch of API sources", _shown(Path(item.path), root))


def _fetch(name: str, version: str, cache: Path, root: Path | None = None, gone: bool = False) -> Path:
    """The cache entry with the pinned sources: checked against its manifest, else fetched (again). A
    SourcesError naming the cache when it cannot be. ``root``: what paths in messages are relative to;
    ``gone``: the entry was there earlier in this build (and may have been deleted since)."""
    target = cache / f"{name}-{version}"
    _remove_stale_fetches(cache, root)
    there = os.path.lexists(target)
    problem = _entry_problem(target, name, version) if there else "disappeared during the build" if gone else None
    if there and problem is None:
        return target
    shown = _shown(target, root)
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
            _shown(cache, root),
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


def _why(exc: BaseException) -> str:
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
            found[name] = Source(name, pin, _fetch(name, pin, cache, config.root), cache)
        except OSError as exc:
            problems.append(_sources_problem(where, name, pin, str(exc)))
    return found, problems


def _sources_problem(where: Location, name: str, version: str, message: str) -> Diagnostic:
    return Diagnostic(
        where,
        message,
        "api-sources",
        hint=f"pip install --no-deps {name}=={version} (the build reads its files; nothing imports it); until "
        f"then the API entries and links of {name} are left out",
    )


# -- a library, read module by module ------------------------------------------------------------------------
class _Library:
    """One library's modules, parsed by griffe on demand; ``files`` are the module files read so far."""

    def __init__(
        self,
        source: Source,
        collection: griffe.ModulesCollection,
        lines: griffe.LinesCollection,
        cache: Path | None = None,
    ):
        self.source = source
        self.cache = cache  # where the scan of the package's definitions is kept
        self.collection = collection
        self.lines = lines
        self.files: dict[str, Path] = {}  # module path -> file
        self._absent: set[str] = set()
        self._defined: dict[str, list[str]] | None = None
        self._lazy: dict[str, str] | None = None
        self.fallbacks: dict[str, str] = {}  # top-level name -> its module, for names griffe does not bind there
        self.exported: dict[str, str] = {}  # those of them entries use: imported in the subset's __init__ copy
        self.top = self._visit(source.name, source.root / source.name / "__init__.py", None)
        collection.set_member(source.name, self.top)

    def vanished(self) -> bool:
        """Whether the sources went away since they were first read (their cache deleted during the build)."""
        return not (self.source.root / self.source.name / "__init__.py").is_file()

    def _visit(self, path: str, file: Path, parent: griffe.Module | None) -> griffe.Module:
        module = griffe.visit(
            path.rsplit(".", 1)[-1],
            filepath=file,
            code=file.read_text(encoding="utf-8-sig"),
            parent=parent,
            lines_collection=self.lines,
            modules_collection=self.collection,
        )
        self.files[path] = file
        return module

    def submodule(self, module: griffe.Module, name: str) -> griffe.Module | None:
        """``module.name`` as a module, parsed now if it was not yet; None when there is no such file."""
        path = f"{module.path}.{name}"
        member = module.members.get(name)
        if member is not None and not member.is_alias and member.is_module:
            return member  # type: ignore[return-value]
        if path in self._absent or not isinstance(module.filepath, Path) or module.filepath.name != "__init__.py":
            return None
        folder = module.filepath.parent
        for file in (folder / name / "__init__.py", folder / f"{name}.py"):
            if file.is_file():
                try:
                    sub = self._visit(path, file, module)
                except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
                    break
                module.set_member(name, sub)
                return sub
        self._absent.add(path)
        return None

    def load_path(self, path: str) -> bool:
        """Parses the modules along a dotted path; whether any was new."""
        parts = path.split(".")
        if parts[0] != self.source.name:
            return False
        module: griffe.Module = self.top
        new = False
        for part in parts[1:]:
            member = module.members.get(part)
            if member is not None and not member.is_alias and member.is_module:
                module = member  # type: ignore[assignment]
                continue
            before = len(self.files)
            sub = self.submodule(module, part)
            if sub is None:
                break
            new = new or len(self.files) > before
            module = sub
        return new

    def defining_modules(self, name: str) -> list[str]:
        """Modules that define ``name`` at top level and export it: where a wildcard import (``from .models
        import *``, transformers' way) brings a name from. A scan of the package's text picks the candidates
        once per build; griffe's parse of each candidate decides."""
        found = []
        for path in self.definitions().get(name, ()):
            if not self.load_path(path) and path not in self.files:
                continue
            module = self.collection.get_member(path) if self.has(path) else None
            if module is None:
                continue
            member = module.members.get(name)
            exports = module.exports
            if member is not None and not member.is_alias and (exports is None or name in exports):
                found.append(path)
        return found

    def definitions(self) -> dict[str, list[str]]:
        """Top-level names that each public module of the package seems to define (class, def, assignment)."""
        if self._defined is not None:
            return self._defined
        key = hashlib.sha256(str(self.source.root).encode()).hexdigest()[:12]
        saved = self.cache / f"{self.source.name}-{self.source.version}-{key}.json" if self.cache else None
        if saved is not None and saved.is_file():
            try:
                self._defined = json.loads(saved.read_text(encoding="utf-8"))
                return self._defined
            except (OSError, ValueError):
                pass
        defined: dict[str, list[str]] = {}
        self._defined = defined
        package = self.source.root / self.source.name
        whole = True  # False when files went away while they were read (the cache deleted during the build)
        for file in sorted(package.rglob("*.py")):
            rel = file.relative_to(self.source.root).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            if any(p.startswith("_") for p in parts[1:]) or any("." in p for p in parts):
                continue
            path = ".".join(parts)
            try:
                text = file.read_bytes()
            except OSError:
                whole = False
                continue
            for m in DEFINITION_RE.finditer(text):
                defined.setdefault((m.group(1) or m.group(2)).decode(), []).append(path)
        if whole and not self.vanished() and saved is not None:  # a pinned version's sources do not change
            try:
                saved.parent.mkdir(parents=True, exist_ok=True)
                tmp = saved.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(json.dumps(self._defined), encoding="utf-8")
                os.replace(tmp, saved)
            except OSError:
                pass
        return self._defined

    def lazy_names(self) -> dict[str, str]:
        """Top-level names the package's ``__init__`` exports lazily, each with the module that defines it:
        transformers' ``_import_structure = {"utils.quantization_config": ["Mxfp4Config", ...]}``, read by
        ``_LazyModule`` at run time. griffe reads only the imports under ``if TYPE_CHECKING:``, which may
        omit some (Mxfp4Config in transformers 5): doc-builder, which imports the package, finds them."""
        if self._lazy is not None:
            return self._lazy
        self._lazy = {}
        file = self.files.get(self.source.name)
        try:
            tree = ast.parse(file.read_text(encoding="utf-8-sig")) if file else None
        except (OSError, SyntaxError, ValueError):
            tree = None
        for node in tree.body if tree else ():
            if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)):
                continue
            if not any(isinstance(t, ast.Name) and t.id == "_import_structure" for t in node.targets):
                continue
            for key, value in zip(node.value.keys, node.value.values):
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                    continue
                if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
                    for item in value.elts:
                        if isinstance(item, ast.Constant) and isinstance(item.value, str):
                            self._lazy.setdefault(item.value, f"{self.source.name}.{key.value}")
        return self._lazy

    def has(self, path: str) -> bool:
        try:
            self.collection.get_member(path)
        except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return False
        return True


# -- the index -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Resolved:
    """A name found in a library."""

    path: str  # the public path it was found at, e.g. 'transformers.Trainer.train'
    canonical: str  # where it is defined, e.g. 'transformers.trainer.Trainer.train'
    kind: str  # griffe's kind: 'class', 'function', 'attribute', 'module', ...
    anchor: str | None  # the identifier of the entry a link goes to; None when no page documents it


@dataclass(frozen=True)
class Entry:
    """An object an [[autodoc]] renders: the identifier mkdocstrings gets, and the ids its entry has."""

    identifier: str
    canonical: str
    kind: str
    where: Location  # the [[autodoc]] line
    page: str  # docs-relative page
    members: tuple[str, ...] | None  # listed members; None: the public documented ones ('- all' or nothing)
    inherited: tuple[str, ...]  # listed members that come from a base class
    anchors: dict[str, str]  # canonical path of each object that gets an id -> that id
    library: str | None = None  # kind UNAVAILABLE: the library whose sources the build lacks


@dataclass(frozen=True)
class AutodocLine:
    """An ``[[autodoc]] Name`` line found by the pre-scan, with its member lines."""

    line: int  # 1-based
    col: int  # 1-based column of '[[autodoc]]'
    name: str
    members: tuple[str, ...]


@dataclass(eq=False)
class ApiIndex:
    """The objects the site documents and how names resolve to them; built once per build."""

    namespaces: tuple[str, ...]
    libraries: dict[str, _Library] = field(default_factory=dict)
    entries: dict[str, Entry] = field(default_factory=dict)  # canonical path of the object -> its entry
    anchors: dict[str, str] = field(default_factory=dict)  # canonical path -> id, for every documented object
    problems: list[Diagnostic] = field(default_factory=list)  # sources that could not be read
    subset: Path | None = None  # the folder of module copies mkdocstrings reads
    public: dict[str, str] = field(default_factory=dict)  # id of every documented object -> its kind
    sealed: bool = False  # every page is read: an entry added now would miss the module subset
    refused: dict[tuple[str, int], Problem] = field(default_factory=dict)  # [[autodoc]] line -> why not rendered
    # libraries whose sources this build does not have -> why (reported once, in ``problems``): their names
    # are code and their entries a note, not each an error
    unavailable: dict[str, str] = field(default_factory=dict)
    root: Path | None = None  # the project's root, that paths in messages are relative to

    @classmethod
    def from_sources(
        cls,
        namespaces: Iterable[str],
        sources: Mapping[str, Source],
        cache: Path | None = None,
        refetch: Callable[[Source], Source] | None = None,
    ) -> ApiIndex:
        """The index over ``sources``; a library whose sources cannot be read goes to ``unavailable``, after
        one ``refetch`` (a fetched one whose cache went away since it was checked)."""
        index = cls(tuple(namespaces))
        collection, lines = griffe.ModulesCollection(), griffe.LinesCollection()
        for name in index.namespaces:
            source, retry = sources.get(name), refetch
            while source is not None:
                try:
                    index.libraries[name] = _Library(source, collection, lines, cache)
                    break
                except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
                    if retry is None or source.cache is None:
                        index.unavailable[name] = f"cannot read the sources of {name} {source.version}: {_why(exc)}"
                        break
                try:
                    source, retry = retry(source), None
                except OSError as exc:  # a SourcesError: it names the cache
                    index.unavailable[name] = str(exc)
                    break
        return index

    def _unavailable(self, name: str) -> str | None:
        """The library that may have ``name`` and whose sources this build lacks (never fetched, unreadable,
        or deleted since they were read); None when every library that may have it was read."""
        first = name.split(".", 1)[0]
        for ns in [first] if first in self.namespaces else self.namespaces:
            if ns in self.unavailable:
                return ns
            library = self.libraries.get(ns)
            if library is not None and library.vanished():
                source = library.source
                where = _shown(source.root, self.root)
                if source.cache is not None:
                    why = f"the API sources cache {where} disappeared during the build"
                    then = "; the next build fetches it again"
                else:
                    why, then = f"the sources of {ns} {source.version} at {where} disappeared during the build", ""
                self.unavailable[ns] = why
                log.error("perfdocs: %s: the names of %s not read by then are shown as code%s", why, ns, then)
                return ns
        return None

    # -- finding objects -------------------------------------------------------------------------------------
    def _candidates(self, name: str) -> list[str]:
        first = name.split(".", 1)[0]
        if first in self.namespaces:
            return [name]
        return [f"{ns}.{name}" for ns in self.namespaces]

    def _find(self, name: str) -> tuple[str, griffe.Object | None] | None:
        """(public path, object) of the first library that has ``name``; the object is None when griffe cannot
        see whether it exists (a member of a value, of a class with a base outside the libraries)."""
        for path in self._candidates(name):
            try:
                obj = self._object(path)
            except _Unseen:
                return path, None
            if obj is not None:
                return path, obj
        return None

    def _object(self, path: str) -> griffe.Object | None:
        parts = path.split(".")
        library = self.libraries.get(parts[0])
        if library is None:
            return None
        obj: griffe.Object | None = library.top
        for i, part in enumerate(parts[1:], 1):
            assert obj is not None
            obj = self._member(library, obj, part, top=i == 1)
            if obj is None:
                return None
        return obj

    def _member(self, library: _Library, obj: griffe.Object, name: str, top: bool) -> griffe.Object | None:
        if obj.is_attribute:
            raise _Unseen  # a value: its members are not in the source
        member: griffe.Object | griffe.Alias | None = obj.members.get(name)
        if member is None and obj.is_module:
            member = library.submodule(obj, name)  # type: ignore[arg-type]
        if member is None and obj.is_class:
            member = self._inherited(obj, name)  # type: ignore[arg-type]
        if member is None and top and not name.startswith("_"):
            member = self._top_fallback(library, name)
        if member is None:
            return None
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            return None  # private: not part of the API
        if not member.is_alias:
            return member  # type: ignore[return-value]
        target = self._target(member)  # type: ignore[arg-type]
        if target is None and member.target_path.split(".", 1)[0] not in self.libraries:  # type: ignore[union-attr]
            raise _Unseen  # imported from another package
        return target

    def _top_fallback(self, library: _Library, name: str) -> griffe.Object | griffe.Alias | None:
        """A top-level name griffe's reading of the ``__init__`` does not bind: brought by a wildcard import,
        or exported lazily (``_import_structure``). Where it comes from is kept (``library.fallbacks``): an
        entry of it needs an import in the subset's ``__init__``, or mkdocstrings would not find it."""
        module = None
        sources = _wildcard_sources(library.top)  # 'transformers.models' for 'from .models import *'
        if sources:
            defining = [
                path
                for path in library.defining_modules(name)
                if any(path == source or path.startswith(source + ".") for source in sources)
            ]
            module = defining[0] if defining else None
        if module is None and (lazy := library.lazy_names().get(name)) is not None:
            library.load_path(lazy)
            if library.has(lazy):
                candidate = library.collection.get_member(lazy)
                if name in candidate.members:
                    module = lazy
        if module is None:
            return None
        library.fallbacks[name] = module
        return library.collection.get_member(f"{module}.{name}")  # type: ignore[no-any-return]

    def _target(self, alias: griffe.Alias) -> griffe.Object | None:
        for _ in range(MAX_ALIAS_HOPS):
            try:
                return alias.final_target  # type: ignore[return-value]
            except griffe.AliasResolutionError as exc:
                missing = exc.alias.target_path
                owner = self.libraries.get(missing.split(".", 1)[0])
                if owner is None or not owner.load_path(missing):
                    return None
            except griffe.CyclicAliasError:
                return None
        return None

    def _inherited(self, cls: griffe.Class, name: str) -> griffe.Object | griffe.Alias | None:
        """``name`` from a base class; raises _Unseen when a base is outside the libraries (torch's Module)."""
        missing: list[str] = []
        for base in self._bases(cls, missing):
            found = base.members.get(name) or self._inherited(base, name)
            if found is not None:
                return found
        if missing:
            raise _Unseen
        return None

    def _bases(self, cls: griffe.Class, missing: list[str] | None = None) -> list[griffe.Class]:
        """The class's bases that are in a library, parsing their modules as needed; the others go to ``missing``."""
        bases: list[griffe.Class] = []
        for base in cls.bases:
            path = base if isinstance(base, str) else base.canonical_path
            library = self.libraries.get(path.split(".", 1)[0])
            obj = None
            if library is not None:
                library.load_path(path)
                try:
                    obj = self._object(path)
                except _Unseen:
                    obj = None
            if obj is not None and obj.is_class:
                bases.append(obj)  # type: ignore[arg-type]
            elif missing is not None and path not in ("object", "typing.Generic", "abc.ABC"):
                missing.append(path)
        return bases

    def resolve(self, name: str) -> Resolved | None:
        """``name`` as written in a page (``~`` and ``#param`` removed): where it is, and where a link goes;
        None when no library has it."""
        try:
            found = self._find(name)
        except (griffe.GriffeError, KeyError, ValueError, OSError, SyntaxError, RecursionError):
            found = None
        if found is None:
            # a library that may have it was not read: plain code (the build reports that library once)
            return Resolved(name, name, "unknown", None) if self._unavailable(name) else None
        path, obj = found
        if obj is None:  # griffe cannot see it: plain code, as doc-builder renders what it cannot link
            return Resolved(path, path, "unknown", None)
        canonical = obj.path
        anchor = self.anchors.get(canonical)
        parts = canonical.split(".")
        for cut in range(len(parts) - 1, 1, -1):  # else the nearest documented parent: a member it does not show
            if anchor is not None:
                break
            anchor = self.entry_anchor(".".join(parts[:cut]))
        return Resolved(path, canonical, obj.kind.value, anchor)

    def documented(self, name: str, prefer: str | None = None) -> tuple[str | None, str]:
        """(id of the entry ``name`` links to, kind) from the documented entries alone, parsing nothing: how
        a docstring's API links resolve. ``prefer``: the library tried first (the docstring's own)."""
        candidates = self._candidates(name)
        if prefer and name.split(".", 1)[0] not in self.namespaces:
            candidates.sort(key=lambda path: not path.startswith(prefer + "."))
        for path in candidates:
            parts = path.split(".")
            for cut in range(len(parts), 1, -1):
                prefix = ".".join(parts[:cut])
                shown = prefix if prefix in self.public else self.anchors.get(prefix)  # also by its module path
                if shown is not None and shown in self.public:
                    return shown, self.public[shown] if cut == len(parts) else "unknown"
        return None, "unknown"

    def foreign(self, name: str) -> bool:
        """Whether ``name`` is qualified by a library the site does not document (``datasets.Dataset``,
        ``trl.SFTTrainer``, ``torch.nn.Module``): its first part is a module name that is no configured library,
        no close misspelling of one, and nothing a library has at its top level (``utils.X`` is
        ``transformers.utils.X``). doc-builder links the other Hugging Face libraries' names to their hf.co
        docs through inventories it downloads, and other names not at all: here all of them are code."""
        first, dot, _ = name.partition(".")
        if not dot or first in self.namespaces or not MODULE_NAME_RE.fullmatch(first):
            return False
        import difflib

        if difflib.get_close_matches(first, self.namespaces, n=1, cutoff=0.8):
            return False  # 'transformer.Trainer': a misspelled library, an error with did-you-mean
        return self.resolve(first) is None

    def entry_anchor(self, canonical: str) -> str | None:
        entry = self.entries.get(canonical)
        return entry.identifier if entry else None

    def suggest(self, name: str) -> str | None:
        """The documented name closest to ``name``, as an author would write it."""
        import difflib

        short = {}
        for entry in self.entries.values():
            for canonical, anchor in entry.anchors.items():
                del canonical
                ns, _, rest = anchor.partition(".")
                short[rest] = anchor
                short[anchor] = anchor
        bare = name.split(".", 1)[1] if name.split(".", 1)[0] in self.namespaces and "." in name else name
        close = difflib.get_close_matches(bare, list(short), n=1, cutoff=0.6)
        if not close:
            close = difflib.get_close_matches(name, list(short), n=1, cutoff=0.6)
        return close[0] if close else None

    def suggest_object(self, name: str) -> str | None:
        """The public name of a library closest to ``name`` (for an [[autodoc]] of a misspelled object)."""
        import difflib

        documented = self.suggest(name)
        if documented:
            return documented
        names = [n for lib in self.libraries.values() for n in lib.top.members if not n.startswith("_")]
        close = difflib.get_close_matches(name.rsplit(".", 1)[-1], names, n=1, cutoff=0.6)
        return close[0] if close else None

    def where(self) -> str:
        names = list(self.namespaces)
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]

    # -- entries ---------------------------------------------------------------------------------------------
    def add_entry(self, page: str, where: Location, name: str, members: Iterable[str]) -> Entry | Problem:
        """Registers the entry an ``[[autodoc]]`` line gives; the problem when it cannot be rendered."""
        refused = self.refused.get((where.path, where.line))
        if refused is not None:
            return refused  # found when the build checked the entries with mkdocstrings
        problem = self._autodoc_problem(name, list(members))
        if isinstance(problem, Problem) and problem.code == UNAVAILABLE:
            return Entry(name, "", UNAVAILABLE, where, page, None, (), {}, library=problem.message)  # a note only
        if isinstance(problem, Problem):
            return problem
        path, obj, listed, inherited = problem
        canonical = obj.path
        existing = self.entries.get(canonical)
        if existing is None and (lib := canonical.split(".", 1)[0]) in self.unavailable:  # see drop_library
            return Entry(name, "", UNAVAILABLE, where, page, None, (), {}, library=lib)
        if existing is not None:
            if (existing.where.path, existing.where.line) == (where.path, where.line):
                return existing  # the pre-scan registered this very line
            shown = existing.identifier.rsplit(".", 1)[-1]
            return Problem(
                f"{existing.identifier} is already documented at {existing.where.path}:{existing.where.line}",
                "duplicate-api-entry",
                f"[`{shown}`] links go to that entry on {existing.page}: delete this [[autodoc]] and link to it, "
                "or move the entry here",
            )
        if self.sealed:
            return Problem(
                f"[[autodoc]] {name}: only the [[autodoc]] lines of pages make entries (this one is in a theory "
                "snippet, or in a page the build did not read first)",
                "bad-marker",
                "move it to a page under docs/",
            )
        identifier = self.public_path(obj) or path
        anchors = {canonical: identifier}
        self.public[identifier] = obj.kind.value
        for member in self._shown_members(obj, listed):
            anchors[f"{canonical}.{member}"] = f"{identifier}.{member}"
            self.public[f"{identifier}.{member}"] = self._member_kind(obj, member)
        entry = Entry(identifier, canonical, obj.kind.value, where, page, listed, inherited, anchors)
        self.entries[canonical] = entry
        self.anchors.update(anchors)
        top, _, rest = identifier.partition(".")
        library = self.libraries.get(top)
        head = rest.split(".", 1)[0]
        if library is not None and head in library.fallbacks:
            library.exported[head] = library.fallbacks[head]
        self._load_dependencies(obj)
        return entry

    def public_path(self, obj: griffe.Object) -> str | None:
        """doc-builder's id for an object: its shortest public path, the first module along the path of the
        module that defines it that has the object's name (``peft.LoraModel`` for
        ``peft.tuners.lora.model.LoraModel``); None when it is not in a library."""
        module = obj.module
        library = self.libraries.get(module.path.split(".", 1)[0])
        if library is None or not obj.path.startswith(module.path + "."):
            return None
        qualname = obj.path[len(module.path) + 1 :]
        head = qualname.split(".", 1)[0]
        parts = module.path.split(".")
        for cut in range(1, len(parts) + 1):
            prefix = ".".join(parts[:cut])
            try:
                found = self._object(f"{prefix}.{head}")
            except (_Unseen, griffe.GriffeError, KeyError, ValueError, OSError, SyntaxError, RecursionError):
                continue
            if found is not None and found.path == f"{module.path}.{head}":
                return f"{prefix}.{qualname}"
        return None

    def drop_library(self, name: str, why: str) -> None:
        """Leaves out a library whose sources went away during the build: its entries become notes, links to
        its objects code; ``why`` is reported once."""
        self.unavailable[name] = why
        for entry in [e for e in self.entries.values() if e.canonical.split(".", 1)[0] == name]:
            del self.entries[entry.canonical]
            for canonical, anchor in entry.anchors.items():
                self.anchors.pop(canonical, None)
                self.public.pop(anchor, None)

    def drop_entry(self, entry: Entry, problem: Problem) -> None:
        """Takes back an entry mkdocstrings cannot render: its [[autodoc]] line gets ``problem``, and links to
        the object become code."""
        del self.entries[entry.canonical]
        for canonical, anchor in entry.anchors.items():
            self.anchors.pop(canonical, None)
            self.public.pop(anchor, None)
        self.refused[(entry.where.path, entry.where.line)] = problem

    def _autodoc_problem(
        self, name: str, members: list[str]
    ) -> Problem | tuple[str, griffe.Object, tuple[str, ...] | None, tuple[str, ...]]:
        try:
            found = self._find(name)
        except (griffe.GriffeError, KeyError, ValueError, OSError, SyntaxError, RecursionError):
            found = None
        if found is None and (library := self._unavailable(name)) is not None:
            return Problem(library, UNAVAILABLE)
        if found is None:
            close = self.suggest_object(name)
            return Problem(
                f"[[autodoc]] {name}: no such object in {self.where()}",
                "unknown-api-object",
                f"did you mean '{close}'?" if close else None,
            )
        path, obj = found
        if obj is None:
            return Problem(
                f"[[autodoc]] {name}: {path} is not in the source of {path.split('.', 1)[0]} (it is made at run "
                "time, or comes from another package)",
                "unknown-api-object",
            )
        explicit = tuple(m for m in members if m != "all")
        if "all" in members or not explicit:
            return path, obj, None, ()
        inherited = []
        for member in explicit:
            if member in obj.members:
                continue
            try:
                base_member = self._inherited(obj, member) if obj.is_class else None  # type: ignore[arg-type]
            except _Unseen:
                base_member = None
            if base_member is not None:
                inherited.append(member)
                continue
            public = [n for n in obj.members if not n.startswith("_") or n.startswith("__")]
            if obj.is_class:
                public += [n for b in self._bases(obj) for n in b.members if not n.startswith("_")]  # type: ignore[arg-type]
            from .diagnostics import did_you_mean

            return Problem(
                f"[[autodoc]] {name}: {path} has no member '{member}'",
                "unknown-api-member",
                did_you_mean(member, sorted(set(public))),
                member,
            )
        return path, obj, explicit, tuple(inherited)

    def _member_kind(self, obj: griffe.Object, name: str) -> str:
        member = obj.members.get(name)
        if member is None and obj.is_class:
            try:
                member = self._inherited(obj, name)  # type: ignore[arg-type]
            except _Unseen:
                member = None
        if member is not None and member.is_alias:
            member = self._target(member)  # type: ignore[arg-type]
        return member.kind.value if member is not None else "unknown"

    def _shown_members(self, obj: griffe.Object, listed: tuple[str, ...] | None) -> list[str]:
        """The members mkdocstrings gives an id: the listed ones, else the public ones with a docstring
        (mkdocstrings' defaults; tests/test_apirefs.py checks them against a real build)."""
        if listed is not None:
            return list(listed)
        shown = []
        for name, member in obj.members.items():
            if member.is_alias or (name.startswith("_") and not (name.startswith("__") and name.endswith("__"))):
                continue
            if name == "__init__" and obj.is_class:
                continue  # merged into the class's own signature (merge_init_into_class)
            if member.docstring is not None and member.docstring.value.strip():
                shown.append(name)
        return shown

    def _load_dependencies(self, obj: griffe.Object) -> None:
        """Parses what mkdocstrings will follow from an entry: aliases among its members and its bases."""
        for member in list(obj.members.values()):
            if member.is_alias:
                self._target(member)  # type: ignore[arg-type]
        if obj.is_class:
            self._bases(obj)  # type: ignore[arg-type]

    def autodoc_lines(self, entry: Entry, heading_level: int | None = None) -> list[str]:
        """The mkdocstrings block for an entry (a note for one of a library whose sources the build lacks).
        ``heading_level``: the level of the heading the entry's own heading replaces (see ``twin_heading``)."""
        if entry.kind == UNAVAILABLE:
            return [
                f'!!! warning "{entry.identifier} is missing from this build"',
                "",
                f"    The sources of {entry.library} could not be read: the build reports why.",
            ]
        lines = [f"::: {entry.identifier}"]
        if entry.members is not None or entry.inherited or heading_level is not None:
            lines += ["    options:"]
            if heading_level is not None:
                lines += [f"      heading_level: {heading_level}"]
            if entry.members is not None:
                lines += ["      members:", *(f"        - {m}" for m in entry.members)]
            if entry.inherited:
                lines += ["      inherited_members:", *(f"        - {m}" for m in entry.inherited)]
        return lines

    # -- the module copies mkdocstrings reads ----------------------------------------------------------------
    def write_subset(self, cache: Path) -> Path:
        """A folder with a copy of every module read so far (and each library's package ``__init__``), keyed by
        its content: mkdocstrings loads a library whole, and this is the whole it gets. A package ``__init__``
        gets an import of each name an entry reaches that griffe would not bind there (``exported_imports``)."""
        libraries = {name: lib for name, lib in self.libraries.items() if name not in self.unavailable}
        files = sorted(
            (f"{lib.source.name}-{lib.source.version}", path, file)
            for lib in libraries.values()
            for path, file in lib.files.items()
        )
        added = {name: exported_imports(lib.exported) for name, lib in libraries.items() if lib.exported}
        # a fetched library's manifest is rewritten by each fetch: copies of an entry fetched again are not reused
        fetched = [
            f"{n} {(lib.source.root / MANIFEST).stat().st_mtime_ns}" for n, lib in libraries.items() if lib.source.cache
        ]
        key = "\n".join([*(f"{v} {p}" for v, p, _ in files), *(f"{n} {a}" for n, a in sorted(added.items())), *fetched])
        digest = hashlib.sha256(key.encode()).hexdigest()[:16]
        target = cache / digest
        if target.is_dir():
            self.subset = target
            return target
        cache.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=cache))
        try:
            for _, path, file in files:
                library = self.libraries[path.split(".", 1)[0]]
                dest = tmp / file.relative_to(library.source.root)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(file, dest)
                if path in added:
                    with dest.open("a", encoding="utf-8") as out:
                        out.write(added[path])
            for folder in tmp.rglob("*"):  # a module read without its package's __init__ is importable to griffe
                if folder.is_dir() and not (folder / "__init__.py").exists():
                    (folder / "__init__.py").write_text("", encoding="utf-8")
        except BaseException:  # a source file went away (the API sources cache deleted during the build)
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        try:
            os.replace(tmp, target)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)  # another build wrote the same set first
        self.subset = target
        return target


def exported_imports(exported: Mapping[str, str]) -> str:
    """What the subset's copy of a package ``__init__`` gets at its end: an import of each name that the
    package exports at run time (lazily, or through a wildcard import) and griffe does not bind statically."""
    lines = ["", "", "# perfdocs: names the package exports at run time that a static reader does not see"]
    lines += [f"from {module} import {name} as {name}" for name, module in sorted(exported.items())]
    return "\n".join(lines) + "\n"


class _Unseen(Exception):  # noqa: N818 - a signal, not an error
    """A part of a name griffe cannot see in the source: the members of a value, of a class whose base is
    outside the libraries (torch's Module), of an import from another package."""


def _wildcard_sources(module: griffe.Object) -> list[str]:
    """The packages a module's wildcard imports read from (``from .models import *``: 'transformers.models');
    the names they bring are defined in those packages' modules (each imports its own the same way)."""
    return [str(w) for m in module.members.values() if m.is_alias and (w := getattr(m, "wildcard", None))]


# -- the pre-scan: every [[autodoc]] of the site, before any page is converted -------------------------------
def autodoc_blocks(text: str) -> list[AutodocLine]:
    """The ``[[autodoc]] Name`` lines of a page (top-level paragraphs, as CommonMark reads them) with their
    ``- member`` lines, which may follow as the paragraph's continuation or as an indented block."""
    if "[[autodoc]]" not in text:
        return []
    lines = text.split("\n")
    blocks = md.blocks(text, len(lines))
    found = []
    for index, block in enumerate(blocks):
        if block.kind != "paragraph":
            continue
        if not MARKER_RE.match(lines[block.start].strip()):
            continue
        groups = marker_groups(lines[block.start : block.end])
        for number, (a, b) in enumerate(groups):
            first = lines[block.start + a]
            m = MARKER_RE.match(first.strip())
            if not m or m.group("name") != "autodoc" or not m.group("rest").strip():
                continue
            body = lines[block.start + a + 1 : block.start + b]
            for later in blocks[index + 1 :] if number == len(groups) - 1 else ():
                if later.kind == "blank":
                    continue
                region = lines[later.start : later.end]
                if later.kind == "code_block" and all(MEMBER_RE.match(x) or not x.strip() for x in region):
                    body += region
                break
            members = [mm.group("name") for x in body if (mm := MEMBER_RE.match(x))]
            col = len(first) - len(first.lstrip()) + 1
            found.append(AutodocLine(block.start + a + 1, col, m.group("rest").strip(), tuple(members)))
    return found


HEADING_RE = re.compile(r"^ {0,3}(?P<marks>#{1,6})(?:[ \t]+(?P<text>.*?))?(?:[ \t]+#+)?[ \t]*$")


def twin_heading(heading: str, name: str, entry: Entry) -> int | None:
    """The level of ``heading`` (an ATX heading line right above ``[[autodoc]] name``, blank lines apart) when it
    only names the entry's object (``### GenerationConfig``; in code font, or by the name, path or public path
    of the object); None for any other heading.

    doc-builder gives the heading above an ``[[autodoc]]`` the object's id and adds no heading of its own
    (``build_doc.resolve_autodoc``); mkdocstrings gives the entry a heading with that id. Such a heading would
    be the same title twice, two contents entries: the entry's heading takes its place and its level
    (``autodoc_lines(entry, heading_level=...)``). A heading with its own id (``[[custom-id]]``, ``{#id}``) stays:
    links may use that id."""
    m = HEADING_RE.match(heading)
    if m is None or entry.kind == UNAVAILABLE:
        return None
    text = (m.group("text") or "").strip()
    if "[[" in text or "{#" in text or "{ #" in text:
        return None
    shown = text.replace("`", "").replace("\\", "").strip()
    shown = shown[:-2] if shown.endswith("()") else shown
    names = {name, name.removeprefix("~"), entry.identifier, entry.canonical, entry.identifier.rsplit(".", 1)[-1]}
    return len(m.group("marks")) if shown in names else None


def site_index(config_file: Path, display: str, pages: Iterable[tuple[str, str, str]]) -> ApiIndex | None:
    """The index for commands that read the docs without building (``perfdocs lint``, ``render``): the same
    settings, read from mkdocs.yml with MkDocs' own loader; None when the mkdocstrings plugin is off."""
    import logging

    from mkdocs.config import load_config

    quiet = logging.getLogger("mkdocs")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        config = load_config(str(config_file))
    finally:
        quiet.setLevel(level)
    settings = api_config(config, display)
    return build_index(settings, pages) if settings is not None else None


def build_index(
    config: ApiConfig,
    pages: Iterable[tuple[str, str, str]],
    fetch: bool = True,
) -> ApiIndex:
    """The index of a site: ``pages`` are (docs-relative path, display path, text). Registers every
    [[autodoc]] entry, writes the module subset and points mkdocstrings' handler at it."""
    sources, problems = library_sources(config, fetch)
    problems += signature_problems(config)
    where = Location(config.config_file, 1)

    def refetch(source: Source) -> Source:  # its cache entry went away since library_sources checked it
        assert source.cache is not None
        return Source(
            source.name,
            source.version,
            _fetch(source.name, source.version, source.cache, config.root, gone=True),
            source.cache,
        )

    index = ApiIndex.from_sources(config.namespaces, sources, config.root / DEFINITIONS_DIR, refetch if fetch else None)
    index.root = config.root
    problems += [_sources_problem(where, n, sources[n].version, why) for n, why in index.unavailable.items()]
    for name in config.namespaces:  # the others: library_sources reported why
        if name not in index.libraries:
            index.unavailable.setdefault(name, f"the sources of {name} are not available")
    index.problems = problems
    _CURRENT[:] = [index]
    for page, display, text in sorted(pages):
        for block in autodoc_blocks(text):
            if " " in block.name:
                continue  # the dialect reports the malformed line
            index.add_entry(page, Location(display, block.line, block.col), block.name, block.members)
    if any(name not in index.unavailable for name in index.libraries):
        subset = _write_subset(config, index, refetch if fetch else None)
        if subset is not None:
            use_subset(config, subset)
            check_entries(config, index)
    index.sealed = True
    return index


def signature_formatter() -> str | None:
    """The formatter mkdocstrings-python lays out a long signature with (``separate_signature``), found the way
    it finds one: Black when it can be imported, else Ruff when its binary can be found; None when neither.
    Without one it prints each signature on one line, so the site would depend on what is installed: Ruff is
    one of perfdocs' own dependencies (pyproject.toml), and a build without it is an error
    (``signature_problems``)."""
    try:
        import black  # noqa: F401

        return "black"
    except ImportError:
        pass
    try:
        from ruff.__main__ import find_ruff_bin
    except ImportError:
        return None
    try:
        find_ruff_bin()
    except FileNotFoundError:
        return "ruff" if shutil.which("ruff") else None
    return "ruff"


def signature_problems(config: ApiConfig) -> list[Diagnostic]:
    """An error when the Python handler lays signatures out on lines of their own and nothing can format them:
    the pages would not be the ones CI publishes (every signature on one line, other ids and links)."""
    options = (config.handler or {}).get("options") or {}
    if not options.get("separate_signature") or signature_formatter() is not None:
        return []
    where = Location(config.config_file, 1)
    try:
        text = (config.root / config.config_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    for number, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("separate_signature:"):
            where = Location(config.config_file, number, len(line) - len(line.lstrip()) + 1)
            break
    return [
        Diagnostic(
            where,
            "the API signatures cannot be formatted: mkdocstrings-python lays them out with Ruff (one of "
            "perfdocs' dependencies) or Black, and neither is installed, so every signature would be one line, "
            "not what the published site shows",
            "api-signatures",
            hint='pip install -e . (it installs ruff; the deploy job installs ".[test]", which has it too)',
        )
    ]


def _write_subset(config: ApiConfig, index: ApiIndex, refetch: Callable[[Source], Source] | None) -> Path | None:
    """The module subset, written; a library whose sources went away meanwhile is fetched again once, else
    left out (one diagnostic). None, with a diagnostic and every library left out, when it cannot be written."""
    where = Location(config.config_file, 1)
    why = ""
    for attempt in range(len(index.libraries) + 2):  # each failed attempt drops a library, or finds none gone
        try:
            return index.write_subset(config.root / SUBSET_DIR)
        except OSError as exc:
            why = _why(exc)
        gone = [lib for name, lib in index.libraries.items() if name not in index.unavailable and lib.vanished()]
        if not gone:
            shown = display_path(config.root / SUBSET_DIR, config.root)
            problem = f"cannot write the API reference's module subset into {shown}: {why}"
            index.problems.append(Diagnostic(where, problem, "api-sources"))
            for name in index.libraries:
                index.drop_library(name, problem)
            return None
        for library in gone:
            source = library.source
            if attempt == 0 and refetch is not None and source.cache is not None:
                try:
                    refetch(source)  # the same folder again
                    continue
                except OSError as exc:  # a SourcesError: it names the cache
                    problem = str(exc)
            else:
                problem = f"the sources of {source.name} {source.version} at {_shown(source.root, config.root)} "
                problem += "disappeared during the build"
            index.drop_library(source.name, problem)
            index.problems.append(_sources_problem(where, source.name, source.version, problem))
    return None  # not reached: by then every library is dropped, and the empty subset is written


def check_entries(config: ApiConfig, index: ApiIndex) -> None:
    """Collects every entry the way mkdocstrings will, before any page is rendered: mkdocstrings aborts the
    whole build on an object it cannot collect, so such an entry becomes a located error on its [[autodoc]]
    line instead. In a build this is mkdocstrings' own handler, which keeps what it loaded for the pages."""
    if not index.entries or index.subset is None:
        return
    handler = python_handler(config.plugin)
    collect = _collector(handler, index)
    dropped = False
    for entry in list(index.entries.values()):
        try:
            collect(entry.identifier)
        except Exception as exc:  # noqa: BLE001 - griffe and mkdocstrings raise many kinds; each is the reason shown
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            index.drop_entry(
                entry,
                Problem(
                    f"[[autodoc]] {entry.identifier}: mkdocstrings cannot collect it from the library's source "
                    f"({reason})",
                    "unknown-api-object",
                    "the object exists at run time only; link to it instead of documenting it here",
                ),
            )
            dropped = True
    if dropped and handler is not None:
        # The docstrings it read were rewritten with links to every entry, the dropped ones too, which would
        # be unresolved cross-references: it reads them again for the pages, with those links as code.
        forget_loaded(handler)


def _collector(handler: Any, index: ApiIndex) -> Any:
    """``identifier -> object``: through mkdocstrings' handler when there is one, else a griffe loader over the
    same module subset with the same static settings (``perfdocs lint``, tests)."""
    if handler is not None:
        options = handler.get_options({})
        return lambda identifier: handler.collect(identifier, options)
    assert index.subset is not None
    loader = griffe.GriffeLoader(search_paths=[str(index.subset)], allow_inspection=False)
    failed: dict[str, str] = {}
    for name in index.libraries:
        try:
            loader.load(name, try_relative_path=False)
        except (ImportError, OSError, SyntaxError, ValueError) as exc:
            failed[name] = str(exc)
    loader.resolve_aliases(implicit=False, external=False)

    def collect(identifier: str) -> object:
        top = identifier.split(".", 1)[0]
        if top in failed:
            raise ImportError(failed[top])
        return loader.modules_collection[identifier]

    return collect


def use_subset(config: ApiConfig, subset: Path) -> None:
    """Puts the module subset first on the Python handler's search path. mkdocstrings creates its handlers in
    its own on_config (to fetch inventories), before any hook runs: the handler that exists gets the folder
    on its search path (a private attribute of mkdocstrings-python 2.x, the only place it reads it from), and
    the configuration gets it for a handler made later (mkdocstrings_adapter). tests/test_apirefs.py checks the
    handler reads it."""
    if config.handler is not None:
        paths = [p for p in config.handler.get("paths") or [] if not str(p).startswith(str(config.root / SUBSET_DIR))]
        config.handler["paths"] = [str(subset), *paths]
    search = search_path(made_handler(config.plugin))
    if search is not None:
        search[:] = [str(subset), *(p for p in search if not str(p).startswith(str(config.root / SUBSET_DIR)))]


# -- doc-builder's Markdown in the libraries' docstrings --------------------------------------------------------
API_NAME_RE = re.compile(r"~?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:#[A-Za-z_]\w*)?")  # [`~a.B.c`], [`B#param`]
MODULE_NAME_RE = re.compile(r"[a-z_][a-z0-9_]*")  # the first part of a name qualified by its library
ESCAPABLE = frozenset(string.punctuation)  # what a backslash escapes (CommonMark: ASCII punctuation)
REFERENCE_ID_RE = re.compile(r"\s?\[([^\]]*)\]")  # Python-Markdown's id part of a reference link, '[id]' or ' [id]'
# GitHub-style alerts in docstrings ("> [!TIP]" and the quoted lines under it), as the dialect renders them on pages
DOCSTRING_ALERT_RE = re.compile(r"^(?P<indent>[ \t]*)>[ \t]*\[!(?P<kind>[A-Za-z]+)\][ \t]*$")
DOCSTRING_ALERTS = {"NOTE": "note", "TIP": "tip", "IMPORTANT": "info", "WARNING": "warning", "CAUTION": "danger"}
DOCSTRING_TIPS = {"<Tip>": "tip", "<Tip warning={true}>": "warning"}  # a docstring's tip lines, as written
ARGS_SECTIONS = ("Args:", "Arguments:", "Parameters:", "Params:", "Attributes:")
# A parameter head of doc-builder's docstrings: "    output_dir (`str`, *optional*, defaults to `"out"`):", its
# description on the same line or under it. Written without the space ("local_files_only(`bool`):"), with a colon
# before the parenthesis ("use_mtp: (`bool`):") or a parenthesis too many ("(`dict`, *optional*)):"): as meant.
PARAMETER_HEAD_RE = re.compile(
    r"^(?P<indent>[ \t]+)(?P<name>\*{0,2}[A-Za-z_]\w*)(?::[ \t]*|[ \t]*)\((?P<inner>.*?)(?P<close>\)+):(?P<rest>.*)$"
)
HEAD_MARKUP_RE = re.compile(r"[`*\[]|\bdefaults?[ \t]+to\b", re.I)  # a head written the doc-builder way
HEAD_DEFAULT_RE = re.compile(r"(?:^|,)[ \t]*defaults?[ \t]+to[ \t]+(?P<value>.*)$", re.I)  # "defaults to `20`"
HEAD_OPTIONAL_RE = re.compile(r"(?:^|,)[ \t]*(?:\*optional\*|_optional_)[ \t]*(?=,|$)")
TYPE_API_LINK_RE = re.compile(r"\[`(?P<tilde>~?)(?P<name>[^`\]]+)`\]")  # [`~utils.Strategy`] in a type: Strategy
TYPE_LINK_RE = re.compile(r"\[(?P<text>[^\]]*)\]\([^)]*\)")  # [text](url) in a type: its text
IMPLIED_DEFAULT = "None"  # an *optional* parameter with no "defaults to": doc-builder's convention (see read_docstring)
_CURRENT: list[ApiIndex] = []  # the index of the build in progress, for the griffe extension below


@dataclass(frozen=True)
class ApiLink:
    """A doc-builder API link ``[`code`]`` as written."""

    code: str  # what is between the backticks
    name: str | None  # the API name it links to ("()" dropped); None when the code is not a name (plain code)


def reference_label(label: str) -> str:
    """A reference label as both Markdown readers match it: case and runs of whitespace do not count."""
    return " ".join(label.split()).lower()


def reference_labels(text: str) -> frozenset[str]:
    """The labels of the link reference definitions of a page (``[label]: url``), normalised."""
    if "]:" not in text:
        return frozenset()
    env: dict[str, Any] = {}
    md.BLOCKS.parse(text, env)
    return frozenset(reference_label(label) for label in env.get("references", {}))


def api_link(raw: str, start: int, end: int, defined: frozenset[str] = frozenset()) -> ApiLink | None:
    """The doc-builder API link whose code span is ``raw[start:end]``, else None.

    doc-builder's rule (``resolve_links_in_text``): a one-backtick code span alone in brackets is an API link
    unless ``(`` follows (a link); so ``[`Name`]:`` is one. Here a reference label the page defines may
    follow too (``[`Name`][label]``): that is a CommonMark reference link with code as its text. The code
    is a name (``Trainer.train()`` names ``Trainer.train``), or anything else (``from_pretrained(...)``),
    which doc-builder shows as plain code."""
    if raw[start : start + 1] != "`" or raw[start : start + 2] == "``" or raw[end - 2 : end] == "``":
        return None
    if start == 0 or raw[start - 1] != "[" or raw[end : end + 1] != "]" or raw[end + 1 : end + 2] == "(":
        return None
    if start >= 2 and raw[start - 2] == "\\":
        return None  # an escaped bracket: meant literally
    if raw[end + 1 : end + 2] == "[" and (close := raw.find("]", end + 2)) >= 0:
        label = raw[end + 2 : close]
        if "[" not in label and reference_label(label) in defined:
            return None
    code = raw[start + 1 : end - 1]
    if API_NAME_RE.fullmatch(code):
        return ApiLink(code, code)
    if code.endswith("()") and API_NAME_RE.fullmatch(code[:-2]):
        return ApiLink(code, code[:-2])
    return ApiLink(code, None)


def misread_brackets(
    raw: str,
    skip: Iterable[tuple[int, int]],
    defined: frozenset[str] = frozenset(),
    identifiers: Container[str] = frozenset(),
) -> list[int]:
    """Offsets of the ``[`` in ``raw`` (a block's text) that Python-Markdown would read as opening a reference
    link ``[text][id]`` (or ``[text] [id]``, ``[text][]``) whose id the page does not define.

    CommonMark, and so doc-builder, shows such text as written (``sources[[1](https://a)][[2](https://b)]`` is
    two links in brackets); Python-Markdown hands it to mkdocs-autorefs as a cross-reference, which then warns,
    with no line, that it cannot find ``'[2'``. Escaping the ``[`` keeps the text as written. ``skip``: spans
    that are not text to Python-Markdown either (code spans and escapes, which it reads first; raw HTML; the
    API links already rewritten). An id in ``identifiers`` (an API entry) is a cross-reference meant as one."""
    masked = list(raw)
    for a, b in skip:
        masked[a:b] = "\0" * (b - a)
    i = 0
    while i < len(masked) - 1:  # backslash escapes: Python-Markdown reads them before links too
        if masked[i] == "\\" and masked[i + 1] in ESCAPABLE:
            masked[i : i + 2] = "\0\0"
            i += 1
        i += 1
    text = "".join(masked)
    found = []
    for i, char in enumerate(text):
        if char != "[" or (i and text[i - 1] == "!"):
            continue
        depth, j = 1, i + 1
        while j < len(text) and depth:
            depth += {"[": 1, "]": -1}.get(text[j], 0)
            j += 1
        if depth:
            continue  # unbalanced: no link to Python-Markdown either
        m = REFERENCE_ID_RE.match(text, j)
        if m is None:
            continue
        ident = m.group(1) or text[i + 1 : j - 1]
        if reference_label(ident) in defined or ident in identifiers:
            continue
        found.append(i)
    return found


def api_link_text(name: str, kind: str) -> str:
    """The text doc-builder shows for ``[`name`]``: the name (``~``: its last part; ``#p``: the parameter), with
    ``()`` after a function."""
    bare, _, param = name.removeprefix("~").partition("#")
    shown = param or (bare.rsplit(".", 1)[-1] if name.startswith("~") else bare)
    return shown + "()" if kind == "function" and not param else shown


@dataclass(frozen=True)
class ParameterHead:
    """A doc-builder parameter head, ``name (`type`, *optional*, defaults to X): description``, as read."""

    indent: str
    name: str
    type: str | None  # the type as griffe's Google parser reads it (``str or os.PathLike``); None: none given
    default: str | None  # what "defaults to" says (``20``, ``"main"``); None when it says nothing
    optional: bool  # written *optional*
    rest: str  # the description on the head's line

    def google(self) -> str:
        """The head as griffe's Google-style parser reads it: ``name (type): description``."""
        head = f"{self.indent}{self.name} ({self.type}):" if self.type else f"{self.indent}{self.name}:"
        return f"{head} {self.rest}" if self.rest else head


def parameter_head(line: str) -> ParameterHead | None:
    """The doc-builder head on ``line``; None for any other line (a plain Google head, ``x (int): ...``, is
    already what griffe reads)."""
    m = PARAMETER_HEAD_RE.match(line)
    if m is None or not HEAD_MARKUP_RE.search(m.group("inner")):
        return None
    inner, default = m.group("inner"), None
    inner += ")" * max(0, min(inner.count("(") - inner.count(")"), len(m.group("close")) - 1))  # its own, closed
    if (d := HEAD_DEFAULT_RE.search(inner)) is not None:
        inner, default = inner[: d.start()], _plain(d.group("value"))
    optional = HEAD_OPTIONAL_RE.search(inner) is not None
    shown = _plain(HEAD_OPTIONAL_RE.sub("", inner)).strip(" ,")
    # griffe splits the head at its first colon: a type with one cannot be given (the signature's is shown)
    kind = shown if shown and ":" not in shown else None
    return ParameterHead(m.group("indent"), m.group("name"), kind, default or None, optional, m.group("rest").strip())


def _plain(text: str) -> str:
    """doc-builder's Markdown in a head as plain text: ``[`~a.B`]`` is ``B``, ``[text](url)`` its text, no backticks."""
    text = TYPE_API_LINK_RE.sub(lambda m: m["name"].rsplit(".", 1)[-1] if m["tilde"] else m["name"], text)
    text = TYPE_LINK_RE.sub(r"\g<text>", text)
    return " ".join(text.replace("`", "").split())


@dataclass(frozen=True)
class DocstringText:
    """A library docstring as this site renders it: its Markdown, and the defaults its parameter heads give."""

    markdown: str
    defaults: dict[str, str]  # parameter -> the default its head writes ("defaults to X")
    optional: frozenset[str]  # parameters written *optional* with no "defaults to"


def read_docstring(text: str, index: ApiIndex | None, prefer: str | None = None) -> DocstringText:
    """A docstring of a library as doc-builder reads it (``convert_rst_to_mdx.parse_rst_docstring``: a parameter
    head's type and default are the text between its parentheses; the description is CommonMark).

    Parameter heads become Google heads with a type (``name (`int`, *optional*, defaults to 20):`` reads
    ``name (int):``) and their defaults are kept aside: griffe takes a default from the signature only, and
    doc-builder's parameters often go through ``**kwargs``. Its doc-builder API links link to the entries this
    site has and are code otherwise (the library's text is not the author's: never an error); its links to the
    library's own doc pages keep their text only (those pages are not part of this site), also when the link
    wraps onto the next line; any other bracket is escaped, so Python-Markdown reads no reference link into
    prose (``[@<revision>][:<name>]``), and so is a tag that is no HTML element (``<namespace>``), which a
    browser would drop. A list gets the blank line Python-Markdown needs before it (CommonMark needs none), and
    one indented under its text moves left (else it would be code). Fenced examples are left as they are;
    ``<Tip>`` blocks and ``> [!TIP]`` alerts become admonitions, as doc-builder shows them."""
    lines = _docstring_tips(text.split("\n"))
    out: list[str] = []
    heads: dict[int, int] = {}  # line -> length of its head (``name (type):``), which inline rewrites leave alone
    defaults: dict[str, str] = {}
    optional: set[str] = set()
    fence = ""
    section = items = -1  # indentation of the Args-like section line and of its items, or -1
    parameters = False  # the section's items are parameters (not attributes)
    for line in lines:
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if fence:
            fence = "" if stripped.startswith(fence) else fence
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif stripped.rstrip() in ARGS_SECTIONS:
            section, items, parameters = indent, -1, stripped.rstrip() != "Attributes:"
        elif stripped and section >= 0 and indent <= section:
            section = -1
        elif stripped and section >= 0:
            items = indent if items < 0 else items
            head = parameter_head(line) if indent == items else None
            if head is not None:
                line = head.google()
                heads[len(out)] = len(line) - len(head.rest)
                if parameters and head.default is not None:
                    defaults[head.name] = head.default
                elif parameters and head.optional:
                    optional.add(head.name)
        out.append(line)
    out = _inline_runs(out, heads, index, prefer)
    markdown = "\n".join(_lists_after_text(_lists_not_code(out, heads), heads))
    return DocstringText(markdown, defaults, frozenset(optional))


def docstring_markdown(text: str, index: ApiIndex | None, prefer: str | None = None) -> str:
    """A docstring of a library as this site renders it (``read_docstring``), as Markdown."""
    return read_docstring(text, index, prefer).markdown


def _inline_runs(lines: list[str], heads: Mapping[int, int], index: ApiIndex | None, prefer: str | None) -> list[str]:
    """The lines with their inline Markdown rewritten (``_docstring_inline``) a paragraph at a time, so that a
    link whose text wraps onto the next line is read whole. A paragraph ends at a blank line, a fence, a doctest
    line or a parameter head, whose own text (``name (type):``) is left alone."""
    out = list(lines)
    fence = ""
    run: list[int] = []

    def flush() -> None:
        if run:
            text = "\n".join(out[i] for i in run)
            if "[" in text or "<" in text:
                masked = "\n".join(" " * heads[i] + out[i][heads[i] :] if i in heads else out[i] for i in run)
                rewritten = _docstring_inline(text, masked, index, prefer).split("\n")
                if len(rewritten) == len(run):  # edits keep the line breaks they cover
                    for i, new in zip(run, rewritten):
                        out[i] = new
            run.clear()

    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if fence:
            fence = "" if stripped.startswith(fence) else fence
            continue
        if stripped.startswith(("```", "~~~")):
            flush()
            fence = stripped[:3]
        elif not stripped or stripped.startswith((">>>", "...")):
            flush()
        else:
            if i in heads:
                flush()
            run.append(i)
    flush()
    return out


DOCSTRING_LIST_RE = re.compile(r"(?:[-*+]|\d+[.)])\s")
LIST_START_RE = re.compile(r"(?:[-*+]|1[.)])[ \t]+\S")  # a list item that may interrupt a paragraph (CommonMark)


def _lists_not_code(lines: list[str], heads: Container[int] = ()) -> list[str]:
    """A list indented deeper than the text it belongs to (``Possible values are:`` then the items 4 spaces
    further in) is a list to doc-builder, which takes the indentation out of lists (``remove_indent``); to
    Python-Markdown, 4 spaces past the edge of its container, it is an indented code block. Such a list, with
    its continuation lines, moves left to the text's indentation; a list nested in another stays. The edge of a
    parameter's description is twice its head's indentation, where griffe reads its lines from
    (``_read_block_items``); ``heads`` are the heads' lines. Fenced code stays as it is."""
    out: list[str] = []
    fence, shift, inner = "", 0, 0
    base = edge = 0  # the indentation of the text; the edge of its container
    head = -1  # the indentation of the head whose description the lines are, or -1
    listed = -1  # the indentation of the list the previous lines belong to, or -1
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if fence:
            fence = "" if stripped.startswith(fence) else fence
            out.append(line)
            continue
        if not stripped:
            out.append(line)
            continue
        if shift and indent >= inner:
            out.append(line[shift:])
            continue
        shift = 0
        if i in heads:
            head, base, edge, listed = indent, 2 * indent, 2 * indent, -1
        elif head >= 0 and indent <= head:
            head, edge = -1, 0
        if stripped.startswith(("```", "~~~")):
            fence, listed = stripped[:3], -1
        elif DOCSTRING_LIST_RE.match(stripped):
            if listed < 0 and indent > base and (indent >= base + 4 or indent >= edge + 4):
                shift, inner, listed = indent - base, indent, base
                out.append(line[shift:])
                continue
            listed = indent if listed < 0 else listed
        elif i not in heads and not stripped.startswith((">>>", "...")) and not (listed >= 0 and indent > listed):
            base, listed = indent, -1  # text (not a line of a list item)
        out.append(line)
    return out


def _lists_after_text(lines: list[str], heads: Container[int] = ()) -> list[str]:
    """A blank line between a line of text and the list item right under it: CommonMark (doc-builder) starts
    the list there, Python-Markdown would run the items into the paragraph. A line of text right after an item
    continues it (CommonMark's lazy continuation), so the list goes on after it. Fenced code stays as it is."""
    out: list[str] = []
    fence = ""
    listed = -1  # indentation of the list the previous lines belong to, or -1
    blank = False  # the previous line is blank
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if fence:
            fence = "" if stripped.startswith(fence) else fence
        elif stripped.startswith(("```", "~~~")):
            fence, listed = stripped[:3], -1
        elif not stripped:
            pass  # a list goes on after a blank line
        elif i in heads:
            listed = -1  # a parameter: griffe reads a new item
        elif DOCSTRING_LIST_RE.match(stripped) and listed >= 0 and indent >= listed:
            pass  # the next item, or one of a nested list
        elif LIST_START_RE.match(stripped):
            if out and out[-1].strip() and not out[-1].lstrip().startswith((">>>", "...")):
                out.append("")
            listed = indent
        elif listed >= 0 and indent <= listed and blank:
            listed = -1  # text at the list's indentation after a blank line: the list ended
        blank = not stripped
        out.append(line)
    return out


def _docstring_tips(lines: list[str]) -> list[str]:
    """doc-builder's ``<Tip>`` / ``<Tip warning={true}>`` ... ``</Tip>`` lines in a docstring (outside fenced
    code) as Material admonitions at the tag's indentation; a tip never closed stays as it is."""
    out: list[str] = []
    fence = ""
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if fence:
            fence = "" if stripped.startswith(fence) else fence
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif (alert := DOCSTRING_ALERT_RE.match(lines[i])) and alert.group("kind").upper() in DOCSTRING_ALERTS:
            indent, admonition = alert.group("indent"), DOCSTRING_ALERTS[alert.group("kind").upper()]
            body = []
            i += 1
            while i < len(lines):
                if lines[i].startswith(indent + ">"):
                    body.append(lines[i][len(indent) + 1 :].removeprefix(" "))
                elif body and body[-1].strip() and _lazy_line(lines[i], len(indent)):
                    body.append(lines[i].strip())  # continues the quote's paragraph (CommonMark's lazy line)
                else:
                    break
                i += 1
            out += [f"{indent}!!! {admonition}", ""] + [f"{indent}    {x}" if x.strip() else "" for x in body] + [""]
            continue
        elif (kind := DOCSTRING_TIPS.get(stripped)) is not None:
            close = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "</Tip>"), None)
            if close is not None:
                indent = " " * (len(lines[i]) - len(lines[i].lstrip()))
                body = lines[i + 1 : close]
                while body and not body[0].strip():
                    body.pop(0)
                while body and not body[-1].strip():
                    body.pop()
                shift = min((len(x) - len(x.lstrip()) for x in body if x.strip()), default=0)
                out += [f"{indent}!!! {kind}", ""]
                out += [f"{indent}    {x[shift:]}" if x.strip() else "" for x in body]
                i = close + 1
                continue
        out.append(lines[i])
        i += 1
    return out


def _lazy_line(line: str, indent: int) -> bool:
    """Whether ``line``, right under a quoted paragraph at ``indent``, continues that paragraph: text, not less
    indented (a parameter head is), and nothing that starts a block of its own."""
    stripped = line.lstrip()
    return (
        bool(stripped)
        and len(line) - len(stripped) >= indent
        and not DOCSTRING_LIST_RE.match(stripped)
        and not stripped.startswith(("```", "~~~", "#", "<", ">"))
    )


def _docstring_inline(text: str, masked: str, index: ApiIndex | None, prefer: str | None) -> str:
    """``text`` (a paragraph, perhaps of several lines) with its API links, relative links, stray brackets and
    tags rewritten; ``masked`` is the same text with what must stay as it is blanked out."""
    found = md.scan_inline(masked)
    edits: list[tuple[int, int, str]] = []
    kept: list[tuple[int, int]] = list(found.literal) + list(found.opaque)
    for start, end in found.literal:
        link = api_link(masked, start, end)
        if link is None:
            continue
        if link.name is None:
            edits.append((start - 1, end + 1, text[start:end]))  # not a name: code, as doc-builder shows it
            continue
        bare = link.name.removeprefix("~").partition("#")[0]
        anchor, kind = index.documented(bare, prefer) if index is not None else (None, "unknown")
        shown = api_link_text(link.name, "function" if link.code != link.name else kind)
        edits.append((start - 1, end + 1, f"[`{shown}`][{anchor}]" if anchor else f"`{shown}`"))
    for offset, href in found.links:
        close = masked.find("](", offset)
        if close < 0 or masked[offset : offset + 1] != "[":
            continue
        stop = _closing_paren(masked, close + 1)
        if stop is None:
            continue
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith(("#", "/")) or not href:
            kept.append((offset, stop))  # an absolute link: it works here too
            continue
        edits.append((offset, stop, text[offset + 1 : close]))  # a page of the library's docs: its text only
    for tag in found.tags:  # '<namespace>/<repo>': placeholders in prose, not HTML (a browser would drop them)
        edits.append((tag.start, tag.start + 1, "&lt;"))
    taken = sorted([*((a, b) for a, b, _ in edits), *kept])
    for i, char in enumerate(masked):
        if char == "[" and not any(a <= i < b for a, b in taken) and not (i and masked[i - 1] == "\\"):
            edits.append((i, i + 1, "\\["))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _closing_paren(text: str, at: int) -> int | None:
    """Offset just past the ')' that closes the '(' at ``at``."""
    depth = 0
    for i in range(at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


class DocBuilderDocstring(griffe.Docstring):
    """A docstring read the doc-builder way (``read_docstring``), whose parsed parameters get the defaults the
    text and the code give. griffe takes a parameter's default from the signature only, so a parameter that
    goes through ``**kwargs`` (all of ``GenerationConfig``'s) would show as required. In order: the head's
    "defaults to X" (what doc-builder shows); the signature's default; for a parameter the signature takes
    through ``**kwargs``, the default the function's own ``kwargs.pop("name", X)`` or ``kwargs.get("name", X)``
    gives (one such default only); for a parameter written *optional* with none of these, ``None``:
    doc-builder's convention ("we always omit the 'defaults to `None`' when None is the default", its README,
    "Parmeter typing and default value")."""

    def __init__(self, value: str, *, defaults: Mapping[str, str], optional: Iterable[str], **kwargs: Any) -> None:
        super().__init__(value, **kwargs)
        self.defaults = dict(defaults)
        self.optional = frozenset(optional)

    def parse(self, parser: Any = None, **options: Any) -> list[griffe.DocstringSection]:
        sections = super().parse(parser, **options)
        kinds = (griffe.DocstringSectionKind.parameters, griffe.DocstringSectionKind.other_parameters)
        through_kwargs: dict[str, str] | None = None
        for section in sections:
            if section.kind not in kinds:
                continue
            for parameter in section.value:
                written = self.defaults.get(parameter.name)
                if written is not None:
                    parameter.value = written
                    continue
                if parameter.value is not None:
                    continue
                if through_kwargs is None:
                    through_kwargs = kwargs_defaults(self.parent)
                if parameter.name in through_kwargs:
                    parameter.value = through_kwargs[parameter.name]
                elif parameter.name in self.optional:
                    parameter.value = IMPLIED_DEFAULT
        return sections


def kwargs_defaults(obj: griffe.Object | griffe.Alias | None) -> dict[str, str]:
    """The defaults a function (a class: its ``__init__``) gives the parameters it takes through ``**kwargs``
    and its signature does not name: ``kwargs.pop("do_sample", None)`` gives ``do_sample`` the default
    ``None``. A name given two different defaults gets none."""
    function = obj.members.get("__init__") if obj is not None and obj.is_class else obj
    if function is None or function.is_alias or not function.is_function:
        return {}
    parameters = function.parameters  # type: ignore[union-attr]
    var = next((p.name for p in parameters if p.kind is griffe.ParameterKind.var_keyword), None)
    if var is None:
        return {}
    try:
        tree = ast.parse(textwrap.dedent(function.source))
    except (OSError, ValueError, SyntaxError, griffe.BuiltinModuleError):
        return {}
    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and len(node.args) == 2):
            continue
        owner, (key, default) = node.func.value, node.args
        if node.func.attr in ("pop", "get") and isinstance(owner, ast.Name) and owner.id == var:
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value not in parameters:
                found.setdefault(key.value, set()).add(ast.unparse(default))
    return {name: next(iter(values)) for name, values in found.items() if len(values) == 1}


class DocBuilderDocstrings(griffe.Extension):
    """The griffe extension mkdocstrings loads (mkdocs.yml: ``extensions``): docstrings read as doc-builder reads
    them (``read_docstring``), with the index of the build in progress."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        docstring = obj.docstring
        if docstring is None:
            return
        index = _CURRENT[-1] if _CURRENT else None
        read = read_docstring(docstring.value, index, obj.path.split(".", 1)[0])
        obj.docstring = DocBuilderDocstring(
            read.markdown,
            defaults=read.defaults,
            optional=read.optional,
            lineno=docstring.lineno,
            endlineno=docstring.endlineno,
            parent=obj,
            parser=docstring.parser,
            parser_options=docstring.parser_options,
        )
