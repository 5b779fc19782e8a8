"""Two builds of the same commit are byte-identical: the first from a clean clone (nothing kept), the second
with what the first kept for it (the API index and entries, perfdocs.apicache)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from perfdocs.apicache import RENDER_DIR

from .sitetools import build, copy_project

pytestmark = pytest.mark.slow


def digest_tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_two_builds_are_byte_identical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    project = copy_project(tmp_path / "project", kept=False)
    first, second = tmp_path / "one", tmp_path / "two"
    cold = build(project, first)
    assert cold.returncode == 0, cold.stderr
    assert "API reference:" not in cold.stderr and any((project / RENDER_DIR).iterdir())
    warm = build(project, second)
    assert warm.returncode == 0, warm.stderr
    assert "INFO    -  perfdocs: API reference: 12 entries as a build of the same sources made them" in warm.stderr
    a, b = digest_tree(first), digest_tree(second)
    assert sorted(a) == sorted(b)
    differing = [path for path in a if a[path] != b[path]]
    assert differing == []
    assert len(a) > 50 and os.path.getsize(first / "sitemap.xml") > 0
