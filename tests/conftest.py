from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite the expected golden files from the current output (review the diff!)",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


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
