from __future__ import annotations

from pathlib import Path

import pytest
from perfdocs.pipeline import render_source
from perfdocs.theory import SnippetLibrary, expand


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    theory = tmp_path / "docs" / "performance" / "_theory"
    write(
        theory / "alpha.md",
        "---\ntitle: Alpha\nhelps: [speed]\nsummary: a\n---\nLine one.\n\n## Why\n\n"
        '<Tip warning={nope}>\nx\n</Tip>\n\n<Theory name="beta"/>\n',
    )
    write(
        theory / "beta.md",
        "---\ntitle: Beta\nhelps: [memory]\nsummary: b\n---\n\nBeta line.\nSee [page](../train/gpu_one.md#recipe).\n",
    )
    return tmp_path


def library(root: Path) -> SnippetLibrary:
    return SnippetLibrary(root / "docs" / "performance" / "_theory", root)


def test_source_map_points_every_line_at_its_file_and_line(project: Path) -> None:
    page = '---\nscenario: train-gpu-one\n---\n# T\n\n## Section\n\n<Theory name="alpha"/>\nafter\n'
    rendered = expand(
        page.split("---\n", 2)[2], "docs/performance/train/gpu_one.md", library(project), "train-gpu-one", first_line=4
    )
    lines = rendered.text.split("\n")
    origin = dict(zip(lines, rendered.source_map.origins))
    alpha = "docs/performance/_theory/alpha.md"
    beta = "docs/performance/_theory/beta.md"
    assert origin["# T"].path == "docs/performance/train/gpu_one.md" and origin["# T"].line == 4
    assert (origin["Line one."].path, origin["Line one."].line) == (alpha, 6)
    assert origin["Line one."].included_from == (("docs/performance/train/gpu_one.md", 8),)
    assert (origin["Beta line."].path, origin["Beta line."].line) == (beta, 7)
    assert origin["Beta line."].included_from == ((alpha, 14), ("docs/performance/train/gpu_one.md", 8))
    assert origin["after"].line == 9
    assert len(rendered.source_map) == len(lines)


def test_diagnostic_inside_snippet_names_snippet_line_and_chain(project: Path) -> None:
    source = '---\nscenario: train-gpu-one\n---\n## S\n\n<Theory name="alpha"/>\n'
    rendered = render_source(source, "docs/performance/train/gpu_one.md", library(project), project)
    assert [str(d) for d in rendered.diagnostics] == [
        "docs/performance/_theory/alpha.md:10:1: error: attribute warning={nope} on <Tip> must be {true} or "
        "{false} [bad-attribute]\n    included from docs/performance/train/gpu_one.md:6"
    ]


def test_heading_shift_and_ids(project: Path) -> None:
    body = '## Outer\n\n<Theory name="alpha"/>\n'
    text = expand(body, "docs/performance/train/gpu_one.md", library(project), "train-gpu-one").text
    assert "### Why { #alpha-why }" in text


def test_links_in_snippets_are_rewritten_for_the_including_page(project: Path) -> None:
    lib = library(project)
    deep = expand('<Theory name="beta"/>', "docs/performance/infer/cpu.md", lib, "infer-cpu").text
    top = expand('<Theory name="beta"/>', "docs/performance/scalability.md", lib, "scalability").text
    assert "[page](../train/gpu_one.md#recipe)" in deep
    assert "[page](train/gpu_one.md#recipe)" in top


def test_snippet_list_and_inclusions_are_reported(project: Path) -> None:
    body = '## First\n\n<Theory name="beta"/>\n\n## Second[[second]]\n\n<Theory name="alpha"/>\n'
    result = expand(body, "docs/p.md", library(project), None)
    assert result.snippets_used == {"alpha", "beta"}
    assert [(i.name, i.section_id) for i in result.inclusions] == [
        ("beta", "first"),
        ("alpha", "second"),
        ("beta", "alpha-why"),
    ]


def test_snippet_not_utf8_is_reported(project: Path) -> None:
    (project / "docs" / "performance" / "_theory" / "latin.md").write_bytes(b"caf\xe9\n")
    result = expand('<Theory name="latin"/>', "docs/p.md", library(project), None)
    assert [str(d) for d in result.diagnostics] == [
        "docs/performance/_theory/latin.md:1:1: error: snippet is not UTF-8 text (invalid continuation byte at "
        "byte 3) [bad-encoding]"
    ]


def test_snippet_front_matter_types_are_checked(project: Path) -> None:
    write(project / "docs" / "performance" / "_theory" / "typed.md", "---\ntitle: 3\nhelps: speed\n---\nx\n")
    result = expand('<Theory name="typed"/>', "docs/p.md", library(project), None)
    messages = [d.message for d in result.diagnostics]
    assert "snippet front matter needs 'title' (a string)" in messages
    assert "snippet front matter needs 'summary' (a one-line string)" in messages
    assert "snippet front matter 'helps' must be a list drawn from speed, memory, scale; got 'speed'" in messages


def test_deep_nesting_is_bounded(project: Path) -> None:
    theory = project / "docs" / "performance" / "_theory"
    for i in range(50):
        write(theory / f"n{i}.md", f'---\ntitle: N\nhelps: []\nsummary: n\n---\n<Theory name="n{i + 1}"/>\n')
    write(theory / "n50.md", "---\ntitle: N\nhelps: []\nsummary: n\n---\nbottom\n")
    result = expand('<Theory name="n0"/>', "docs/p.md", library(project), None)
    assert [str(d).split("\n")[0] for d in result.diagnostics] == [
        "docs/performance/_theory/n9.md:6:1: error: snippets nested deeper than 10 levels [include-depth]"
    ]
    assert len(result.diagnostics[0].location.included_from) == 10
    assert "bottom" not in result.text


def test_edit_link_points_at_the_snippet_source(project: Path) -> None:
    result = expand(
        '## S\n\n<Theory name="beta"/>\n',
        "docs/p.md",
        library(project),
        None,
        edit_url=lambda s: f"https://example.org/edit/main/{s.path}",
    )
    assert (
        '<p class="perfdocs-edit"><a href="https://example.org/edit/main/docs/performance/_theory/beta.md" '
        'title="Edit the shared explanation in docs/performance/_theory/beta.md">Edit this explanation</a></p>'
    ) in result.text.split("\n")


def test_snippet_front_matter_errors_point_at_the_key(project: Path) -> None:
    write(project / "docs" / "performance" / "_theory" / "keyed.md", "---\ntitle: 3\nhelps: fast\n---\nx\n")
    result = expand('<Theory name="keyed"/>', "docs/p.md", library(project), None)
    assert [str(d) for d in result.diagnostics] == [
        "docs/performance/_theory/keyed.md:2:1: error: snippet front matter needs 'title' (a string) "
        "[bad-front-matter]",
        "docs/performance/_theory/keyed.md:1:1: error: snippet front matter needs 'summary' (a one-line string) "
        "[bad-front-matter]",
        "docs/performance/_theory/keyed.md:3:1: error: snippet front matter 'helps' must be a list drawn from speed, "
        "memory, scale; got 'fast' [bad-front-matter]",
    ]


# --- scenario pages show each explanation collapsed (issue 22) ------------------------------------------------


def test_a_scenario_page_shows_each_snippet_collapsed_under_its_title(project: Path) -> None:
    body = '## Outer\n\nWhat to do.\n\n<Theory name="alpha"/>\n\n### Recipe\n\nUse it.\n'
    text = expand(body, "docs/performance/train/gpu_one.md", library(project), "train-gpu-one").text
    lines = text.split("\n")
    start, end = lines.index('<details class="perfdocs-theory info">'), lines.index("</details>")
    assert lines[start + 1] == "<summary>Alpha explained</summary>"
    inside = lines[start:end]
    assert "Line one." in inside and "### Why { #alpha-why }" in inside
    assert "Beta line." in inside, "a snippet inside a snippet is part of the same box"
    assert lines.count('<details class="perfdocs-theory info">') == 1
    assert lines.index("What to do.") < start and lines.index("### Recipe") > end


@pytest.mark.parametrize("scenario", ["overview", None])
def test_the_overview_and_other_pages_show_snippets_open(project: Path, scenario: str | None) -> None:
    text = expand('## S\n\n<Theory name="beta"/>\n', "docs/index.md", library(project), scenario).text
    assert "<details" not in text and "Beta line." in text


def test_a_snippet_inside_a_component_is_not_boxed_again(project: Path) -> None:
    body = (
        '## S\n\n<Tip>\n\n<Theory name="beta"/>\n\n</Tip>\n\n'
        '<details>\n<summary>More</summary>\n\n<Theory name="beta"/>\n\n</details>\n\n'
        '<Theory name="beta"/>\n'
    )
    text = expand(body, "docs/performance/infer/cpu.md", library(project), "infer-cpu").text
    assert text.count("Beta line.") == 3
    assert text.count('<details class="perfdocs-theory info">') == 1, "only the one outside the components"
    assert text.index('<details class="perfdocs-theory info">') > text.index("<summary>More</summary>")


def test_a_snippet_with_nothing_for_the_scenario_gets_no_empty_box(project: Path) -> None:
    write(
        project / "docs" / "performance" / "_theory" / "gpu_only.md",
        '---\ntitle: G\nhelps: [speed]\nsummary: g\n---\n<Only scenario="train-gpu-one">\nTensor cores.\n</Only>\n',
    )
    text = expand('## S\n\n<Theory name="gpu_only"/>\n', "docs/performance/infer/cpu.md", library(project), "infer-cpu")
    assert "<details" not in text.text and "Tensor cores." not in text.text
    assert len(text.source_map) == len(text.text.split("\n"))


def test_the_collapsed_snippet_renders_as_a_details_box_with_markdown_inside(project: Path) -> None:
    source = '---\nscenario: train-gpu-one\n---\n## Outer\n\n<Theory name="beta"/>\n'
    rendered = render_source(source, "docs/performance/train/gpu_one.md", library(project), project)
    assert rendered.diagnostics == []
    assert '<details markdown="1" class="perfdocs-theory info">' in rendered.text.split("\n")
    assert "See [page](gpu_one.md#recipe)." in rendered.text


def test_the_expansion_knows_which_of_its_lines_are_code_after_a_box_left_out(project: Path) -> None:
    """Expansion.code (what scenariocheck reads) stays line for line with the text when an empty box is taken
    back: the code flags of the lines after it were off by the box's lines, so a training loop below was missed."""
    theory = project / "docs" / "performance" / "_theory"
    write(
        theory / "gpu_only.md",
        '---\ntitle: G\nhelps: [speed]\nsummary: g\n---\n<Only scenario="train-gpu-one">\nx\n</Only>\n',
    )
    write(theory / "loop.md", "---\ntitle: L\nhelps: [speed]\nsummary: l\n---\nText.\n\n```py\nloss.backward()\n```\n")
    body = '## S\n\n<Theory name="gpu_only"/>\n\n## T\n\n<Theory name="loop"/>\n'
    expansion = expand(body, "docs/performance/infer/cpu.md", library(project), "infer-cpu")
    lines = expansion.text.split("\n")
    assert len(expansion.code) == len(lines)
    assert [line for line, code in zip(lines, expansion.code) if code] == ["```py", "loss.backward()", "```"]
    source = f"---\nscenario: infer-cpu\n---\n# P\n\n{body}"
    found = render_source(source, "docs/performance/infer/cpu.md", library(project), project).diagnostics
    assert [(d.location.line, d.code) for d in found] == [(9, "wrong-scenario")]


def test_a_build_expands_each_page_once_for_the_matrix_and_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The technique matrix reads which snippets each scenario page includes, the "Tested with" badge counts the
    recipes of its page, and the page is rendered from its expansion: one expansion per page serves all three
    (expansions.PageExpansions), in a build and in perfdocs lint, and the matrix still links each."""
    import perfdocs.matrix
    import perfdocs.pipeline
    from perfdocs.cli import main

    from .sitetools import build_in_process, hooked_project, minimal_config

    project = tmp_path / "project"
    files = {
        "mkdocs.yml": minimal_config("once"),
        "docs/index.md": "---\nscenario: overview\n---\n# Overview\n\n<TechniqueMatrix/>\n",
        "docs/performance/_theory/amp.md": "---\ntitle: Mixed precision\nhelps: [speed]\nsummary: s\n---\nHalf.\n",
        # the badge counts the recipes of the page's expansion: the same one
        "docs/train.md": '---\nscenario: train-gpu-one\n---\n# Train\n\n<TestedWith/>\n\n## Precision\n\n<Theory name="amp"/>\n',
        "docs/infer.md": '---\nscenario: infer-cpu\n---\n# Infer\n\n## Precision\n\n<Theory name="amp"/>\n',
    }
    hooked_project(project, files)
    expanded: list[str] = []

    def counted(body: str, page_path: str, *args: object, **kwargs: object) -> object:
        expanded.append(page_path)
        return expand(body, page_path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(perfdocs.pipeline, "expand", counted)
    monkeypatch.setattr(perfdocs.matrix, "expand", counted)
    result = build_in_process(project, project / "site")
    assert result.returncode == 0, result.stderr
    assert sorted(expanded) == ["docs/index.md", "docs/infer.md", "docs/train.md"]
    overview = (project / "site" / "index.html").read_text(encoding="utf-8")
    assert 'href="train/#precision"' in overview and 'href="infer/#precision"' in overview
    expanded.clear()  # perfdocs lint reads the pages the same way, each expanded once
    assert main(["--root", str(project), "lint"]) == 0
    assert sorted(expanded) == ["docs/index.md", "docs/infer.md", "docs/train.md"]
