"""The "Tested with" badge (hooks/perfdocs/badges.py) says, per page, what runs where, from the recipe markers of the
page and of the theory snippets it expands (the parser of tests/recipes/ is perfdocs.recipes)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from perfdocs import badges
from perfdocs.badges import PageRecipes, coverage, page_recipes
from perfdocs.matrix import generated_components
from perfdocs.recipes import blocks_of
from perfdocs.theory import SnippetLibrary

PAGE = textwrap.dedent(
    """\
    ---
    title: Fixture
    scenario: infer-cpu
    ---
    # Fixture

    <TestedWith/>

    ## Setup

    ```python
    x = 1
    ```

    <!-- recipe: continues -->
    ```python
    y = x
    ```

    <Theory name="snip"/>

    ## On a GPU

    <!-- recipe: gpu: needs CUDA -->
    ```python
    z = 3
    ```

    <!-- recipe: continues -->
    ```python
    w = z
    ```

    ## ONNX Runtime[[onnx]]

    <!-- recipe: separate-env: optimum-onnx pins Transformers 4 -->
    ```python
    import onnxruntime
    ```

    <!-- recipe: separate-env: the same environment -->
    ```python
    import onnxruntime as ort
    ```

    ## llama.cpp and GGUF

    <!-- recipe: separate-env: compiles llama.cpp -->
    ```python
    import llama_cpp
    ```

    <!-- recipe: fragment -->
    ```python
    model.eval()
    ```

    ```bash
    pip install torch
    ```

    ```json
    {"train_batch_size": "auto"}
    ```

    ```text
    output, not a recipe
    ```
    """
)
SNIPPET = textwrap.dedent(
    """\
    ---
    title: Snip
    helps: [speed]
    summary: S.
    ---
    Why.

    ```python
    a = 1
    ```

    <Only scenario="train-gpu-one">
    <!-- recipe: gpu: shown on another page only -->
    ```python
    b = 2
    ```
    </Only>
    """
)
PINS = '[project]\nname = "x"\n[project.optional-dependencies]\nrecipes = ["torch==2.14.1", "peft==0.21.2"]\n'


def fixture_site(tmp_path: Path) -> SnippetLibrary:
    (tmp_path / "pyproject.toml").write_text(PINS, encoding="utf-8")
    theory = tmp_path / "docs" / "_theory"
    theory.mkdir(parents=True)
    (theory / "snip.md").write_text(SNIPPET, encoding="utf-8")
    return SnippetLibrary(theory, tmp_path)


def test_the_badge_of_a_page_says_what_runs_where_from_its_markers_and_its_snippets(tmp_path: Path) -> None:
    library = fixture_site(tmp_path)
    # The CLI hands over the file, front matter included; the build hands over the body and knows the scenario.
    from_file = generated_components(PAGE, library, {}, "fixture.md")["TestedWith"]
    body = PAGE.split("---\n", 2)[2]
    from_build = generated_components(body, library, {"fixture.md": ("infer-cpu", [])}, "fixture.md")["TestedWith"]
    assert (
        from_file
        == from_build
        == [
            "**Tested with** `torch 2.14.1`, `peft 0.21.2`. On this page: 3 Python recipes run in CI on CPU against "
            "exactly these versions, with tiny random-weight models; 2 need a GPU: CI compiles them and checks their "
            "names, `bench/recipes_gpu.py` runs them on a GPU; 3 need their own environment and are only compiled, "
            "with their names checked ([ONNX Runtime](#onnx), [llama.cpp and GGUF](#llamacpp-and-gguf)); 1 fragment is "
            "compiled and name-checked; 1 shell block is checked, not run (launcher arguments and `pip install` names); "
            "1 config file is validated with the config classes of DeepSpeed and Accelerate."
        ]
    )


def test_the_snippet_block_of_another_scenario_is_counted_on_that_page_only(tmp_path: Path) -> None:
    library = fixture_site(tmp_path)
    page = '---\nscenario: train-gpu-one\n---\n# P\n\n<TestedWith/>\n\n<Theory name="snip"/>\n'
    assert generated_components(page, library, {}, "p.md")["TestedWith"] == [
        "**Tested with** `torch 2.14.1`, `peft 0.21.2`. On this page: 1 Python recipe runs in CI on CPU against "
        "exactly these versions, with tiny random-weight models; 1 needs a GPU: CI compiles it and checks its names, "
        "`bench/recipes_gpu.py` runs it on a GPU."
    ]


def test_a_page_without_recipes_says_so_and_one_with_a_bad_marker_gets_no_badge(tmp_path: Path) -> None:
    library = fixture_site(tmp_path)
    assert generated_components("# P\n\n<TestedWith/>\n", library, {}, "p.md")["TestedWith"] == [
        "**Tested with** `torch 2.14.1`, `peft 0.21.2`. This page has no recipe."
    ]
    bad = "# P\n\n<TestedWith/>\n\n<!-- recipe: gpus: typo -->\n```python\nx = 1\n```\n"
    assert "TestedWith" not in generated_components(bad, library, {}, "p.md")


def test_blocks_know_their_section_and_its_id() -> None:
    found = [(b.line, b.section, b.section_id) for b in blocks_of(PAGE, "fixture.md")]
    assert found[0] == (11, "Setup", "setup")
    assert found[4] == (37, "ONNX Runtime", "onnx")
    assert found[6] == (49, "llama.cpp and GGUF", "llamacpp-and-gguf")


def test_the_counts_follow_the_recipe_tests() -> None:
    recipes = page_recipes(blocks_of(PAGE, "fixture.md"))
    assert recipes == PageRecipes(
        run=2,  # the snippet's block is not in the page file itself
        gpu=2,
        separate=3,
        separate_sections=(("ONNX Runtime", "onnx"), ("llama.cpp and GGUF", "llamacpp-and-gguf")),
        fragments=1,
        shell=1,
        configs=1,
    )
    assert coverage(PageRecipes()) == ""
    assert badges.tested_with([("torch", "2.14.1")]) == ["**Tested with** `torch 2.14.1`."]  # no page: no claim about one


def test_a_script_is_said_to_run_under_its_own_test_and_is_no_gpu_recipe() -> None:
    page = (
        "# P\n\n## Bench\n\n<!-- recipe: script: tests/test_bench.py -->\n```python\nprint(1)\n```\n\n"
        "<!-- recipe: script: tests/test_bench.py -->\n```python\nprint(2)\n```\n"
    )
    recipes = page_recipes(blocks_of(page, "p.md"))
    assert recipes == PageRecipes(scripts=("tests/test_bench.py",))
    assert coverage(recipes) == "On this page: the script runs in CI under `tests/test_bench.py`."
