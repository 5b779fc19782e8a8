"""Gated models (issue 21, item 4): every code block naming one says, in one line under it, how to get access and
which open model the same code runs with; the setting is checked; and the CPU recipes run again with those ids."""

from __future__ import annotations

import ast
import dataclasses
import importlib
from pathlib import Path

import pytest
from perfdocs.dialect import Site
from perfdocs.gated import GatedModels, gated_models
from perfdocs.mkdocs_adapter import load_project
from perfdocs.pipeline import render_source
from perfdocs.theory import THEORY_DIR, SnippetLibrary

from .conftest import ROOT
from .recipes.blocks import PYTHON, SHELL, Block, chain, guide_blocks, needs_gpu, needs_own_environment

GATED = gated_models(
    {"access": "index.md#gated-models", "open": {"org/Model-8B": "open/Other-7B", "org/Model-8B-Chat": "open/C-7B"}}
)
SITE_GATED = load_project(ROOT / "mkdocs.yml").gated_models
DOCS = ROOT / "docs" / "performance"
BLOCKS = guide_blocks(DOCS)


def render(body: str, page: str = "performance/train/gpu_one.md", gated: GatedModels = GATED) -> str:
    library = SnippetLibrary(ROOT / "docs" / THEORY_DIR, ROOT)
    site = Site(page, frozenset({page, "index.md"}), gated=gated)
    rendered = render_source(f"# T\n\n{body}", page, library, ROOT, site=site)
    assert [d for d in rendered.diagnostics if d.level == "error"] == []
    return rendered.text


NOTE = (
    "`org/Model-8B` is gated: [get access](../../index.md#gated-models), "
    "or run this code with the open `open/Other-7B` in its place."
)
CLASS = "{: .perfdocs-gated }"


def test_a_block_naming_a_gated_id_gets_the_line_under_it() -> None:
    text = render('```python\nmodel = load("org/Model-8B")\n```\n\nAfter.\n')
    assert text.split("\n")[2:9] == ["```python", 'model = load("org/Model-8B")', "```", "", NOTE, CLASS, ""]


def test_the_line_stays_in_the_list_item_and_the_tab_of_its_block() -> None:
    listed = render('1. Step:\n\n   ```python\n   load("org/Model-8B")\n   ```\n2. Next.\n')
    lines = listed.split("\n")
    assert lines[lines.index("    " + NOTE) + 1] == "    " + CLASS
    tabbed = render(
        '<hfoptions id="api">\n<hfoption id="Trainer">\n\n```py\nload("org/Model-8B")\n```\n\n'
        "</hfoption>\n</hfoptions>\n"
    )
    note_line = next(line for line in tabbed.split("\n") if "is gated" in line)
    fence_line = next(line for line in tabbed.split("\n") if line.strip().startswith("```py"))
    assert note_line == fence_line[: len(fence_line) - len(fence_line.lstrip())] + NOTE


def test_whole_ids_only_and_each_once_in_order() -> None:
    assert GATED.named_in('a("org/Model-8B-Chat")') == [("org/Model-8B-Chat", "open/C-7B")]
    assert GATED.named_in("org/Model-8B-Chatty org/Model-8B2 xorg/Model-8B my-org/Model-8B") == []
    assert GATED.named_in("# see huggingface.co/org/Model-8B.") == [("org/Model-8B", "open/Other-7B")]
    assert GATED.named_in("org/Model-8B-Chat, then org/Model-8B, org/Model-8B-Chat") == [
        ("org/Model-8B-Chat", "open/C-7B"),
        ("org/Model-8B", "open/Other-7B"),
    ]
    two = render("```bash\nserve org/Model-8B-Chat --draft org/Model-8B\n```\n")
    assert (
        "`org/Model-8B-Chat` and `org/Model-8B` are gated: [get access](../../index.md#gated-models), "
        "or run this code with the open `open/C-7B` and `open/Other-7B` in their place.\n" + CLASS
    ) in two


def test_prose_inline_code_and_unset_settings_get_no_line() -> None:
    assert "is gated" not in render("Load `org/Model-8B` or org/Model-8B.\n")
    assert "is gated" not in render('```python\nload("org/Model-8B")\n```\n', gated=GatedModels())
    assert "is gated" not in render('```python\nload("open/Other-7B")\n```\n')


def test_the_link_is_relative_to_the_page() -> None:
    text = render('```python\nload("org/Model-8B")\n```\n', page="index.md")
    assert "[get access](index.md#gated-models)" in text


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            ["org/a"],
            "extra.perfdocs.gated_models must be a mapping with 'access' (page#section) and 'open' "
            "(gated id: open id) (got ['org/a'])",
        ),
        (
            {"access": "https://x.org/#a", "open": {}},
            "extra.perfdocs.gated_models.access: 'https://x.org/#a' is not a page of the docs",
        ),
        (
            {"access": "index.md#a", "open": ["org/a"]},
            "extra.perfdocs.gated_models.open must map each gated model id to an open one (got ['org/a'])",
        ),
        (
            {"access": "index.md#a", "open": {"org/a": "no-owner"}},
            "extra.perfdocs.gated_models.open: 'no-owner' is not a Hub model id",
        ),
        (
            {"access": "index.md#a", "open": {"org/a b": "o/b"}},
            "extra.perfdocs.gated_models.open: 'org/a b' is not a Hub model id",
        ),
        (
            {"access": "index.md#a", "open": {"org/a": "org/b", "org/b": "o/c"}},
            "extra.perfdocs.gated_models.open: org/b stands in for org/a but is gated itself",
        ),
    ],
)
def test_a_bad_setting_is_an_exact_error_and_adds_no_line(value: object, message: str) -> None:
    result = gated_models(value)
    assert [d.message for d in result.problems] == [message]
    assert all(d.code == "bad-config" and d.level == "error" for d in result.problems)
    assert "org/a" not in dict(result.open)


def test_errors_are_at_their_line_of_mkdocs_yml(tmp_path: Path) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "site_name: x\nextra:\n  perfdocs:\n    gated_models:\n      access: index.md#g\n      open:\n"
        "        org/a: bad\n",
        encoding="utf-8",
    )
    value = {"access": "index.md#g", "open": {"org/a": "bad"}}
    assert [str(d) for d in gated_models(value, config, "mkdocs.yml").problems] == [
        "mkdocs.yml:6:1: error: extra.perfdocs.gated_models.open: 'bad' is not a Hub model id [bad-config] "
        "(write owner/name, as in meta-llama/Llama-3.1-8B)"
    ]


# -- the guide ---------------------------------------------------------------------------------------------------
def test_the_site_setting_is_valid_and_names_the_access_section() -> None:
    assert SITE_GATED.problems == ()
    assert SITE_GATED.access == "index.md#gated-models"
    assert "## Gated models[[gated-models]]" in (ROOT / "docs" / "index.md").read_text(encoding="utf-8")


def fenced_blocks(text: str) -> list[tuple[str, int]]:
    """(code, line index of the closing fence) of each fenced block of rendered Markdown, read as CommonMark reads
    fences: opened by 3+ backticks, closed by a line of at least as many and nothing else, at any indentation
    (Python-Markdown's tabs and lists indent the blocks they hold)."""
    found, lines, opening = [], text.split("\n"), None
    for number, line in enumerate(lines):
        stripped = line.strip()
        ticks = len(stripped) - len(stripped.lstrip("`"))
        if opening is None and ticks >= 3:
            opening = (number, ticks)
        elif opening is not None and ticks >= opening[1] and stripped == "`" * ticks:
            found.append(("\n".join(lines[opening[0] + 1 : number]), number))
            opening = None
    return found


def test_every_block_of_the_guide_that_names_a_gated_model_says_so() -> None:
    library = SnippetLibrary(ROOT / "docs" / THEORY_DIR, ROOT)
    files = frozenset(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md"))
    noted = 0
    for path in sorted(DOCS.rglob("*.md")):
        if THEORY_DIR in path.parts:
            continue
        page = path.relative_to(ROOT / "docs").as_posix()
        site = Site(page, files, gated=SITE_GATED)
        text = render_source(path.read_text(encoding="utf-8"), page, library, ROOT, site=site).text
        lines = text.split("\n")
        for code, end in fenced_blocks(text):
            below = lines[end + 2].strip() if end + 2 < len(lines) else ""
            assert bool(SITE_GATED.named_in(code)) == ("gated: [get access](" in below), f"{page}: {code[:80]}"
            noted += bool(SITE_GATED.named_in(code))
    assert noted >= 40


def swapped(block: Block) -> Block:
    """The block with every gated id replaced by its open model (longest id first: -Instruct before its base)."""
    code = block.code
    for gated, alternative in SITE_GATED.open:
        code = code.replace(gated, alternative)
    return dataclasses.replace(block, code=code)


NAMING = [b for b in BLOCKS if SITE_GATED.named_in(b.code)]
CPU_CHAINS = [
    b
    for b in BLOCKS
    if b.lang in PYTHON
    and b.kind not in ("fragment", "script")
    and any(SITE_GATED.named_in(c.code) for c in chain(b, BLOCKS))
    and not needs_gpu(chain(b, BLOCKS))
    and not needs_own_environment(chain(b, BLOCKS))
]


def family_class_names(gated: str) -> set[str]:
    """The classes transformers names after a gated model's architecture (LlamaDecoderLayer...): code naming one
    would not run with another architecture."""
    from transformers import AutoConfig  # noqa: F401  (imports the models package)

    from .recipes.tiny import tiny_config

    model_type = tiny_config(gated).model_type
    module = importlib.import_module(f"transformers.models.{model_type}.modeling_{model_type}")
    prefix = type(tiny_config(gated)).__name__.removesuffix("Config")
    return {name for name in dir(module) if name.startswith(prefix) and name != prefix}


def test_the_guide_names_gated_models_and_runs_some_on_cpu() -> None:
    assert len(NAMING) >= 40 and len(CPU_CHAINS) >= 10


@pytest.mark.parametrize("block", NAMING, ids=[b.id for b in NAMING])
def test_no_block_naming_a_gated_model_names_its_architectures_classes(block: Block) -> None:
    pytest.importorskip("transformers")
    names = set().union(*(family_class_names(g) for g, _ in SITE_GATED.named_in(block.code)))
    if block.lang in PYTHON:
        tree = ast.parse(block.code)
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        used |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        used |= {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    else:
        assert block.lang in SHELL, block.id
        used = set(block.code.replace("=", " ").replace(",", " ").split())
    assert used & names == set()


@pytest.mark.parametrize("block", CPU_CHAINS, ids=[b.id for b in CPU_CHAINS])
def test_the_recipe_runs_with_the_open_models(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    from .recipes.runner import run_chain, training_problems, trains

    blocks = [swapped(b) for b in chain(block, BLOCKS)]
    assert not any(SITE_GATED.named_in(b.code) for b in blocks)
    monkeypatch.chdir(tmp_path)
    recorder = run_chain(blocks)
    if any("ForCausalLM.from_pretrained" in b.code for b in blocks):  # the prelude's own model is a Llama
        assert "Qwen2ForCausalLM" in {type(t.model).__name__ for t in recorder.models}
    if trains(block.code):
        assert training_problems(blocks, recorder) == []


def test_the_line_is_a_small_paragraph_the_sanitiser_keeps() -> None:
    import markdown
    from perfdocs.sanitize import clean_page
    from selectolax.lexbor import LexborHTMLParser

    text = render('```python\nload("org/Model-8B")\n```\n')
    html = markdown.markdown(text, extensions=["attr_list", "pymdownx.superfences"])
    cleaned, findings = clean_page(html)
    assert findings == []
    notes = LexborHTMLParser(cleaned).css("p.perfdocs-gated")
    assert [n.text() for n in notes] == [
        "org/Model-8B is gated: get access, or run this code with the open open/Other-7B in its place."
    ]
    assert "perfdocs-gated" in (ROOT / "docs" / "assets" / "perfdocs.css").read_text(encoding="utf-8")
