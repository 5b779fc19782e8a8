"""Work over many pages in forked worker processes, when there are enough pages and cores to pay: all of it
before the caller goes on (fork_map), or ahead of the caller while it goes on (Ahead)."""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Generic, TypeVar

log = logging.getLogger("mkdocs.plugins.perfdocs")

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


AHEAD_CHUNK = 8  # items per job of an Ahead: the caller waits at most about two jobs for the first result


def ahead_jobs() -> int:
    """Workers for an Ahead: the cores the caller leaves free, at most two (the caller is the slower side)."""
    return max(0, min(2, (os.cpu_count() or 1) - 1))


class Ahead(Generic[T, R]):
    """``fn`` over ``items`` in forked workers, while the caller goes on with its own work.

    ``take(i)`` gives the i-th result once its job is done, waiting when that job is already with a worker; None
    when the caller has overtaken the workers (the job had not started: it is cancelled, and the caller computes
    those items itself), when the job failed, or when no worker was started (too few items, one core, no fork).
    A failure costs only speed, and says so once. ``close()`` stops the workers and drops the results.
    Forking and the rules for ``fn`` are fork_map's. ``least``: the fewest items worth starting workers for
    (``chunk`` items a job). ``lazy``: the pool gets one job more than it has workers, and more as jobs are done
    (``take`` hands them out), not all at once. The pool moves each job it gets into its queue as soon as there is
    room, and from there the job cannot be cancelled: lazily, each worker still always has its next job, and every
    other job stays the caller's to take over.
    """

    def __init__(
        self,
        fn: Callable[[list[T]], list[R]],
        items: Sequence[T],
        jobs: int | None = None,
        chunk: int = AHEAD_CHUNK,
        least: int = MIN_ITEMS_PER_JOB * 2,
        lazy: bool = False,
    ) -> None:
        jobs = ahead_jobs() if jobs is None else jobs
        self._fn, self._chunk = fn, chunk
        self._window = jobs + 1 if lazy else None  # at most this many jobs with the pool and not done
        self._forked = False
        self._busy: list[Future[list[R]]] = []  # handed out, not known to be done (lazy only)
        self._jobs: list[list[T]] = []
        self._futures: list[Future[list[R]] | None] = []  # by job; None: not handed to the pool (yet)
        self._next = 0  # the first job not handed to the pool
        self._pool: ProcessPoolExecutor | None = None
        if jobs < 1 or len(items) < least or "fork" not in multiprocessing.get_all_start_methods():
            return
        self._pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"))
        for i in range(0, len(items), chunk):
            self._jobs.append(list(items[i : i + chunk]))
            self._futures.append(None)
        self._hand_out()

    @property
    def started(self) -> bool:
        return self._pool is not None

    def put(self, item: T) -> int | None:
        """One more item for the workers of an Ahead of one item a job (``chunk=1``; ``least=0`` starts one with
        none): its index for ``take``, None when there are no workers."""
        assert self._chunk == 1
        if self._pool is None:
            return None
        self._jobs.append([item])
        self._futures.append(None)
        self._hand_out()
        return len(self._jobs) - 1

    def _hand_out(self) -> None:
        """Jobs to the pool, in order, as far as the window allows (the caller's own are skipped)."""
        pool = self._pool
        if pool is None:
            return
        if self._window is not None:
            self._busy = [future for future in self._busy if not future.done()]
        while self._next < len(self._jobs) and (self._window is None or len(self._busy) < self._window):
            job = self._next
            self._next += 1
            if self._jobs[job]:  # an emptied job was taken over by the caller
                first, self._forked = not self._forked, True
                if first:
                    gc.freeze()  # the workers are forked at the first submit
                try:
                    future = self._futures[job] = pool.submit(self._fn, self._jobs[job])
                finally:
                    if first:
                        gc.unfreeze()
                if self._window is not None:
                    self._busy.append(future)

    def take(self, index: int) -> R | None:
        job = index // self._chunk
        if job >= len(self._futures):
            return None
        future = self._futures[job]
        if future is None:  # not handed out: the caller's now
            self._jobs[job] = []
            self._hand_out()
            return None
        if future.cancel() or future.cancelled():
            return None
        error = future.exception()
        if error is not None:
            self._failed(error)
            return None
        self._hand_out()
        return future.result()[index % self._chunk]

    def _failed(self, error: BaseException) -> None:
        if self._pool is not None:
            log.info(
                "perfdocs: work ahead in worker processes stopped (%s: %s); the rest is done in order",
                type(error).__name__,
                error,
            )
        self.close()

    def close(self) -> None:
        """The workers stopped and the results dropped. The caller does not wait for the worker processes to exit
        (about 8 ms each): no job is left running when the caller has taken every result it waits for, and the
        pool's own thread joins them."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool, self._futures, self._jobs, self._next, self._busy = None, [], [], 0, []
