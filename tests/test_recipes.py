"""Every code block of the guide is a recipe: it runs on CPU, is deferred to the GPU script, or compiles.

One test per block, named by its file and line under docs/performance. See tests/recipes/ and the README
section "Recipes" for the marker convention, the tiny models and the prelude.
"""

from __future__ import annotations

import ast
import os
import textwrap
from pathlib import Path

import pytest

from .conftest import ROOT
from .recipes.blocks import (
    CONFIG,
    PYTHON,
    SHELL,
    Block,
    MarkerError,
    blocks_of,
    chain,
    guide_blocks,
    needs_gpu,
    needs_own_environment,
)
from .recipes.names import bound_names, free_names
from .recipes.prelude import PRELUDE_NAMES

DOCS = ROOT / "docs" / "performance"
BLOCKS = guide_blocks(DOCS)
PY = [b for b in BLOCKS if b.lang in PYTHON]
SH = [b for b in BLOCKS if b.lang in SHELL]
CFG = [b for b in BLOCKS if b.lang in CONFIG]


def _needs_extra() -> None:
    for module in ("torch", "accelerate", "peft", "datasets", "deepspeed"):
        if os.environ.get("CI"):  # CI installs the extra: a missing module there is a failure, not a skip
            __import__(module)
        else:
            pytest.importorskip(module, reason="recipes extra not installed: pip install -e '.[recipes]'")


def unresolved_names(blocks: list[Block]) -> list[str]:
    """Names the last block reads that neither it, the blocks before it, nor the prelude bind."""
    earlier = set().union(*(bound_names(ast.parse(b.code)) for b in blocks[:-1]))
    return sorted(free_names(blocks[-1].code) - earlier - set(PRELUDE_NAMES))


def _defer(reason: str) -> None:
    pytest.skip(f"deferred (needs a GPU): {reason}")


@pytest.mark.parametrize("block", PY, ids=[b.id for b in PY])
def test_python_recipe(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compile(block.code, block.id, "exec")  # every kind must at least compile
    blocks = chain(block, BLOCKS)
    # Every kind: the names it reads are bound in it, in the blocks it continues from, or in the prelude.
    assert unresolved_names(blocks) == [], f"{block.id}: reads names nobody defines"
    if block.kind == "fragment":
        return
    if block.kind == "script":  # its own test runs it, with a command line and whatever it talks to
        test = ROOT / block.reason
        assert test.is_file() and block.path in test.read_text(encoding="utf-8"), (
            f"{block.id}: the script marker names {block.reason}, which must be a test that reads {block.path}"
        )
        return
    if needs_gpu(blocks):
        _defer(needs_gpu(blocks))
    if needs_own_environment(blocks):
        pytest.skip(f"deferred (needs its own environment): {needs_own_environment(blocks)}")
    _needs_extra()
    from .recipes.runner import run_chain, training_problems, trains

    monkeypatch.chdir(tmp_path)
    recorder = run_chain(blocks)
    if trains(block.code):
        assert training_problems(blocks, recorder) == []


@pytest.mark.parametrize("block", SH, ids=[b.id for b in SH])
def test_shell_recipe(block: Block) -> None:
    _needs_extra()
    from .recipes.launchers import commands, shell_problems

    assert commands(block.code), f"{block.id}: shell block without a command"
    problems, _ = shell_problems(block.code)
    assert problems == []


@pytest.mark.parametrize("block", CFG, ids=[b.id for b in CFG])
def test_config_recipe(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _needs_extra()
    from .recipes.launchers import config_problems

    monkeypatch.chdir(tmp_path)
    assert config_problems(block.lang, block.code) == []


def test_every_block_has_a_known_language() -> None:
    unknown = [f"{b.id}: ```{b.lang}" for b in BLOCKS if b.lang not in PYTHON | SHELL | CONFIG | {"text"}]
    assert unknown == []


def test_gpu_markers_sit_on_python_blocks_only() -> None:
    assert [b.id for b in BLOCKS if b.kind != "run" and b.lang not in PYTHON] == []


# --- the finder, the markers and the chain -------------------------------------------------------------

PAGE = textwrap.dedent(
    """\
    ---
    title: t
    ---
    # T

    <hfoptions id="api">
    <hfoption id="Trainer">
    ```py
    a = 1
    ```
    </hfoption>
    <hfoption id="PyTorch">
    <!-- recipe: continues -->
    ```python
    b = 2
    ```
    </hfoption>
    </hfoptions>

    <Tip>
    <!-- recipe: gpu: CUDA graphs -->
    ```python
    c = 3
    ```
    </Tip>

    <!-- recipe: fragment -->
    ```python
    model.train()
    ```
    """
)


def test_blocks_inside_components_are_found_with_their_lines_kinds_and_tabs() -> None:
    found = [(b.line, b.lang, b.kind, b.reason, b.tab, b.code) for b in blocks_of(PAGE, "p.md")]
    assert found == [
        (8, "py", "run", "", "Trainer", "a = 1\n"),
        (14, "python", "continues", "", "PyTorch", "b = 2\n"),
        (22, "python", "gpu", "CUDA graphs", "", "c = 3\n"),
        (28, "python", "fragment", "", "", "model.train()\n"),
    ]


def test_a_continued_tab_runs_after_the_block_before_the_tabs_not_after_its_sibling() -> None:
    page = "```py\nsetup = 1\n```\n\n<hfoptions id='a'>\n" + PAGE.split("# T\n", 1)[1].replace(
        '<hfoption id="Trainer">\n```py', '<hfoption id="Trainer">\n<!-- recipe: continues -->\n```py'
    )
    blocks = blocks_of(page, "p.md")
    assert [b.code for b in chain(blocks[2], blocks)] == ["setup = 1\n", "b = 2\n"]
    assert [b.code for b in chain(blocks[1], blocks)] == ["setup = 1\n", "a = 1\n"]


def test_continues_can_need_a_gpu() -> None:
    page = "```py\nx = 1\n```\n\n<!-- recipe: continues, gpu: 4-bit weights -->\n```py\ny = x\n```\n"
    blocks = blocks_of(page, "p.md")
    assert [(b.kind, b.reason) for b in blocks] == [("run", ""), ("continues", "4-bit weights")]
    assert needs_gpu(chain(blocks[1], blocks)) == "4-bit weights"


def test_separate_env_blocks_are_deferred_with_their_reason_never_run_as_gpu_work() -> None:
    blocks = blocks_of("<!-- recipe: separate-env: optimum-intel pins Transformers 4 -->\n```py\nx = 1\n```\n", "p.md")
    assert [(b.kind, b.reason) for b in blocks] == [("separate-env", "optimum-intel pins Transformers 4")]
    assert needs_own_environment(blocks) == "optimum-intel pins Transformers 4"
    assert needs_gpu(blocks) == ""  # bench/recipes_gpu.py does not take it


def test_a_marker_not_directly_above_the_fence_does_not_apply() -> None:
    assert [b.kind for b in blocks_of("<!-- recipe: fragment -->\n\n```py\nx = 1\n```\n", "p.md")] == ["run"]


@pytest.mark.parametrize(
    "marker, message",
    [
        (
            "<!-- recipe: gpus: x -->",
            "p.md:1: unknown recipe marker '<!-- recipe: gpus: x -->': use gpu: <reason>, fragment, script: <test file>,"
            " continues or separate-env: <reason>",
        ),
        (
            "<!-- recipe: script -->",
            "p.md:1: a script marker needs a reason: <!-- recipe: script: <why> -->",
        ),
        ("<!-- recipe: gpu -->", "p.md:1: a gpu marker needs a reason: <!-- recipe: gpu: <why> -->"),
        (
            "<!-- recipe: separate-env -->",
            "p.md:1: a separate-env marker needs a reason: <!-- recipe: separate-env: <why> -->",
        ),
        (
            "<!-- recipe: continues, fragment -->",
            "p.md:1: only a gpu marker can follow 'continues,': '<!-- recipe: continues, fragment -->'",
        ),
        (
            "<!-- recipe: fragment: short -->",
            "p.md:1: the fragment marker takes no reason: '<!-- recipe: fragment: short -->'",
        ),
    ],
)
def test_bad_markers_are_errors_with_their_location(marker: str, message: str) -> None:
    with pytest.raises(MarkerError) as exc:
        blocks_of(f"{marker}\n```py\nx = 1\n```\n", "p.md")
    assert str(exc.value) == message


def test_continues_without_a_block_before_it_is_an_error() -> None:
    blocks = blocks_of("<!-- recipe: continues -->\n```py\nx = 1\n```\n", "p.md")
    with pytest.raises(MarkerError) as exc:
        chain(blocks[0], blocks)
    assert str(exc.value) == "p.md:2: 'continues' but no Python block comes before it in p.md"


def test_free_names_are_the_names_a_block_does_not_bind() -> None:
    code = "import torch as t\nfrom x import y\ndef f(a):\n    return a + b\nfor i in range(3):\n    z = model(i, y)\n"
    assert free_names(code) == {"b", "model"}


def test_a_name_read_before_the_block_binds_it_is_free() -> None:
    assert free_names("model, opt = prepare(model, opt)\nmodel.train()\n") == {"model", "opt", "prepare"}


def test_the_guide_has_every_kind_of_recipe() -> None:
    kinds = {b.kind for b in PY}
    assert kinds == {"run", "gpu", "fragment", "script", "continues", "separate-env"}
    assert len(SH) >= 10 and len(CFG) >= 4


# --- the judge: what counts as "trained" -----------------------------------------------------------------

OLD_QLORA_LABELS = """\
from transformers import DataCollatorForLanguageModeling, Trainer, TrainingArguments

tokenizer.pad_token = tokenizer.eos_token
ds = train_ds.remove_columns("labels")  # the old recipe: labels built by the collator from input_ids
collator = DataCollatorForLanguageModeling(tokenizer, mlm=False, pad_to_multiple_of=8)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, max_steps=4, learning_rate=1e-3)
trainer = Trainer(model=model, args=args, train_dataset=ds, data_collator=collator)
trainer.train()
"""


def _block(code: str, kind: str = "run", reason: str = "") -> Block:
    return Block("t.md", 1, "python", kind, reason, code, "")


def test_the_old_pad_equals_eos_collator_is_caught_untraining_eos(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _needs_extra()
    from .recipes.runner import run_chain, training_problems

    monkeypatch.chdir(tmp_path)
    block = _block(OLD_QLORA_LABELS)
    problems = training_problems([block], run_chain([block]))
    # 32 examples, 4 steps of 4: 16 real EOS tokens seen, every one masked like padding.
    assert problems == ["16 of 16 real EOS tokens have label -100: the model never learns to stop"]


def test_the_fixed_collator_trains_every_eos(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _needs_extra()
    from .recipes.runner import run_chain, training_problems

    monkeypatch.chdir(tmp_path)
    fixed = (
        OLD_QLORA_LABELS.replace('ds = train_ds.remove_columns("labels")', "ds = train_ds")
        .replace(
            "DataCollatorForLanguageModeling(tokenizer, mlm=False, pad_to_multiple_of=8)",
            "DataCollatorForSeq2Seq(tokenizer, pad_to_multiple_of=8)",
        )
        .replace("DataCollatorForLanguageModeling,", "DataCollatorForSeq2Seq,")
    )
    block = _block(fixed)
    assert training_problems([block], run_chain([block])) == []


LORA_ON_THE_RECIPE_DATA = """\
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

model = get_peft_model(AutoModelForCausalLM.from_pretrained(model_id), lora_config)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, max_steps=4, learning_rate=1e-3)
Trainer(model=model, args=args, train_dataset=train_ds, data_collator=collator).train()
"""


def test_the_qlora_recipe_data_trains_eos_under_lora_on_cpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The QLoRA page's data setup runs on CPU; its 4-bit model needs a GPU, so LoRA on the same data stands in."""
    _needs_extra()
    from .recipes.runner import run_chain, training_problems

    [setup] = [b for b in PY if b.path == "train/gpu_one.md" and "def tokenize(batch)" in b.code]
    assert setup.kind == "run"
    monkeypatch.chdir(tmp_path)
    blocks = [setup, _block(LORA_ON_THE_RECIPE_DATA)]
    assert training_problems(blocks, run_chain(blocks)) == []


def test_a_loop_that_never_steps_is_not_training(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _needs_extra()
    from .recipes.runner import run_chain, training_problems

    monkeypatch.chdir(tmp_path)
    block = _block("for batch in dataloader:\n    model(**batch).loss.backward()\n    optimizer.zero_grad()\n")
    [problem] = training_problems([block], run_chain([block]))
    assert problem.startswith("LlamaForCausalLM: probe loss did not decrease: ")


COMPILES_FROZEN = """\
import torch
import torch._inductor.config as inductor_config

inductor_config.freezing = True
torch.compile(torch.nn.functional.silu)(torch.ones(2))
"""


def test_a_recipe_leaves_no_compiled_frame_and_no_inductor_setting_to_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each recipe runs as in a process of its own: cpu.md's `freezing = True` must not reach later recipes, and
    a later recipe compiling the same function compiles it again, not reuse (or recompile) an earlier one's."""
    _needs_extra()
    import torch._inductor.config
    from torch._dynamo.utils import counters

    from .recipes.runner import run_chain

    monkeypatch.chdir(tmp_path)
    graphs = counters["stats"]["unique_graphs"]
    run_chain([_block(COMPILES_FROZEN)])
    assert torch._inductor.config.freezing is False
    run_chain([_block(COMPILES_FROZEN)])
    assert counters["stats"]["unique_graphs"] == graphs + 2


def test_gpu_blocks_are_deferred_with_their_reason_never_passed() -> None:
    with pytest.raises(pytest.skip.Exception) as exc:
        _defer(needs_gpu([_block("x = 1\n"), _block("y = x\n", kind="continues", reason="CUDA graphs")]))
    assert str(exc.value.msg) == "deferred (needs a GPU): CUDA graphs"


def test_an_unknown_hub_id_names_the_file_to_extend() -> None:
    from .recipes.tiny import tiny_config

    with pytest.raises(KeyError) as exc:
        tiny_config("acme/giant-1T")
    assert exc.value.args[0] == (
        "recipe names hub model 'acme/giant-1T', which has no tiny stand-in: add it to MODELS in tests/recipes/tiny.py"
    )


def test_the_tiny_decoder_tokenizer_behaves_like_mistrals() -> None:
    pytest.importorskip("tokenizers")
    from .recipes.tiny import tiny_tokenizer

    tok = tiny_tokenizer("decoder")
    ids = tok("the model learns")["input_ids"]
    assert tok.pad_token is None  # no pad token of its own
    assert ids[0] == tok.bos_token_id and tok.eos_token_id not in ids  # BOS prepended, no EOS appended


def test_the_stand_in_loader_applies_the_tokenizer_settings_a_recipe_passes() -> None:
    pytest.importorskip("transformers")
    from transformers import AutoTokenizer

    from .recipes.tiny import patched_hub

    with patched_hub():
        left = AutoTokenizer.from_pretrained("meta-llama/Llama-3.1-8B-Instruct", padding_side="left")
        default = AutoTokenizer.from_pretrained("meta-llama/Llama-3.1-8B-Instruct")
    left.pad_token = left.eos_token
    batch = left(["the model", "the model learns to stop"], padding=True)["input_ids"]
    assert batch[0][0] == left.pad_token_id and batch[0][-1] != left.pad_token_id  # padded on the left
    assert default.padding_side == "right"


# --- the tested-with badge -----------------------------------------------------------------------------


def _pyproject_pins() -> list[str]:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"][
        "recipes"
    ]


def test_the_badge_names_every_pin_of_the_recipes_extra() -> None:
    from perfdocs.badges import tested_with_badge

    lines, problems = tested_with_badge(ROOT)
    assert problems == []
    [line] = lines
    pins = [p.split("==") for p in _pyproject_pins()]
    assert line.startswith("**Tested with** " + ", ".join(f"`{name} {version}`" for name, version in pins) + ".")


def test_the_pins_are_what_the_recipes_ran_with() -> None:
    from importlib import metadata

    _needs_extra()
    # The local version label (torch's "+cu130") is not part of the pin.
    installed = [
        f"{name}=={metadata.version(name).split('+')[0]}" for name, _ in (p.split("==") for p in _pyproject_pins())
    ]
    assert installed == _pyproject_pins()


@pytest.mark.parametrize(
    "extra, message",
    [
        (
            '["torch>=2.14"]',
            "pyproject.toml:3:1: error: 'torch>=2.14' is not an exact pin: the badge needs name==version [recipes-pins]",
        ),
        ("[]", "pyproject.toml:3:1: error: no 'recipes' extra in [project.optional-dependencies] [recipes-pins]"),
        ('["torch==="]', "pyproject.toml:3:1: error: 'torch===' is not a requirement: "),
    ],
)
def test_bad_pins_are_located_errors(extra: str, message: str) -> None:
    from perfdocs.badges import recipe_pins

    pins, problems = recipe_pins(f"[project]\n[project.optional-dependencies]\nrecipes = {extra}\n")
    assert pins == [] and len(problems) == 1
    assert str(problems[0]).startswith(message)


def test_generated_components_fill_the_badge_only_where_a_page_asks() -> None:
    from perfdocs.matrix import generated_components
    from perfdocs.theory import SnippetLibrary

    library = SnippetLibrary(DOCS / "_theory", ROOT)
    assert "TestedWith" not in generated_components("# Page\n", library, {}, "train/gpu_one.md")
    badge = generated_components("# Page\n\n<TestedWith/>\n", library, {}, "train/gpu_one.md")["TestedWith"]
    assert "`torch 2.14.1`" in badge[0]


def test_every_scenario_page_of_this_helper_shows_the_badge() -> None:
    for page in ("train/gpu_one.md", "train/gpu_many.md", "scalability.md"):
        assert "\n<TestedWith/>\n" in (DOCS / page).read_text(encoding="utf-8"), page


# --- the GPU script ------------------------------------------------------------------------------------


def test_the_gpu_script_plans_every_gpu_recipe_without_importing_torch() -> None:
    import subprocess
    import sys

    probe = (
        "import runpy, sys; sys.argv = ['recipes_gpu.py', '--list']\n"
        "try:\n    runpy.run_path('bench/recipes_gpu.py', run_name='__main__')\n"
        "except SystemExit as exit:\n    assert exit.code == 0, exit.code\n"
        "print('torch imported' if 'torch' in sys.modules else 'no torch')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    gpu = [b for b in PY if b.kind != "fragment" and needs_gpu(chain(b, BLOCKS))]
    assert lines[-2:] == [f"{len(gpu)} GPU recipes", "no torch"]
    listed = [line.split()[0] for line in lines[1:-2]]
    assert listed == [b.id for b in gpu]


@pytest.mark.parametrize(
    "code, expected",
    [
        ("trainer.train()\n", True),
        ("Trainer(model=model, args=args).train()\n", True),
        ("accelerator.backward(loss)\n", True),
        ("model.train()\n", False),
        ("args = TrainingArguments(output_dir='out')\n", False),
    ],
)
def test_which_blocks_count_as_training(code: str, expected: bool) -> None:
    from .recipes.runner import trains

    assert trains(code) is expected
