from __future__ import annotations

import difflib
import fcntl
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite the expected golden files from the current output (review the diff!)",
    )


@pytest.fixture(autouse=True)
def _heading_ids_as_they_were() -> Iterator[None]:
    """Loading a project sets how headings get their ids for the whole process (perfdocs.text.use_slugify, from
    the project's toc.slugify); a test that loads one (a build in this process, Project.load) leaves the next
    test the function it found."""
    from perfdocs.text import use_slugify

    before = use_slugify(None)
    use_slugify(before)
    yield
    use_slugify(before)


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


def once_per_run(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], Any]) -> tuple[Path, Any]:
    """``make(directory)`` run once per test run, whichever pytest-xdist worker asks first; the others wait for it
    and get the same directory and result (``make`` returns plain JSON data). Each worker would otherwise build
    the same site again: under ``-n 2`` every session fixture below ran twice."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's directory, which every worker's own lies in
    out, result = base / name, base / f"{name}.json"
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not result.is_file():
            shutil.rmtree(out, ignore_errors=True)  # what a worker that failed here left
            out.mkdir()
            result.write_text(json.dumps(make(out)), encoding="utf-8")
    return out, json.loads(result.read_text(encoding="utf-8"))


def _built(project: Path, site: Path, **options: Any) -> dict[str, Any]:
    from .sitetools import build

    done = build(project, site, **options)
    return {"returncode": done.returncode, "output": done.stdout + done.stderr, "stderr": done.stderr}


@pytest.fixture(scope="session")
def site_bare(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once per test run as a fresh clone builds it (nothing deployed), for every test that
    only reads it; the build logs no warning and no error."""
    out, result = once_per_run(tmp_path_factory, "bare", lambda d: _built(ROOT, d / "site"))
    assert result["returncode"] == 0, result["stderr"]
    assert "ERROR" not in result["stderr"] and "WARNING" not in result["stderr"], result["stderr"]
    return out / "site"


@pytest.fixture(scope="session")
def site_as_deployed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once per test run as it is deployed (canonical links, repository, edit links);
    PERFDOCS_BROWSER_SITE names a site built earlier, to iterate on the tests against it."""
    from .sitetools import DEPLOYMENT

    prebuilt = os.environ.get("PERFDOCS_BROWSER_SITE")
    if prebuilt:
        return Path(prebuilt)
    out, result = once_per_run(tmp_path_factory, "deployed", lambda d: _built(ROOT, d / "site", deploy=DEPLOYMENT))
    assert result["returncode"] == 0, result["stderr"]
    return out / "site"


@pytest.fixture(scope="session")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    """The attacker's site (tests/hostile.py), built once with --strict (the output it printed) and once
    without, as mkdocs serve and pull request previews build: (project, strict output, built site)."""
    from .hostile import make_hostile_project

    def make(tmp: Path) -> dict[str, Any]:
        project = make_hostile_project(tmp)
        return {"strict": _built(project, tmp / "strict"), "lenient": _built(project, tmp / "site", strict=False)}

    tmp, result = once_per_run(tmp_path_factory, "hostile", make)
    strict, lenient = result["strict"], result["lenient"]
    assert strict["returncode"] != 0, strict["output"]
    assert lenient["returncode"] == 0, lenient["stderr"]
    assert "Traceback" not in lenient["output"]
    return tmp / "project", strict["output"], tmp / "site"


def check_golden(path: Path, actual: str, update: bool) -> None:
    """``actual`` against the golden file ``path`` (rewritten instead with --update-golden, to be reviewed)."""
    if update:
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"{path.relative_to(ROOT)} missing: run pytest --update-golden and review it"
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(True), actual.splitlines(True), str(path.relative_to(ROOT)), "actual"
        )
        pytest.fail("golden mismatch:\n" + "".join(diff))
