"""mkdocs serve: editing a theory snippet or redirects.yml rebuilds the pages that use it."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from .sitetools import copy_project, minimal_config, stop, tool

pytestmark = pytest.mark.slow
HANG_GUARD_S = 120  # not a performance limit: only stops a broken server from hanging the suite


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.read().decode("utf-8")
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def wait_for(url: str, needle: str) -> str:
    deadline = time.monotonic() + HANG_GUARD_S
    body = None
    while time.monotonic() < deadline:
        body = fetch(url)
        if body is not None and needle in body:
            return body
        time.sleep(0.3)
    pytest.fail(f"{url} never contained {needle!r}")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """One server for the module's tests: each edits different files, and puts back what it breaks."""
    project = copy_project(tmp_path_factory.mktemp("served") / "project")
    port = free_port()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    proc = subprocess.Popen(
        [tool("mkdocs"), "serve", "-f", str(project / "mkdocs.yml"), "-a", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,  # nothing reads it: a full pipe would stop the server
        env=env,
        text=True,
    )
    try:
        yield project, f"http://127.0.0.1:{port}/"
    finally:
        stop(proc)


def test_editing_a_snippet_updates_every_page_that_expands_it(served: tuple[Path, str]) -> None:
    project, base = served
    pages = ["performance/train/gpu_one/", "performance/infer/gpu_one/"]
    for page in pages:
        wait_for(base + page, "</html>")
    snippet = project / "docs/performance/_theory/mixed_precision.md"
    marker = "Freshly edited sentence 7f3a."
    snippet.write_text(snippet.read_text(encoding="utf-8") + f"\n{marker}\n", encoding="utf-8")
    for page in pages:
        assert marker in wait_for(base + page, marker)


def test_editing_redirects_yml_rebuilds_redirects(served: tuple[Path, str]) -> None:
    project, base = served
    wait_for(base + "performance/", "</html>")
    redirects = project / "redirects.yml"
    redirects.write_text(
        redirects.read_text(encoding="utf-8").replace(
            "redirects:\n", "redirects:\n  brand_new_old_name: performance/scalability.md\n"
        ),
        encoding="utf-8",
    )
    page = wait_for(base + "brand_new_old_name/", "Moved:")
    assert "../performance/scalability/" in page


def test_a_broken_snippet_shows_the_error_in_the_page_and_recovers(served: tuple[Path, str]) -> None:
    project, base = served
    page = base + "performance/train/gpu_one/"
    wait_for(page, "</html>")
    snippet = project / "docs/performance/_theory/gradient_accumulation.md"
    good = snippet.read_text(encoding="utf-8")
    snippet.write_text(good + "\n<Tip warning={maybe}>\nbroken\n</Tip>\n", encoding="utf-8")
    line = len(good.split("\n")) + 1
    broken = wait_for(page, "Build error")
    assert (
        f"docs/performance/_theory/gradient_accumulation.md:{line}:1</code>: attribute warning={{maybe}} on "
        "&lt;Tip&gt; must be {true} or {false}"
    ) in broken
    snippet.write_text(good, encoding="utf-8")
    wait_for_recovery(page, "the snippet")


def wait_for_recovery(page: str, what: str) -> None:
    """Until the page is served whole again without a "Build error" box, or fail."""
    deadline = time.monotonic() + HANG_GUARD_S
    while time.monotonic() < deadline:
        body = fetch(page)
        if body is not None and "Build error" not in body and "</html>" in body:
            return
        time.sleep(0.3)
    pytest.fail(f"the page never recovered after {what} was fixed")


def test_a_broken_link_shows_the_error_in_the_page_and_recovers(served: tuple[Path, str]) -> None:
    project, base = served
    page = base + "performance/infer/cpu/"
    wait_for(page, "</html>")
    source = project / "docs/performance/infer/cpu.md"
    good = source.read_text(encoding="utf-8")
    source.write_text(good.rstrip("\n") + "\n\nSee [the missing page](nope_7f3a.md).\n", encoding="utf-8")
    line = len(good.rstrip("\n").split("\n")) + 2
    broken = wait_for(page, "Build error")
    assert (
        f"<code>docs/performance/infer/cpu.md:{line}:24</code>: broken link &#x27;nope_7f3a.md&#x27;: no page "
        "performance/infer/nope_7f3a.md in the docs"
    ) in broken, broken[broken.find("Build error") - 100 : broken.find("Build error") + 400]
    source.write_text(good, encoding="utf-8")
    wait_for_recovery(page, "the link")


def test_rapid_renames_and_deletions_never_stop_the_server(tmp_path: Path) -> None:
    # a project without redirects.yml (watching a path that does not exist stopped the watcher, and the server);
    # pages renamed back and forth and created and deleted while rebuilds run, as an editor's save-as does
    from .conftest import ROOT

    project = tmp_path / "project"
    docs = project / "docs"
    docs.mkdir(parents=True)
    (project / "hooks").symlink_to(ROOT / "hooks", target_is_directory=True)
    (project / "mkdocs.yml").write_text(minimal_config("soak"), encoding="utf-8")
    (docs / "index.md").write_text("# Home\n\nStart.\n", encoding="utf-8")
    (docs / "a.md").write_text("# A\n\ntext\n", encoding="utf-8")
    port = free_port()
    log = tmp_path / "serve.log"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    with log.open("w") as out:
        proc = subprocess.Popen(
            [tool("mkdocs"), "serve", "-f", str(project / "mkdocs.yml"), "-a", f"127.0.0.1:{port}"],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
        try:
            base = f"http://127.0.0.1:{port}/"
            wait_for(base, "Start.")
            for i in range(80):
                here = docs / "a.md" if (docs / "a.md").exists() else docs / "b.md"
                here.rename(docs / ("b.md" if here.name == "a.md" else "a.md"))
                if i % 7 == 0:
                    (docs / f"tmp{i}.md").write_text("# T\n\nx\n", encoding="utf-8")
                    (docs / f"tmp{i}.md").unlink()
                time.sleep(0.02)
            (docs / "index.md").write_text("# Home\n\nFinal 91c.\n", encoding="utf-8")
            wait_for(base, "Final 91c.")
        finally:
            stop(proc)
    output = log.read_text(encoding="utf-8")
    assert "Traceback" not in output, output
    assert proc.returncode is not None


def test_a_page_gone_before_it_is_read_is_a_warning_not_a_traceback(tmp_path: Path) -> None:
    from perfdocs.build import BuildState, SiteFile, read_page

    def gone() -> str:
        raise FileNotFoundError(2, "No such file or directory")

    path = str(tmp_path / "docs/a.md")
    state = BuildState()
    assert not state.read_again(SiteFile("a.md", "a/index.html", "a/", path, True, True, gone))
    _, problem = read_page(gone, "docs/a.md")
    assert problem is not None and problem.level == "warning"
    assert problem.message == (
        "page could not be read (No such file or directory): it was moved or deleted while the site was built"
    )
    assert state.sources == {}


def test_the_server_watches_with_system_events_and_a_read_wakes_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """serve.native_watcher: the polling observer's paths move to the system's (inotify here), which reports a
    write at once; a file opened and read (as every build reads every page) is not a change. Events arrive in
    order, so when the write has woken the server, the read before it would have too."""
    import logging

    from mkdocs.livereload import LiveReloadServer
    from perfdocs import serve
    from perfdocs.serve import EVENTS_SETTLE_S, WATCHING_EVENTS, native_watcher
    from watchdog.observers.polling import PollingObserver

    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "a.md"
    page.write_text("# A\n", encoding="utf-8")
    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path / "site"))
    server.watch(str(tmp_path / "docs"))
    assert server.build_delay == 0.1  # MkDocs' own wait after the last event, sized for its polling
    caplog.set_level(logging.INFO, logger=serve.log.name)
    native_watcher(server)
    assert WATCHING_EVENTS in caplog.messages  # test_serve_incremental reads it
    assert not isinstance(server.observer, PollingObserver)
    assert server._watched_paths == {str(tmp_path / "docs"): 1}
    assert server.build_delay == EVENTS_SETTLE_S < 0.1
    caplog.set_level(logging.DEBUG, logger="mkdocs.livereload")
    server.observer.start()
    try:
        with server._rebuild_cond:
            page.read_text(encoding="utf-8")
            page.write_text("# A\n\nMore.\n", encoding="utf-8")
            assert server._rebuild_cond.wait_for(lambda: server._want_rebuild, timeout=120)
    finally:
        server.observer.stop()
        server.observer.join()
    logged = (r.getMessage() for r in caplog.records if r.name == "mkdocs.livereload")
    seen = [m.group(1) for message in logged if (m := re.search(r"(\w+Event)\(", message))]
    assert seen and set(seen) <= {"FileModifiedEvent", "FileCreatedEvent"}, seen
