from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from perfdocs.cli import main

from .sitetools import build, copy_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "project")


def test_lint_clean_project(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(project), "lint"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("perfdocs lint: ") and ", 0 errors, 0 warnings" in err


def test_lint_reports_located_errors_and_exit_2(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = project / "docs/performance/scalability.md"
    before = page.read_text(encoding="utf-8")
    page.write_text(before + '\n<Theory name="no_such_snippet"/>\n', encoding="utf-8")
    line = len(before.split("\n")) + 1
    assert main(["--root", str(project), "lint"]) == 2
    out, _ = capsys.readouterr()
    assert out.splitlines() == [
        f"docs/performance/scalability.md:{line}:1: error: theory snippet 'no_such_snippet' "
        "not found in docs/performance/_theory [missing-snippet]"
    ]


def test_render_prints_material_markdown(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = project / "docs/performance/train/gpu_one.md"
    assert main(["--root", str(project), "render", str(page)]) == 0
    out, _ = capsys.readouterr()
    assert "<Theory" not in out and "<hfoption" not in out and '===! "Trainer"' in out


def test_non_utf8_page(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = project / "docs/performance/latin1.md"
    bad.write_bytes(b"# Caf\xe9\n")
    assert main(["--root", str(project), "lint", str(bad)]) == 2
    out, _ = capsys.readouterr()
    assert out.strip().endswith("error: not UTF-8 text (invalid continuation byte at byte 5) [bad-encoding]")


def test_redirects_command(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(project), "redirects"]) == 0
    out, _ = capsys.readouterr()
    assert "/parallelism -> performance/scalability.md" in out.splitlines()
    assert "/perf_train_gpu_one#fp16 -> performance/train/gpu_one.md#mixed-precision" in out.splitlines()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["lint", "nope.md"], "perfdocs: error: nope.md: no such file"),
        (
            ["--root", "/nonexistent-perfdocs", "lint"],
            "perfdocs: error: /nonexistent-perfdocs: no such config file (give one with -f/--config-file)",
        ),
        (
            ["-f", "/nonexistent-perfdocs/mkdocs.yml", "lint"],
            "perfdocs: error: /nonexistent-perfdocs/mkdocs.yml: no such config file (give one with -f/--config-file)",
        ),
    ],
)
def test_usage_errors_exit_3(
    project: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    assert main(argv) == 3
    assert capsys.readouterr().err.strip() == message


def test_unknown_subcommand_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["frobnicate"]) == 3
    assert "invalid choice: 'frobnicate'" in capsys.readouterr().err


def test_internal_error_exits_1_with_a_one_line_message(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import perfdocs.cli

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(perfdocs.cli, "render_source", boom)
    assert main(["--root", str(project), "lint"]) == 1
    assert capsys.readouterr().err.strip() == "perfdocs: internal error: RuntimeError: disk on fire"


def test_missing_config_in_the_working_directory_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["lint"]) == 3
    assert capsys.readouterr().err.strip() == (
        "perfdocs: error: mkdocs.yml: no such config file (give one with -f/--config-file)"
    )


@pytest.mark.parametrize(
    "edit, reason",
    [
        (
            lambda text: text.replace("docs_dir: docs", "docs_dir: nowhere"),
            "Config value 'docs_dir': The path '{root}/nowhere' isn't an existing directory.",
        ),
        (
            lambda text: text + "\nsite_url: [unclosed\n",
            "expected ',' or ']', but got '<stream end>' in \"{root}/mkdocs.yml\"",
        ),
    ],
)
def test_invalid_config_is_a_usage_error(
    project: Path, edit: Callable[[str], str], reason: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    config = project / "mkdocs.yml"
    config.write_text(edit(config.read_text(encoding="utf-8")), encoding="utf-8")
    assert main(["-f", str(config), "lint"]) == 3
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"perfdocs: error: {config}: invalid configuration: ")
    assert "\n" not in err and "Traceback" not in err
    assert reason.format(root=project) in err


def test_config_file_from_another_directory(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """cd docs && perfdocs -f ../mkdocs.yml: paths are still shown relative to the directory of mkdocs.yml."""
    page = project / "docs/performance/scalability.md"
    page.write_text(page.read_text(encoding="utf-8") + '\n<Theory name="nope"/>\n', encoding="utf-8")
    monkeypatch.chdir(project / "docs")
    assert main(["-f", "../mkdocs.yml", "lint"]) == 2
    [line] = capsys.readouterr().out.splitlines()
    assert line.startswith("docs/performance/scalability.md:")
    assert main(["-f", "../mkdocs.yml", "render", "performance/train/gpu_one.md"]) == 0
    assert '===! "Trainer"' in capsys.readouterr().out


def test_any_docs_dir(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "docs").rename(project / "content")
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("docs_dir: docs", "docs_dir: content"))
    assert main(["-f", str(config), "lint"]) == 0
    assert ", 0 errors, 0 warnings" in capsys.readouterr().err
    page = project / "content/index.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n<Tipp>x</Tipp>\n", encoding="utf-8")
    assert main(["-f", str(config), "lint"]) == 2
    [line] = capsys.readouterr().out.splitlines()
    assert line.startswith("content/index.md:") and "unknown component <Tipp>" in line
    assert main(["-f", str(config), "redirects"]) == 0
    assert "/parallelism -> performance/scalability.md" in capsys.readouterr().out.splitlines()


def test_check_links_needs_no_config_when_given_the_site_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text('<p>\n<a href="docs/missing.html">x</a>\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check-links", "site"]) == 3
    assert capsys.readouterr().err.strip() == (
        "perfdocs: error: mkdocs.yml: no such config file (give one with -f/--config-file)"
    )
    assert main(["check-links", "site", "--site-url", "https://example.org/"]) == 2
    assert capsys.readouterr().out.startswith("site/index.html:2:")


def test_lint_reports_what_a_strict_build_reports(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One broken copy, linted and built: the problems the build reports at a source line (a page, a snippet,
    redirects.yml, the nav) are lint's, word for word, and both name the page git saw the old one renamed to."""
    docs = project / "docs/performance"
    git = ["git", "-C", str(project), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    # the nav, redirects.yml and 9 pages still name cpu.md
    subprocess.run([*git, "mv", "docs/performance/infer/cpu.md", "docs/performance/infer/cpu_inference.md"], check=True)
    with (docs / "infer/gpu_one.md").open("a", encoding="utf-8") as f:
        f.write("\nSee [a section](gpu_one.md#no-such-section).\n")
    (docs / "orphan.md").write_text("# Orphan\n\nNo nav entry.\n", encoding="utf-8")
    with (docs / "infer/gpu_many.md").open("a", encoding="utf-8") as f:  # what the sanitiser removes from the HTML
        f.write('\nA paragraph.\n{: onclick="alert(1)" .md-dialog }\n\n[click][js]\n\n[js]: javascript:alert(1)\n')
    with (docs / "_theory/optimizers.md").open("a", encoding="utf-8") as f:  # a part no page including it shows
        f.write('\n<Only scenario="infer-cpu">\n<Tipp>x</Tipp>\n</Only>\n')
    assert main(["--root", str(project), "lint"]) == 2
    linted = set(capsys.readouterr().out.splitlines())
    built = build(project, project / "site")
    assert built.returncode != 0
    reported = {line.removeprefix("ERROR   -  ") for line in built.stderr.splitlines() if line.startswith("ERROR")}
    at_sources = {line for line in reported if not line.startswith("site/")}  # not the built 404 page
    assert {code_of(line) for line in at_sources} >= {
        "not-in-nav",
        "missing-target",
        "missing-fragment",
        "missing-file",
        "unknown-component",
        "forbidden-html",
        "reserved-name",
        "unsafe-url",
    }
    assert sorted(at_sources) == sorted(line for line in linted if ": error: " in line)
    renamed = "(did you mean 'performance/infer/cpu_inference.md'? git saw performance/infer/cpu.md renamed to it)"
    assert {code_of(line) for line in at_sources if line.endswith(renamed)} == {
        "missing-file",
        "missing-target",
        "nav-missing-page",
    }


def code_of(line: str) -> str:
    """The code of a printed diagnostic: ``path:line:col: level: message [code] (hint)``."""
    return re.findall(r" \[([a-z0-9-]+)\](?= |$)", line)[0]
