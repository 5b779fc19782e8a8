"""The guide's code cannot drift from the libraries: Python parses, Trainer arguments exist."""

from __future__ import annotations

import ast
import dataclasses
import shlex
from pathlib import Path

import pytest

from .conftest import ROOT
from .recipes.blocks import PYTHON as PYTHON_LANGS
from .recipes.blocks import SHELL as SHELL_LANGS
from .recipes.blocks import guide_blocks

DOCS = ROOT / "docs" / "performance"
# Arguments of the Hugging Face example scripts (run_clm.py and friends) that are not TrainingArguments.
SCRIPT_ARGS = {
    "model_name_or_path",
    "config_name",
    "tokenizer_name",
    "dataset_name",
    "dataset_config_name",
    "train_file",
    "validation_file",
    "max_seq_length",
    "block_size",
    "max_train_samples",
    "max_eval_samples",
    "preprocessing_num_workers",
    "overwrite_cache",
    "trust_remote_code",
    "use_fast_tokenizer",
    "cache_dir",
    "model_revision",
    "torch_dtype",
    "dtype",
    "streaming",
    "source_lang",
    "target_lang",
    "max_source_length",
    "max_target_length",
    "pad_to_max_length",
    "text_column",
    "summary_column",
    "task_name",
    "low_cpu_mem_usage",
}
LAUNCHERS = ("python", "python3", "torchrun", "accelerate", "deepspeed")


def blocks(languages: frozenset[str]) -> list[tuple[str, int, str]]:
    """(docs/performance/page:line, line, code) of every fenced block in ``languages``, found with markdown-it-py."""
    return [(f"docs/performance/{b.id}", b.line, b.code) for b in guide_blocks(DOCS) if b.lang in languages]


PYTHON = blocks(PYTHON_LANGS)
SHELL = blocks(SHELL_LANGS)


def training_argument_names() -> set[str]:
    transformers = pytest.importorskip("transformers", reason="test extra not installed: pip install -e '.[test]'")
    return {f.name for f in dataclasses.fields(transformers.TrainingArguments)}


def test_the_guide_has_code() -> None:
    assert len(PYTHON) >= 50 and len(SHELL) >= 5


@pytest.mark.parametrize("where, line, code", PYTHON, ids=[w for w, _, _ in PYTHON])
def test_python_blocks_parse(where: str, line: int, code: str) -> None:
    try:
        ast.parse(code)
    except SyntaxError as exc:
        pytest.fail(f"{where}: code block does not parse: {exc.msg} (block line {exc.lineno})")


def test_training_arguments_keywords_exist() -> None:
    names = training_argument_names()
    unknown, calls = [], 0
    for where, _, code in PYTHON:
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in {
                "TrainingArguments",
                "Seq2SeqTrainingArguments",
            }:
                calls += 1
                unknown += [
                    f"{where}: TrainingArguments({k.arg}=...)"
                    for k in node.keywords
                    if k.arg is not None and k.arg not in names
                ]
    assert calls >= 5, "the guide should show TrainingArguments in its recipes"
    assert unknown == []


def script_flags(command: str) -> list[str]:
    """Flags given to a Trainer script of a launcher command line (not to the launcher).

    Trainer scripts are the Transformers examples (``run_*.py``) and the guide's own ``train*.py``; other
    scripts (llama.cpp's converter, nccl-tests) have flags of their own.
    """
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return []
    if not words or Path(words[0]).name not in LAUNCHERS:
        return []
    script = next((i for i, w in enumerate(words) if w.endswith(".py")), None)
    if script is None or not Path(words[script]).name.startswith(("run_", "train")):
        return []
    return [w[2:].split("=", 1)[0] for w in words[script + 1 :] if w.startswith("--")]


def test_trainer_cli_flags_exist() -> None:
    names = training_argument_names() | SCRIPT_ARGS
    unknown, seen = [], 0
    for where, _, code in SHELL:
        for command in code.replace("\\\n", " ").splitlines():
            for flag in script_flags(command.strip().removeprefix("$ ")):
                seen += 1
                if flag not in names:
                    unknown.append(f"{where}: --{flag}")
    assert unknown == []
    assert seen > 0, "no Trainer command line found in the guide"


@pytest.mark.parametrize(
    "command, flags",
    [
        (
            "torchrun --nproc_per_node 8 run_clm.py --bf16 --per_device_train_batch_size=4",
            ["bf16", "per_device_train_batch_size"],
        ),
        ("accelerate launch --num_processes 2 train.py --output_dir out", ["output_dir"]),
        ("pip install -U transformers --pre", []),
        ("python convert_hf_to_gguf.py ./model --outtype q8_0", []),
    ],
)
def test_script_flags_only_counts_the_script(command: str, flags: list[str]) -> None:
    assert script_flags(command) == flags
