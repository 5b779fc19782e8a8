"""Measure the CPU inference page's speed-ups on this machine, and write them as data for ``<Measured/>``.

    python bench/cpu_speed.py                  # the full run: 4 x 256-token prompts, 32 new tokens, 7 rounds
    python bench/cpu_speed.py --quick          # 1 x 128-token prompt, 8 new tokens, 3 rounds: rough figures
    python bench/cpu_speed.py --out PATH       # write elsewhere (default: bench/results/cpu_speed.json)
    python bench/cpu_speed.py --only bf16      # only the variants whose id contains this text

The model is Qwen2.5-0.5B's architecture (the config of ``budgets.EXTRA_PRESETS``, 494 M parameters) with random
weights: no download, and speed does not depend on the weights' values. Two workloads, the two the page tells
apart: a batch of prompts in one forward pass (prefill, encoder-like, compute-bound) and greedy decoding of new
tokens with the KV cache (memory-bound). Each variant changes one thing from the baseline the page starts from
(fp32 weights, PyTorch eager mode, SDPA attention, all physical cores) the way the page's recipes do it.

Timing: every variant is warmed up first (compilation happens there), then the rounds run every variant once per
workload, the baseline included, in an order rotated each round, so a slow spell on a shared machine hits all of
them. A variant's speed-up in one round is the baseline's time of that round over its own; the file keeps the
median over the rounds and the lowest and highest, and every time measured. Only ratios are meant for the page:
absolute times say more about the machine than about the technique.

Most of the time goes into compiling (three compiled variants, two workloads each): the --quick run took 27 minutes
on a busy 2-core virtual machine, 20 of them compiling. Run it on an otherwise idle machine; the file records the
load average before and after, and the page says when other work shared the machine.
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "hooks"))

from perfdocs.budgets import EXTRA_PRESETS  # noqa: E402

MODEL = "Qwen2.5-0.5B"
OUT = ROOT / "bench" / "results" / "cpu_speed.json"
SCHEMA = 1
# /proc/cpuinfo flags that decide which precision and int8 paths are fast (x86, then Arm).
FLAGS = (
    "avx2",
    "avx512f",
    "avx512_bf16",
    "avx512_vnni",
    "avx_vnni",
    "avx512_fp16",
    "amx_tile",
    "amx_bf16",
    "amx_int8",
    "asimddp",
    "bf16",
    "i8mm",
    "sve",
    "sve2",
)


@dataclass(frozen=True)
class Sizes:
    prefill_batch: int
    prefill_tokens: int
    prompt_tokens: int
    new_tokens: int
    rounds: int
    warmup: int


FULL = Sizes(prefill_batch=4, prefill_tokens=256, prompt_tokens=32, new_tokens=32, rounds=7, warmup=2)
QUICK = Sizes(prefill_batch=1, prefill_tokens=128, prompt_tokens=16, new_tokens=8, rounds=3, warmup=2)


# ---- the machine ---------------------------------------------------------------------------------------------


def cpuinfo() -> list[dict[str, str]]:
    """/proc/cpuinfo as one dict per logical CPU (empty where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return []
    cpus = []
    for block in text.strip().split("\n\n"):
        entry = {}
        for line in block.splitlines():
            key, _, value = line.partition(":")
            entry[key.strip()] = value.strip()
        cpus.append(entry)
    return cpus


def physical_cores(cpus: set[int]) -> tuple[int, int]:
    """(physical cores, sockets) among the logical CPUs this process may run on, from sysfs topology."""
    cores, sockets = set(), set()
    for cpu in cpus:
        topology = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
        try:
            package = (topology / "physical_package_id").read_text().strip()
            core = (topology / "core_id").read_text().strip()
        except OSError:
            package, core = "0", str(cpu)
        cores.add((package, core))
        sockets.add(package)
    return len(cores), len(sockets)


def machine() -> dict[str, Any]:
    import torch

    info = cpuinfo()
    first = info[0] if info else {}
    flags = set(first.get("flags", first.get("Features", "")).split())
    allowed = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set(range(os.cpu_count() or 1))
    cores, sockets = physical_cores(set(allowed))
    return {
        "cpu": first.get("model name") or platform.processor() or platform.machine(),
        "physical_cores": cores,
        "logical_cpus": len(allowed),
        "sockets": sockets,
        "flags": [flag for flag in FLAGS if flag in flags],
        "virtual_machine": "hypervisor" in flags,
        "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "versions": {name: metadata.version(name).split("+")[0] for name in ("torch", "transformers", "torchao")},
        "load_average_before": round(os.getloadavg()[0], 2),
    }


# ---- the model and the variants ------------------------------------------------------------------------------


def build_model(dtype: Any) -> Any:
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    preset = dict(EXTRA_PRESETS[MODEL])
    config = AutoConfig.for_model(preset.pop("model_type"), **preset)
    torch.manual_seed(0)
    return AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation="sdpa").eval()


@dataclass
class Variant:
    id: str
    label: str  # what the page's table shows
    setup: str  # what exactly was run, for the data file
    model: Any
    context: Callable[[], AbstractContextManager[Any]] = nullcontext
    prefill_model: Any = None  # what the prefill calls (a compiled module); default: ``model``
    compiled_decode: bool = False  # generate() with a compiled forward and a static cache


@contextmanager
def threads(count: int) -> Iterator[None]:
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@contextmanager
def attention(model: Any, implementation: str) -> Iterator[None]:
    model.set_attn_implementation(implementation)
    try:
        yield
    finally:
        model.set_attn_implementation("sdpa")


def variants(base: Any, cores: int, only: str) -> list[Variant]:
    """The baseline and one variant per technique, each set up as the page's recipe sets it up."""
    import torch

    def wanted(name: str) -> bool:
        return only in name

    found = [
        Variant("baseline", f"fp32, eager mode, SDPA, {cores} cores", "fp32 weights, no torch.compile", base),
    ]
    if wanted("one_thread") and cores > 1:
        found.append(
            Variant(
                "one_thread",
                f"1 thread instead of {cores}",
                "torch.set_num_threads(1)",
                base,
                lambda: threads(1),
            )
        )
    if wanted("eager_attention"):
        found.append(
            Variant(
                "eager_attention",
                'attn_implementation="eager" instead of SDPA',
                "model.set_attn_implementation('eager')",
                base,
                lambda: attention(base, "eager"),
            )
        )
    if wanted("bf16_autocast"):
        found.append(
            Variant(
                "bf16_autocast",
                "bf16 autocast (fp32 weights)",
                "torch.autocast('cpu', dtype=torch.bfloat16)",
                base,
                lambda: torch.autocast("cpu", dtype=torch.bfloat16),
            )
        )
    if wanted("bf16_weights"):
        found.append(
            Variant("bf16_weights", "bf16 weights", "model.to(torch.bfloat16)", base_copy(base, torch.bfloat16))
        )
    if wanted("compile"):
        model = base_copy(base)
        found.append(
            Variant(
                "compile",
                "torch.compile (prefill: freezing; decoding: compiled forward, static cache)",
                "prefill: torch.compile(model) with inductor freezing; decoding: "
                "model.forward = torch.compile(model.forward), cache_implementation='static'",
                compiled_forward(model),
                prefill_model=Frozen(torch.compile(model)),
                compiled_decode=True,
            )
        )
    if wanted("int8_dynamic") or wanted("int8_weight_only"):
        from torchao.quantization import Int8DynamicActivationInt8WeightConfig, Int8WeightOnlyConfig, quantize_

        if wanted("int8_dynamic"):
            model = base_copy(base)
            quantize_(model, Int8DynamicActivationInt8WeightConfig())
            found.append(
                Variant(
                    "int8_dynamic",
                    "dynamic int8 (torchao), compiled",
                    "quantize_(model, Int8DynamicActivationInt8WeightConfig()) on fp32, then compiled as above "
                    "(no freezing)",
                    compiled_forward(model),
                    prefill_model=torch.compile(model),
                    compiled_decode=True,
                )
            )
        if wanted("int8_weight_only"):
            model = base_copy(base, torch.bfloat16)
            quantize_(model, Int8WeightOnlyConfig())
            found.append(
                Variant(
                    "int8_weight_only",
                    "int8 weights, bf16 compute (torchao), compiled",
                    "bf16 model, quantize_(model, Int8WeightOnlyConfig()), then compiled as above (no freezing)",
                    compiled_forward(model),
                    prefill_model=torch.compile(model),
                    compiled_decode=True,
                )
            )
    return found


def base_copy(base: Any, dtype: Any = None) -> Any:
    model = copy.deepcopy(base)
    return model.to(dtype) if dtype is not None else model


def compiled_forward(model: Any) -> Any:
    """A shallow copy of ``model`` (same weights) whose ``forward`` is compiled: generate() calls it."""
    import torch

    twin = copy.copy(model)
    twin.forward = torch.compile(model.forward)
    return twin


class Frozen:
    """A compiled module called with inductor freezing on (``TORCHINDUCTOR_FREEZING=1`` for this module only):
    weights become constants of the graph, as the page's encoder recipe sets it."""

    def __init__(self, compiled: Any) -> None:
        self.compiled = compiled

    def __call__(self, **kwargs: Any) -> Any:
        import torch._inductor.config as inductor_config

        with inductor_config.patch(freezing=True):
            return self.compiled(**kwargs)


# ---- the workloads -------------------------------------------------------------------------------------------


def workloads(sizes: Sizes) -> dict[str, dict[str, Any]]:
    return {
        "prefill": {
            "label": "Prompt batch (prefill)",
            "setup": f"{sizes.prefill_batch} prompt{'s' if sizes.prefill_batch > 1 else ''} of {sizes.prefill_tokens} "
            "tokens, one forward pass, "
            "logits of the last position only",
        },
        "decode": {
            "label": "Greedy decoding",
            "setup": f"1 prompt of {sizes.prompt_tokens} tokens, {sizes.new_tokens} new tokens with "
            "generate(do_sample=False), KV cache",
        },
    }


def runner(variant: Variant, workload: str, sizes: Sizes, vocab: int) -> Callable[[], None]:
    import torch

    generator = torch.Generator().manual_seed(1)
    if workload == "prefill":
        ids = torch.randint(0, vocab, (sizes.prefill_batch, sizes.prefill_tokens), generator=generator)
        call = variant.model if variant.prefill_model is None else variant.prefill_model

        def prefill() -> None:
            with torch.inference_mode(), variant.context():
                call(input_ids=ids, logits_to_keep=1)

        return prefill
    prompt = torch.randint(0, vocab, (1, sizes.prompt_tokens), generator=generator)
    extra: dict[str, Any] = {}
    if variant.compiled_decode:
        extra = {"cache_implementation": "static", "max_cache_len": sizes.prompt_tokens + sizes.new_tokens}

    def decode() -> None:
        with torch.inference_mode(), variant.context():
            out = variant.model.generate(
                prompt,
                attention_mask=torch.ones_like(prompt),
                max_new_tokens=sizes.new_tokens,
                min_new_tokens=sizes.new_tokens,
                do_sample=False,
                pad_token_id=0,
                **extra,
            )
        assert out.shape[1] == sizes.prompt_tokens + sizes.new_tokens, out.shape

    return decode


def timed(call: Callable[[], None]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


# ---- the run -------------------------------------------------------------------------------------------------


def measure(sizes: Sizes, only: str, say: Callable[[str], None]) -> dict[str, Any]:
    import torch

    info = machine()
    cores = info["physical_cores"]
    torch.set_num_threads(cores)
    # Every compiled variant runs the same forward code on another module: one cache entry each, more than
    # Dynamo's default limit of 8 per code object (past it, Dynamo falls back to eager without an error).
    torch._dynamo.config.recompile_limit = 64
    torch._dynamo.config.accumulated_recompile_limit = 512
    torch._dynamo.config.fail_on_recompile_limit_hit = True  # a silent fallback would time eager mode
    say(f"{info['cpu']}: {cores} physical cores, flags {' '.join(info['flags']) or '-'}; torch {torch.__version__}")
    start = time.perf_counter()
    base = build_model(torch.float32)
    params = sum(p.numel() for p in base.parameters())
    say(f"{MODEL} with random weights: {params:,} parameters ({time.perf_counter() - start:.0f} s to build)")
    found = variants(base, cores, only)
    vocab = base.config.vocab_size
    jobs = {(v.id, w): runner(v, w, sizes, vocab) for v in found for w in workloads(sizes)}
    for (variant, workload), call in jobs.items():
        warm = [timed(call) for _ in range(sizes.warmup)]
        say(f"warm-up {variant:<17} {workload:<8} " + " ".join(f"{t:7.2f} s" for t in warm))
    times: dict[tuple[str, str], list[float]] = {key: [] for key in jobs}
    order = list(jobs)
    for round_ in range(sizes.rounds):
        shift = round_ * len(order) // max(sizes.rounds, 1)
        for key in order[shift:] + order[:shift]:
            times[key].append(timed(jobs[key]))
        line = "  ".join(f"{v}/{w} {times[(v, w)][-1]:.2f}" for v, w in order)
        say(f"round {round_ + 1}/{sizes.rounds}: {line}")
    info["load_average_after"] = round(os.getloadavg()[0], 2)
    results = []
    for variant in found:
        for workload in workloads(sizes):
            own = times[(variant.id, workload)]
            ratios = [b / t for b, t in zip(times[("baseline", workload)], own, strict=True)]
            results.append(
                {
                    "variant": variant.id,
                    "workload": workload,
                    "median_s": round(statistics.median(own), 4),
                    "times_s": [round(t, 4) for t in own],
                    "speedup": round(statistics.median(ratios), 3),
                    "speedup_min": round(min(ratios), 3),
                    "speedup_max": round(max(ratios), 3),
                }
            )
    return {
        "schema": SCHEMA,
        "date": dt.datetime.now(dt.UTC).date().isoformat(),
        "mode": "quick" if sizes == QUICK else "full",
        "command": " ".join(
            ["python bench/cpu_speed.py", *(["--quick"] if sizes == QUICK else []), *(["--only", only] if only else [])]
        ),
        "machine": info,
        "model": {"name": MODEL, "parameters": params, "weights": "random (from the config, no download)"},
        "rounds": sizes.rounds,
        "warmup": sizes.warmup,
        "baseline": "baseline",
        "workloads": [{"id": key, **value} for key, value in workloads(sizes).items()],
        "variants": [{"id": v.id, "label": v.label, "setup": v.setup} for v in found],
        "results": results,
    }


def summary(data: dict[str, Any]) -> list[str]:
    """The speed-ups as a plain-text table (the page renders the same data with ``<Measured/>``)."""
    speedups = {(r["variant"], r["workload"]): r for r in data["results"]}
    lines = [f"{'variant':<18}" + "".join(f"{w['id']:>22}" for w in data["workloads"])]
    for variant in data["variants"]:
        cells = []
        for workload in data["workloads"]:
            r = speedups[(variant["id"], workload["id"])]
            cells.append(f"{r['speedup']:.2f}x ({r['speedup_min']:.2f}-{r['speedup_max']:.2f})".rjust(22))
        lines.append(f"{variant['id']:<18}" + "".join(cells))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short inputs and 3 rounds: a check, rough figures")
    parser.add_argument("--out", type=Path, default=OUT, help=f"where to write the JSON (default {OUT})")
    parser.add_argument("--only", default="", help="only the variants whose id contains this text")
    args = parser.parse_args(argv)
    began = time.perf_counter()

    def say(text: str) -> None:
        print(f"[{time.perf_counter() - began:6.0f} s] {text}", flush=True)

    data = measure(QUICK if args.quick else FULL, args.only, say)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print("\n".join(summary(data)))
    say(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
