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
import contextlib
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import griffe

from . import markdown as md
from .apicache import INDEX_DIR, RenderCache, Snapshot, captured_logs, replay_logs, settings_key
from .apiconfig import ApiConfig
from .apilinks import MODULE_NAME_RE
from .apisources import (
    MANIFEST,
    Source,
    fetch_sources,
    library_sources,
    log,
    shown_path,
    sources_problem,
    why_failed,
)
from .diagnostics import Diagnostic, Location, display_path
from .docstrings import use_index
from .mkdocstrings_adapter import cache_renders, forget_loaded, made_handler, python_handler, search_path
from .text import MARKER_RE, MEMBER_RE, marker_groups

__all__ = [
    "ApiIndex",
    "Entry",
    "Problem",
    "Resolved",
    "autodoc_blocks",
    "build_index",
    "check_entries",
    "signature_formatter",
    "twin_heading",
]

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
class Libraries:
    """The libraries' sources as griffe reads them (lazily, module by module) and how a name is found in them."""

    namespaces: tuple[str, ...]
    libraries: dict[str, _Library] = field(default_factory=dict)
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
    ) -> Self:
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
                        index.unavailable[name] = (
                            f"cannot read the sources of {name} {source.version}: {why_failed(exc)}"
                        )
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
                where = shown_path(source.root, self.root)
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


@dataclass(eq=False)
class ApiIndex(Libraries):
    """The objects the site documents and how names resolve to them; built once per build."""

    entries: dict[str, Entry] = field(default_factory=dict)  # canonical path of the object -> its entry
    anchors: dict[str, str] = field(default_factory=dict)  # canonical path -> id, for every documented object
    problems: list[Diagnostic] = field(default_factory=list)  # sources that could not be read
    subset: Path | None = None  # the folder of module copies mkdocstrings reads
    public: dict[str, str] = field(default_factory=dict)  # id of every documented object -> its kind
    sealed: bool = False  # every page is read: an entry added now would miss the module subset
    refused: dict[tuple[str, int], Problem] = field(default_factory=dict)  # [[autodoc]] line -> why not rendered

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
            fetch_sources(source.name, source.version, source.cache, config.root, gone=True),
            source.cache,
        )

    # every [[autodoc]] line; a malformed one the dialect reports
    blocks = [(p, d, b) for p, d, text in sorted(pages) for b in autodoc_blocks(text) if " " not in b.name]
    snapshot = index_snapshot(config, sources, blocks)
    definitions = config.root / DEFINITIONS_DIR
    index = restored_index(snapshot, sources, definitions)
    if index is None:
        index = ApiIndex.from_sources(config.namespaces, sources, definitions, refetch if fetch else None)
        problems += [sources_problem(where, n, sources[n].version, why) for n, why in index.unavailable.items()]
        for name in config.namespaces:  # the others: library_sources reported why
            if name not in index.libraries:
                index.unavailable.setdefault(name, f"the sources of {name} are not available")
        for page, display, block in blocks:
            index.add_entry(page, Location(display, block.line, block.col), block.name, block.members)
        if not index.unavailable:
            with contextlib.suppress(OSError):  # a source went away: the build reports it; nothing is kept
                snapshot.save((file_stats(index), index))
    index.root = config.root
    index.problems = problems
    use_index(index)
    if any(name not in index.unavailable for name in index.libraries):
        subset = _write_subset(config, index, refetch if fetch else None)
        if subset is not None:
            use_subset(config, subset)
            cache = render_cache(config, index)
            handler = python_handler(config.plugin)
            if handler is not None and cache is not None:
                cache_renders(handler, cache)
            check_entries(config, index, cache)
    index.sealed = True
    return index


def index_snapshot(
    config: ApiConfig, sources: Mapping[str, Source], blocks: list[tuple[str, str, AutodocLine]]
) -> Snapshot:
    """Where the index of these sources with these [[autodoc]] lines is kept, once its entries are registered."""
    parts = [sys.version, repr(config.namespaces), repr(blocks)]  # griffe's version: in every generation key
    parts += [f"{s.name} {s.version} {s.root} {s.cache}" for _, s in sorted(sources.items())]
    return Snapshot(config.root / INDEX_DIR, parts)


def file_stats(index: Libraries) -> dict[str, tuple[int, int]]:
    """Each module the index read: its file's (size, time), to tell sources changed in place (an editable
    install, a source edited) from the ones a kept index or kept entries were made from."""
    stats = {}
    for library in index.libraries.values():
        for path, file in library.files.items():
            stat = file.stat()
            stats[path] = (stat.st_size, stat.st_mtime_ns)
    return stats


def restored_index(snapshot: Snapshot, sources: Mapping[str, Source], definitions: Path) -> ApiIndex | None:
    """The index a build of the same sources and [[autodoc]] lines kept (None: none, or a file it read changed)."""
    kept = snapshot.load()
    if not (isinstance(kept, tuple) and len(kept) == 2 and isinstance(kept[1], ApiIndex)):
        return None
    stats, index = kept
    try:
        if file_stats(index) != stats:
            return None
    except OSError:
        return None
    for name, library in index.libraries.items():
        library.source, library.cache = sources[name], definitions
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
            why = why_failed(exc)
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
                problem = f"the sources of {source.name} {source.version} at {shown_path(source.root, config.root)} "
                problem += "disappeared during the build"
            index.drop_library(source.name, problem)
            index.problems.append(sources_problem(where, source.name, source.version, problem))
    return None  # not reached: by then every library is dropped, and the empty subset is written


def render_cache(config: ApiConfig, index: ApiIndex) -> RenderCache | None:
    """The cache of this build's generation: the sources read (each file's size and time, for an editable
    install), the module subset, the handler's and the Markdown settings, and every entry with its ids. None
    when a source file cannot be read (the build reports it): nothing is reused or kept then. Where the sources
    lie is not part of it: their files' size and time say which they are, and a project that moves, or whose
    environment lies elsewhere relative to it (a copy of the project), keeps its cache."""
    handler = dict(config.handler or {})
    handler["paths"] = [display_path(p, config.root) for p in handler.get("paths") or []]  # the project may move
    parts = [settings_key(handler), config.settings]
    parts += [f"{name} {library.source.version}" for name, library in sorted(index.libraries.items())]
    try:
        parts += [f"{path} {size} {time}" for path, (size, time) in sorted(file_stats(index).items())]
    except OSError:
        return None
    parts += [f"unavailable {name}: {why}" for name, why in sorted(index.unavailable.items())]
    for key, entry in sorted(index.entries.items()):
        parts.append(repr((key, entry.identifier, entry.canonical, entry.kind, entry.page, entry.members)))
        parts.append(repr((entry.inherited, sorted(entry.anchors.items()), entry.library)))
    return RenderCache.open(config.root, parts)


def check_entries(config: ApiConfig, index: ApiIndex, cache: RenderCache | None = None) -> None:
    """Collects every entry the way mkdocstrings will, before any page is rendered: mkdocstrings aborts the
    whole build on an object it cannot collect, so such an entry becomes a located error on its [[autodoc]]
    line instead. In a build this is mkdocstrings' own handler, which keeps what it loaded for the pages.
    What a build of the same generation found (``cache``) is not collected again: its logs are logged again."""
    if not index.entries or index.subset is None:
        return
    entries = list(index.entries.values())
    found = [cache.get("checked", e.identifier) for e in entries] if cache is not None else [None]
    if all(record is not None for record in found):
        assert cache is not None
        shown = display_path(cache.folder, config.root)
        log.info(
            "perfdocs: API reference: %d entries as a build of the same sources made them (%s)", len(entries), shown
        )
        for entry, record in zip(entries, found, strict=True):
            assert record is not None
            replay_logs(record["logs"])
            if record["failed"] is not None:
                index.drop_entry(entry, collect_problem(entry, record["failed"]))
        return
    handler = python_handler(config.plugin)
    collect = _collector(handler, index)
    dropped = False
    for entry in entries:
        with captured_logs() as logs:
            try:
                collect(entry.identifier)
                reason = None
            except Exception as exc:  # noqa: BLE001 - griffe and mkdocstrings raise many kinds; each is the reason
                reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if cache is not None:
            cache.put("checked", entry.identifier, {"failed": reason, "logs": logs})
        if reason is not None:
            index.drop_entry(entry, collect_problem(entry, reason))
            dropped = True
    if dropped and handler is not None:
        # The docstrings it read were rewritten with links to every entry, the dropped ones too, which would
        # be unresolved cross-references: it reads them again for the pages, with those links as code.
        forget_loaded(handler)


def collect_problem(entry: Entry, reason: str) -> Problem:
    return Problem(
        f"[[autodoc]] {entry.identifier}: mkdocstrings cannot collect it from the library's source ({reason})",
        "unknown-api-object",
        "the object exists at run time only; link to it instead of documenting it here",
    )


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
