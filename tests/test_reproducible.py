"""Two clean builds of the same commit are byte-identical."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from .conftest import ROOT
from .sitetools import build

pytestmark = pytest.mark.slow


def digest_tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_two_builds_are_byte_identical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    first, second = tmp_path / "one", tmp_path / "two"
    for site in (first, second):
        result = build(ROOT, site)
        assert result.returncode == 0, result.stderr
    a, b = digest_tree(first), digest_tree(second)
    assert sorted(a) == sorted(b)
    differing = [path for path in a if a[path] != b[path]]
    assert differing == []
    assert len(a) > 50 and os.path.getsize(first / "sitemap.xml") > 0
