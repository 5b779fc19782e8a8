"""What the build reads from a page's content HTML, kept by the HTML's hash (perfdocs.contentcache): made once
per HTML, reused by the next build, never used for other HTML, and a build that reuses it writes what a build
that made it writes."""

from __future__ import annotations

import functools
import logging
import os
import time
from pathlib import Path

import pytest
from perfdocs import build as build_module
from perfdocs import pagecontent, parallel
from perfdocs.contentcache import CONTENT_DIR, ContentCache

from .sitetools import build_in_process, build_messages, hooked_project, minimal_config, site_files
from .test_serve import HANG_GUARD_S


def test_made_once_per_html_and_kind_then_kept_for_the_next_build(tmp_path: Path) -> None:
    made: list[str] = []

    def make(value: str) -> str:
        made.append(value)
        return value.upper()

    first = ContentCache(tmp_path)
    assert first.get("clean", "<p>a</p>", lambda: make("a")) == "A"
    assert first.get("clean", "<p>a</p>", lambda: make("again")) == "A"  # the same HTML in this build
    assert first.get("links", "<p>a</p>", lambda: make("links")) == "LINKS"  # another kind: its own value
    assert first.get("clean", "<p>b</p>", lambda: make("b")) == "B"
    first.save()
    assert made == ["a", "links", "b"]

    second = ContentCache(tmp_path)
    assert second.get("clean", "<p>a</p>", lambda: make("not made")) == "A"
    assert second.get("clean", "<p>c</p>", lambda: make("c")) == "C"  # HTML no build saw
    second.save()
    assert made == ["a", "links", "b", "c"]

    third = ContentCache(tmp_path)  # only what the second build used was written back
    assert set(third.kept) == set(second.used)
    assert third.get("clean", "<p>b</p>", lambda: make("b made again")) == "B MADE AGAIN"


def _shout(html: str) -> tuple[str, int]:
    """The value of ``html``, and the process that made it. ``<p>last</p>`` first says it started (a file), then
    waits for the test's go (another file): its job stays with the worker as long as the test needs."""
    if html.startswith("<p>last"):
        flags = Path(html.removeprefix("<p>last").removesuffix("</p>"))
        (flags / "started").touch()
        guard = time.monotonic() + HANG_GUARD_S  # a test that went wrong fails instead of waiting for ever
        while not (flags / "go").exists() and time.monotonic() < guard:
            time.sleep(0.01)
    return html.upper(), os.getpid()


def test_values_made_ahead_are_what_get_hands_out_and_the_worker_starts_from_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """make_ahead: a forked worker makes what the cache does not hold, from the last item on, while the caller
    takes from the first; get hands out the worker's value where it has one and makes the rest itself (a job
    the worker has not started is the caller's)."""
    monkeypatch.setattr(parallel, "ahead_jobs", lambda: 1)
    cache = ContentCache()
    assert cache.get("clean", "<p>kept</p>", lambda: ("KEPT", 0)) == ("KEPT", 0)
    last = f"<p>last{tmp_path}</p>"
    work = [("clean", f"<p>{i}</p>", _shout) for i in range(5)] + [("clean", "<p>kept</p>", _shout)]
    cache.make_ahead([*work, ("clean", last, _shout)], chunk=1)
    try:
        assert len(cache.pending) == 6  # what the cache holds is not made again
        while not (tmp_path / "started").exists():  # the worker took the last item first
            time.sleep(0.01)
        # the pool queues two jobs beside the one a worker runs (<p>4</p>, <p>3</p>): the first three are still
        # waiting, so the caller makes them
        for i in range(3):
            assert cache.get("clean", f"<p>{i}</p>", lambda i=i: _shout(f"<p>{i}</p>")) == (f"<P>{i}</P>", os.getpid())
        assert cache.get("clean", "<p>kept</p>", lambda: pytest.fail("kept")) == ("KEPT", 0)
        (tmp_path / "go").touch()
        for i in (3, 4):  # whoever made them, they are what the maker makes
            assert cache.get("clean", f"<p>{i}</p>", lambda i=i: _shout(f"<p>{i}</p>"))[0] == f"<P>{i}</P>"
        made, pid = cache.get("clean", last, lambda: pytest.fail("the worker's first job"))
        assert made == last.upper() and pid != os.getpid()
        assert cache.misses == 7 and not cache.pending
    finally:
        (tmp_path / "go").touch()
        cache.stop_ahead()


def _extra(flags: str, name: str) -> tuple[str, int]:
    """An extra job: its name and the process that made it. "first" says it started (a file), then waits for the
    test's go (another file)."""
    if name == "first":
        _shout(f"<p>last{flags}</p>")
    return name, os.getpid()


def test_extra_jobs_come_after_the_work_and_are_kept_by_no_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """make_ahead's extra jobs (a rebuild's Markdown copies) go to the worker after every value of the work: made()
    gives each one the worker made, waiting for one it is at; none of them is kept by the cache."""
    monkeypatch.setattr(parallel, "ahead_jobs", lambda: 1)
    cache = ContentCache()
    extra = [(name, functools.partial(_extra, str(tmp_path), name)) for name in ("first", "second", "third")]
    cache.make_ahead([("clean", "<p>0</p>", _shout)], chunk=1, extra=extra)
    try:
        assert cache.get("clean", "<p>0</p>", lambda: pytest.fail("the worker's first job"))[1] != os.getpid()
        while not (tmp_path / "started").exists():  # the worker is at "first"
            time.sleep(0.01)
        (tmp_path / "go").touch()
        made = cache.made()  # "second" and "third" are the worker's or the caller's, as far as it got with them
        assert "first" in made and set(made) <= {"first", "second", "third"}
        assert all(value[0] == name and value[1] != os.getpid() for name, value in made.items())
        assert cache.made() == {}, "each extra value is given once"
        assert list(cache.used) == [cache.key("clean", "<p>0</p>")]
    finally:
        (tmp_path / "go").touch()
        cache.stop_ahead()


def test_a_value_put_is_kept_as_if_get_had_made_it(tmp_path: Path) -> None:
    first = ContentCache(tmp_path)
    first.put("links", "<p>a</p>", ("made", "elsewhere"))
    assert first.get("links", "<p>a</p>", lambda: pytest.fail("put before")) == ("made", "elsewhere")
    first.save()
    assert ContentCache(tmp_path).get("links", "<p>a</p>", lambda: pytest.fail("saved")) == ("made", "elsewhere")


def test_a_cache_that_cannot_be_written_costs_speed_only_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / ".cache").write_text("a file where the folder would go", encoding="utf-8")
    cache = ContentCache(tmp_path)
    assert cache.get("clean", "<p>a</p>", lambda: "made") == "made"
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.perfdocs"):
        cache.save()
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == [
        "perfdocs: what the pages' HTML gave is not kept for the next build"
    ]
    assert (tmp_path / ".cache").read_text(encoding="utf-8") == "a file where the folder would go"


def test_a_truncated_cache_is_made_again(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    first = ContentCache(tmp_path)
    first.get("clean", "<p>a</p>", lambda: "A")
    first.save()
    (kept,) = (tmp_path / CONTENT_DIR).iterdir()
    kept.write_bytes(kept.read_bytes()[:10])
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.perfdocs"):
        second = ContentCache(tmp_path)
    assert second.kept == {}
    assert f"perfdocs: {kept.name} cannot be read" in caplog.text
    assert second.get("clean", "<p>a</p>", lambda: "made again") == "made again"


def test_a_build_that_reuses_the_pages_html_writes_the_same_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second build of an unchanged site sanitises nothing and writes every file the first wrote, byte for
    byte (the search index and the link check's findings included); a page edited in between is read again."""
    project = tmp_path / "project"
    files = {
        "mkdocs.yml": minimal_config("kept"),
        "docs/index.md": "# Home\n\nSee [the guide](guide.md#precision) and [a gap](guide.md#nowhere).\n",
        "docs/guide.md": "# Guide\n\n## Precision\n\n<Tip>\n\nHalf <b onclick='x()'>precision</b>.\n\n</Tip>\n",
    }
    hooked_project(project, files)
    cleaned: list[int] = []
    clean_page = build_module.clean_page

    def counted(html: str, after_plugins: bool = False):  # type: ignore[no-untyped-def]
        cleaned.append(len(html))
        return clean_page(html, after_plugins=after_plugins)

    monkeypatch.setattr(build_module, "clean_page", counted)  # a worker's pass
    monkeypatch.setattr(pagecontent, "clean_page", counted)  # the build's own
    first = build_in_process(project, tmp_path / "first", strict=False)
    assert len(cleaned) == 2
    second = build_in_process(project, tmp_path / "second", strict=False)
    assert len(cleaned) == 2  # nothing sanitised again
    told = build_messages(first.stderr)
    assert told == build_messages(second.stderr)
    assert any("onclick" in line for line in told) and any("nowhere" in line for line in told)
    assert site_files(tmp_path / "first") == site_files(tmp_path / "second")
    (project / "docs/guide.md").write_text(files["docs/guide.md"] + "\nMore.\n", encoding="utf-8")
    build_in_process(project, tmp_path / "third", strict=False)
    assert len(cleaned) == 3  # the edited page only
    assert "More." in (tmp_path / "third" / "guide" / "index.html").read_text(encoding="utf-8")
