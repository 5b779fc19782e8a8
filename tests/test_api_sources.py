"""The API sources cache (``.cache/perfdocs/api-sources``): a fetch is all or nothing and says what it does, an
entry is checked against its manifest and fetched again when it does not match, an interrupted fetch's folder
goes at the next run, the cache deleted during a build is no traceback, and sources that cannot be had are one
diagnostic naming the cache, not an error per API name. Nothing is downloaded: pip is replaced by a fake that
writes a small package (``fakelib``); test_the_pip_command_and_a_whole_fetch keeps the real command covered."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from perfdocs import apirefs, apisources
from perfdocs.apiconfig import ApiConfig
from perfdocs.apirefs import ApiIndex, build_index
from perfdocs.apisources import Source, library_sources
from perfdocs.dialect import Site
from perfdocs.pipeline import render_source
from perfdocs.theory import SnippetLibrary

from .conftest import ROOT

PYPROJECT = '[project]\nname = "x"\nversion = "0"\n[project.optional-dependencies]\nrecipes = ["fakelib==1.0"]\n'
INIT = '"""A fake library."""\n\nfrom .core import Thing\n\n__all__ = ["Thing"]\n'
CORE = 'class Thing:\n    """A thing."""\n\n    def run(self) -> None:\n        """Runs it."""\n'
OTHER = 'class Other:\n    """Another thing."""\n'
CACHE = ".cache/perfdocs/api-sources"
ENTRY = f"{CACHE}/fakelib-1.0"
PAGE = "# API\n\n[[autodoc]] Thing\n\nSee [`Thing`] and [`fakelib.other.Other`].\n"


class FakePip:
    """Stands for ``_pip_install``: writes fakelib 1.0 into the target, or fails like pip offline."""

    def __init__(self) -> None:
        self.calls: list[Path] = []
        self.fail = False
        self.failing: set[str] = set()  # names that fail, the others installed

    def __call__(self, name: str, version: str, target: Path) -> None:
        assert (name, version) in {("fakelib", "1.0"), ("otherlib", "2.0")}
        self.calls.append(target)
        if self.fail or name in self.failing:
            raise OSError(f"ERROR: No matching distribution found for {name}=={version}")
        if name == "otherlib":
            (target / "otherlib").mkdir()
            (target / "otherlib" / "__init__.py").write_text('class Widget:\n    """A widget."""\n')
        else:
            write_fakelib(target)


def write_fakelib(target: Path) -> None:
    files = {
        "fakelib/__init__.py": INIT,
        "fakelib/core.py": CORE,
        "fakelib/other.py": OTHER,
        "fakelib-1.0.dist-info/METADATA": "Name: fakelib\nVersion: 1.0\n",
    }
    for rel, text in files.items():
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        (target / rel).write_text(text, encoding="utf-8")


@pytest.fixture
def pip(monkeypatch: pytest.MonkeyPatch) -> FakePip:
    fake = FakePip()
    monkeypatch.setattr(apisources, "_pip_install", fake)
    return fake


@pytest.fixture
def project(tmp_path: Path) -> ApiConfig:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    return ApiConfig(tmp_path, ("fakelib",))


@pytest.fixture
def logged() -> Iterator[list[str]]:
    """What the module logs, as 'LEVEL message' (the time a fetch took as 'N.N')."""
    messages: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            text = re.sub(r"in \d+\.\d s$", "in N.N s", record.getMessage())
            messages.append(f"{record.levelname} {text}")

    handler = Collect(logging.DEBUG)
    previous = apisources.log.level
    apisources.log.addHandler(handler)
    apisources.log.setLevel(logging.DEBUG)
    try:
        yield messages
    finally:
        apisources.log.removeHandler(handler)
        apisources.log.setLevel(previous)


FETCHING = f"INFO perfdocs: fetching the API sources of fakelib 1.0 into {CACHE} (first build only)..."
FETCHED = "INFO perfdocs: fetched the API sources of fakelib 1.0 (4 files, 0 MB) in N.N s"


def sources(config: ApiConfig) -> tuple[dict[str, Source], list[str]]:
    found, problems = library_sources(config)
    return found, [str(p) for p in problems]


def cache_listing(config: ApiConfig) -> list[str]:
    return sorted(p.name for p in (config.root / apisources.SOURCES_DIR).iterdir())


# -- a fetch, and its manifest ---------------------------------------------------------------------------------
def test_the_first_fetch_says_what_it_does_and_writes_a_manifest(
    project: ApiConfig, pip: FakePip, logged: list[str]
) -> None:
    found, problems = sources(project)
    entry = project.root / ENTRY
    assert (found, problems) == ({"fakelib": Source("fakelib", "1.0", entry, project.root / CACHE)}, [])
    assert logged == [FETCHING, FETCHED]
    # pip wrote into a fetch folder next to the entry, renamed into place when complete: none is left
    assert len(pip.calls) == 1 and pip.calls[0].parent == project.root / CACHE
    assert pip.calls[0].name.startswith(f".perfdocs-fetch-{os.getpid()}-fakelib-1.0-")
    assert cache_listing(project) == ["fakelib-1.0"]
    manifest = json.loads((entry / "perfdocs-manifest.json").read_text(encoding="utf-8"))
    core = entry / "fakelib" / "core.py"
    assert manifest["format"] == 1 and (manifest["package"], manifest["version"]) == ("fakelib", "1.0")
    assert sorted(manifest["files"]) == [
        "fakelib-1.0.dist-info/METADATA",
        "fakelib/__init__.py",
        "fakelib/core.py",
        "fakelib/other.py",
    ]
    assert manifest["files"]["fakelib/core.py"] == {
        "size": len(CORE),
        "mtime_ns": core.stat().st_mtime_ns,
        "sha256": apirefs.hashlib.sha256(CORE.encode()).hexdigest(),
    }
    # the next build uses it as it is: no fetch, nothing said
    logged.clear()
    assert sources(project) == (found, [])
    assert (len(pip.calls), logged) == (1, [])


def _edit(entry: Path) -> None:
    (entry / "fakelib" / "core.py").write_text(CORE.replace("A thing", "A THING"), encoding="utf-8")


def _edit_keeping_the_size_and_mtime_but_not_the_ns(entry: Path) -> None:
    core = entry / "fakelib" / "core.py"
    st = core.stat()
    core.write_text(CORE.replace("A thing", "A THING"), encoding="utf-8")
    os.utime(core, ns=(st.st_atime_ns, st.st_mtime_ns + 1000))


def _grow(entry: Path) -> None:
    with (entry / "fakelib" / "core.py").open("a", encoding="utf-8") as out:
        out.write("# edited\n")


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda e: (e / "fakelib" / "other.py").unlink(), "is incomplete (missing fakelib/other.py)"),
        (
            lambda e: shutil.rmtree(e / "fakelib"),
            "is incomplete (missing fakelib/__init__.py and 2 more files)",
        ),
        (lambda e: (e / "perfdocs-manifest.json").unlink(), "is incomplete (it has no perfdocs-manifest.json)"),
        (_edit, "is corrupt (fakelib/core.py changed since it was fetched)"),
        (_grow, "is corrupt (fakelib/core.py changed since it was fetched)"),
        (_edit_keeping_the_size_and_mtime_but_not_the_ns, "is corrupt (fakelib/core.py changed since it was fetched)"),
        (
            lambda e: (e / "fakelib" / "extra.py").write_text("X = 1\n"),
            "is corrupt (it has files its perfdocs-manifest.json does not list: fakelib/extra.py)",
        ),
        (
            lambda e: (e / "perfdocs-manifest.json").write_text("{not json"),
            "is corrupt (its perfdocs-manifest.json is not one perfdocs wrote)",
        ),
        (
            lambda e: (e / "perfdocs-manifest.json").write_text(
                (e / "perfdocs-manifest.json").read_text().replace('"1.0"', '"0.9"')
            ),
            "is corrupt (its perfdocs-manifest.json is for fakelib 0.9)",
        ),
    ],
    ids=[
        "file-deleted",
        "package-deleted",
        "manifest-deleted",
        "file-edited",
        "file-grown",
        "same-size-edit",
        "file-added",
        "manifest-garbled",
        "manifest-other-version",
    ],
)
def test_a_damaged_entry_is_fetched_again_once(
    project: ApiConfig, pip: FakePip, logged: list[str], damage: object, reason: str
) -> None:
    sources(project)
    entry = project.root / ENTRY
    damage(entry)  # type: ignore[operator]
    logged.clear()
    found, problems = sources(project)
    assert (found["fakelib"].root, problems) == (entry, [])
    assert logged == [f"INFO perfdocs: API sources cache {ENTRY} {reason}; fetching it again", FETCHED]
    assert len(pip.calls) == 2
    assert (entry / "fakelib" / "core.py").read_text(encoding="utf-8") == CORE
    assert not (entry / "fakelib" / "extra.py").exists()
    assert cache_listing(project) == ["fakelib-1.0"]
    logged.clear()
    sources(project)
    assert (len(pip.calls), logged) == (2, [])  # repaired: the next build fetches nothing


def test_a_copied_entry_with_new_mtimes_is_hashed_once_and_kept(
    project: ApiConfig, pip: FakePip, logged: list[str]
) -> None:
    sources(project)
    entry = project.root / ENTRY
    for file in entry.rglob("*.py"):
        os.utime(file, ns=(0, 10**18))  # same content, other mtimes: what a copy of the cache may give
    logged.clear()
    assert sources(project)[1] == []
    assert (len(pip.calls), logged) == (1, [])
    manifest = json.loads((entry / "perfdocs-manifest.json").read_text(encoding="utf-8"))
    assert manifest["files"]["fakelib/core.py"]["mtime_ns"] == 10**18  # the next check is a stat again


def test_the_check_hashes_only_files_whose_stat_changed(
    project: ApiConfig, pip: FakePip, monkeypatch: pytest.MonkeyPatch
) -> None:
    sources(project)
    hashed: list[str] = []
    real = apisources._sha256

    def counted(file: Path) -> str:
        hashed.append(file.name)
        return real(file)

    monkeypatch.setattr(apisources, "_sha256", counted)
    assert sources(project)[1] == []
    assert hashed == []
    core = project.root / ENTRY / "fakelib" / "core.py"
    os.utime(core, ns=(0, 10**18))
    assert sources(project)[1] == []
    assert hashed == ["core.py"]  # the one whose mtime changed; the manifest takes its new mtime
    assert sources(project)[1] == []
    assert hashed == ["core.py"]


# -- what an interrupted fetch leaves ----------------------------------------------------------------------------
def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_an_interrupted_fetchs_folder_goes_and_nothing_else(
    project: ApiConfig, pip: FakePip, logged: list[str]
) -> None:
    cache = project.root / CACHE
    dead = _dead_pid()
    old = time.time() - 3600
    folders = {
        f".perfdocs-fetch-{dead}-fakelib-1.0-abc123": old,  # left by a fetch that was killed: removed
        f".perfdocs-fetch-{os.getppid()}-fakelib-1.0-live": old,  # a process that runs: a fetch in progress
        f".perfdocs-fetch-{dead}-fakelib-1.0-new": time.time() + 60,  # newer than this process: not left over
        "mine": old,  # anything else in the cache is not this code's
        "tmpabc": old,
        ".perfdocs-fetch-notapid": old,
    }
    for name, mtime in folders.items():
        (cache / name / "fakelib").mkdir(parents=True)
        os.utime(cache / name, (mtime, mtime))
    (cache / f".perfdocs-fetch-{dead}-file").write_text("not a folder")
    os.utime(cache / f".perfdocs-fetch-{dead}-file", (old, old))
    found, problems = sources(project)
    assert problems == [] and "fakelib" in found
    assert logged[0] == (
        f"INFO perfdocs: removed {CACHE}/.perfdocs-fetch-{dead}-fakelib-1.0-abc123, left by an interrupted fetch of "
        "API sources"
    )
    assert logged[1:] == [FETCHING, FETCHED]
    assert cache_listing(project) == sorted(
        [
            *(n for n in folders if n != f".perfdocs-fetch-{dead}-fakelib-1.0-abc123"),
            f".perfdocs-fetch-{dead}-file",
            "fakelib-1.0",
        ]
    )


def test_a_fetch_interrupted_in_this_process_leaves_nothing(
    project: ApiConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(name: str, version: str, target: Path) -> None:
        write_fakelib(target)
        raise KeyboardInterrupt

    monkeypatch.setattr(apisources, "_pip_install", interrupted)
    with pytest.raises(KeyboardInterrupt):
        library_sources(project)
    assert cache_listing(project) == []


# -- sources that cannot be had ------------------------------------------------------------------------------------
def test_a_first_fetch_that_fails_is_one_diagnostic_naming_the_cache(
    project: ApiConfig, pip: FakePip, logged: list[str]
) -> None:
    pip.fail = True
    assert sources(project) == (
        {},
        [
            f"mkdocs.yml:1:1: error: cannot fetch the sources of fakelib==1.0 into the API sources cache {ENTRY}: "
            "ERROR: No matching distribution found for fakelib==1.0 [api-sources] (pip install --no-deps "
            "fakelib==1.0 (the build reads its files; nothing imports it); until then the API entries and links "
            "of fakelib are left out)"
        ],
    )
    assert logged == [FETCHING]
    assert cache_listing(project) == []  # the fetch folder went with the failure


def _render(index: ApiIndex) -> tuple[str, list[str]]:
    library = SnippetLibrary(ROOT / "docs" / "performance" / "_theory", ROOT)
    site = Site("api.md", frozenset({"api.md"}), index)
    rendered = render_source(PAGE, "docs/api.md", library, ROOT, site=site)
    return rendered.text, [str(d) for d in rendered.diagnostics]


UNAVAILABLE_NOTE = (
    '!!! warning "Thing is missing from this build"\n\n'
    "    The sources of fakelib could not be read: the build reports why.\n"
)


def test_a_refetch_that_fails_is_one_diagnostic_and_no_error_on_the_pages(
    project: ApiConfig, pip: FakePip, logged: list[str]
) -> None:
    sources(project)
    (project.root / ENTRY / "fakelib" / "core.py").unlink()
    pip.fail = True
    logged.clear()
    index = build_index(project, [("api.md", "docs/api.md", PAGE)])
    assert [str(p) for p in index.problems] == [
        f"mkdocs.yml:1:1: error: the API sources cache {ENTRY} is incomplete (missing fakelib/core.py), and "
        "fetching fakelib==1.0 again failed: ERROR: No matching distribution found for fakelib==1.0 "
        "[api-sources] (pip install --no-deps fakelib==1.0 (the build reads its files; nothing imports it); "
        "until then the API entries and links of fakelib are left out)"
    ]
    assert logged == [
        f"INFO perfdocs: API sources cache {ENTRY} is incomplete (missing fakelib/core.py); fetching it again"
    ]
    assert len(pip.calls) == 2
    assert not (project.root / ENTRY).exists()  # the damaged entry is gone: the next build fetches it whole
    # the pages: no "'Thing' is not an object", no "no such object": the entry is a note, the links code
    text, problems = _render(index)
    assert problems == []
    assert UNAVAILABLE_NOTE in text
    assert "See `Thing` and `fakelib.other.Other`." in text


def test_only_the_names_an_unavailable_library_may_have_are_spared(
    tmp_path: Path, pip: FakePip, logged: list[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.replace('"fakelib==1.0"', '"otherlib==2.0", "fakelib==1.0"'))
    config = ApiConfig(tmp_path, ("otherlib", "fakelib"))
    pip.failing = {"fakelib"}
    page = (
        "# API\n\n[[autodoc]] Thing\n\n[[autodoc]] Widget\n\n[[autodoc]] otherlib.Gadget\n\n"
        "See [`Thing`], [`fakelib.Thing`], [`Widget`] and [`otherlib.Gizmo`].\n"
    )
    index = build_index(config, [("api.md", "docs/api.md", page)])
    assert [p.message for p in index.problems] == [
        f"cannot fetch the sources of fakelib==1.0 into the API sources cache {ENTRY}: ERROR: No matching "
        "distribution found for fakelib==1.0"
    ]
    library = SnippetLibrary(ROOT / "docs" / "performance" / "_theory", ROOT)
    rendered = render_source(page, "docs/api.md", library, ROOT, site=Site("api.md", frozenset({"api.md"}), index))
    # a name otherlib, which was read, does not have is still an error; one fakelib may have is not
    assert [str(d) for d in rendered.diagnostics] == [
        "docs/api.md:7:13: error: [[autodoc]] otherlib.Gadget: no such object in otherlib or fakelib "
        "[unknown-api-object] (did you mean 'Widget'?)",
        "docs/api.md:9:51: error: API link [`otherlib.Gizmo`]: 'otherlib.Gizmo' is not an object of otherlib or "
        "fakelib [unknown-api-name] (did you mean 'otherlib.Widget'?)",
    ]
    assert UNAVAILABLE_NOTE in rendered.text and "::: otherlib.Widget" in rendered.text
    assert "See `Thing`, `fakelib.Thing`, [`Widget`][otherlib.Widget] and `otherlib.Gizmo`." in rendered.text


def test_with_the_sources_the_page_renders_its_entry(project: ApiConfig, pip: FakePip) -> None:
    index = build_index(project, [("api.md", "docs/api.md", PAGE)])
    assert index.problems == [] and index.unavailable == {}
    text, problems = _render(index)
    assert problems == []
    assert "::: fakelib.Thing" in text and "[`Thing`][fakelib.Thing]" in text


def test_an_unknown_name_is_still_an_error_when_the_sources_are_there(project: ApiConfig, pip: FakePip) -> None:
    index = build_index(project, [])
    assert index.resolve("Thingg") is None and index.resolve("fakelib.Nothing") is None


# -- the cache deleted during a build ------------------------------------------------------------------------------
def test_the_cache_deleted_between_the_check_and_the_reading_is_fetched_again(
    project: ApiConfig, pip: FakePip, logged: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = apisources.fetch_sources
    deleted: list[bool] = []

    def then_deleted(*args: object, **kwargs: object) -> Path:
        target = real(*args, **kwargs)  # type: ignore[arg-type]
        if not deleted:
            deleted.append(True)
            shutil.rmtree(project.root / ".cache")  # someone cleans the cache right after it was checked
        return target

    monkeypatch.setattr(apisources, "fetch_sources", then_deleted)
    index = build_index(project, [("api.md", "docs/api.md", PAGE)])
    assert (index.problems, index.unavailable) == ([], {})
    assert logged == [
        FETCHING,
        FETCHED,
        f"INFO perfdocs: API sources cache {ENTRY} disappeared during the build; fetching it again",
        FETCHED,
    ]
    assert len(pip.calls) == 2
    assert "fakelib.Thing" in index.public


def test_the_cache_deleted_before_the_module_subset_is_fetched_again(
    project: ApiConfig, pip: FakePip, logged: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = ApiIndex.write_subset
    calls: list[int] = []

    def after_deleting(self: ApiIndex, cache: Path) -> Path:
        if not calls:
            shutil.rmtree(project.root / CACHE)
        calls.append(1)
        return real(self, cache)

    monkeypatch.setattr(ApiIndex, "write_subset", after_deleting)
    index = build_index(project, [("api.md", "docs/api.md", PAGE)])
    assert (index.problems, index.unavailable, len(calls), len(pip.calls)) == ([], {}, 2, 2)
    assert logged[2:] == [
        f"INFO perfdocs: API sources cache {ENTRY} disappeared during the build; fetching it again",
        FETCHED,
    ]
    assert index.subset is not None and (index.subset / "fakelib" / "core.py").read_text() == CORE
    assert _render(index)[1] == []


def test_the_cache_deleted_before_the_subset_and_no_network_is_one_diagnostic(
    project: ApiConfig, pip: FakePip, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = ApiIndex.write_subset

    def after_deleting(self: ApiIndex, cache: Path) -> Path:
        shutil.rmtree(project.root / CACHE, ignore_errors=True)
        pip.fail = True
        return real(self, cache)

    monkeypatch.setattr(ApiIndex, "write_subset", after_deleting)
    index = build_index(project, [("api.md", "docs/api.md", PAGE)])
    assert [str(p) for p in index.problems] == [
        f"mkdocs.yml:1:1: error: the API sources cache {ENTRY} disappeared during the build, and fetching "
        "fakelib==1.0 again failed: ERROR: No matching distribution found for fakelib==1.0 [api-sources] (pip install --no-deps "
        "fakelib==1.0 (the build reads its files; nothing imports it); until then the API entries and links "
        "of fakelib are left out)"
    ]
    assert index.entries == {} and "fakelib.Thing" not in index.public
    text, problems = _render(index)
    assert problems == [] and UNAVAILABLE_NOTE in text


def test_the_cache_deleted_while_pages_render_is_no_traceback(
    project: ApiConfig, pip: FakePip, logged: list[str]
) -> None:
    index = build_index(project, [("api.md", "docs/api.md", PAGE)])
    shutil.rmtree(project.root / ".cache")
    logged.clear()
    # fakelib.other was not read yet: it is code now, not an error; the entry read before still renders
    assert index.resolve("fakelib.other.Other") == apirefs.Resolved(
        "fakelib.other.Other", "fakelib.other.Other", "unknown", None
    )
    assert index.resolve("fakelib.Thing") is not None
    text, problems = _render(index)
    assert problems == [] and "::: fakelib.Thing" in text
    assert logged == [
        f"ERROR perfdocs: the API sources cache {ENTRY} disappeared during the build: the names of fakelib not "
        "read by then are shown as code; the next build fetches it again"
    ]


def test_the_cache_deleted_between_two_builds_is_fetched_again(
    project: ApiConfig, pip: FakePip, logged: list[str]
) -> None:
    first = build_index(project, [("api.md", "docs/api.md", PAGE)])
    shutil.rmtree(project.root / ".cache")  # between two builds of mkdocs serve
    logged.clear()
    second = build_index(project, [("api.md", "docs/api.md", PAGE)])
    assert (first.problems, second.problems, len(pip.calls)) == ([], [], 2)
    assert logged == [FETCHING, FETCHED]
    assert _render(second)[1] == []


def test_the_definitions_scan_of_vanished_sources_is_not_kept(project: ApiConfig, pip: FakePip) -> None:
    index = build_index(project, [])
    library = index.libraries["fakelib"]
    shutil.rmtree(project.root / CACHE)
    assert library.definitions() == {}
    assert list((project.root / apirefs.DEFINITIONS_DIR).glob("fakelib-*.json")) == []


# -- the real pip command ----------------------------------------------------------------------------------------
def test_the_pip_command_and_a_whole_fetch(project: ApiConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    commands: list[list[str]] = []

    def run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        commands.append(command)
        write_fakelib(Path(command[command.index("--target") + 1]))
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(apisources.subprocess, "run", run)
    found, problems = sources(project)
    assert problems == [] and (found["fakelib"].root / "fakelib" / "core.py").read_text() == CORE
    [command] = commands
    assert command[:3] == [sys.executable, "-m", "pip"]
    assert command[3:-3] == [
        "install",
        "--quiet",
        "--no-deps",
        "--no-compile",
        "--disable-pip-version-check",
        "--no-input",
    ]
    assert command[-3] == "--target" and Path(command[-2]).name.startswith(".perfdocs-fetch-")
    assert command[-1] == "fakelib==1.0"


def test_pip_that_cannot_run_is_one_diagnostic(project: ApiConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    def run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        raise FileNotFoundError(2, "No such file or directory", command[0])

    monkeypatch.setattr(apisources.subprocess, "run", run)
    found, problems = sources(project)
    assert found == {}
    assert problems == [
        f"mkdocs.yml:1:1: error: cannot fetch the sources of fakelib==1.0 into the API sources cache {ENTRY}: "
        f"cannot run pip: [Errno 2] No such file or directory: '{sys.executable}' [api-sources] (pip install "
        "--no-deps fakelib==1.0 (the build reads its files; nothing imports it); until then the API entries and "
        "links of fakelib are left out)"
    ]
