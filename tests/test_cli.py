from __future__ import annotations

from pathlib import Path

import pytest
from perfdocs.cli import main

from .sitetools import copy_project


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
            "perfdocs: error: /nonexistent-perfdocs: not a perfdocs project (needs mkdocs.yml and docs/)",
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
