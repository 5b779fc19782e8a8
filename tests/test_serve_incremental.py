"""mkdocs serve re-renders what a save can change, and only that (perfdocs/serve.py).

One server on a copy of the real site for the whole module; its temporary site folder is found through TMPDIR,
so each test sees which built pages a save rewrote. The tests run in file order: edits build on each other, and
the comparison with a full build comes before the nav edit, which rebuilds everything.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from mkdocs.structure.files import File
from perfdocs.serve import EVENTS_SETTLE_S, WATCHING_EVENTS

from .sitetools import DEPLOY_VARS, build, copy_project, stop, tool
from .test_serve import HANG_GUARD_S, fetch, free_port

pytestmark = pytest.mark.slow

MATRIX_PAGE = "index.html"  # the home page's technique matrix lists every page's snippets
# Seconds without a log line after which the server is idle: 6 times its wait after a file event where it says it
# watches the system's file events, else 3 polls.
EVENTS_QUIET, POLLED_QUIET = 6 * EVENTS_SETTLE_S, 1.5


@dataclass
class Served:
    project: Path
    site: Path
    url: str
    proc: subprocess.Popen[str]
    log: list[str] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self.changed:
                self.log.append(line)
                self.changed.notify_all()

    def wait_for_line(self, text: str, after: int = 0) -> int:
        """The index of the first log line from ``after`` on that contains ``text``."""
        deadline = time.monotonic() + HANG_GUARD_S
        with self.changed:
            while True:
                found = next((i for i in range(after, len(self.log)) if text in self.log[i]), None)
                if found is not None:
                    return found
                if not self.changed.wait(timeout=max(0.0, deadline - time.monotonic())):
                    pytest.fail(f"mkdocs serve never logged {text!r}:\n{''.join(self.log[-30:])}")

    def pages(self) -> dict[str, int]:
        """Every documentation page's built file (site path) -> its modification time."""
        docs = self.project / "docs"
        found = {}
        for path in docs.rglob("*.md"):
            rel = path.relative_to(docs).as_posix()
            if rel.startswith("performance/_theory/"):
                continue
            dest = File(rel, str(docs), str(self.site), use_directory_urls=True).dest_uri
            found[dest] = (self.site / dest).stat().st_mtime_ns
        return found

    def settle(self) -> None:
        """Until the server has logged nothing for a while: a rebuild woken twice by one save (a polling watcher
        may see it in two polls, 0.5 s apart) has finished, and the next save's rebuild is the next one in the log."""
        events = any(WATCHING_EVENTS in line for line in self.log)
        while True:
            seen = len(self.log)
            time.sleep(EVENTS_QUIET if events else POLLED_QUIET)
            if len(self.log) == seen:
                return

    def save(self, path: Path, text: str) -> tuple[set[str], list[str]]:
        """Writes ``text`` to ``path`` and waits for the rebuild: the pages it rewrote, and what it logged."""
        self.settle()
        before = self.pages()
        start = len(self.log)
        path.write_text(text, encoding="utf-8")
        done = self.wait_for_line("Reloading browsers", start)
        after = self.pages()
        return {page for page in after if after[page] != before.get(page)}, self.log[start : done + 1]

    def get(self, page: str) -> str:
        body = fetch(self.url + page.removesuffix("index.html"))
        assert body is not None, page
        return body


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    base = tmp_path_factory.mktemp("incremental")
    project = copy_project(base / "project")
    tmp = base / "tmp"
    tmp.mkdir()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in DEPLOY_VARS}
    env |= {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true", "NO_COLOR": "1", "TMPDIR": str(tmp)}
    proc = subprocess.Popen(
        [tool("mkdocs"), "serve", "-f", str(project / "mkdocs.yml"), "-a", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        text=True,
    )
    server = Served(project, Path(), f"http://127.0.0.1:{port}/", proc)
    threading.Thread(target=server.read, daemon=True).start()
    try:
        server.wait_for_line("Serving on")
        (server.site,) = tmp.glob("mkdocs_*")
        yield server
    finally:
        stop(proc)


def doc(served: Served, rel: str) -> Path:
    return doc_path(served.project, rel)


def test_a_page_edit_renders_that_page_alone(served: Served) -> None:
    page = doc(served, "performance/infer/gpu_one.md")
    marker = "Incrementalmarker page edit."
    rewritten, log = served.save(page, page.read_text(encoding="utf-8") + f"\n\n{marker}\n")
    assert rewritten == {"performance/infer/gpu_one/index.html"}, "".join(log)
    assert any("perfdocs: rebuilt 1 page in" in line for line in log), "".join(log)
    assert not any("Building documentation" in line for line in log)
    assert marker in served.get("performance/infer/gpu_one/index.html")


def test_a_snippet_edit_renders_the_pages_that_show_it_and_the_matrix(served: Served) -> None:
    snippet = doc(served, "performance/_theory/memory_anatomy.md")
    text = snippet.read_text(encoding="utf-8")
    end = text.index("\n---\n", 4) + len("\n---\n")  # right after the front matter: outside every <Only> part
    marker = "Incrementalmarker snippet edit."
    rewritten, log = served.save(snippet, text[:end] + f"\n{marker}\n\n" + text[end:])
    showing = {page for page in served.pages() if marker in served.get(page)}
    assert len(showing) >= 3, showing
    assert rewritten == showing | {MATRIX_PAGE}, "".join(log)


def test_a_snippet_edit_the_matrix_does_not_show_leaves_the_matrix_page(served: Served) -> None:
    """The matrix shows a snippet's title, what it helps with and its summary: an edit of its body alone renders
    only the pages that show the snippet (the matrix page does not; the full-build comparison below checks it)."""
    snippet = doc(served, "performance/_theory/offloading.md")
    text = snippet.read_text(encoding="utf-8")
    end = text.index("\n---\n", 4) + len("\n---\n")
    marker = "Incrementalmarker body edit."
    rewritten, log = served.save(snippet, text[:end] + f"\n{marker}\n\n" + text[end:])
    showing = {page for page in served.pages() if marker in served.get(page)}
    assert len(showing) >= 3 and MATRIX_PAGE not in showing, showing
    assert rewritten == showing, "".join(log)


def test_a_snippet_title_edit_renders_the_matrix_page_too(served: Served) -> None:
    snippet = doc(served, "performance/_theory/zero_fsdp.md")
    text = snippet.read_text(encoding="utf-8")
    front = text[: text.index("\n---\n", 4)]
    title = next(line for line in front.split("\n") if line.startswith("title:"))
    rewritten, log = served.save(snippet, text.replace(title, title.rstrip() + " Incrementaltitle", 1))
    assert MATRIX_PAGE in rewritten, "".join(log)
    assert "Incrementaltitle" in served.get(MATRIX_PAGE)


def test_a_page_edit_that_breaks_another_pages_link_boxes_that_page(served: Served) -> None:
    target, linking = doc(served, "performance/scalability.md"), doc(served, "performance/train/gpu_many.md")
    target_text, linking_text = target.read_text(encoding="utf-8"), linking.read_text(encoding="utf-8")
    with_heading = target_text + "\n\n## Incremental target[[incremental-target]]\n\nA section to link to.\n"
    served.save(target, with_heading)
    link = "\n\nSee [the target](../scalability.md#incremental-target).\n"
    rewritten, _ = served.save(linking, linking_text + link)
    assert rewritten == {"performance/train/gpu_many/index.html"}
    assert "Build error" not in served.get("performance/train/gpu_many/index.html")

    rewritten, log = served.save(target, target_text)  # the heading goes: the other page's link breaks
    assert rewritten == {"performance/scalability/index.html", "performance/train/gpu_many/index.html"}, "".join(log)
    boxed = served.get("performance/train/gpu_many/index.html")
    assert "Build error: this page has 1 problem" in boxed
    assert "incremental-target" in boxed[boxed.index("Build error") :]
    assert "Build error" not in served.get("performance/scalability/index.html")

    rewritten, _ = served.save(target, with_heading)  # and comes back: the box goes
    assert rewritten == {"performance/scalability/index.html", "performance/train/gpu_many/index.html"}
    assert "Build error" not in served.get("performance/train/gpu_many/index.html")


def test_a_redirects_edit_renders_no_page(served: Served) -> None:
    redirects = served.project / "redirects.yml"
    text = redirects.read_text(encoding="utf-8")
    rewritten, log = served.save(
        redirects, text.replace("redirects:\n", "redirects:\n  incremental_old_name: performance/scalability.md\n", 1)
    )
    assert rewritten == set(), "".join(log)
    assert any("perfdocs: rebuilt 0 pages and redirects.yml in" in line for line in log), "".join(log)
    stub = served.get("incremental_old_name/index.html")
    assert "Moved:" in stub and "../performance/scalability/" in stub


def assert_same_as_a_full_build(served: Served, out: Path) -> None:
    """Every file of the served site (pages, redirect pages, the search index, the Markdown copies, llms.txt) is
    byte for byte what `mkdocs build` makes of the same sources."""
    done = build(served.project, out, strict=False, deploy={"SITE_URL": served.url})
    assert done.returncode == 0, done.stderr
    served_files = {p.relative_to(served.site).as_posix() for p in served.site.rglob("*") if p.is_file()}
    built_files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert served_files == built_files
    assert sorted(f for f in built_files if (served.site / f).read_bytes() != (out / f).read_bytes()) == []


def test_what_the_saves_made_is_what_a_full_build_makes(served: Served, tmp_path: Path) -> None:
    assert_same_as_a_full_build(served, tmp_path / "full")


def test_a_nav_edit_rebuilds_every_page_from_what_they_were_rendered_to(served: Served, tmp_path: Path) -> None:
    config = served.project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    assert "  - Scalability: performance/scalability.md\n" in text
    rewritten, log = served.save(
        config, text.replace("  - Scalability: performance/scalability.md\n", "  - Scaling out: performance/scalability.md\n")
    )
    assert rewritten == set(served.pages()), "".join(log)
    assert any("perfdocs: rebuilt 0 pages and the nav in" in line for line in log), "".join(log)
    for page in served.pages():
        assert "Scaling out" in served.get(page), page
    assert_same_as_a_full_build(served, tmp_path / "full")


def test_a_nav_edit_with_a_page_edit_renders_that_page_too(served: Served, tmp_path: Path) -> None:
    config, page = served.project / "mkdocs.yml", doc(served, "performance/infer/cpu.md")
    served.settle()
    before, start = served.pages(), len(served.log)
    page.write_text(page.read_text(encoding="utf-8") + "\n\nIncrementalmarker with the nav.\n", encoding="utf-8")
    config.write_text(
        config.read_text(encoding="utf-8").replace("  - CPU: performance", "  - On a CPU: performance"), encoding="utf-8"
    )
    # one rebuild takes both, or the page's comes first
    served.wait_for_line("Reloading browsers", served.wait_for_line("the nav in", start))
    after = served.pages()
    assert {page for page in after if after[page] != before[page]} == set(after)
    body = served.get("performance/infer/cpu/index.html")
    assert "Incrementalmarker with the nav." in body and "On a CPU" in body
    assert_same_as_a_full_build(served, tmp_path / "full")


def test_any_other_config_edit_is_a_full_build(served: Served) -> None:
    config = served.project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    rewritten, log = served.save(config, text.replace("site_name: perfdocs\n", "site_name: perfdocs renamed\n", 1))
    assert any("Building documentation" in line for line in log), "".join(log)
    assert rewritten == set(served.pages())
    assert "perfdocs renamed" in served.get("index.html")


def test_an_editors_dotfile_renders_nothing(served: Served) -> None:
    """MkDocs leaves dotfiles out of the site; the watcher still wakes for one (a swap file on every keystroke)."""
    served.settle()
    before, start = served.pages(), len(served.log)
    (served.project / "docs" / ".scratch.swp").write_text("x", encoding="utf-8")
    done = served.wait_for_line("Reloading browsers", start)
    assert any("perfdocs: rebuilt 0 pages in" in line for line in served.log[start : done + 1])
    assert served.pages() == before


def test_an_edit_in_the_theme_folder_is_a_full_build(served: Served) -> None:
    """A template of the theme's custom_dir (overrides/) edited: every page is built again. (The server watches
    the theme only under --watch-theme; here the theme edit lands with a page save that wakes it.)"""
    template = served.project / "overrides" / "main.html"
    page = doc(served, "performance/scalability.md")
    served.settle()
    start = len(served.log)
    template.write_text(template.read_text(encoding="utf-8") + "\n{# Incrementalmarker theme #}\n", encoding="utf-8")
    rewritten, log = served.save(page, page.read_text(encoding="utf-8") + "\n\nIncrementalmarker theme page.\n")
    assert any("Building documentation" in line for line in served.log[start:]), "".join(log)
    assert "Incrementalmarker theme page." in served.get("performance/scalability/index.html")


def test_a_dirty_build_checks_redirect_targets_against_the_pages_it_did_not_rebuild(tmp_path: Path) -> None:
    """`--dirty` rebuilds only the pages saved since the last build; the ids of the others come from their built
    files, so no redirect to them reads as "has no id"."""
    project = copy_project(tmp_path / "project")
    site = tmp_path / "site"
    first = build(project, site, strict=False)
    assert first.returncode == 0, first.stderr
    assert "missing-anchor" not in first.stderr
    page = doc_path(project, "performance/infer/cpu.md")
    time.sleep(0.01)
    page.write_text(page.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in DEPLOY_VARS} | {"NO_MKDOCS_2_WARNING": "1"}
    dirty = subprocess.run(
        [tool("mkdocs"), "build", "--dirty", "-f", str(project / "mkdocs.yml"), "-d", str(site)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert dirty.returncode == 0, dirty.stderr
    assert "A 'dirty' build is being performed" in dirty.stderr  # it was one
    assert "missing-anchor" not in dirty.stderr, dirty.stderr
    assert "One more line." in (site / "performance/infer/cpu/index.html").read_text(encoding="utf-8")


def doc_path(project: Path, rel: str) -> Path:
    return project / "docs" / rel
