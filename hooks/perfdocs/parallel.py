"""Work over many pages in forked worker processes, when there are enough pages and cores to pay."""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")
MIN_ITEMS_PER_JOB = 32  # below this, starting workers costs more than it saves


def default_jobs() -> int:
    return min(2, os.cpu_count() or 1)


def fork_map(fn: Callable[[list[T]], list[R]], items: Sequence[T], jobs: int | None = None) -> list[R]:
    """``fn`` applied to chunks of ``items``, results in order; in ``jobs`` forked workers when it pays.

    ``fn`` must be a module-level function (or a partial of one) returning plain data: workers share
    nothing with the parent but what the fork copied. gc.freeze keeps the workers from touching (and so
    copying) the parent's objects, a whole MkDocs build among them.
    """
    jobs = default_jobs() if jobs is None else jobs
    items = list(items)
    if jobs <= 1 or len(items) < MIN_ITEMS_PER_JOB * 2 or "fork" not in multiprocessing.get_all_start_methods():
        return fn(items)
    size = -(-len(items) // (jobs * 4))
    chunks = [items[i : i + size] for i in range(0, len(items), size)]
    gc.freeze()
    try:
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            return [result for part in pool.map(fn, chunks) for result in part]
    finally:
        gc.unfreeze()
