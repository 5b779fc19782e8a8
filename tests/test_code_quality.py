"""The toolchain stays typed and lint-clean (ruff and mypy, configured in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys

from .conftest import ROOT


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_finds_nothing() -> None:
    result = run("ruff", "check", "hooks", "tests", "bench/build_overhead.py", "--output-format", "concise")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing() -> None:
    result = run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr
