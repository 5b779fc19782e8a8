"""What the build and `perfdocs lint` tell an author that used to pass silently: a tab label that differs from a
shared one only in case, and a recipe marker without its `recipe:` (the build's own reports of both, with a
snippet no page shows, are in tests/test_error_corpus.py)."""

from __future__ import annotations

from perfdocs.pipeline import render_source
from perfdocs.theory import THEORY_DIR, SnippetLibrary

from .conftest import ROOT


def diagnostics(body: str) -> list[str]:
    library = SnippetLibrary(ROOT / "docs" / THEORY_DIR, ROOT)
    return [str(d) for d in render_source(f"# T\n\n{body}", "p.md", library, ROOT).diagnostics]


def tabs(*labels: str) -> str:
    return '<hfoptions id="x">\n' + "".join(f'<hfoption id="{label}">\ntext\n</hfoption>\n' for label in labels) + (
        "</hfoptions>\n"
    )


def test_a_tab_label_that_differs_from_a_shared_one_only_in_case_is_a_warning() -> None:
    assert diagnostics(tabs("Trainer", "accelerate")) == [
        "p.md:7:1: warning: tab 'accelerate' differs from the guide's shared label 'Accelerate' only in case: a "
        "reader's pick of one does not carry over to the other [tab-label-case] (write id=\"Accelerate\")"
    ]


def test_shared_labels_as_written_and_labels_of_a_pages_own_pass() -> None:
    assert diagnostics(tabs("Trainer", "Accelerate", "DeepSpeed", "vLLM", "SGLang")) == []


def test_a_recipe_marker_without_recipe_is_reported_at_its_line() -> None:
    body = "Text.\n\n<!-- separate-env: needs vLLM -->\n```bash\npip install vllm\n```\n"
    assert diagnostics(body) == [
        "p.md:5:1: error: '<!-- separate-env: needs vLLM -->' is not a recipe marker: without 'recipe:' the block "
        "below runs on CPU in CI [bad-recipe-marker] (write <!-- recipe: separate-env: needs vLLM -->)"
    ]


def test_a_comment_that_is_not_above_a_fence_or_names_no_kind_is_no_marker() -> None:
    body = "<!-- gpu: a note to the next author -->\n\nText.\n\n<!-- TODO: more -->\n```py\nx = 1\n```\n"
    assert diagnostics(body) == []
