"""The memory model (hooks/perfdocs/memory.py) against tensors measured on CPU, and against the estimators of
accelerate and DeepSpeed where they cover a term. Random-weight models from configs; nothing here needs a GPU."""

from __future__ import annotations

import dataclasses
import math
import os
from importlib.util import find_spec
from typing import Any

import pytest
from perfdocs.memory import (
    PRESET_CONFIGS,
    TERM_NAMES,
    Arch,
    Workload,
    activations,
    autocast_copies,
    estimate,
    korthikanti_bytes,
    kv_cache_bytes,
    lora_tensors,
    optimizer_state_bytes,
    quantized_bytes,
)

_MISSING = [m for m in ("torch", "transformers", "accelerate", "peft", "deepspeed", "bitsandbytes") if not find_spec(m)]
if _MISSING and not os.environ.get("CI"):  # CI installs the recipes extra: a missing module there fails
    pytest.skip(
        f"recipes extra not installed ({', '.join(_MISSING)}): pip install -e '.[recipes]'", allow_module_level=True
    )

import torch  # noqa: E402

from . import memory_support as ms  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    # third-party notices, not findings: peft calls a transformers alias deprecated in 5.x; bitsandbytes has no
    # paged memory on CPU (the bytes are the same)
    "ignore:`is_gradient_checkpointing` is deprecated:FutureWarning",
    "ignore:Paged optimizers are not supported on CPU:UserWarning",
)

ARCHS = list(ms.CONFIGS)
TRAIN_ARCHS = ["llama-medium", "qwen2-medium", "mistral-medium", "gpt2-medium", "mixtral-medium", "qwen2_moe-medium"]


@pytest.fixture(autouse=True, scope="module")
def one_thread() -> Any:
    """Tiny matmuls: one thread costs a third of the CPU time of two (no spinning OpenMP workers)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def meta_model(config: dict[str, Any]) -> Any:
    """A full-size model on the meta device: shapes without memory."""
    from transformers import AutoConfig, AutoModelForCausalLM

    kwargs = dict(config)
    cfg = AutoConfig.for_model(kwargs.pop("model_type"), **kwargs)
    with torch.device("meta"):
        return AutoModelForCausalLM.from_config(cfg)


def lora_config(name: str, target_modules: Any, dropout: float = 0.0) -> Any:
    from peft import LoraConfig

    # GPT-2's Conv1D stores (in, out): peft wants fan_in_fan_out said, not guessed
    return LoraConfig(r=8, target_modules=target_modules, lora_dropout=dropout, fan_in_fan_out=name.startswith("gpt2"))


def numel(model: Any) -> int:
    return sum(p.numel() for p in model.parameters())  # named_parameters() lists a tied weight once


def close(model_bytes: float, measured: float, rel: float) -> bool:
    return math.isclose(model_bytes, measured, rel_tol=rel)


# ---- parameters ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PRESET_CONFIGS))
def test_preset_parameter_count_equals_the_model_built_from_its_config(name: str) -> None:
    model = meta_model(PRESET_CONFIGS[name])
    arch = Arch.preset(name)
    assert arch.param_count == numel(model)
    assert Arch.from_config(model.config.to_dict(), name) == arch  # config.to_dict() reads the same


def test_presets_match_the_published_parameter_counts() -> None:
    # From the model cards / safetensors metadata of the hub repositories named in PRESET_CONFIGS.
    assert Arch.preset("Llama-2-7B").param_count == 6_738_415_616
    assert Arch.preset("Llama-3.1-8B").param_count == 8_030_261_248
    assert Arch.preset("GPT-2").param_count == 124_439_808


@pytest.mark.parametrize("name", ARCHS)
def test_parameter_count_and_tensors_equal_the_real_model(name: str) -> None:
    model = ms.build(name)
    arch = ms.arch(name)
    assert arch.param_count == numel(model)
    shapes = sorted(tuple(p.shape) for p in model.parameters())
    modeled = sorted(t.shape for t in arch.tensors() for _ in range(t.count))
    assert modeled == shapes


@pytest.mark.parametrize("name", ["llama-medium", "gpt2-medium", "mixtral-medium", "qwen2_moe-medium"])
def test_largest_module_is_deepspeeds_largest_layer(name: str) -> None:
    from deepspeed.runtime.zero.stage3 import model_to_params

    total, largest = model_to_params(ms.build(name))
    arch = ms.arch(name)
    assert (arch.param_count, arch.largest_module_params) == (total, largest)


# ---- weights, gradients, optimizer states after one step ----------------------------------------------------


def torch_optimizer(kind: str, params: Any) -> torch.optim.Optimizer:
    if kind == "adamw":
        return torch.optim.AdamW(params, lr=1e-3)
    if kind == "sgd":
        return torch.optim.SGD(params, lr=1e-3)
    if kind == "sgd_momentum":
        return torch.optim.SGD(params, lr=1e-3, momentum=0.9)
    if kind == "adafactor":
        from transformers.optimization import Adafactor

        return Adafactor(params, lr=1e-3, relative_step=False, scale_parameter=False, warmup_init=False)
    import bitsandbytes as bnb

    if kind == "adamw_8bit":
        return bnb.optim.AdamW8bit(params, lr=1e-3)
    return bnb.optim.PagedAdamW8bit(params, lr=1e-3)  # on CPU bitsandbytes falls back to unpaged buffers


OPTIMIZER_CASES = [
    ("llama-medium", "fp32", "adamw"),
    ("llama-medium", "bf16", "adamw"),
    ("qwen2-medium", "fp32", "sgd_momentum"),
    ("mistral-medium", "bf16", "sgd"),
    ("gpt2-medium", "fp32", "adafactor"),
    ("mixtral-medium", "fp32", "adafactor"),
    ("qwen2_moe-medium", "bf16", "adamw_8bit"),
    ("llama-medium", "fp32", "paged_adamw_8bit"),
    ("gpt2-medium", "bf16", "sgd_momentum"),
]


@pytest.mark.parametrize(("name", "precision", "optimizer"), OPTIMIZER_CASES)
def test_model_states_after_one_step(name: str, precision: str, optimizer: str) -> None:
    dtype = torch.float32 if precision == "fp32" else torch.bfloat16
    model = ms.build(name, dtype)
    opt = torch_optimizer(optimizer, model.parameters())
    ms.one_step(model, opt)
    est = estimate(ms.arch(name), Workload(precision=precision, optimizer=optimizer))  # type: ignore[arg-type]
    assert est.term("weights").gpu == ms.parameter_bytes(model)
    assert est.term("gradients").gpu == ms.gradient_bytes(model)
    assert est.term("master_weights").gpu == 0
    measured = ms.optimizer_bytes(opt)
    # torch keeps a 4-byte step tensor (Adafactor: an RMS scalar) per parameter tensor, which the model leaves out
    assert close(est.term("optimizer_states").gpu, measured, 0.01)
    if optimizer in ("sgd",):
        assert measured == 0 == est.term("optimizer_states").gpu


def test_mixed_precision_follows_the_zero_paper_bytes_per_parameter() -> None:
    arch = Arch.preset("Llama-2-7B")
    psi = arch.param_count
    per_param = {
        t.name: t.gpu / psi for t in estimate(arch, Workload(precision="mixed", optimizer="adamw")).terms if t.gpu
    }
    assert {k: v for k, v in per_param.items() if k not in ("activations", "logits")} == {
        "weights": 2,
        "gradients": 2,
        "master_weights": 4,
        "optimizer_states": 8,
    }


def test_adafactor_and_8bit_state_sizes_per_tensor() -> None:
    assert optimizer_state_bytes((4096, 4096), "adafactor", 4) == 4 * 8192
    assert optimizer_state_bytes((4096, 4096), "adafactor", 4, first_moment=True) == 4 * 8192 + 4 * 4096 * 4096
    assert optimizer_state_bytes((4096,), "adafactor", 4) == 4 * 4096
    assert optimizer_state_bytes((4096, 4096), "adamw_8bit", 4) == 2 * 4096 * 4096 + 8 * 4096 * 4096 // 256
    assert optimizer_state_bytes((4095,), "adamw_8bit", 4) == 8 * 4095  # under min_8bit_size: fp32 states


# ---- activations saved for the backward ---------------------------------------------------------------------

# Every architecture in both dtypes and both attention kernels, and checkpointed in two of those settings.
ACT_CASES = [
    (name, precision, attn, ckpt)
    for name in TRAIN_ARCHS
    for precision, attn, ckpt in (
        ("fp32", "sdpa", False),
        ("fp32", "eager", False),
        ("bf16", "sdpa", False),
        ("bf16", "eager", False),
        ("bf16", "sdpa", True),
        ("fp32", "eager", True),
    )
]


def closure_only_bytes(arch: Arch, w: Workload) -> float:
    """Tensors a checkpointed Llama-style layer receives as keyword arguments (rotary cos/sin; eager's causal
    mask): alive through the backward, held by the checkpoint's closure, so the saved-tensor hooks never see them."""
    if not w.gradient_checkpointing or arch.model_type == "gpt2":
        return 0
    element = 4 if w.amp else w.act_bytes  # under AMP both follow the fp32 residual stream
    mask = w.batch_size * w.seq_len**2 * element if w.attention == "eager" else 0
    return 2 * w.seq_len * arch.head_dim * element + mask


@pytest.mark.parametrize(("name", "precision", "attn", "ckpt"), ACT_CASES)
def test_activations_equal_the_saved_tensors(name: str, precision: str, attn: str, ckpt: bool) -> None:
    dtype = torch.float32 if precision == "fp32" else torch.bfloat16
    batch, seq = 2, 64
    measured = ms.saved_for_backward(ms.build(name, dtype, attn), batch, seq, checkpointing=ckpt)
    arch = ms.arch(name)
    w = Workload(
        precision=precision,  # type: ignore[arg-type]
        attention=attn,  # type: ignore[arg-type]
        batch_size=batch,
        seq_len=seq,
        gradient_checkpointing=ckpt,
        device="cpu",
    )
    act = activations(arch, w)
    assert act.logits_output == measured.logits
    difference = act.saved - measured.saved
    assert difference == closure_only_bytes(arch, w)
    assert close(act.saved, measured.saved, 0.10)


def test_gpt2_dropout_masks_on_cpu() -> None:
    # GPT-2 defaults to dropout 0.1: CPU dropout keeps its mask in the input dtype (CUDA: one byte), and CPU SDPA
    # with dropout falls back to the math kernel, which keeps the scores like eager attention (checked in fp32).
    arch = ms.arch("gpt2-dropout")
    for attn in ("sdpa", "eager"):
        measured = ms.saved_for_backward(ms.build("gpt2-dropout", torch.float32, attn), 2, 64)
        w = Workload(precision="fp32", attention=attn, batch_size=2, seq_len=64, device="cpu")  # type: ignore[arg-type]
        assert activations(arch, w).saved == measured.saved
    cuda = Workload(precision="bf16", batch_size=2, seq_len=64)
    no_dropout = activations(dataclasses.replace(arch, hidden_dropout=0.0, embedding_dropout=0.0), cuda).saved
    h, tokens = arch.hidden_size, 2 * 64
    assert activations(arch, cuda).saved - no_dropout == (2 * arch.num_layers + 1) * tokens * h * 1


LORA_CASES = [
    ("llama-medium", ("q_proj", "v_proj"), "bf16", "sdpa", False),
    ("llama-medium", ("all-linear",), "fp32", "sdpa", False),
    ("llama-medium", ("all-linear",), "bf16", "eager", False),
    ("llama-medium", ("q_proj", "v_proj"), "fp32", "eager", False),
    ("llama-medium", ("q_proj", "v_proj"), "bf16", "sdpa", True),
    ("gpt2-medium", ("c_attn",), "fp32", "sdpa", False),
    ("gpt2-medium", ("all-linear",), "bf16", "eager", False),
    ("mixtral-medium", ("q_proj", "v_proj"), "bf16", "sdpa", False),
    ("qwen2_moe-medium", ("all-linear",), "fp32", "eager", False),
]


@pytest.mark.parametrize(("name", "targets", "precision", "attn", "ckpt"), LORA_CASES)
def test_lora_activations_equal_the_saved_tensors(
    name: str, targets: tuple[str, ...], precision: str, attn: str, ckpt: bool
) -> None:
    from peft import get_peft_model

    dtype = torch.float32 if precision == "fp32" else torch.bfloat16
    target_modules: Any = "all-linear" if targets == ("all-linear",) else list(targets)
    model = get_peft_model(ms.build(name, dtype, attn), lora_config(name, target_modules))
    measured = ms.saved_for_backward(model.base_model.model, 2, 64, checkpointing=ckpt)
    arch = ms.arch(name)
    w = Workload(
        precision=precision,  # type: ignore[arg-type]
        finetune="lora",
        lora_rank=8,
        lora_targets=targets,
        lora_dropout=0.0,  # peft's default, which lora_config() keeps
        attention=attn,  # type: ignore[arg-type]
        batch_size=2,
        seq_len=64,
        gradient_checkpointing=ckpt,
        device="cpu",
    )
    modeled = activations(arch, w).saved
    if attn == "eager" and targets == ("q_proj", "v_proj"):
        # In the first layer k comes from the frozen embedding without a gradient, so q @ k^T keeps only k:
        # one q-sized tensor the model (which treats every layer alike) counts extra.
        assert modeled - measured.saved == 2 * 64 * arch.q_dim * w.act_bytes
    else:
        assert modeled - measured.saved == closure_only_bytes(arch, w)
    assert close(modeled, measured.saved, 0.10)


# AMP as the guide's full fine-tuning recipes run it (fp32 weights, Trainer bf16=True: bf16 autocast), every
# architecture with SDPA, eager attention on two, checkpointed on two.
AMP_CASES = [(name, "sdpa", False) for name in TRAIN_ARCHS] + [
    ("llama-medium", "eager", False),
    ("gpt2-medium", "eager", False),
    ("llama-medium", "sdpa", True),
    ("mixtral-medium", "eager", True),
]


@pytest.mark.parametrize(("name", "attn", "ckpt"), AMP_CASES)
def test_amp_activations_and_weight_copies_equal_the_saved_tensors(name: str, attn: str, ckpt: bool) -> None:
    measured = ms.saved_for_backward(ms.build(name, torch.float32, attn), 2, 64, checkpointing=ckpt, autocast=True)
    arch = ms.arch(name)
    w = Workload(
        precision="fp32",
        autocast=True,
        attention=attn,  # type: ignore[arg-type]
        batch_size=2,
        seq_len=64,
        gradient_checkpointing=ckpt,
        device="cpu",
    )
    act, copies = activations(arch, w), autocast_copies(arch, w)
    assert act.logits_output == measured.logits  # bf16 logits
    # every linear weight of the layers, the routers and lm_head, once, in bf16: 2 bytes per parameter of them;
    # with checkpointing the forward saves only lm_head's, and autocast's cache holds the rest until it returns
    assert copies == measured.copies + measured.cache
    if ckpt:
        assert measured.cache > 0
        assert act.saved - (measured.saved - measured.copies) == closure_only_bytes(arch, w)
        return
    biases = sum(t.numel * t.count for t in arch.tensors() if t.kind == "bias")
    assert measured.cache == 2 * biases  # without checkpointing only the biases' casts are kept by no matmul
    linear = sum(t.numel * t.count for t in arch.tensors() if t.linear is not None or t.kind == "router")
    head = arch.vocab_size * arch.hidden_size
    assert copies == 2 * (linear + head + biases)
    assert act.saved == measured.saved - measured.copies
    # the copies are a real share of a full fine-tune's step: weights + grads + AdamW = 16 bytes/param
    assert estimate(arch, w).term("autocast_copies").gpu == copies


# LoRA as the recipes run it: Trainer bf16=True (bf16 autocast), adapters in fp32, lora_dropout=0.05; and with
# dropout 0, on an fp32 base, and without autocast with dropout (the settings that moved the figures before).
LORA_AUTOCAST_CASES = [
    ("llama-medium", ("all-linear",), "bf16", "sdpa", 0.05, True),
    ("llama-medium", ("all-linear",), "bf16", "sdpa", 0.0, True),
    ("llama-medium", ("q_proj", "v_proj"), "bf16", "eager", 0.05, True),
    ("llama-medium", ("all-linear",), "fp32", "sdpa", 0.05, True),
    ("llama-medium", ("all-linear",), "bf16", "sdpa", 0.05, False),
    ("llama-medium", ("q_proj", "v_proj"), "fp32", "sdpa", 0.05, False),
    ("gpt2-medium", ("all-linear",), "bf16", "sdpa", 0.05, True),
    ("mixtral-medium", ("q_proj", "v_proj"), "bf16", "sdpa", 0.05, True),
    ("qwen2_moe-medium", ("all-linear",), "bf16", "sdpa", 0.05, True),
    ("qwen2_moe-medium", ("all-linear",), "fp32", "eager", 0.0, True),
]


@pytest.mark.parametrize(("name", "targets", "precision", "attn", "dropout", "amp"), LORA_AUTOCAST_CASES)
def test_lora_dropout_and_autocast_activations_equal_the_saved_tensors(
    name: str, targets: tuple[str, ...], precision: str, attn: str, dropout: float, amp: bool
) -> None:
    from peft import get_peft_model

    dtype = torch.float32 if precision == "fp32" else torch.bfloat16
    target_modules: Any = "all-linear" if targets == ("all-linear",) else list(targets)
    model = get_peft_model(ms.build(name, dtype, attn), lora_config(name, target_modules, dropout))
    measured = ms.saved_for_backward(model.base_model.model, 2, 64, autocast=amp)
    arch = ms.arch(name)
    w = Workload(
        precision=precision,  # type: ignore[arg-type]
        finetune="lora",
        lora_rank=8,
        lora_targets=targets,
        lora_dropout=dropout,
        autocast=amp,
        attention=attn,  # type: ignore[arg-type]
        batch_size=2,
        seq_len=64,
        device="cpu",
    )
    act, copies = activations(arch, w), autocast_copies(arch, w)
    assert act.logits_output == measured.logits
    # bf16 casts of the fp32 adapters (and, on an fp32 base, of the frozen linears), except the first layer's frozen
    # q/k/v: that input has no gradient, so those matmuls keep no weight; their A matrices' casts stay in autocast's
    # cache until the forward returns
    assert copies == measured.copies + measured.cache
    if attn == "eager" and targets == ("q_proj", "v_proj"):
        # as in test_lora_activations_equal_the_saved_tensors: the first layer's q @ k^T keeps only k
        assert act.saved - (measured.saved - measured.copies) == 2 * 64 * arch.q_dim * w.act_bytes
    else:
        assert act.saved == measured.saved - measured.copies


def test_reference_formula_is_korthikantis() -> None:
    arch = Arch.preset("Llama-2-7B")
    s, h = 2048, 4096
    assert korthikanti_bytes(arch, 1, s, scores=False) == 32 * 34 * s * h
    assert korthikanti_bytes(arch, 1, s) == 32 * s * h * (34 + 5 * 32 * s / h)


# ---- LoRA / QLoRA parameters, quantized weights -------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "targets"),
    [
        ("llama-medium", None),
        ("llama-medium", ("all-linear",)),
        ("gpt2-medium", None),
        ("gpt2-medium", ("c_proj",)),
        ("qwen2_moe-medium", ("all-linear",)),
        ("mixtral-medium", ("q_proj", "k_proj", "v_proj", "o_proj")),
    ],
)
def test_lora_adapter_states_after_one_step(name: str, targets: tuple[str, ...] | None) -> None:
    from peft import get_peft_model

    target_modules: Any = None if targets is None else "all-linear" if targets == ("all-linear",) else list(targets)
    model = get_peft_model(ms.build(name, torch.bfloat16), lora_config(name, target_modules))
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    ms.one_step(model, opt)
    est = estimate(ms.arch(name), Workload(precision="mixed", finetune="lora", lora_rank=8, lora_targets=targets))
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert est.trainable_params == trainable
    assert est.term("adapter_weights").gpu == ms.parameter_bytes(model, trainable=True)  # fp32 adapters
    assert est.term("weights").gpu == ms.parameter_bytes(model, trainable=False)  # the bf16 base
    assert est.term("gradients").gpu == ms.gradient_bytes(model)
    assert close(est.term("optimizer_states").gpu, ms.optimizer_bytes(opt), 0.01)
    assert est.term("master_weights").gpu == 0


@pytest.mark.parametrize(("quantization", "double_quant"), [("nf4", True), ("nf4", False), ("int8", False)])
def test_quantized_weights_equal_bitsandbytes_storage(quantization: str, double_quant: bool) -> None:
    with ms.saved_model("llama-medium") as path:
        model = ms.quantized_model(path, quantization, double_quant)
    w = Workload(mode="infer", precision="bf16", quantization=quantization, double_quant=double_quant)  # type: ignore[arg-type]
    assert estimate(ms.arch("llama-medium"), w).term("weights").gpu == ms.quantized_weight_bytes(model)


def test_qlora_base_and_adapters_equal_peft_on_a_4bit_model() -> None:
    from peft import get_peft_model

    with ms.saved_model("llama-medium") as path:
        model = get_peft_model(ms.quantized_model(path, "nf4"), lora_config("llama-medium", "all-linear"))
    est = estimate(
        ms.arch("llama-medium"),
        Workload(precision="bf16", finetune="qlora", lora_rank=8, lora_targets=("all-linear",)),
    )
    trainable = [p for p in model.parameters() if p.requires_grad]
    assert est.trainable_params == sum(p.numel() for p in trainable)
    assert est.term("adapter_weights").gpu == ms.storage_bytes(trainable)
    base = ms.quantized_weight_bytes(model) - ms.storage_bytes(trainable)
    assert est.term("weights").gpu == base


def test_nf4_bits_per_parameter_follow_the_qlora_paper() -> None:
    n = 4096 * 4096
    assert quantized_bytes(n, 4096, "nf4", double_quant=False) * 8 / n == pytest.approx(4.5, abs=1e-4)
    assert quantized_bytes(n, 4096, "nf4", double_quant=True) * 8 / n == pytest.approx(
        4 + 8 / 64 + 32 / 64 / 256, abs=1e-3
    )


# ---- KV cache ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["llama-medium", "gpt2-medium", "mistral-window", "mixtral-medium"])
@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_kv_cache_equals_the_cache_after_generate(name: str, precision: str) -> None:
    dtype, element = (torch.float32, 4) if precision == "fp32" else (torch.bfloat16, 2)
    prompt, new = 12, 20
    measured = ms.kv_cache_after_generate(ms.build(name, dtype), 2, prompt, new)
    arch = ms.arch(name)
    if name == "mistral-window":
        assert arch.sliding_window == 16 < prompt + new
    # generate never feeds the last new token back, so the cache holds prompt + new - 1 positions
    assert kv_cache_bytes(arch, 2, prompt + new - 1, element) == measured
    est = estimate(arch, Workload(mode="infer", precision=precision, batch_size=2, seq_len=prompt + new - 1))  # type: ignore[arg-type]
    assert est.term("kv_cache").gpu == measured


def test_kv_cache_worked_examples() -> None:
    # per token, bf16: Llama-2-7B 512 KiB (no GQA), Llama-3.1-8B 128 KiB (8 KV heads)
    assert kv_cache_bytes(Arch.preset("Llama-2-7B"), 1, 1, 2) == 512 * 1024
    assert kv_cache_bytes(Arch.preset("Llama-3.1-8B"), 1, 1, 2) == 128 * 1024


# ---- accelerate and DeepSpeed estimators ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["Llama-2-7B", "Mixtral-8x7B", "GPT-2"])
def test_accelerate_estimate_memory_agrees(name: str) -> None:
    from accelerate.commands.estimate import estimate_training_usage
    from accelerate.utils import calculate_maximum_sizes

    model = meta_model(PRESET_CONFIGS[name])
    total_size, _ = calculate_maximum_sizes(model)
    buffers = sum(b.numel() * b.element_size() for b in model.buffers())  # accelerate counts rotary inv_freq too
    arch = Arch.preset(name)
    fp32 = estimate(arch, Workload(precision="fp32"))
    assert total_size == fp32.term("weights").gpu + buffers
    # float32 Adam: accelerate's peak is its "step" entry, 4x the fp32 model = our weights + grads + AdamW states
    states = sum(fp32.term(t).gpu for t in ("weights", "gradients", "optimizer_states"))
    assert estimate_training_usage(total_size, "float32")["step"] == states + 4 * buffers
    # bf16 mixed precision: accelerate's "model" is our fp32 master and its "optimizer" our AdamW states; its
    # "gradients" counts an fp32 and a 16-bit copy (6 bytes/param) where the ZeRO convention has 2.
    usage = estimate_training_usage(total_size, "bfloat16")
    mixed = estimate(arch, Workload(precision="mixed"))
    assert usage["model"] == mixed.term("master_weights").gpu + buffers
    assert usage["optimizer"] == mixed.term("optimizer_states").gpu + 2 * buffers
    assert usage["gradients"] == 3 * mixed.term("gradients").gpu + buffers + buffers // 2


@pytest.mark.parametrize("gpus", [1, 2, 8])
@pytest.mark.parametrize("offload", [False, True])
def test_deepspeed_zero2_estimator_agrees(gpus: int, offload: bool) -> None:
    from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs

    arch = Arch.preset("Llama-2-7B")
    psi = arch.param_count
    w = Workload(precision="mixed", sharding="zero2", num_gpus=gpus, offload_optimizer=offload)
    est = estimate(arch, w)
    states = ("weights", "gradients", "master_weights", "optimizer_states")
    gpu = sum(est.term(t).gpu for t in states)
    cpu_ds, gpu_ds = estimate_zero2_model_states_mem_needs(psi, num_gpus_per_node=gpus, cpu_offload=offload)
    if offload:
        assert gpu_ds == gpu == 2 * psi  # only the 16-bit weights stay on the GPU
        host_node = sum(est.term(t).host for t in states) * gpus  # 16 bytes/param over the node
        assert host_node == 16 * psi
        assert cpu_ds == int(psi * max(4 * gpus, 16) * 1.5)  # DeepSpeed: x1.5 buffer, x4N fp32 load copies
    else:
        # DeepSpeed also keeps an fp32 gradient partition: 18/N where the paper has 14/N
        assert gpu_ds - gpu == pytest.approx(4 * psi / gpus, abs=1)


@pytest.mark.parametrize("gpus", [1, 8])
@pytest.mark.parametrize("offload", ["none", "optimizer", "params"])
def test_deepspeed_zero3_estimator_agrees(gpus: int, offload: str) -> None:
    from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs

    arch = Arch.preset("Llama-3.1-8B")
    psi, largest = arch.param_count, arch.largest_module_params
    w = Workload(
        precision="mixed",
        sharding="zero3",
        num_gpus=gpus,
        offload_optimizer=offload != "none",
        offload_params=offload == "params",
    )
    est = estimate(arch, w)
    states = ("weights", "gradients", "master_weights", "optimizer_states", "gathered_params")
    gpu = sum(est.term(t).gpu for t in states)
    cpu_ds, gpu_ds, largest_ds = estimate_zero3_model_states_mem_needs(
        psi, largest, num_gpus_per_node=gpus, cpu_offload=offload != "none", cpu_offload_params=offload == "params"
    )
    assert est.term("gathered_params").gpu == largest_ds == 4 * largest
    if offload == "none":
        assert gpu_ds - gpu == pytest.approx(2 * psi / gpus, abs=1)  # DeepSpeed: 18/N, the paper: 16/N
    else:
        assert gpu_ds == pytest.approx(gpu, abs=1)
        host_node = sum(est.term(t).host for t in states) * gpus
        assert cpu_ds == pytest.approx(host_node * 1.5)  # zero_init: 16 (or 18 with params) bytes/param x 1.5


def test_offload_moves_states_to_the_host() -> None:
    arch = Arch.preset("Llama-3.1-8B")
    psi = arch.param_count
    est = estimate(arch, Workload(sharding="zero2", num_gpus=1, offload_optimizer=True))
    assert {t.name: t.host / psi for t in est.terms if t.host} == {
        "gradients": 4,
        "master_weights": 4,
        "optimizer_states": 8,
    }
    assert est.term("weights").gpu == 2 * psi and est.term("optimizer_states").gpu == 0
    infer = estimate(arch, Workload(mode="infer", precision="bf16", offload_params=True))
    assert infer.term("weights").host == 2 * psi
    layer = sum(t.numel for t in arch.tensors() if t.scope != "model")
    assert infer.term("weights").gpu == 2 * layer
    assert list(infer.as_dict()["terms"]) == list(TERM_NAMES)


def test_zero_table_of_the_snippet() -> None:
    # docs/performance/_theory/zero_fsdp.md: Psi = 7.5 B, N_d = 64 -> 120 / 31.4 / 16.6 / 1.9 GB
    arch = Arch.preset("Llama-2-7B")
    psi = 7.5e9
    per_param = {}
    for sharding in ("none", "zero1", "zero2", "zero3"):
        est = estimate(arch, Workload(sharding=sharding, num_gpus=64))  # type: ignore[arg-type]
        states = ("weights", "gradients", "master_weights", "optimizer_states")
        per_param[sharding] = sum(est.term(t).gpu for t in states) / arch.param_count
    assert [round(psi * v / 1e9, 1) for v in per_param.values()] == [120.0, 31.4, 16.6, 1.9]


# ---- bad input ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: Arch.preset("Llama-4"), "unknown preset 'Llama-4'; known presets: " + ", ".join(PRESET_CONFIGS)),
        (
            lambda: Arch.from_config({"hidden_size": 8}),
            "config has no 'model_type' key (the key every transformers config.json carries)",
        ),
        (
            lambda: Arch.from_config({"model_type": "bert"}),
            "unsupported model_type 'bert'; supported: gpt2, llama, mistral, mixtral, qwen2, qwen2_moe",
        ),
        (
            lambda: Arch.from_config({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2}),
            "config for model_type 'llama' is missing required key(s): num_attention_heads, vocab_size, intermediate_size",
        ),
        (
            lambda: Arch.from_config({**ms.CONFIGS["llama-tiny"], "hidden_size": -64}),
            "hidden_size must be a positive integer, got -64",
        ),
        (
            lambda: Arch.from_config({**ms.CONFIGS["llama-tiny"], "num_key_value_heads": 3}),
            "num_heads (4) must be a multiple of num_kv_heads (3)",
        ),
        (
            lambda: Arch.from_config({**ms.CONFIGS["llama-tiny"], "hidden_act": "gelu_fast"}),
            "hidden_act 'gelu_fast' is not modeled; supported: silu, swish, gelu, gelu_pytorch_tanh, relu, gelu_new",
        ),
        (lambda: Arch.from_config([1, 2]), "config must be a mapping (config.to_dict() or config.json), got list"),
        (
            lambda: Arch.from_config({**ms.CONFIGS["gpt2-medium"], "n_head": 6}),
            "n_embd (256) must be divisible by n_head (6)",
        ),
        (
            lambda: Arch.from_config({**ms.CONFIGS["mixtral-medium"], "num_experts_per_tok": 5}),
            "experts_per_token must be between 1 and num_experts (4), got 5",
        ),
        (lambda: Workload(batch_size=0), "batch_size must be a positive integer, got 0"),
        (lambda: Workload(seq_len=-1), "seq_len must be a positive integer, got -1"),
        (lambda: Workload(num_gpus=True), "num_gpus must be a positive integer, got True"),
        (lambda: Workload(lora_dropout=1.0), "lora_dropout must be a number in [0, 1), got 1.0"),
        (lambda: Workload(autocast=1), "autocast must be True or False, got 1"),  # type: ignore[arg-type]
        (
            lambda: Workload(autocast=True),
            "autocast with finetune='full' is AMP on fp32 weights: set precision='fp32'",
        ),
        (
            lambda: Workload(mode="infer", precision="fp32", autocast=True),
            "autocast is modeled for training; for inference set precision (the stored dtype)",
        ),
        (
            lambda: Workload(optimizer="lion"),
            "optimizer must be one of adamw, adamw_8bit, paged_adamw_8bit, adafactor, sgd, sgd_momentum; got 'lion'",
        ),
        (
            lambda: Workload(quantization="nf4"),
            "quantized weights are frozen: train them with finetune='qlora', not 'full'",
        ),
        (
            lambda: Workload(offload_params=True, sharding="zero2"),
            "offload_params needs parameter sharding: sharding='zero3' or 'fsdp_full_shard'",
        ),
        (lambda: Workload(offload_optimizer=True), "offload_optimizer needs ZeRO (stage 1-3) or FSDP: set sharding"),
        (
            lambda: Workload(mode="infer", sharding="zero3"),
            "ZeRO/FSDP sharding applies to training; for inference set num_gpus alone",
        ),
        (
            lambda: lora_tensors(ms.arch("gpt2-medium"), 8, ("q_proj",)),
            "LoRA target 'q_proj' matches no linear module of gpt2-medium; modules: c_attn, c_proj, c_fc",
        ),
        (lambda: lora_tensors(ms.arch("gpt2-medium"), 0, None), "lora_rank must be a positive integer, got 0"),
    ],
)
def test_bad_input_is_a_value_error_with_an_exact_message(call: Any, message: str) -> None:
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


# ---- chunked prefill (inference) -----------------------------------------------------------------------------


def test_chunked_prefill_worked_example() -> None:
    """Llama-3.1-70B, bf16, one 32,768-token prompt over 2 GPUs, in passes of 8,192 tokens (vLLM's default
    max_num_batched_tokens for `vllm serve` on an 80 GB H100), by hand from the config: hidden 8192, 64 query and
    8 KV heads of 128, intermediate 28,672, 80 layers."""
    arch = Arch.preset("Llama-3.1-70B")
    s, c = 32768, 8192
    chunked = estimate(arch, Workload(mode="infer", precision="bf16", seq_len=s, num_gpus=2, prefill_chunk=c))
    residual = 2 * c * 8192 * 2  # the residual stream and the norm output
    attention = c * (2 * 8192 + 2 * 1024) * 2  # q, the attention output, k, v
    mlp = 3 * c * 28672 * 2  # gate, up, their product: larger than attention, so the layer's peak
    assert chunked.term("activations").gpu == residual + mlp == 1_677_721_600
    assert attention < mlp
    # the cache still holds the whole context: 2 x 80 layers x 1,024 x 2 bytes x 32,768 tokens, halved over 2 GPUs
    assert chunked.term("kv_cache").gpu == 2 * 80 * 1024 * 2 * s / 2 == 5_368_709_120
    whole = estimate(arch, Workload(mode="infer", precision="bf16", seq_len=s, num_gpus=2))
    assert whole.term("activations").gpu == 4 * chunked.term("activations").gpu  # every term is linear in tokens
    assert whole.term("kv_cache").gpu == chunked.term("kv_cache").gpu
    assert whole.term("weights").gpu == chunked.term("weights").gpu
    # eager attention: fp32 scores and their bf16 copy, 64 heads x chunk x context (whole: 64 x s x s)
    eager_work = Workload(mode="infer", precision="bf16", seq_len=s, attention="eager", prefill_chunk=c)
    eager = estimate(arch, eager_work).term("activations").gpu
    assert eager == residual + attention + 64 * c * s * (4 + 2)
    whole_eager = estimate(arch, Workload(mode="infer", precision="bf16", seq_len=s, attention="eager"))
    assert whole_eager.term("activations").gpu == 4 * residual + 4 * attention + 64 * s * s * 6


def test_a_chunk_bigger_than_the_prompts_is_the_whole_prompt() -> None:
    arch = Arch.preset("Llama-3.1-8B")
    for attention in ("sdpa", "eager"):
        base = {"mode": "infer", "precision": "bf16", "batch_size": 4, "seq_len": 1000, "attention": attention}
        whole = estimate(arch, Workload(**base)).as_dict()  # type: ignore[arg-type]
        assert estimate(arch, Workload(**base, prefill_chunk=4000)).as_dict() == whole  # type: ignore[arg-type]
        assert estimate(arch, Workload(**base, prefill_chunk=10**6)).as_dict() == whole  # type: ignore[arg-type]
        smaller = estimate(arch, Workload(**base, prefill_chunk=3999)).as_dict()  # type: ignore[arg-type]
        assert smaller["terms"]["activations"]["gpu"] < whole["terms"]["activations"]["gpu"]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"mode": "infer", "prefill_chunk": 0}, "prefill_chunk must be a positive integer, got 0"),
        ({"mode": "infer", "prefill_chunk": 2048.0}, "prefill_chunk must be a positive integer, got 2048.0"),
        ({"mode": "infer", "prefill_chunk": True}, "prefill_chunk must be a positive integer, got True"),
        ({"prefill_chunk": 2048}, "prefill_chunk applies to inference"),
    ],
)
def test_bad_prefill_chunk_is_a_value_error_with_an_exact_message(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as info:
        Workload(**fields)
    assert str(info.value) == message


class _LiveBytes(torch.utils._python_dispatch.TorchDispatchMode):
    """The bytes of the tensors created under it that are still alive, their peak, and the largest tensor: every
    storage an op returns, once, until it is freed (parameters and buffers, which exist before, are left out)."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        self.before = {t.untyped_storage().data_ptr() for t in [*model.parameters(), *model.buffers()]}
        self.live: dict[int, int] = {}
        self.peak = 0
        self.largest = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        import weakref

        out = func(*args, **(kwargs or {}))
        for t in torch.utils._pytree.tree_flatten(out)[0]:
            if not isinstance(t, torch.Tensor):
                continue
            storage = t.untyped_storage()
            key = storage.data_ptr()
            if key in self.live or key in self.before or storage.nbytes() == 0:
                continue
            self.live[key] = storage.nbytes()
            self.largest = max(self.largest, t.numel())
            weakref.finalize(storage, self.live.pop, key, None)
        self.peak = max(self.peak, sum(self.live.values()))
        return out


def _prefill_peak(model: Any, prompt: int, chunk: int | None) -> _LiveBytes:
    torch.manual_seed(3)
    ids = torch.randint(3, model.config.vocab_size, (1, prompt))
    with torch.no_grad(), _LiveBytes(model) as live:
        model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=1,
            do_sample=False,
            pad_token_id=0,
            prefill_chunk_size=chunk,  # transformers' own chunked prefill (generation/utils.py, _prefill)
        )
    return live


@pytest.mark.parametrize("attention", ["sdpa", "eager"])
def test_chunked_prefill_peak_measured_against_a_whole_prefill(attention: str) -> None:
    """generate(prefill_chunk_size=128) on a 1,024-token prompt against the whole prompt in one pass, bf16 on CPU:
    eager attention's largest tensor is the scores, heads x tokens of the pass x context, as the model counts them;
    with SDPA (no scores) the measured saving is the model's within 10 %."""
    prompt, chunk = 1024, 128
    model = ms.build("llama-medium", torch.bfloat16, attn=attention).eval()
    arch = ms.arch("llama-medium")
    whole, chunked = _prefill_peak(model, prompt, None), _prefill_peak(model, prompt, chunk)
    base = {"mode": "infer", "precision": "bf16", "seq_len": prompt, "attention": attention}
    est_whole = estimate(arch, Workload(**base))  # type: ignore[arg-type]
    est_chunk = estimate(arch, Workload(**base, prefill_chunk=chunk))  # type: ignore[arg-type]
    assert chunked.peak < whole.peak
    saved = whole.peak - chunked.peak
    predicted = est_whole.gpu_total - est_chunk.gpu_total
    if attention == "eager":
        assert whole.largest == arch.num_heads * prompt * prompt
        assert chunked.largest == arch.num_heads * chunk * prompt
        # CPU's softmax also upcasts its bf16 input to an fp32 copy, so it saves more than the model's 6 bytes per
        # score (fp32 scores and a bf16 copy) predict; the model never counts more than is measured here
        assert saved > predicted
    else:
        assert whole.largest < arch.num_heads * chunk * prompt  # no scores
        assert math.isclose(saved, predicted, rel_tol=0.1), (saved, predicted)


def test_fp8_kv_cache_equals_transformers_fp8_quantized_cache() -> None:
    """generate(cache_implementation="quantized", cache_config={"backend": "fp8"}) keeps keys and values as
    float8_e4m3fn with one fp32 scale per tensor: one byte per element, as kv_cache_dtype="fp8" counts them."""
    model = ms.build("llama-medium", torch.bfloat16).eval()
    prompt, new = 12, 20
    torch.manual_seed(2)
    ids = torch.randint(3, model.config.vocab_size, (2, prompt))
    with torch.no_grad():
        out = model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=new,
            min_new_tokens=new,
            do_sample=False,
            return_dict_in_generate=True,
            pad_token_id=0,
            cache_implementation="quantized",
            cache_config={"backend": "fp8"},
        )
    stored = [t for layer in out.cache.layers for t in (layer._quantized_keys, layer._quantized_values)]
    assert {tensor.dtype for tensor, _ in stored} == {torch.float8_e4m3fn}
    assert all(scale.numel() == 1 for _, scale in stored)  # per tensor: 4 bytes a layer's K or V, left out
    measured = ms.storage_bytes([tensor for tensor, _ in stored])
    arch = ms.arch("llama-medium")
    assert kv_cache_bytes(arch, 2, prompt + new - 1, 1) == measured
    work = Workload(mode="infer", precision="bf16", batch_size=2, seq_len=prompt + new - 1, kv_cache_dtype="fp8")
    assert estimate(arch, work).term("kv_cache").gpu == measured
    bf16 = Workload(mode="infer", precision="bf16", batch_size=2, seq_len=prompt + new - 1)
    assert estimate(arch, bf16).term("kv_cache").gpu == 2 * measured


@pytest.mark.parametrize("precision", ["bf16", "fp32"])
def test_checkpointed_lora_under_autocast_keeps_the_adapters_casts_until_the_forward_returns(precision: str) -> None:
    from peft import get_peft_model

    dtype = torch.float32 if precision == "fp32" else torch.bfloat16
    model = get_peft_model(ms.build("llama-medium", dtype), lora_config("llama-medium", "all-linear", 0.05))
    measured = ms.saved_for_backward(model.base_model.model, 2, 64, checkpointing=True, autocast=True)
    arch = ms.arch("llama-medium")
    w = Workload(
        precision=precision,  # type: ignore[arg-type]
        finetune="lora",
        lora_rank=8,
        lora_targets=("all-linear",),
        autocast=True,
        batch_size=2,
        seq_len=64,
        gradient_checkpointing=True,
        device="cpu",
    )
    adapters = sum(t.numel * t.count for t in lora_tensors(arch, 8, ("all-linear",)))
    assert measured.cache == 2 * adapters  # every layer's A and B casts, freed only when autocast ends
    # an fp32 base's frozen linears are cast at each use: with checkpointing, one layer's at a time (the layer the
    # backward recomputes), which no forward measure sees; its lm_head's cast is kept by the forward
    one_layer = sum(t.numel for t in arch.tensors() if t.linear is not None and t.scope != "model")
    expected_extra = 2 * one_layer if precision == "fp32" else 0
    assert autocast_copies(arch, w) - (measured.copies + measured.cache) == expected_extra
