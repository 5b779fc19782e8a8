"""The page-weight budget of bench/pages.py, checked on every run: no page of the site makes a
reader download more than 1.5 MB (uncompressed, cold cache, search index included), and nothing
is fetched from another host."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType
from typing import Any

from .conftest import MISSING_URL, PAGE_URLS
from .support import ROOT

BUDGET = 1_500_000


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_pages", ROOT / "bench" / "pages.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_every_page_within_the_weight_budget(browser: Any, base_url: str) -> None:
    pages = bench()
    weights = [pages.measure(browser, base_url, url) for url in [*PAGE_URLS, MISSING_URL]]
    over = {w.url: w.total_raw for w in weights if w.total_raw > BUDGET}
    assert over == {}, f"pages over {BUDGET:,} bytes uncompressed:\n{pages.table(weights)}"
    assert [u for w in weights for u in w.external] == []
    assert all(w.raw["html"] and w.raw["search"] for w in weights), pages.table(weights)
    assert all(w.fcp_ms is not None for w in weights), "every page paints"
