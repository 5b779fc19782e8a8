"""The API reference kept across builds (apicache): what a build reuses is what the first build made, logs
included, and nothing is reused once what it was made from changed. That the real site built with what a
first build kept is byte for byte that first build is tests/test_reproducible.py."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import griffe
import pytest
from perfdocs import apirefs
from perfdocs.apicache import KEEP, RenderCache, Snapshot
from perfdocs.apiconfig import ApiConfig
from perfdocs.apirefs import build_index
from perfdocs.apisources import Source
from perfdocs.mkdocstrings_adapter import cache_renders

from .test_api_sources import PAGE, PYPROJECT, pip, project, write_fakelib  # noqa: F401 - fixtures

WARNING = "griffe: fakelib.Thing: no type for parameter x"


class FakeHandler:
    """mkdocstrings' Python handler as mkdocstrings calls it, counting the real work."""

    def __init__(self) -> None:
        self.collected: list[str] = []
        self.rendered = 0
        self._headings: list[Any] = []

    def collect(self, identifier: str, options: Any) -> Any:
        self.collected.append(identifier)
        return {"identifier": identifier}

    def render(self, data: Any, options: Any, locale: str | None = None) -> str:
        self.rendered += 1
        logging.getLogger("mkdocs.plugins.mkdocstrings").warning(WARNING)
        heading = ElementTree.Element("h3", {"id": data["identifier"], "data-role": "class"})
        heading.text = "Thing"
        self._headings.append(heading)
        return f'<div class="doc">{data["identifier"]} in {locale}</div>'

    def get_headings(self) -> list[Any]:
        taken, self._headings = self._headings, []
        return taken

    def get_aliases(self, identifier: str) -> tuple[str, ...]:
        return (identifier, "fakelib.core.Thing") if identifier == "fakelib.Thing" else ()


def as_mkdocstrings_does(handler: Any) -> tuple[str, list[str], tuple[str, ...]]:
    data = handler.collect("fakelib.Thing", {"heading_level": 3})
    html = handler.render(data, {"heading_level": 3}, locale="en")
    headings = [ElementTree.tostring(h, encoding="unicode") for h in handler.get_headings()]
    return html, headings, handler.get_aliases("fakelib.Thing")


def test_a_reused_entry_renders_and_logs_as_the_first_time(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    first = FakeHandler()
    cache_renders(first, RenderCache(tmp_path / "gen"))
    with caplog.at_level(logging.WARNING):
        made = as_mkdocstrings_does(first)
    assert (first.collected, first.rendered) == (["fakelib.Thing"], 1)
    assert [r.getMessage() for r in caplog.records] == [WARNING]
    caplog.clear()

    again = FakeHandler()  # the next build's handler, with the same generation
    cache_renders(again, RenderCache(tmp_path / "gen"))
    with caplog.at_level(logging.WARNING):
        reused = as_mkdocstrings_does(again)
    assert reused == made
    assert made[1] == ['<h3 id="fakelib.Thing" data-role="class">Thing</h3>']
    assert made[2] == ("fakelib.Thing", "fakelib.core.Thing")
    assert (again.collected, again.rendered) == ([], 0)  # nothing collected or rendered
    # the warning again, on the same logger: a strict build fails on the reused entry as on the first
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("mkdocs.plugins.mkdocstrings", logging.WARNING, WARNING)
    ]


def test_other_options_or_another_generation_render_again(tmp_path: Path) -> None:
    first = FakeHandler()
    cache_renders(first, RenderCache(tmp_path / "gen"))
    as_mkdocstrings_does(first)
    other = FakeHandler()
    cache_renders(other, RenderCache(tmp_path / "gen"))
    other.render(other.collect("fakelib.Thing", {"heading_level": 2}), {"heading_level": 2})
    fresh = FakeHandler()
    cache_renders(fresh, RenderCache(tmp_path / "another"))
    as_mkdocstrings_does(fresh)
    assert (other.rendered, fresh.rendered) == (1, 1)


def test_a_handler_wrapped_again_takes_the_new_cache(tmp_path: Path) -> None:
    """mkdocs serve may hand the same handler to the next build: it is wrapped once, with that build's cache."""
    handler = FakeHandler()
    cache_renders(handler, RenderCache(tmp_path / "one"))
    cache_renders(handler, RenderCache(tmp_path / "two"))
    as_mkdocstrings_does(handler)
    assert handler.rendered == 1 and not (tmp_path / "one").exists() and any((tmp_path / "two").iterdir())


def test_a_half_written_or_foreign_record_is_not_used(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path / "gen")
    cache.put("rendered", "key", {"html": "<p>x</p>"})
    (record,) = (tmp_path / "gen").iterdir()
    assert cache.get("rendered", "key") == {"html": "<p>x</p>", "key": "key"}
    record.write_text('{"html": "<p>cut', encoding="utf-8")
    assert cache.get("rendered", "key") is None
    record.write_text('{"html": "<p>other</p>", "key": "another key"}', encoding="utf-8")
    assert cache.get("rendered", "key") is None
    assert (cache.hits, cache.misses) == (1, 2)


def test_a_cache_that_cannot_be_written_is_said_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "gen").write_text("a file where the folder would be", encoding="utf-8")
    cache = RenderCache(tmp_path / "gen")
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.perfdocs"):
        cache.put("rendered", "a", {"html": ""})
        cache.put("rendered", "b", {"html": ""})
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 1 and messages[0].startswith("perfdocs: the API entries are not kept for the next build")
    assert (tmp_path / "gen").read_text(encoding="utf-8") == "a file where the folder would be"


def test_old_generations_are_deleted(tmp_path: Path) -> None:
    for n in range(KEEP + 2):
        RenderCache(tmp_path / f"gen{n}").put("rendered", "k", {"html": ""})
        os.utime(tmp_path / f"gen{n}", (n, n))  # used in this order
    newest = RenderCache(tmp_path / "newest")
    newest.put("rendered", "k", {"html": ""})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gen3", "gen4", "gen5", "newest"]


def test_a_snapshot_that_cannot_be_read_is_made_again(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    snapshot = Snapshot(tmp_path, ["parts"])
    snapshot.save({"index": 1})
    assert Snapshot(tmp_path, ["parts"]).load() == {"index": 1}
    assert Snapshot(tmp_path, ["other parts"]).load() is None
    snapshot.file.write_bytes(snapshot.file.read_bytes()[:20])  # a build killed while writing it
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.perfdocs"):
        assert snapshot.load() is None
    assert [r.getMessage() for r in caplog.records] == [
        f"perfdocs: {snapshot.file.name} cannot be read (pickle data was truncated); it is made again"
    ]


def count_visits(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    visited: list[str] = []
    real = griffe.visit

    def visit(name: str, *args: Any, **kwargs: Any) -> Any:
        visited.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(apirefs.griffe, "visit", visit)
    return visited


def test_the_index_is_kept_until_a_source_or_an_entry_changes(
    project: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    site = project.root / "site-packages"
    write_fakelib(site)  # fakelib 1.0 as if installed: read in place, where an edit changes it
    source = Source("fakelib", "1.0", site)
    monkeypatch.setattr(apirefs, "library_sources", lambda config, fetch=True: ({"fakelib": source}, []))
    visited = count_visits(monkeypatch)
    pages = [("api.md", "docs/api.md", PAGE)]
    first = build_index(project, pages)
    assert visited and "Thing" in {e.identifier.rsplit(".", 1)[-1] for e in first.entries.values()}
    visited.clear()
    second = build_index(project, pages)
    assert visited == []  # nothing parsed again
    assert second.entries == first.entries and second.anchors == first.anchors
    assert second.subset == first.subset

    (site / "fakelib" / "core.py").write_text(
        'class Thing:\n    """A thing, changed."""\n\n    def stop(self) -> None:\n        """Stops it."""\n'
    )
    third = build_index(project, pages)
    assert "core" in visited  # the changed module was read again
    assert "fakelib.Thing.stop" in third.public and "fakelib.Thing.run" not in third.public
    visited.clear()
    build_index(project, [("api.md", "docs/api.md", PAGE + "\n[[autodoc]] fakelib.other.Other\n")])
    assert visited  # another entry: the index is made again


def test_a_copy_of_the_project_elsewhere_keeps_the_generation_until_a_source_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The environment the sources are installed in lies inside the project in a checkout (.venv) and outside it
    in a copy of the project (tests/sitetools.copy_project): the copy renders with what the checkout kept, and
    an edited source file renders again."""
    checkout, copy = tmp_path / "checkout", tmp_path / "elsewhere" / "copy"
    site = checkout / ".venv" / "site-packages"
    write_fakelib(site)
    sources = {"fakelib": Source("fakelib", "1.0", site)}
    monkeypatch.setattr(apirefs, "library_sources", lambda config, fetch=True: (sources, []))
    generations = []
    for root in (checkout, copy, checkout):
        root.mkdir(parents=True, exist_ok=True)
        (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
        config = ApiConfig(root, ("fakelib",))
        generations.append(apirefs.render_cache(config, build_index(config, [("api.md", "docs/api.md", PAGE)])))
        if root == copy:
            (site / "fakelib" / "core.py").write_text('class Thing:\n    """A thing, changed."""\n')
    folders = [cache.folder.name for cache in generations if cache is not None]
    assert len(folders) == 3 and folders[0] == folders[1] != folders[2]
