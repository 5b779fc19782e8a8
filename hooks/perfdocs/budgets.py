"""``<MemoryBudget .../>``: memory figures and tables generated from the memory model, never typed.

A page states a budget as attributes (the model, the workload) and the build writes the numbers, so the prose, the
tables and the in-page calculator (``docs/assets/estimator.js``, a port of ``memory.py`` checked for parity in
Chromium) cannot disagree. On a line of its own the component is a table of the breakdown; with ``show="..."``
it is one figure inside a sentence or a table cell. ``<MemoryEstimator/>`` is where the calculator goes: its
presets, card sizes and labels are written into the page from here, so they are not typed twice.

Pure: functions return their text and the problems found (``Problem``); the dialect reports them at the tag.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, get_args
from urllib.parse import urlencode

from . import memory
from .diagnostics import did_you_mean

__all__ = [
    "ATTRIBUTES",
    "EXTRA_PRESETS",
    "PRESETS",
    "CARDS_GB",
    "SHOW",
    "Problem",
    "estimator_html",
    "estimator_data",
    "figure",
    "fits",
    "format_amount",
    "render_budget",
]

# The attributes the dialect parses (kinds: "req" a required string, "str" a string, "bool" {true}/{false}).
ATTRIBUTES: dict[str, str] = {
    "model": "req",
    "mode": "str",
    "precision": "str",
    "autocast": "bool",
    "optimizer": "str",
    "finetune": "str",
    "rank": "str",
    "targets": "str",
    "lora_dropout": "str",
    "checkpointing": "bool",
    "attention": "str",
    "batch": "str",
    "seq_len": "str",
    "quantization": "str",
    "double_quant": "bool",
    "kv_dtype": "str",
    "sharding": "str",
    "gpus": "str",
    "offload_optimizer": "bool",
    "offload_params": "bool",
    "device": "str",
    "prefill_chunk": "str",
    "show": "str",
    "unit": "str",
    "bare": "bool",
    "card": "str",
}

# Small models the CPU and speculative-decoding sections use, beside memory.py's presets. Public config.json facts
# (Hugging Face hub, the repository named in each comment); tests/test_budgets.py checks each parameter count
# against the published one.
EXTRA_PRESETS: dict[str, dict[str, Any]] = {
    # Qwen/Qwen2.5-0.5B: 494,032,768 parameters
    "Qwen2.5-0.5B": {
        "model_type": "qwen2",
        "hidden_size": 896,
        "intermediate_size": 4864,
        "num_hidden_layers": 24,
        "num_attention_heads": 14,
        "num_key_value_heads": 2,
        "vocab_size": 151936,
        "use_sliding_window": False,
        "tie_word_embeddings": True,
    },
    # Qwen/Qwen2.5-1.5B: 1,543,714,304 parameters
    "Qwen2.5-1.5B": {
        "model_type": "qwen2",
        "hidden_size": 1536,
        "intermediate_size": 8960,
        "num_hidden_layers": 28,
        "num_attention_heads": 12,
        "num_key_value_heads": 2,
        "vocab_size": 151936,
        "use_sliding_window": False,
        "tie_word_embeddings": True,
    },
    # meta-llama/Llama-3.2-1B: 1,235,814,400 parameters
    "Llama-3.2-1B": {
        "model_type": "llama",
        "hidden_size": 2048,
        "intermediate_size": 8192,
        "num_hidden_layers": 16,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 64,
        "vocab_size": 128256,
        "tie_word_embeddings": True,
    },
}
PRESETS: dict[str, dict[str, Any]] = {**memory.PRESET_CONFIGS, **EXTRA_PRESETS}

# Common accelerator sizes, GB as sold. A card is counted at its nominal size in 10^9 bytes, at or below what it
# really holds (a "24 GB" card has 24 GiB), and the upper end of the CUDA context range is kept free.
CARDS_GB = (16, 24, 40, 48, 80, 141)
HEADROOM = next(o.high for o in memory.OVERHEADS if o.name == "cuda_context") or 0.0

TERM_LABELS = {
    "weights": "Weights",
    "adapter_weights": "LoRA adapters (fp32)",
    "gradients": "Gradients",
    "master_weights": "fp32 master weights",
    "optimizer_states": "Optimizer states",
    "gathered_params": "Gathered layer (ZeRO-3)",
    "autocast_copies": "bf16 weight copies (autocast)",
    "activations": "Activations",
    "logits": "Logits and loss",
    "kv_cache": "KV cache",
}
SUMMABLE = memory.TERM_NAMES + tuple(f"{name}.host" for name in memory.TERM_NAMES)  # show="a+b" takes these
STATES = ("weights", "adapter_weights", "gradients", "master_weights", "optimizer_states", "gathered_params")
# What show="..." can name: a term, or one of these.
SHOW = {
    "total": "the per-GPU total",
    "host": "the host RAM total",
    "states": "the model states per GPU (weights, adapters, gradients, master weights, optimizer states)",
    "params": "the parameter count",
    "trainable": "the trainable parameter count",
    "kv_per_token": "the KV cache of one token of one sequence, per GPU",
    "kv_room": "what a card= of that many GB has left for the KV cache after everything else and the CUDA context",
    "kv_tokens": "how many tokens of KV cache fit in kv_room",
    "kv_seqs": "how many sequences of seq_len tokens (their whole KV cache) fit in kv_room",
    "layer_activations": "what one decoder layer saves for the backward (training)",
    "korthikanti": "Korthikanti et al.'s s*b*h*(34 + 5as/h) over all layers (scores only with eager attention)",
    **{name: label for name, label in TERM_LABELS.items()},
    **{f"{name}.host": f"{label} in host RAM" for name, label in TERM_LABELS.items() if name in STATES},
}
UNITS = {"GB": 1e9, "GiB": 2**30, "MB": 1e6, "MiB": 2**20, "KiB": 2**10, "bytes/param": 0.0, "B": 1e9, "M": 1e6}
COUNTS = ("params", "trainable")  # shown in B (10^9) or M (10^6) parameters
TOKENS = ("kv_tokens",)  # a number of tokens, to three significant digits
SEQUENCES = ("kv_seqs",)  # a whole number of sequences, rounded down
BYTES_UNITS = ("GB", "GiB", "MB", "MiB", "KiB", "bytes/param")

OPTIMIZER_NAMES = {
    "adamw": "AdamW",
    "adamw_8bit": "8-bit AdamW",
    "paged_adamw_8bit": "paged 8-bit AdamW",
    "adafactor": "Adafactor",
    "sgd": "SGD",
    "sgd_momentum": "SGD with momentum",
}
PRECISION_NAMES = {"fp32": "fp32", "mixed": "mixed precision (bf16, fp32 master)", "bf16": "pure bf16"}
SHARDING_NAMES = {
    "zero1": "ZeRO-1",
    "zero2": "ZeRO-2",
    "zero3": "ZeRO-3",
    "fsdp_shard_grad_op": "FSDP SHARD_GRAD_OP",
    "fsdp_full_shard": "FSDP FULL_SHARD",
}


@dataclass(frozen=True)
class Problem:
    """A bad attribute value: the message and a hint (did you mean, or what is allowed)."""

    message: str
    hint: str | None = None


def format_amount(value: float) -> str:
    """A figure at about three significant digits, the way the calculator shows it (estimator.js ``fmt``): halves
    round up in both (Python's round() and format() round them to even, JavaScript's toFixed does not)."""
    if value == 0:
        return "0"
    if value < 0.01:
        return "< 0.01"
    digits = 0 if value >= 100 else 1 if value >= 10 else 2
    whole, fraction = divmod(math.floor(value * 10**digits + 0.5), 10**digits)
    if digits and whole >= 10 ** (3 - digits):  # 9.996 -> 10.0, 99.96 -> 100
        digits -= 1
        whole, fraction = divmod(math.floor(value * 10**digits + 0.5), 10**digits)
    return f"{whole:,}" + (f".{fraction:0{digits}d}" if digits else "")


def fits(total: float) -> list[int]:
    """The cards of ``CARDS_GB`` that hold ``total`` bytes with the CUDA context's upper bound kept free."""
    return [card for card in CARDS_GB if total + HEADROOM <= card * 1e9]


def _preset(name: str) -> tuple[str | None, Problem | None]:
    if not name.strip():
        return None, None  # the dialect reports the missing model="..." attribute
    by_lower = {key.lower(): key for key in PRESETS}
    key = by_lower.get(name.strip().lower())
    if key is None:
        hint = did_you_mean(name, PRESETS) or "presets: " + ", ".join(PRESETS)
        return None, Problem(f"unknown model '{name}' in <MemoryBudget>", hint)
    return key, None


def _choice(attr: str, value: str, choices: tuple[str, ...], problems: list[Problem]) -> str | None:
    if value in choices:
        return value
    problems.append(
        Problem(
            f'{attr}="{value}" in <MemoryBudget> is not one of {", ".join(choices)}',
            did_you_mean(value, choices),
        )
    )
    return None


def _count(attr: str, value: str, problems: list[Problem]) -> int | None:
    text = value.replace(",", "").replace("_", "")
    if text.isdigit() and int(text) > 0:
        return int(text)
    problems.append(Problem(f'{attr}="{value}" in <MemoryBudget> must be a positive whole number'))
    return None


def _dropout(attr: str, value: str, problems: list[Problem]) -> float | None:
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if 0 <= number < 1:
        return number
    problems.append(Problem(f'{attr}="{value}" in <MemoryBudget> must be a probability in [0, 1), e.g. 0.05'))
    return None


def _flag(attrs: Mapping[str, tuple[str, str]], name: str, default: bool) -> bool:
    if name not in attrs:
        return default
    return attrs[name][1] == "true"


def workload(attrs: Mapping[str, tuple[str, str]]) -> tuple[str | None, memory.Workload | None, list[Problem]]:
    """The preset name and the workload the attributes describe (``attrs``: name -> (kind, text), as the dialect
    parses them), or the problems that stop it."""
    problems: list[Problem] = []
    preset, problem = _preset(attrs.get("model", ("str", ""))[1])
    if problem:
        problems.append(problem)
    text = {name: value[1].strip() for name, value in attrs.items() if ATTRIBUTES.get(name) in ("str", "req")}
    fields: dict[str, Any] = {}
    choices = {
        "mode": ("mode", get_args(memory.Mode)),
        "precision": ("precision", get_args(memory.Precision)),
        "optimizer": ("optimizer", get_args(memory.Optimizer)),
        "finetune": ("finetune", get_args(memory.Finetune)),
        "attention": ("attention", get_args(memory.AttentionImpl)),
        "quantization": ("quantization", get_args(memory.Quantization)),
        "kv_dtype": ("kv_cache_dtype", get_args(memory.KVDtype)),
        "sharding": ("sharding", get_args(memory.Sharding)),
        "device": ("device", get_args(memory.Device)),
    }
    for attr, (field_name, allowed) in choices.items():
        if attr in text:
            fields[field_name] = _choice(attr, text[attr], allowed, problems)
    for attr, field_name in (
        ("rank", "lora_rank"),
        ("batch", "batch_size"),
        ("seq_len", "seq_len"),
        ("gpus", "num_gpus"),
        ("prefill_chunk", "prefill_chunk"),
    ):
        if attr in text:
            fields[field_name] = _count(attr, text[attr], problems)
    if "lora_dropout" in text:
        fields["lora_dropout"] = _dropout("lora_dropout", text["lora_dropout"], problems)
    if "targets" in text:
        targets = tuple(t.strip() for t in text["targets"].split(",") if t.strip())
        if targets:
            fields["lora_targets"] = targets
        else:
            problems.append(Problem('targets="" in <MemoryBudget> names no module', 'e.g. targets="q_proj,v_proj"'))
    if fields.get("mode") == "infer" and "precision" not in text:
        fields["precision"] = "bf16"  # serving runs in 16 bits; "mixed" means a training setup
    fields["gradient_checkpointing"] = _flag(attrs, "checkpointing", False)
    fields["autocast"] = _flag(attrs, "autocast", False)
    fields["double_quant"] = _flag(attrs, "double_quant", True)
    fields["offload_optimizer"] = _flag(attrs, "offload_optimizer", False)
    fields["offload_params"] = _flag(attrs, "offload_params", False)
    if problems or preset is None:
        return preset, None, problems
    try:
        return preset, memory.Workload(**fields), []
    except ValueError as exc:
        return preset, None, [Problem(f"<MemoryBudget>: {exc}")]


def _estimate(attrs: Mapping[str, tuple[str, str]]) -> tuple[memory.Estimate | None, list[Problem]]:
    result, problems = _estimate_of(tuple(sorted(attrs.items())))
    return result, list(problems)


@functools.lru_cache(maxsize=4096)
def _estimate_of(attrs: tuple[tuple[str, tuple[str, str]], ...]) -> tuple[memory.Estimate | None, tuple[Problem, ...]]:
    """_estimate, kept by the attributes: a page shows the same workloads in several figures and tables, a snippet
    the same on every page that shows it, and a save under mkdocs serve renders those pages again. The model is a
    function of the attributes alone; callers read the estimate, never change it."""
    preset, work, problems = workload(dict(attrs))
    if work is None or preset is None:
        return None, tuple(problems)
    arch = memory.Arch.from_config(PRESETS[preset], preset)
    try:
        return memory.estimate(arch, work), ()
    except ValueError as exc:  # e.g. a LoRA target the architecture does not have
        return None, (Problem(f"<MemoryBudget>: {exc}"),)


def figure(attrs: Mapping[str, tuple[str, str]]) -> tuple[str, list[Problem]]:
    """The one figure ``show`` names, with its unit (``unit``: GB by default, B for parameter counts)."""
    show = attrs.get("show", ("str", ""))[1].strip()
    problems: list[Problem] = []
    parts = [part.strip() for part in show.split("+")]  # weights+gradients: a sum of terms
    for part in parts:
        if part not in SHOW or (len(parts) > 1 and part not in SUMMABLE):
            allowed = SUMMABLE if len(parts) > 1 else SHOW
            problems.append(
                Problem(
                    f'show="{show}" in <MemoryBudget> is not a figure it shows',
                    did_you_mean(part, allowed) or "figures: " + ", ".join(allowed),
                )
            )
            break
    count = show in COUNTS
    default_unit = "B" if count else "tokens" if show in TOKENS else "sequences" if show in SEQUENCES else "GB"
    unit = attrs.get("unit", ("str", default_unit))[1].strip()
    allowed = (
        ("B", "M") if count else ("tokens",) if show in TOKENS else ("sequences",) if show in SEQUENCES else BYTES_UNITS
    )
    card = attrs.get("card", ("str", ""))[1].strip()
    if show in ("kv_room", "kv_tokens", "kv_seqs") and not card.isdigit():
        problems.append(Problem(f'show="{show}" in <MemoryBudget> needs card="GB", the card\'s size (e.g. card="24")'))
    if unit not in allowed:
        problems.append(
            Problem(
                f'unit="{unit}" in <MemoryBudget show="{show}"> is not one of {", ".join(allowed)}',
                did_you_mean(unit, allowed),
            )
        )
    result, more = _estimate(attrs)
    problems += more
    if problems or result is None:
        return "?", problems
    try:
        value = sum(_value(result, part, int(card or 0)) for part in parts)
    except ValueError as exc:
        return "?", [Problem(f"<MemoryBudget>: {exc}")]
    if unit == "tokens":
        return f"{_significant(value):,}", []
    if unit == "sequences":
        return f"{int(value):,}", []
    if unit == "bytes/param":
        amount = value / result.params
    else:
        amount = value / UNITS[unit]
    shown = format_amount(amount)
    if "." in shown:  # in a sentence: 16 bytes/param, 2 GiB, not 16.00 and 2.00
        shown = shown.rstrip("0").rstrip(".")
    bare = attrs.get("bare", ("expr", "false"))[1] == "true"  # in a table whose header states the unit
    return shown if bare else f"{shown} {unit}", []


def _significant(value: float, digits: int = 3) -> int:
    """A count rounded to ``digits`` significant digits (49,621 -> 49,600), halves up."""
    if value < 1:
        return 0
    scale = 10 ** max(0, int(math.log10(value)) + 1 - digits)
    return int(math.floor(value / scale + 0.5)) * scale


def _value(result: memory.Estimate, show: str, card: int = 0) -> float:
    if show == "total":
        return result.gpu_total
    if show == "host":
        return result.host_total
    if show == "states":
        return sum(result.term(name).gpu for name in STATES)
    if show == "params":
        return float(result.params)
    if show == "trainable":
        return float(result.trainable_params)
    if show in ("kv_per_token", "kv_room", "kv_tokens", "kv_seqs"):
        work = result.workload
        if work.mode != "infer":
            raise ValueError(f'{show} is an inference figure: set mode="infer"')
        # memory.py's table of KV element sizes (private there; the calculator ports the same table)
        element = work.act_bytes if work.kv_cache_dtype == "auto" else memory._KV_BYTES[work.kv_cache_dtype]
        per_token = memory.kv_cache_bytes(result.arch, 1, 1, element) / work.num_gpus  # split like the layers
        if show == "kv_per_token":
            return per_token
        room = max(0.0, card * 1e9 - HEADROOM - (result.gpu_total - result.term("kv_cache").gpu))
        if show == "kv_seqs":  # whole sequences of seq_len tokens (a sliding window caps what each one keeps)
            return room // (memory.kv_cache_bytes(result.arch, 1, work.seq_len, element) / work.num_gpus)
        return room if show == "kv_room" else room // per_token
    if show == "layer_activations":
        detail = result.activation_detail
        if detail is None:
            raise ValueError('layer_activations is a training figure: set mode="train"')
        return detail.per_dense_layer if result.arch.num_dense_layers else detail.per_moe_layer
    if show == "korthikanti":
        work = result.workload
        return memory.korthikanti_bytes(result.arch, work.batch_size, work.seq_len, work.attention == "eager")
    if show.endswith(".host"):
        return result.term(show.removesuffix(".host")).host
    return result.term(show).gpu


def describe(preset: str, arch: memory.Arch, work: memory.Workload, params: int) -> str:
    """The setup in words: the line above a budget table."""
    parts = [f"**{preset}** ({format_amount(params / 1e9)} B parameters)"]
    if work.mode == "infer":
        parts.append("inference" + (" on CPU" if work.device == "cpu" else ""))
        quant = {"none": "", "int8": "int8 weights (LLM.int8)", "nf4": "NF4 weights"}[work.quantization]
        parts.append(quant or ("fp32 weights" if work.precision == "fp32" else "bf16 weights"))
        kv = work.kv_cache_dtype
        parts.append(
            f"batch {work.batch_size} × {work.seq_len:,} cached tokens" + (f" ({kv} KV cache)" if kv != "auto" else "")
        )
        if work.prefill_chunk is not None:
            parts.append(f"prefill in passes of {work.prefill_chunk:,} tokens")
        if work.num_gpus > 1:
            parts.append(f"split over {work.num_gpus} GPUs")
        return " · ".join(parts)
    parts.append("training")
    if work.finetune == "full" and work.amp:
        parts.append("full fine-tuning with AMP (fp32 weights, bf16 autocast)")
    elif work.finetune == "full":
        parts.append(f"full fine-tuning in {PRECISION_NAMES[work.precision]}")
    else:
        adapted = memory.lora_tensors(arch, work.lora_rank, work.lora_targets)
        modules = [t.module.removesuffix(".lora_A").rsplit(".", 1)[-1] for t in adapted if t.module.endswith("lora_A")]
        targets = "all linear layers" if work.lora_targets == ("all-linear",) else ", ".join(dict.fromkeys(modules))
        kind = (
            "QLoRA (NF4 base" + (", double quantization)" if work.double_quant else ")")
            if (work.finetune == "qlora")
            else "LoRA (" + ("bf16" if work.precision != "fp32" else "fp32") + " base)"
        )
        dropout = f", dropout {work.lora_dropout:g}" if work.lora_dropout else ""
        parts.append(f"{kind}, r={work.lora_rank} on {targets}{dropout}" + (", bf16 autocast" if work.autocast else ""))
    parts.append(OPTIMIZER_NAMES[work.optimizer])
    parts.append(f"micro-batch {work.batch_size} × {work.seq_len:,} tokens")
    parts.append(("eager" if work.attention == "eager" else "SDPA") + " attention")
    if work.gradient_checkpointing:
        parts.append("gradient checkpointing")
    if work.sharding != "none":
        parts.append(f"{SHARDING_NAMES[work.sharding]} over {work.num_gpus} GPUs")
    elif work.num_gpus > 1:
        parts.append(f"{work.num_gpus} GPUs (replicated)")
    offloaded = [
        name for flag, name in ((work.offload_optimizer, "optimizer"), (work.offload_params, "parameters")) if flag
    ]
    if offloaded:
        parts.append(" and ".join(offloaded) + " offloaded to CPU")
    return " · ".join(parts)


def render_budget(
    attrs: Mapping[str, tuple[str, str]], calculator: str | None = None
) -> tuple[list[str], list[Problem]]:
    """Markdown: the setup in one line, a table of the non-zero terms (per GPU, and host RAM when any) with the
    total, the common cards it fits, and (``calculator``: the calculator page, relative to this one) a link that
    opens the same setup in the calculator."""
    if "show" in attrs or "unit" in attrs or "bare" in attrs:
        return [], [Problem("show, unit and bare make <MemoryBudget> one figure inside text; a table takes none")]
    preset, work, problems = workload(attrs)
    result, more = _estimate(attrs) if not problems else (None, [])
    problems += more
    if result is None or preset is None or work is None:
        return [], problems
    terms = [t for t in result.terms if t.gpu or t.host]
    host = any(t.host for t in terms)
    device = "Per GPU" if work.device == "cuda" else "RAM"
    per = " per process" if work.num_gpus > 1 else ""  # each training process holds its share in host RAM
    header = f"| Memory | {device} (GB) |" + (f" Host RAM{per} (GB) |" if host else "")
    align = "|:--|--:|" + ("--:|" if host else "")
    lines = [describe(preset, result.arch, work, result.params), "", header, align]
    for term in terms:
        label = TERM_LABELS[term.name]
        if term.name == "optimizer_states":
            label += f" ({OPTIMIZER_NAMES[work.optimizer]})"
        if term.name == "activations" and work.gradient_checkpointing:
            label += " (checkpointed)"
        row = f"| {label} | {format_amount(term.gpu / 1e9) if term.gpu else '–'} |"
        if host:
            row += f" {format_amount(term.host / 1e9) if term.host else '–'} |"
        lines.append(row)
    total = f"| **Total** | **{format_amount(result.gpu_total / 1e9)}** |"
    if host:
        total += f" **{format_amount(result.host_total / 1e9)}** |"
    lines.append(total)
    if work.device == "cuda":
        cards = fits(result.gpu_total)
        missed = [str(c) for c in CARDS_GB if c not in cards]  # estimator.js says the same
        where = (
            f"Fits on {', '.join(map(str, cards))} GB cards"
            if cards
            else (f"Fits on none of the common cards ({', '.join(missed)} GB)")
        )
        if cards and missed:
            where += f", not on {', '.join(missed)} GB"
        lines += [
            "",
            f"{where} (a card keeps {HEADROOM / 1e9:g} GB free for the CUDA context; allocator slack and "
            "workspaces come on top).",
        ]
    if calculator is not None:
        lines += ["", f"[Open this setup in the calculator]({calculator}?{calculator_query(preset, work)})"]
    return lines, []


def calculator_query(preset: str, work: memory.Workload) -> str:
    """The calculator's inputs for a setup, as its query string (estimator.js ``load``): the preset, and every
    workload field that differs from its default, as the calculator's own links write them."""
    params = [("model", preset)]
    default = memory.Workload()
    for field in dataclasses.fields(memory.Workload):
        value = getattr(work, field.name)
        if value == getattr(default, field.name):
            continue
        if isinstance(value, bool):
            value = "1" if value else "0"
        elif isinstance(value, tuple):
            value = ",".join(value)
        params.append((field.name, str(value)))
    return urlencode(params)


def calculator_pages(sources: Mapping[str, str]) -> tuple[str, ...]:
    """The pages (docs paths) that show the calculator, of ``sources`` (docs path -> text), in path order: those
    that write <MemoryEstimator/>. Budget tables link to the first; the calculator's script loads on each."""
    return tuple(path for path in sorted(sources) if "<MemoryEstimator" in sources[path])


def estimator_data() -> dict[str, Any]:
    """What the calculator reads from the page: the presets as config.json dicts, the cards, the headroom and the
    labels, all from here and memory.py."""
    return {
        "presets": PRESETS,
        "cards": list(CARDS_GB),
        "headroom": HEADROOM,
        "labels": TERM_LABELS,
        "optimizers": OPTIMIZER_NAMES,
    }


def estimator_html() -> list[str]:
    """The calculator's place on the page: a container the script fills, with its data in a data attribute
    (the page's HTML allowlist keeps ``data-*``, not ``<script>`` nor form controls, so the script builds them)."""
    data = html.escape(json.dumps(estimator_data(), separators=(",", ":")), quote=True)
    return [
        f'<div class="perfdocs-estimator" id="memory-estimator" data-estimator="{data}">',
        '<p class="perfdocs-estimator-fallback">The memory calculator needs JavaScript. The budget tables on the '
        "scenario pages come from the same model.</p>",
        "</div>",
    ]
