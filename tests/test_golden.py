"""Golden files: tests/golden/<feature>/<case>.md -> <case>.out.md (Markdown) + <case>.diag.txt.

After a deliberate change, run ``pytest tests/test_golden.py --update-golden`` and review the diff.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from perfdocs.apiconfig import ApiConfig
from perfdocs.apirefs import ApiIndex, build_index
from perfdocs.dialect import Site
from perfdocs.pipeline import render_source
from perfdocs.theory import SnippetLibrary

from .conftest import ROOT, check_golden

GOLDEN = ROOT / "tests" / "golden"
# The goldens are one docs tree: extension-less links resolve against its files, as pages do in a build.
FILES = frozenset(p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file())
NOTEBOOKS = "https://github.com/example/notebooks/blob/main/docs/{framework}{page}.ipynb"  # [[open-in-colab]]
CASES = sorted(
    p
    for p in GOLDEN.rglob("*.md")
    if "_theory" not in p.parts and "_files" not in p.parts and not p.name.endswith(".out.md")
)


@functools.cache
def golden_api() -> ApiIndex:
    """API links and [[autodoc]] resolve against the real libraries (the recipes extra), with every [[autodoc]]
    of the goldens registered first, as a build registers every page's."""
    pages = [(c.relative_to(GOLDEN).as_posix(), c.relative_to(ROOT).as_posix(), c.read_text("utf-8")) for c in CASES]
    return build_index(ApiConfig(ROOT, ("transformers", "peft", "accelerate")), pages)


@pytest.mark.parametrize("case", CASES, ids=[str(p.relative_to(GOLDEN)) for p in CASES])
def test_golden(case: Path, update_golden: bool) -> None:
    library = SnippetLibrary(GOLDEN / "_theory", ROOT)
    shown = case.relative_to(ROOT).as_posix()
    site = Site(case.relative_to(GOLDEN).as_posix(), FILES, golden_api(), notebooks=NOTEBOOKS)
    rendered = render_source(case.read_text(encoding="utf-8"), shown, library, ROOT, site=site)
    check_golden(case.with_suffix(".out.md"), rendered.text + "\n", update_golden)
    check_golden(case.with_suffix(".diag.txt"), "".join(f"{d}\n" for d in rendered.diagnostics), update_golden)
    if case.parent.name != "errors":
        assert not rendered.diagnostics, "only tests/golden/errors cases may produce diagnostics"
    else:
        assert rendered.diagnostics, "an error case must produce diagnostics"
