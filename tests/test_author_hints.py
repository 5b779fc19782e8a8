"""What `perfdocs affected` and the link hints learn from git: snippet edits that change the matrix, page renames."""

from __future__ import annotations

import subprocess
from pathlib import Path

from perfdocs import history

THEORY = "docs/performance/_theory/"
OVERVIEW = "docs/performance/index.md"
PAGE = "docs/performance/train/gpu_one.md"


def snippet(title: str, helps: str = "[speed]", summary: str = "s", extra: str = "") -> str:
    return f"---\ntitle: {title}\nhelps: {helps}\nsummary: {summary}\n{extra}---\nWhy it works.\n"


def git(repo: Path, *args: str) -> str:
    command = ["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t", *args]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def write(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")


def test_snippet_edits_that_change_matrix_rows_affect_the_overview(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(
        repo,
        {
            OVERVIEW: "---\nscenario: overview\n---\n# Overview\n\n<TechniqueMatrix/>\n",
            PAGE: '---\nscenario: train-gpu-one\n---\n# Train\n\n## A\n\n<Theory name="body"/>\n',
            THEORY + "body.md": snippet("Body"),
            THEORY + "title.md": snippet("Title"),
            THEORY + "helps.md": snippet("Helps"),
            THEORY + "summary.md": snippet("Summary"),
            THEORY + "gone.md": snippet("Gone"),
        },
    )
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    write(
        repo,
        {
            THEORY + "body.md": snippet("Body", extra="# a comment is not shown\n") + "More.\n",
            THEORY + "title.md": snippet("New title"),
            THEORY + "helps.md": snippet("Helps", helps="[speed, memory]"),
            THEORY + "summary.md": snippet("Summary", summary="another"),
            THEORY + "added.md": snippet("Added"),
        },
    )
    (repo / THEORY / "gone.md").unlink()
    changed = history.changed_files(repo, "main")
    matrix = history.matrix_changes(repo, "main", changed)
    assert matrix == [THEORY + name for name in ("added.md", "gone.md", "helps.md", "summary.md", "title.md")]
    pages = [OVERVIEW, PAGE]
    snippets_of = {OVERVIEW: set(), PAGE: {"body"}}
    assert history.affected_pages(changed, pages, snippets_of, matrix_pages=[OVERVIEW], matrix_changes=matrix) == {
        OVERVIEW: matrix,
        PAGE: [THEORY + "body.md"],
    }
    assert history.affected_pages(changed, pages, snippets_of) == {PAGE: [THEORY + "body.md"]}


def test_matrix_fields_read_front_matter_only() -> None:
    assert history.matrix_fields(None) is None
    assert history.matrix_fields(snippet("T")) == ("'T'", "'s'", "['speed']")
    assert history.matrix_fields(snippet("T") + "more") == history.matrix_fields(snippet("T"))
    assert history.matrix_fields("no front matter\n") == ("None", "None", "None")


def test_page_renames_are_docs_relative_and_empty_outside_git(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo, {"docs/performance/infer/cpu.md": "# CPU\n\nInference on CPU, step by step.\n"})
    assert history.page_renames(repo) == {}
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "mv", "docs/performance/infer/cpu.md", "docs/performance/infer/cpu_inference.md")
    assert history.page_renames(repo) == {"performance/infer/cpu.md": "performance/infer/cpu_inference.md"}
