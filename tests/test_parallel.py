"""Work ahead in forked workers (perfdocs.parallel.Ahead) and the build that renders its pages that way: the same
site, page for page, as a build that renders every page itself."""

from __future__ import annotations

import concurrent.futures
import logging
import os
import subprocess
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from perfdocs import mkdocs_adapter, parallel
from perfdocs.parallel import MIN_ITEMS_PER_JOB, Ahead
from selectolax.lexbor import LexborHTMLParser

from .sitetools import build_in_process, build_messages, hooked_project, minimal_config, site_files

ENOUGH = MIN_ITEMS_PER_JOB * 2  # the fewest items for which workers are started
HANG_GUARD_S = 60


def _pid_and_square(items: list[int]) -> list[tuple[int, int]]:
    return [(os.getpid(), item * item) for item in items]


def _fail_on_13(items: list[tuple[str, int]]) -> list[int]:
    """The items' numbers; the job holding 13 says it started (a file) and fails."""
    if any(i == 13 for _, i in items):
        Path(items[0][0]).touch()
        raise ValueError("thirteen")
    return [i for _, i in items]


def _wait_for_flag(items: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The first job waits until the test writes its flag file: it stays with its worker as long as the test
    needs (a condition, not a time)."""
    flag, job = items[0]
    while job == "first" and not Path(flag).exists():
        time.sleep(0.01)
    return items


def test_results_come_in_order_from_other_processes() -> None:
    ahead = Ahead(_pid_and_square, list(range(ENOUGH + 3)), jobs=2)
    try:
        assert ahead.started
        # Every job done first: a job the pool has not started yet is the caller's to take over (take() says None),
        # and on a loaded machine the pool's thread may not have started the next job when the caller asks for it.
        concurrent.futures.wait([future for future in ahead._futures if future is not None], timeout=HANG_GUARD_S)
        results = [ahead.take(i) for i in range(ENOUGH + 3)]
    finally:
        ahead.close()
    assert [r[1] for r in results if r is not None] == [i * i for i in range(ENOUGH + 3)]
    assert os.getpid() not in {r[0] for r in results if r is not None}
    assert ahead.take(0) is None  # closed: the caller does the work


@pytest.mark.parametrize("items, jobs", [(ENOUGH - 1, 2), (ENOUGH, 0)])
def test_no_workers_for_too_few_items_or_no_free_core(items: int, jobs: int) -> None:
    ahead = Ahead(_pid_and_square, list(range(items)), jobs=jobs)
    assert not ahead.started
    assert ahead.take(0) is None


def test_a_failed_job_hands_the_rest_to_the_caller_and_says_so_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    flag = tmp_path / "failing"
    ahead = Ahead(_fail_on_13, [(str(flag), i) for i in range(ENOUGH)], jobs=1, chunk=8)
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.perfdocs"):
        assert ahead.take(3) == 3  # the job before the failing one
        while not flag.exists():  # the failing job is with the worker (a job not started would be the caller's)
            time.sleep(0.01)
        assert ahead.take(13) is None
        assert ahead.take(20) is None
        assert ahead.take(3) is None  # the workers are gone with their results
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [
        "perfdocs: work ahead in worker processes stopped (ValueError: thirteen); the rest is done in order"
    ]


def test_a_job_the_caller_overtook_is_cancelled(tmp_path: Path) -> None:
    """One worker busy with the first job; the call queue holds the next; the one after is still waiting: taking
    from it cancels it (the caller does those items itself), and the jobs before it still deliver."""
    flag = tmp_path / "go"
    items = [(str(flag), "first" if i < 4 else "later") for i in range(ENOUGH)]
    ahead = Ahead(_wait_for_flag, items, jobs=1, chunk=4)
    try:
        assert ahead.take(12) is None  # the fourth job: not with the worker
        assert ahead.take(13) is None  # its cancelled job stays the caller's
        flag.touch()
        assert ahead.take(0) == (str(flag), "first")
        assert ahead.take(5) == (str(flag), "later")
        assert ahead.take(16) == (str(flag), "later")
    finally:
        ahead.close()


def test_a_lazy_ahead_leaves_every_job_a_worker_has_not_started_to_the_caller(tmp_path: Path) -> None:
    """lazy: the pool holds one job more than its workers (job 0 with the worker, job 1 next); every later job is
    the caller's to take over, whichever it asks for first, and the two handed out still deliver."""
    flag = tmp_path / "go"
    items = [(str(flag), "first" if i == 0 else "later") for i in range(5)]
    ahead = Ahead(_wait_for_flag, items, jobs=1, chunk=1, least=1, lazy=True)
    taken: list[object] = []
    try:
        asking = threading.Thread(target=lambda: taken.extend([ahead.take(4), ahead.take(2)]), daemon=True)
        asking.start()
        asking.join(HANG_GUARD_S)  # not a limit on speed: a take that waits for the worker would wait for good
        alive = asking.is_alive()
        flag.touch()
        assert not alive and taken == [None, None], "take waited for a job no worker had started"
        assert ahead.take(0) == (str(flag), "first")
        assert ahead.take(1) == (str(flag), "later")
    finally:
        ahead.close()


def test_close_does_not_wait_for_the_workers(tmp_path: Path) -> None:
    """close() hands the pool's shutdown to its own thread: a worker still at a job (one whose result nobody takes
    any more) does not hold the caller, and the job is not taken afterwards."""
    flag = tmp_path / "go"
    ahead = Ahead(_wait_for_flag, [(str(flag), "first")], jobs=1, chunk=1, least=1, lazy=True)
    closing = threading.Thread(target=ahead.close, daemon=True)
    try:
        closing.start()
        closing.join(HANG_GUARD_S)  # not a limit on speed: a close that waits for the worker would wait for good
        alive = closing.is_alive()
    finally:
        flag.touch()
    assert not alive, "close waited for the worker's job"
    assert not ahead.started and ahead.take(0) is None


def test_what_mkdocs_page_render_sets_is_what_a_worker_carries_back(tmp_path: Path) -> None:
    """MkDocs' Page.render sets these attributes of the page, and mkdocs_adapter.Converted carries each back from
    the worker (apply): anything else it starts to set, a page converted in a worker would go without."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import File, Files
    from mkdocs.structure.pages import Page

    docs = tmp_path / "docs"
    docs.mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: t\n", encoding="utf-8")
    (docs / "a.md").write_text("# A\n\n## Part\n\n[b](b.md#x) and [here](#part).\n", encoding="utf-8")
    (docs / "b.md").write_text("# B\n", encoding="utf-8")
    config = load_config(str(tmp_path / "mkdocs.yml"))
    files = Files([File(name, str(docs), str(tmp_path / "site"), True) for name in ("a.md", "b.md")])
    page = Page(None, files.get_file_from_path("a.md"), config)
    page.read_source(config)
    before = dict(vars(page))
    page.render(config, files)
    changed = {key for key, value in vars(page).items() if key not in before or before[key] is not value}
    assert changed == {"content", "toc", "_title_from_render", "present_anchor_ids", "links_to_anchors"}
    assert set(vars(mkdocs_adapter.Converted(page.markdown, "", None, None, None, None, [], []))) == {
        "markdown",  # what it converted: the engine checks it converts the same
        "content",
        "toc",
        "title",  # _title_from_render
        "anchor_ids",  # present_anchor_ids
        "links_to_anchors",
        "anchors",  # mkdocs-autorefs' register_anchor calls
        "records",  # what it logged
    }


def test_what_a_worker_logs_converting_a_page_is_logged_once_when_the_engine_takes_it() -> None:
    """Inside mkdocs_adapter._records no handler prints (a worker's copies of the engine's handlers would print
    twice): each record is kept once, however many loggers with handlers it passes, and pickled with its message
    formatted (an argument need not pickle); the engine's loggers then handle it as if logged there."""
    import pickle

    seen: list[logging.LogRecord] = []

    class Seen(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record)

    mkdocs_logger, handler = logging.getLogger("mkdocs"), Seen(logging.INFO)
    mkdocs_logger.addHandler(handler)
    try:
        with mkdocs_adapter._records() as records:
            logging.getLogger("mkdocs.structure.pages").warning("link %s not found", threading.Lock())
            logging.getLogger("markdown.extensions").error("no handler on the way but the root's")
        assert seen == []
        carried = pickle.loads(pickle.dumps(records))
        assert [(r.name, r.levelname, r.getMessage().split(" <")[0]) for r in carried] == [
            ("mkdocs.structure.pages", "WARNING", "link"),
            ("markdown.extensions", "ERROR", "no handler on the way but the root's"),
        ]
        for record in carried:
            logging.getLogger(record.name).handle(record)
        assert [r.getMessage().split(" <")[0] for r in seen] == ["link"]  # the mkdocs logger's own, as before
    finally:
        mkdocs_logger.removeHandler(handler)


def _site(project: Path, pages: int, more_config: str = "") -> None:
    files = {
        "mkdocs.yml": minimal_config("ahead", more_config),
        "docs/index.md": "---\nscenario: overview\n---\n# Overview\n\n<TechniqueMatrix/>\n",
        "docs/performance/_theory/amp.md": "---\ntitle: Mixed precision\nhelps: [speed]\nsummary: s\n---\nHalf.\n",
    }
    for i in range(pages):
        broken = "\n\nSee [the next](p9999.md).\n" if i == 7 else ""  # one broken link: the same error either way
        files[f"docs/p{i}.md"] = (
            f"---\nscenario: train-gpu-one\n---\n# Page {i}\n\n<Tip>\n\nTip {i}.\n\n</Tip>\n\n"
            f'## Precision\n\n<Theory name="amp"/>\n\n[`Trainer`] and [back](index.md).{broken}\n'
        )
    hooked_project(project, files)


@pytest.fixture
def takes(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[bool]]:
    """Whether each Ahead.take got a result, by the worker function it asked (_render_chunk, ...)."""
    found: dict[str, list[bool]] = defaultdict(list)
    take = Ahead.take

    def counted(self: Ahead, index: int):  # type: ignore[no-untyped-def,type-arg]
        result = take(self, index)
        found[self._fn.__name__].append(result is not None)
        return result

    monkeypatch.setattr(Ahead, "take", counted)
    return found


def serve_and_save(
    project: Path, site: Path, edit: Callable[[str], str], before: Callable[[], None] = lambda: None
) -> subprocess.CompletedProcess[str]:
    """mkdocs serve's first build of ``project``, in this process, then the amp snippet saved as ``edit`` makes it
    and the incremental rebuild of that save (a full build fails the test); ``before`` runs between the two."""
    from perfdocs.serve import LIVE

    snippet = project / "docs" / "performance" / "_theory" / "amp.md"

    def save_and_rebuild() -> None:
        before()
        snippet.write_text(edit(snippet.read_text(encoding="utf-8")), encoding="utf-8")
        LIVE.full_builder = lambda: pytest.fail("the snippet save rebuilt the whole site")
        LIVE.rebuild()

    try:
        return build_in_process(project, site, strict=False, then=save_and_rebuild)
    finally:
        LIVE.startup("build", dirty=False)


def test_pages_rendered_ahead_build_the_site_a_build_in_order_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, takes: dict[str, list[bool]]
) -> None:
    project = tmp_path / "project"
    _site(project, ENOUGH + 6)
    monkeypatch.setattr(parallel, "ahead_jobs", lambda: 1)
    ahead = build_in_process(project, tmp_path / "ahead", strict=False)
    assert takes["_render_chunk"].count(True) == ENOUGH + 6  # every page but the matrix page came from the worker
    monkeypatch.setattr(parallel, "ahead_jobs", lambda: 0)
    takes.clear()
    in_order = build_in_process(project, tmp_path / "in-order", strict=False)
    assert takes["_render_chunk"] == [False] * (ENOUGH + 6)
    assert build_messages(ahead.stderr) == build_messages(in_order.stderr)
    assert "p9999.md" in ahead.stderr
    assert site_files(tmp_path / "ahead") == site_files(tmp_path / "in-order")


def test_an_incremental_rebuild_renders_all_but_its_first_page_in_a_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, takes: dict[str, list[bool]]
) -> None:
    """A snippet saved under mkdocs serve: the engine converts the first page that shows it while a worker renders
    the others (one a job, however few), a worker reads each page's HTML while the engine converts the next, and
    one makes what printing the pages reads (from the last page on, while the engine prints from the first);
    each page shows the new text."""
    project = tmp_path / "project"
    _site(project, 4)

    def first_build_done() -> None:
        # the first build's four pages are too few for workers
        assert not any(takes["_render_chunk"]) and not takes["_content_chunk"]
        takes.clear()

    monkeypatch.setattr(parallel, "ahead_jobs", lambda: 1)
    built = serve_and_save(
        project, tmp_path / "site", lambda t: t.replace("Half.", "Half, now bf16."), first_build_done
    )
    assert "rebuilt 4 pages" in built.stderr
    # p1, p2 and p3 asked of the worker (p0 converted meanwhile), every page's HTML handed to the reading worker;
    # pages this small may be overtaken (a job not started is the engine's), so which came back is not checked
    assert len(takes["_render_chunk"]) == 3 and len(takes["_content_chunk"]) == 4
    # each page's search sections asked for once, when it is printed; a worker makes them from the last page on,
    # then the Markdown copies for assistants of the pages the engine rendered itself (p0 among them)
    printed = takes["_make_chunk"]
    assert 5 <= len(printed) <= 8 and printed[3]
    for i in range(4):
        assert "Half, now bf16." in (tmp_path / "site" / f"p{i}" / "index.html").read_text(encoding="utf-8")
        assert "Half, now bf16." in (tmp_path / "site" / f"p{i}" / "index.html.md").read_text(encoding="utf-8")


def test_the_engine_takes_the_page_a_worker_converted_as_mkdocs_converts_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snippet save: the worker converts the last page to HTML too (MkDocs' own steps, mkdocs_adapter.
    convert_in_worker), and the engine, made here to wait for that before it converts the first page, takes it over:
    the page, the heading the edit added among mkdocs-autorefs' anchors, and the site a full build makes."""
    from perfdocs.build import BuildState
    from perfdocs.serve import LIVE

    project = tmp_path / "project"
    _site(project, 4, "plugins:\n  - search\n  - autorefs\n")
    converted = tmp_path / "converted"  # the worker's mark: it converted these pages (one file each)
    converted.mkdir()
    convert = mkdocs_adapter.convert_in_worker

    def marked(*args: object) -> object:
        done = convert(*args)  # type: ignore[arg-type]
        if done is not None:
            (converted / str(args[3]).replace("/", "_")).touch()
        return done

    monkeypatch.setattr(mkdocs_adapter, "convert_in_worker", marked)
    monkeypatch.setattr(parallel, "ahead_jobs", lambda: 1)
    page_markdown, rebuilding = BuildState.page_markdown, []

    def engine_waits(self: BuildState, markdown: str, file: object) -> object:
        deadline = time.monotonic() + 120  # a hang guard, not a limit on speed: the worker converts p3 first
        while rebuilding and getattr(file, "src", "") == "p0.md" and not (converted / "p3.md").exists():
            assert time.monotonic() < deadline, "the worker never converted p3.md"
            time.sleep(0.01)
        return page_markdown(self, markdown, file)  # type: ignore[arg-type]

    monkeypatch.setattr(BuildState, "page_markdown", engine_waits)
    applied: list[tuple[str, bool]] = []
    apply = mkdocs_adapter.Converted.apply

    def recorded(self: mkdocs_adapter.Converted, page: Any, config: Any, files: Any) -> bool:
        done = apply(self, page, config, files)
        applied.append((page.file.src_uri, done))
        return done

    monkeypatch.setattr(mkdocs_adapter.Converted, "apply", recorded)
    edit = lambda text: text.replace("Half.", "Half.\n\n### Bf16 now\n\nNew.")  # noqa: E731
    served = serve_and_save(project, tmp_path / "served", edit, lambda: rebuilding.append(True))
    assert "rebuilt 4 pages" in served.stderr
    assert ("p3.md", True) in applied  # the engine took the worker's conversion of p3
    assert "p0.md" not in {page for page, _ in applied}  # and converted p0 itself
    autorefs = LIVE.config.plugins["autorefs"]
    assert "p3/#amp-bf16-now" in autorefs._primary_url_map["amp-bf16-now"]  # the anchor its conversion registered
    full = build_in_process(project, tmp_path / "full", strict=False)
    problems = [line for line in served.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert problems == [line for line in full.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))] == []
    assert site_files(tmp_path / "served") == site_files(tmp_path / "full")


def test_what_the_reading_worker_finds_is_reported_as_a_full_build_reports_it(tmp_path: Path) -> None:
    """A snippet save that adds an attribute the allowlist removes: the rebuild, whose pages' HTML a worker read,
    reports it once at the snippet's line and writes the site a full build of the edited project writes (the
    attribute gone, each page's "Build error" box)."""
    project = tmp_path / "project"
    _site(project, 4)
    # after emphasis: a form the dialect leaves to the check of the pages' HTML (test_dialect_structure)
    edit = lambda text: text.replace("Half.", 'Half.\n\nA *paragraph*{: onclick="alert(1)" }.')  # noqa: E731
    served = serve_and_save(project, tmp_path / "served", edit)
    full = build_in_process(project, tmp_path / "full", strict=False)
    errors = [line for line in full.stderr.splitlines() if line.startswith("ERROR")]
    assert errors == [
        "ERROR   -  docs/performance/_theory/amp.md:8:17: error: event handler attribute 'onclick' is not allowed in "
        "pages [forbidden-html] (removed from the page)"
    ]
    first, _, rebuild = served.stderr.partition("Documentation built in")
    assert "onclick" not in first
    assert [line for line in rebuild.splitlines() if line.startswith("ERROR")] == errors
    assert site_files(tmp_path / "served") == site_files(tmp_path / "full")
    for i in range(4):
        page = LexborHTMLParser((tmp_path / "served" / f"p{i}" / "index.html").read_text(encoding="utf-8"))
        assert page.css("[onclick]") == [] and "A paragraph." in page.text()
