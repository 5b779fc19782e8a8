"""How well does the memory model (hooks/perfdocs/memory.py) agree with real tensors and with other estimators?

Prints Markdown tables: parameter counts of the presets (model vs a model built from the config on the meta
device); each term per architecture, model vs tensors measured on CPU (random-weight models from configs:
weights, gradients and optimizer states after one step, activations from saved-tensor hooks, the KV cache
after generate, LoRA adapters, bitsandbytes weights); our activation derivation vs Korthikanti et al.'s
GPT-3 formula; and the model vs accelerate's `estimate-memory` and DeepSpeed's ZeRO-2/3 estimators.

    python bench/memory_agreement.py
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "hooks"))
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
from perfdocs.memory import PRESET_CONFIGS, Arch, Workload, activations, estimate, korthikanti_bytes  # noqa: E402

from tests import memory_support as ms  # noqa: E402

GB = 1e9


def table(header: list[str], rows: list[list[Any]], text_columns: int = 1) -> str:
    """A Markdown table; the first ``text_columns`` columns left-aligned, the numbers right-aligned."""
    align = [":--" if i < text_columns else "--:" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def ratio(model: float, measured: float) -> str:
    return "exact" if model == measured else f"{model / measured:.4f}" if measured else "-"


def meta_params(config: dict[str, Any]) -> int:
    from transformers import AutoConfig, AutoModelForCausalLM

    kwargs = dict(config)
    cfg = AutoConfig.for_model(kwargs.pop("model_type"), **kwargs)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(cfg)
    return sum(p.numel() for p in model.parameters())


def parameters() -> str:
    rows = []
    for name, config in PRESET_CONFIGS.items():
        arch = Arch.preset(name)
        built = meta_params(config)
        rows.append([name, f"{arch.param_count:,}", f"{built:,}", ratio(arch.param_count, built)])
    return table(["preset", "model", "built from config (meta)", "agreement"], rows)


def measured_terms() -> str:
    rows: list[list[Any]] = []

    def row(arch: str, term: str, setting: str, model: float, measured: float) -> None:
        rows.append([arch, term, setting, f"{model:,.0f}", f"{measured:,.0f}", ratio(model, measured)])

    archs = ["llama-medium", "qwen2-medium", "mistral-medium", "gpt2-medium", "mixtral-medium", "qwen2_moe-medium"]
    for name in archs:
        arch = ms.arch(name)
        # model states after one AdamW step, fp32
        model = ms.build(name)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        ms.one_step(model, opt)
        est = estimate(arch, Workload(precision="fp32"))
        row(name, "weights", "fp32", est.term("weights").gpu, ms.parameter_bytes(model))
        row(name, "gradients", "fp32", est.term("gradients").gpu, ms.gradient_bytes(model))
        row(
            name,
            "optimizer states",
            "AdamW (+ torch step tensors)",
            est.term("optimizer_states").gpu,
            ms.optimizer_bytes(opt),
        )
        for precision, attn, ckpt in (("bf16", "sdpa", False), ("bf16", "eager", False), ("bf16", "sdpa", True)):
            dtype = torch.bfloat16
            saved = ms.saved_for_backward(ms.build(name, dtype, attn), 2, 64, checkpointing=ckpt)
            w = Workload(
                precision=precision,  # type: ignore[arg-type]
                attention=attn,  # type: ignore[arg-type]
                batch_size=2,
                seq_len=64,
                gradient_checkpointing=ckpt,
                device="cpu",
            )
            setting = f"bf16 {attn}, b=2 s=64" + (", checkpointed" if ckpt else "")
            if ckpt and arch.model_type != "gpt2":
                setting += " (model also counts rotary cos/sin, held by the checkpoint closure, unseen by hooks)"
            row(name, "activations (saved)", setting, activations(arch, w).saved, saved.saved)
        kv = ms.kv_cache_after_generate(ms.build(name, torch.bfloat16), 2, 12, 20)
        kv_model = estimate(arch, Workload(mode="infer", precision="bf16", batch_size=2, seq_len=31))
        row(name, "KV cache", "bf16, 2 x (12 + 20 - 1) tokens", kv_model.term("kv_cache").gpu, kv)
    # optimizers other than AdamW
    for name, precision, optimizer in (
        ("llama-medium", "bf16", "adamw_8bit"),
        ("mixtral-medium", "fp32", "adafactor"),
        ("gpt2-medium", "bf16", "sgd_momentum"),
    ):
        dtype = torch.float32 if precision == "fp32" else torch.bfloat16
        model = ms.build(name, dtype)
        opt = _optimizer(optimizer, model.parameters())
        ms.one_step(model, opt)
        est = estimate(ms.arch(name), Workload(precision=precision, optimizer=optimizer))  # type: ignore[arg-type]
        row(
            name,
            "optimizer states",
            f"{optimizer}, {precision}",
            est.term("optimizer_states").gpu,
            ms.optimizer_bytes(opt),
        )
    # LoRA and QLoRA
    from peft import LoraConfig, get_peft_model

    for name, targets, attn in (("llama-medium", ("all-linear",), "sdpa"), ("gpt2-medium", ("c_attn",), "eager")):
        modules: Any = "all-linear" if targets == ("all-linear",) else list(targets)
        model = get_peft_model(
            ms.build(name, torch.bfloat16, attn),
            LoraConfig(r=8, target_modules=modules, fan_in_fan_out=name.startswith("gpt2")),
        )
        w = Workload(
            precision="bf16",
            finetune="lora",
            lora_rank=8,
            lora_targets=targets,
            lora_dropout=0.0,  # the LoraConfig above keeps peft's default
            attention=attn,  # type: ignore[arg-type]
            batch_size=2,
            seq_len=64,
            device="cpu",
        )
        est = estimate(ms.arch(name), w)
        row(
            name,
            "LoRA adapters",
            f"r=8, {','.join(targets)}",
            est.term("adapter_weights").gpu,
            ms.parameter_bytes(model, trainable=True),
        )
        saved = ms.saved_for_backward(model.base_model.model, 2, 64)
        row(
            name,
            "activations (saved)",
            f"LoRA r=8 {','.join(targets)}, bf16 {attn}",
            activations(ms.arch(name), w).saved,
            saved.saved,
        )
    for quant, dq in (("nf4", True), ("nf4", False), ("int8", False)):
        with ms.saved_model("llama-medium") as path:
            model = ms.quantized_model(path, quant, dq)
        w = Workload(mode="infer", precision="bf16", quantization=quant, double_quant=dq)  # type: ignore[arg-type]
        setting = f"{quant}" + (" + double quant" if dq else "")
        row(
            "llama-medium",
            "weights (bitsandbytes)",
            setting,
            estimate(ms.arch("llama-medium"), w).term("weights").gpu,
            ms.quantized_weight_bytes(model),
        )
    header = ["architecture", "term", "setting", "model (bytes)", "measured (bytes)", "model/measured"]
    return table(header, rows, text_columns=3)


def _optimizer(kind: str, params: Any) -> torch.optim.Optimizer:
    if kind == "adafactor":
        from transformers.optimization import Adafactor

        return Adafactor(params, lr=1e-3, relative_step=False, scale_parameter=False, warmup_init=False)
    if kind == "sgd_momentum":
        return torch.optim.SGD(params, lr=1e-3, momentum=0.9)
    import bitsandbytes as bnb

    return bnb.optim.AdamW8bit(params, lr=1e-3)


def korthikanti() -> str:
    rows = []
    for name, s in (
        ("Llama-2-7B", 2048),
        ("Llama-3.1-8B", 2048),
        ("Mistral-7B", 2048),
        ("Mixtral-8x7B", 2048),
        ("GPT-2", 1024),
    ):
        arch = Arch.preset(name)
        sbh = s * arch.hidden_size
        per = {}
        for attn in ("sdpa", "eager"):
            w = Workload(precision="bf16", attention=attn, batch_size=1, seq_len=s)  # type: ignore[arg-type]
            act = activations(arch, w)
            per[attn] = act.layers / arch.num_layers
        rows.append(
            [
                name,
                s,
                f"{per['sdpa'] / sbh:.1f}",
                f"{per['sdpa'] * arch.num_layers / GB:.1f}",
                f"{korthikanti_bytes(arch, 1, s, scores=False) / GB:.1f}",
                f"{per['eager'] / sbh:.1f}",
                f"{per['eager'] * arch.num_layers / GB:.1f}",
                f"{korthikanti_bytes(arch, 1, s) / GB:.1f}",
            ]
        )
    header = [
        "preset (bf16, b=1, CUDA)",
        "s",
        "ours SDPA: x s*b*h per layer",
        "ours SDPA GB",
        "34sbh GB",
        "ours eager: x s*b*h",
        "ours eager GB",
        "(34+5as/h)sbh GB",
    ]
    return table(header, rows)


def estimators() -> str:
    from accelerate.commands.estimate import estimate_training_usage
    from accelerate.utils import calculate_maximum_sizes
    from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs
    from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs
    from transformers import AutoConfig, AutoModelForCausalLM

    rows: list[list[Any]] = []

    def row(estimator: str, case: str, model: float, other: float, why: str) -> None:
        rows.append([estimator, case, f"{model / GB:.3f}", f"{other / GB:.3f}", ratio(model, other), why])

    name = "Llama-2-7B"
    arch = Arch.preset(name)
    psi = arch.param_count
    kwargs = dict(PRESET_CONFIGS[name])
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.for_model(kwargs.pop("model_type"), **kwargs))
    total, _ = calculate_maximum_sizes(model)
    buffers = sum(b.numel() * b.element_size() for b in model.buffers())
    fp32 = estimate(arch, Workload(precision="fp32"))
    mixed = estimate(arch, Workload(precision="mixed"))
    row(
        "accelerate",
        f"{name} fp32 weights (Total Size)",
        fp32.term("weights").gpu,
        total,
        f"accelerate adds the rotary buffers ({buffers} B)",
    )
    states = sum(fp32.term(t).gpu for t in ("weights", "gradients", "optimizer_states"))
    row(
        "accelerate",
        "fp32 Adam peak ('step' = 4x model)",
        states,
        estimate_training_usage(total, "float32")["step"],
        "same 16 B/param; + 4x buffers",
    )
    usage = estimate_training_usage(total, "bfloat16")
    row(
        "accelerate", "bf16: 'model' vs fp32 master", mixed.term("master_weights").gpu, usage["model"], "same 4 B/param"
    )
    row(
        "accelerate",
        "bf16: 'optimizer' vs AdamW states",
        mixed.term("optimizer_states").gpu,
        usage["optimizer"],
        "same 8 B/param",
    )
    row(
        "accelerate",
        "bf16: 'gradients'",
        mixed.term("gradients").gpu,
        usage["gradients"],
        "accelerate: fp32 + 16-bit copies (6 B/param); ZeRO convention: 2",
    )
    row(
        "accelerate",
        "bf16: reported peak = max(entry)",
        sum(mixed.term(t).gpu for t in ("weights", "gradients", "master_weights", "optimizer_states")),
        max(usage.values()),
        "accelerate prints the largest entry (8 B/param), not the sum (16)",
    )
    for gpus in (1, 8):
        for offload in (False, True):
            w = Workload(precision="mixed", sharding="zero2", num_gpus=gpus, offload_optimizer=offload)
            est = estimate(arch, w)
            states4 = ("weights", "gradients", "master_weights", "optimizer_states")
            cpu_ds, gpu_ds = estimate_zero2_model_states_mem_needs(psi, num_gpus_per_node=gpus, cpu_offload=offload)
            why = "same" if offload else "DeepSpeed adds the fp32 gradient partition: 18/N vs 14/N"
            row(
                "DeepSpeed ZeRO-2",
                f"{gpus} GPU(s), offload={offload}: GPU",
                sum(est.term(t).gpu for t in states4),
                gpu_ds,
                why,
            )
            if offload:
                row(
                    "DeepSpeed ZeRO-2",
                    f"{gpus} GPU(s), offload: host (node)",
                    sum(est.term(t).host for t in states4) * gpus,
                    cpu_ds,
                    "DeepSpeed: x1.5 buffer, and max(4N, 16) B/param (fp32 load copies)",
                )
    largest = arch.largest_module_params
    for offload in ("none", "optimizer", "params"):
        w = Workload(
            precision="mixed",
            sharding="zero3",
            num_gpus=8,
            offload_optimizer=offload != "none",
            offload_params=offload == "params",
        )
        est = estimate(arch, w)
        states5 = ("weights", "gradients", "master_weights", "optimizer_states", "gathered_params")
        cpu_ds, gpu_ds, _ = estimate_zero3_model_states_mem_needs(
            psi, largest, num_gpus_per_node=8, cpu_offload=offload != "none", cpu_offload_params=offload == "params"
        )
        why = "DeepSpeed: 18/N (fp32 gradient partition) vs 16/N" if offload == "none" else "same"
        row("DeepSpeed ZeRO-3", f"8 GPUs, offload={offload}: GPU", sum(est.term(t).gpu for t in states5), gpu_ds, why)
        if offload != "none":
            row(
                "DeepSpeed ZeRO-3",
                f"8 GPUs, offload={offload}: host (node)",
                sum(est.term(t).host for t in states5) * 8,
                cpu_ds,
                "DeepSpeed: x1.5 buffer (zero_init)",
            )
    return table(
        [
            "estimator",
            "case (Llama-2-7B, mixed-precision AdamW)",
            "model GB",
            "estimator GB",
            "agreement",
            "documented difference",
        ],
        rows,
        text_columns=2,
    )


SECTIONS: list[tuple[str, Callable[[], str]]] = [
    ("Parameter counts", parameters),
    ("Model vs measured tensors (CPU)", measured_terms),
    ("Activations: our derivation vs Korthikanti et al. (arXiv 2205.05198)", korthikanti),
    ("Model vs accelerate and DeepSpeed estimators", estimators),
]


def main() -> None:
    torch.set_num_threads(1)
    with contextlib.redirect_stdout(sys.stderr):
        import deepspeed  # noqa: F401  (it announces its accelerator on stdout; keep the tables clean)
    for title, section in SECTIONS:
        print(f"### {title}\n")
        print(section())
        print()


if __name__ == "__main__":
    main()
