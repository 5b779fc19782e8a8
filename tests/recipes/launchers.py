"""Shell recipes and config files, checked against the installed launchers' own parsers and schemas.

Shell blocks are validated, not executed: every ``accelerate``, ``torchrun`` and ``deepspeed`` command line
must parse with that launcher's argument parser, and ``pip install`` must name real packages. Config files are
loaded by the classes that read them at launch: Accelerate's ``ClusterConfig`` (and its ``--fsdp_*`` /
DeepSpeed flags for the nested sections), DeepSpeed's ``DeepSpeedConfig`` after Transformers filled the
``"auto"`` values the way the Trainer does.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shlex
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

# Packages the guide tells readers to install that the recipes extra does not hold (GPU-only or too heavy
# for CI); names as on PyPI.
KNOWN_NOT_INSTALLED = frozenset(
    {
        "flash-attn",
        "liger-kernel",
        "optimum",
        "optimum-intel",
        "optimum-onnx",
        "onnxruntime",
        "onnxruntime-gpu",
        "openvino",
        "vllm",
        "sglang",
        "torchao",
        "kernels",
        "auto-gptq",
        "gptqmodel",
        "autoawq",
        "llama-cpp-python",
        "intel-extension-for-pytorch",
        "oneccl-bind-pt",
        "text-generation-inference",
        "triton",
    }
)


def _accelerate_parser() -> argparse.ArgumentParser:
    from accelerate.commands.accelerate_cli import (
        CustomArgumentParser,
        env_command_parser,
        estimate_command_parser,
        get_config_parser,
        launch_command_parser,
        merge_command_parser,
        test_command_parser,
        to_fsdp2_command_parser,
        tpu_command_parser,
    )

    parser = CustomArgumentParser("accelerate", allow_abbrev=False)
    subparsers = parser.add_subparsers()
    for register in (
        get_config_parser,
        estimate_command_parser,
        env_command_parser,
        launch_command_parser,
        merge_command_parser,
        tpu_command_parser,
        test_command_parser,
        to_fsdp2_command_parser,
    ):
        register(subparsers=subparsers)
    return parser


def _parse(parse: Callable[[list[str]], Any], argv: list[str]) -> str | None:
    """None when argparse accepts ``argv``, else what it printed (it exits on errors)."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            parse(argv)
    except SystemExit as exc:
        if exc.code not in (0, None):
            return err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else f"exit {exc.code}"
    return None


def check_launcher(words: list[str]) -> str | None:
    """A launcher command line (already split) -> None if its launcher accepts the flags, else the error."""
    name = words[0]
    if name == "accelerate":
        return _parse(_accelerate_parser().parse_args, words[1:])
    if name == "torchrun":
        from torch.distributed.run import get_args_parser

        return _parse(get_args_parser().parse_args, words[1:])
    if name == "deepspeed":
        from deepspeed.launcher.runner import parse_args

        return _parse(parse_args, words[1:])
    raise ValueError(f"not a launcher: {name}")


def check_pip(words: list[str]) -> list[str]:
    """``pip install`` arguments that name no real package (options and local paths are skipped)."""
    from packaging.requirements import InvalidRequirement, Requirement

    bad = []
    for word in words[2:]:
        if word.startswith("-") or word in {".", ".."} or "/" in word:
            continue
        try:
            name = Requirement(word).name.lower().replace("_", "-")
        except InvalidRequirement:
            bad.append(f"{word!r} is not a requirement")
            continue
        if name in KNOWN_NOT_INSTALLED:
            continue
        try:
            metadata.distribution(name)
        except metadata.PackageNotFoundError:
            bad.append(f"{name!r} is neither installed nor in KNOWN_NOT_INSTALLED (tests/recipes/launchers.py)")
    return bad


def commands(script: str) -> list[list[str]]:
    """The command lines of a shell block, split like a shell would (continuations joined, comments dropped,
    ``VAR=value`` prefixes and ``$`` prompts removed)."""
    out = []
    for line in script.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        if words and words[0] == "$":
            words = words[1:]
        while words and "=" in words[0] and not words[0].startswith("-"):
            words = words[1:]
        if words:
            out.append(words)
    return out


def shell_problems(script: str) -> tuple[list[str], int]:
    """(problems, number of command lines checked against a parser or the package index)."""
    problems, checked = [], 0
    for words in commands(script):
        if words[0] in {"accelerate", "torchrun", "deepspeed"}:
            checked += 1
            error = check_launcher(words)
            if error:
                problems.append(f"{shlex.join(words)}: {error}")
        elif words[:2] == ["pip", "install"]:
            checked += 1
            problems += [f"{shlex.join(words)}: {p}" for p in check_pip(words)]
    return problems, checked


def accelerate_config_problems(text: str) -> list[str]:
    """An Accelerate config file as ``accelerate launch --config_file`` reads it."""
    from accelerate.commands.config.config_args import ClusterConfig

    data = yaml.safe_load(text)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "config.yaml")
        path.write_text(text, encoding="utf-8")
        try:
            ClusterConfig.from_yaml_file(str(path))
        except (TypeError, ValueError) as exc:
            return [f"accelerate cannot load the config: {str(exc).replace(str(path), 'the file')}"]
    flags = {a.dest for a in _launch_parser()._actions}
    problems = []
    for section in ("fsdp_config", "deepspeed_config", "megatron_lm_config"):
        for key in data.get(section) or {}:
            if key not in flags:
                problems.append(f"{section}.{key} is not an accelerate launch option")
    return problems


def _launch_parser() -> argparse.ArgumentParser:
    from accelerate.commands.launch import launch_command_parser

    parser: argparse.ArgumentParser = launch_command_parser()
    return parser


def deepspeed_config_problems(text: str) -> list[str]:
    """A DeepSpeed JSON as the Trainer hands it to DeepSpeed: autos filled from TrainingArguments, then
    DeepSpeed's own config classes (pydantic models) validate it."""
    from deepspeed.runtime.config import DeepSpeedConfig
    from transformers import TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    config = json.loads(text)
    hf = HfTrainerDeepSpeedConfig(config)
    args = TrainingArguments(output_dir="ds-check", per_device_train_batch_size=2, gradient_accumulation_steps=4)
    hf.trainer_config_process(args)
    hf.fill_match("zero_optimization.reduce_bucket_size", 64 * 64)
    hf.fill_match("zero_optimization.stage3_prefetch_bucket_size", int(0.9 * 64 * 64))
    hf.fill_match("zero_optimization.stage3_param_persistence_threshold", 10 * 64)
    hf.fill_match("scheduler.params.total_num_steps", 100)
    hf.fill_match("scheduler.params.warmup_num_steps", 10)
    if hf.mismatches:
        return [f"config disagrees with TrainingArguments: {m}" for m in hf.mismatches]
    leftover = [k for k, v in _flatten(hf.config).items() if v == "auto"]
    if leftover:
        return [f"'auto' the Trainer cannot fill: {', '.join(leftover)}"]
    try:
        DeepSpeedConfig(hf.config)
    except Exception as exc:  # DeepSpeed raises pydantic ValidationError, AssertionError or its own errors
        return [f"DeepSpeed rejects the config: {type(exc).__name__}: {str(exc).splitlines()[0]}"]
    return []


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            flat |= _flatten(value, f"{prefix}{key}.")
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def config_problems(lang: str, text: str) -> list[str]:
    if lang == "json":
        return deepspeed_config_problems(text)
    return accelerate_config_problems(text)
