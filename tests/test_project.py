"""One project object: the configuration read once, paths shown one way, builds from anywhere."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from perfdocs.cli import main
from perfdocs.history import SiteWide, affected_pages
from perfdocs.mkdocs_adapter import load_project
from perfdocs.project import Project, ProjectError

from .sitetools import DEPLOY_VARS, DEPLOYMENT, build, copy_project, tool


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("project") / "project")


def test_load_reads_what_mkdocs_reads(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in DEPLOY_VARS:  # nothing deployed: no site URL, no repository (mkdocs.yml reads them with !ENV)
        monkeypatch.delenv(name, raising=False)
    p = load_project(project / "mkdocs.yml")
    assert p.root == project
    assert p.docs_dir == project / "docs"
    assert p.theory_dir == project / "docs/performance/_theory"
    assert p.custom_dir == project / "overrides"
    assert p.extra_css[0] == "assets/perfdocs.css"
    assert p.site_url is None and p.base == "/"
    assert p.repo_url is None and p.edit_base is None
    assert p.hooks == (project / "hooks/perfdocs_hooks.py",)
    assert project / "docs/index.md" in p.pages()
    assert not any("_theory" in path.parts for path in p.pages())


def test_load_takes_a_directory_or_the_working_directory(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_project(project).config_file == project / "mkdocs.yml"
    monkeypatch.chdir(project / "docs")
    with pytest.raises(ProjectError, match=r"^mkdocs.yml: no such config file \(give one with -f/--config-file\)$"):
        load_project()
    monkeypatch.chdir(project)
    assert load_project().root == project


@pytest.mark.parametrize(
    ("site_url", "base"),
    [
        ("https://example.org/", "/"),
        ("https://example.org/guide", "/guide/"),
        ("", "/"),
        ("https://x.org/a/b/", "/a/b/"),
    ],
)
def test_base_path(project: Path, site_url: str, base: str) -> None:
    p = load_project(project)
    assert Project(**{**p.__dict__, "site_url": site_url or None}).base == base


def test_display_is_relative_to_the_directory_of_mkdocs_yml_from_any_working_directory(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = load_project(project / "mkdocs.yml")
    monkeypatch.chdir(project / "docs/performance")
    assert p.display("infer/cpu.md") == "docs/performance/infer/cpu.md"
    assert p.display(project / "docs/performance/infer/cpu.md") == "docs/performance/infer/cpu.md"
    assert p.display("/elsewhere/x.md") == "/elsewhere/x.md"
    assert p.docs_path(project / "docs/performance/infer/cpu.md") == "performance/infer/cpu.md"


def test_site_wide_files(project: Path) -> None:
    wide = load_project(project).site_wide()
    assert {"mkdocs.yml", "pyproject.toml", "redirects.yml", "docs/assets/perfdocs.css"} <= wide.files
    assert set(wide.directories) == {"hooks/", "overrides/"}
    assert wide.covers("overrides/partials/source-file.html")
    assert wide.covers("hooks/perfdocs/dialect.py")
    assert not wide.covers("docs/performance/index.md")
    assert not wide.covers("hooksmith.txt")


@pytest.mark.parametrize(
    ("changed", "hit"),
    [
        ("overrides/404.html", "all"),
        ("docs/assets/perfdocs.css", "all"),
        ("docs/assets/extra.js", "all"),
        ("hooks/perfdocs/sanitize.py", "all"),
        ("mkdocs.yml", "all"),
        ("docs/performance/a.md", ["docs/performance/a.md"]),
        ("docs/performance/_theory/s.md", ["docs/performance/b.md"]),
        ("docs/assets/unused.css", []),
        ("README.md", []),
    ],
)
def test_affected_pages_with_site_wide_files(changed: str, hit: str | list[str]) -> None:
    pages = ["docs/performance/a.md", "docs/performance/b.md"]
    snippets = {"docs/performance/a.md": set(), "docs/performance/b.md": {"s"}}
    wide = SiteWide(
        frozenset({"mkdocs.yml", "docs/assets/perfdocs.css", "docs/assets/extra.js"}), ("hooks/", "overrides/")
    )
    affected = affected_pages([changed], pages, snippets, wide)
    assert sorted(affected) == (pages if hit == "all" else hit)
    assert all(causes == [changed] for causes in affected.values())


def test_affected_pages_with_another_docs_dir() -> None:
    pages = ["content/x.md"]
    assert affected_pages(["content/x.md"], pages, {}, SiteWide(), docs="content/") == {
        "content/x.md": ["content/x.md"]
    }
    assert affected_pages(
        ["content/performance/_theory/t.md"], pages, {"content/x.md": {"t"}}, SiteWide(), docs="content/"
    ) == {"content/x.md": ["content/performance/_theory/t.md"]}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


@pytest.mark.parametrize(
    "path", ["overrides/partials/source-file.html", "docs/assets/perfdocs.css", "hooks/perfdocs_hooks.py", "mkdocs.yml"]
)
def test_affected_treats_theme_css_hooks_and_config_as_site_wide(
    tmp_path: Path, path: str, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_project(tmp_path / "repo")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base")
    changed = repo / path
    changed.write_text(changed.read_text(encoding="utf-8") + "\n\n", encoding="utf-8")
    assert main(["-f", str(repo / "mkdocs.yml"), "affected", "--base", "main", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    pages = sorted(p.relative_to(repo).as_posix() for p in load_project(repo).pages())
    assert data["changed"] == [path]
    assert sorted(data["affected"]) == pages
    assert all(causes == [path] for causes in data["affected"].values())


def test_affected_in_a_project_below_the_top_of_the_git_work_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    site = copy_project(repo / "site-src")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base")
    page = site / "docs/performance/infer/cpu.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    assert main(["-f", str(site / "mkdocs.yml"), "affected", "--base", "main"]) == 0
    assert capsys.readouterr().out.splitlines() == ["docs/performance/infer/cpu.md"]


# -- real builds ---------------------------------------------------------------------------------
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true", "NO_COLOR": "1"}


@pytest.mark.slow
def test_build_from_the_docs_directory_with_f(tmp_path: Path) -> None:
    """cd docs && mkdocs build -f ../mkdocs.yml crashed with a traceback (docs assumed relative to the cwd)."""
    project = copy_project(tmp_path / "project")
    page = project / "docs/performance/scalability.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n<Tipp>x</Tipp>\n", encoding="utf-8")
    line = len(page.read_text(encoding="utf-8").split("\n")) - 1

    def build() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [tool("mkdocs"), "build", "--strict", "-f", "../mkdocs.yml", "-d", str(tmp_path / "site")],
            cwd=project / "docs",
            capture_output=True,
            text=True,
            env=ENV,
            timeout=600,
        )

    result = build()
    assert "Traceback" not in result.stderr
    assert result.returncode == 1
    assert (
        f"docs/performance/scalability.md:{line}:1: error: unknown component <Tipp> [unknown-component]"
        in result.stderr
    )
    page.write_text(page.read_text(encoding="utf-8").replace("\n<Tipp>x</Tipp>\n", "\n"), encoding="utf-8")
    result = build()
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "site/performance/scalability/index.html").is_file()


@pytest.mark.slow
def test_build_with_another_docs_dir(tmp_path: Path) -> None:
    """A project whose docs_dir is content/ crashed with a traceback (docs/ was assumed)."""
    project = copy_project(tmp_path / "project")
    (project / "docs").rename(project / "content")
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("docs_dir: docs", "docs_dir: content"))
    result = build(project, tmp_path / "site", deploy=DEPLOYMENT)
    assert "Traceback" not in result.stderr
    assert result.returncode == 0, result.stderr
    html = (tmp_path / "site/performance/train/gpu_one/index.html").read_text(encoding="utf-8")
    assert DEPLOYMENT["REPO_URL"] + "/edit/main/docs/performance/_theory/" in html
