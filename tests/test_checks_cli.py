"""check-links, check-redirects and affected on a copy of the real site and repository."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from perfdocs.cli import main

from .conftest import ROOT
from .sitetools import build, copy_project

pytestmark = pytest.mark.slow


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A project copy with known broken links, and its build (non-strict, so the site is written)."""
    project = copy_project(tmp_path_factory.mktemp("broken") / "project")
    page = project / "docs/performance/infer/cpu.md"
    lines = page.read_text(encoding="utf-8").split("\n")
    lines += [
        "",
        "Broken: [a page](../train/gpu_uno.md), [an anchor](gpu_one.md#no-such-section),",
        "[same page](#nowhere) and ![an image](img/missing.png).",
    ]
    page.write_text("\n".join(lines), encoding="utf-8")
    snippet = project / "docs/performance/_theory/batch_size.md"
    snippet.write_text(
        snippet.read_text(encoding="utf-8") + "\nSee [gone](../scalability.md#not-there).\n", encoding="utf-8"
    )
    site = project / "site"
    result = build(project, site, strict=False)
    assert result.returncode == 0, result.stderr
    return project, site


def test_check_links_maps_problems_to_markdown_lines(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, site = built
    cpu = project / "docs/performance/infer/cpu.md"
    n = len(cpu.read_text(encoding="utf-8").split("\n"))
    snippet_line = len(
        (project / "docs/performance/_theory/batch_size.md").read_text(encoding="utf-8").rstrip("\n").split("\n")
    )
    code = main(["--root", str(project), "check-links", str(site)])
    out = capsys.readouterr().out.splitlines()
    assert code == 2
    assert (
        f"docs/performance/infer/cpu.md:{n - 1}:18: error: broken link '../train/gpu_uno.md': no page "
        "performance/train/gpu_uno.md in the docs [missing-file] (did you mean 'performance/train/gpu_one.md'?)"
    ) in out
    assert (
        f"docs/performance/infer/cpu.md:{n - 1}:52: error: broken link 'gpu_one.md#no-such-section': no id "
        "'no-such-section' in performance/infer/gpu_one/index.html [missing-fragment]"
    ) in out
    assert (
        f"docs/performance/infer/cpu.md:{n}:13: error: broken link '#nowhere': no id 'nowhere' in "
        "performance/infer/cpu/index.html [missing-fragment]"
    ) in out
    assert (
        f"docs/performance/infer/cpu.md:{n}:39: error: broken link 'img/missing.png': no file "
        "performance/infer/img/missing.png in the docs [missing-file]"
    ) in out
    snippet_hits = [line for line in out if line.startswith(f"docs/performance/_theory/batch_size.md:{snippet_line}:")]
    assert snippet_hits and all("no id 'not-there' in performance/scalability/index.html" in h for h in snippet_hits)
    included = [out[out.index(h) + 1] for h in snippet_hits]
    assert all(line.startswith("    included from docs/performance/") for line in included)


def test_check_links_json_and_github_formats(built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    project, site = built
    assert main(["--root", str(project), "check-links", str(site), "--format", "json"]) == 2
    rows = json.loads(capsys.readouterr().out)["problems"]
    assert {r["code"] for r in rows} == {"missing-file", "missing-fragment"}
    assert all(r["path"].startswith("docs/performance/") and r["line"] > 0 for r in rows)
    assert main(["--root", str(project), "check-links", str(site), "--format", "github"]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(rows)
    assert all(line.startswith("::error file=docs/performance/") for line in lines)


def test_clean_site_passes(site_bare: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The real site as a fresh clone builds it (the session's build, conftest.site_bare), checked again."""
    assert main(["--root", str(ROOT), "check-links", str(site_bare)]) == 0
    assert capsys.readouterr().out == ""


def test_check_links_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-links", str(tmp_path / "nope")]) == 3
    assert "not a built site" in capsys.readouterr().err


def test_check_redirects_demands_a_redirect_for_a_renamed_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_project(tmp_path / "repo")
    (repo / ".gitignore").write_text("site/\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base")
    git(repo, "mv", "docs/performance/infer/cpu.md", "docs/performance/infer/cpu_inference.md")
    for path in [repo / "mkdocs.yml", *(repo / "docs").rglob("*.md"), repo / "redirects.yml"]:
        text = path.read_text(encoding="utf-8")
        path.write_text(
            text.replace("infer/cpu.md", "infer/cpu_inference.md").replace("(cpu.md", "(cpu_inference.md"),
            encoding="utf-8",
        )
    result = build(repo, repo / "site")
    assert result.returncode == 0, result.stderr
    assert main(["--root", str(repo), "check-redirects", "--base", "main", "--site", str(repo / "site")]) == 2
    out = capsys.readouterr().out
    add_at = (repo / "redirects.yml").read_text(encoding="utf-8").split("\n").index("redirects:") + 1
    assert (
        f"redirects.yml:{add_at}:1: error: /performance/infer/cpu/ existed at main (page docs/performance/infer/cpu.md) "
        "and no longer resolves [missing-redirect] (add the line below under 'redirects:')"
    ) in out
    assert "  performance/infer/cpu: performance/infer/cpu_inference.md" in out.splitlines()
    redirects = repo / "redirects.yml"
    redirects.write_text(
        redirects.read_text(encoding="utf-8").replace(
            "redirects:\n", "redirects:\n  performance/infer/cpu: performance/infer/cpu_inference.md\n"
        ),
        encoding="utf-8",
    )
    assert build(repo, repo / "site").returncode == 0
    assert main(["--root", str(repo), "check-redirects", "--base", "main", "--site", str(repo / "site")]) == 0


def test_affected_follows_theory_includes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = copy_project(tmp_path / "repo")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base")
    snippet = repo / "docs/performance/_theory/kv_cache_batching.md"
    snippet.write_text(snippet.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    users = sorted(
        p.relative_to(repo).as_posix()
        for p in (repo / "docs").rglob("*.md")
        if '<Theory name="kv_cache_batching"/>' in p.read_text(encoding="utf-8")
    )
    assert len(users) >= 2
    assert main(["--root", str(repo), "affected", "--base", "main"]) == 0
    assert capsys.readouterr().out.splitlines() == users
    assert main(["--root", str(repo), "affected", "--base", "main", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["changed"] == ["docs/performance/_theory/kv_cache_batching.md"]
    assert all(v == ["docs/performance/_theory/kv_cache_batching.md"] for v in data["affected"].values())


def test_affected_lists_the_overview_when_a_snippet_summary_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_project(tmp_path / "repo")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base")
    snippet = repo / "docs/performance/_theory/kv_cache_batching.md"
    text = snippet.read_text(encoding="utf-8")
    summary = next(line for line in text.split("\n") if line.startswith("summary:"))
    snippet.write_text(text.replace(summary, "summary: A new one-line summary.", 1), encoding="utf-8")
    assert main(["--root", str(repo), "affected", "--base", "main", "--format", "json"]) == 0
    affected = json.loads(capsys.readouterr().out)["affected"]
    assert "docs/index.md" in affected  # the overview's matrix shows the summary
    body_only = text + "\nOne more sentence.\n"
    snippet.write_text(body_only, encoding="utf-8")
    assert main(["--root", str(repo), "affected", "--base", "main", "--format", "json"]) == 0
    assert "docs/index.md" not in json.loads(capsys.readouterr().out)["affected"]


@pytest.fixture
def tiny_site(tmp_path: Path) -> Path:
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nsite_url: https://example.org/\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "site").mkdir()
    return tmp_path


@pytest.mark.parametrize(
    "toml, message",
    [
        ("timout = 1", "unknown option 'timout' (did you mean 'timeout'?)"),
        ("ignore = 'x'", "'ignore' must be a list of strings"),
        ("retries = -1", "'retries' must be a non-negative int"),
    ],
)
def test_external_config_errors_are_usage_errors(
    tiny_site: Path, toml: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tiny_site / "pyproject.toml").write_text(f"[tool.perfdocs.check-links]\n{toml}\n")
    (tiny_site / "site/index.html").write_text('<a href="https://example.org/x">x</a>')
    assert main(["--root", str(tiny_site), "check-links", str(tiny_site / "site"), "--external"]) == 3
    assert capsys.readouterr().err.strip() == f"perfdocs: error: pyproject.toml [tool.perfdocs.check-links]: {message}"


def test_external_links_checked_only_when_asked(tiny_site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import http.server
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_HEAD(self) -> None:  # noqa: N802
            self.send_response(200 if self.path == "/ok" else 404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        (tiny_site / "pyproject.toml").write_text("[tool.perfdocs.check-links]\ntimeout = 5.0\n")
        (tiny_site / "site/index.html").write_text(
            f'<p>\n<a href="http://127.0.0.1:{port}/ok">ok</a>\n<a href="http://127.0.0.1:{port}/gone#x">gone</a>\n'
            '<a href="file:///etc/passwd">never requested</a>\n'
        )
        assert main(["--root", str(tiny_site), "check-links", str(tiny_site / "site")]) == 0
        capsys.readouterr()
        assert main(["--root", str(tiny_site), "check-links", str(tiny_site / "site"), "--external"]) == 2
        out = capsys.readouterr().out.splitlines()
        assert out == [
            f"{tiny_site / 'site'}/index.html:3:1: error: external link 'http://127.0.0.1:{port}/gone': "
            "HTTP 404 [external-broken]"
        ]
        assert (tiny_site / ".cache/perfdocs/external.json").is_file()
    finally:
        server.shutdown()
