from __future__ import annotations

import difflib
import os
from collections.abc import Iterator
from pathlib import Path

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


@pytest.fixture(scope="session")
def site_bare(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once per test run as a fresh clone builds it (nothing deployed), for every test that
    only reads it; the build logs no warning and no error."""
    from .sitetools import build

    out = tmp_path_factory.mktemp("bare")
    result = build(ROOT, out)
    assert result.returncode == 0, result.stderr
    assert "ERROR" not in result.stderr and "WARNING" not in result.stderr, result.stderr
    return out


@pytest.fixture(scope="session")
def site_as_deployed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once per test run as it is deployed (canonical links, repository, edit links);
    PERFDOCS_BROWSER_SITE names a site built earlier, to iterate on the tests against it."""
    from .sitetools import DEPLOYMENT, build

    prebuilt = os.environ.get("PERFDOCS_BROWSER_SITE")
    if prebuilt:
        return Path(prebuilt)
    out = tmp_path_factory.mktemp("site")
    result = build(ROOT, out, deploy=DEPLOYMENT)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="session")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    """The attacker's site (tests/hostile.py), built once with --strict (the output it printed) and once
    without, as mkdocs serve and pull request previews build: (project, strict output, built site)."""
    from .hostile import make_hostile_project
    from .sitetools import build

    tmp = tmp_path_factory.mktemp("hostile")
    project = make_hostile_project(tmp)
    strict = build(project, tmp / "strict")
    assert strict.returncode != 0, strict.stdout + strict.stderr
    lenient = build(project, tmp / "site", strict=False)
    assert lenient.returncode == 0, lenient.stderr
    assert "Traceback" not in lenient.stdout + lenient.stderr
    return project, strict.stdout + strict.stderr, tmp / "site"


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
