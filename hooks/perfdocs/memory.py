"""One memory model for training and running decoder-only transformers: the figures the guide states come from here.

Pure Python (no torch, no transformers): the site build imports it, and the in-page calculator is a JavaScript port
of the same formulas, kept simple for that (plain arithmetic over a parameter-tensor list). All sizes are bytes, as
floats (a ZeRO shard is a fraction); ``tests/test_memory_model.py`` checks each term against tensors measured on
CPU and ``bench/memory_agreement.py`` prints the agreement table.

Conventions, as in the ZeRO paper (arXiv 1910.02054): "weights" is the copy the forward reads; under mixed
precision the fp32 master copy is its own term (``master_weights``); gradients are in the weights' dtype.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

__all__ = [
    "ACT_SAVED",
    "OVERHEADS",
    "PRESETS",
    "PRESET_CONFIGS",
    "TERM_NAMES",
    "Activations",
    "Arch",
    "Estimate",
    "Overhead",
    "ParamTensor",
    "Term",
    "Workload",
    "activations",
    "autocast_copies",
    "estimate",
    "korthikanti_bytes",
    "kv_cache_bytes",
    "lora_tensors",
    "optimizer_state_bytes",
    "quantized_bytes",
]

Mode = Literal["train", "infer"]
Precision = Literal["fp32", "mixed", "bf16"]
Optimizer = Literal["adamw", "adamw_8bit", "paged_adamw_8bit", "adafactor", "sgd", "sgd_momentum"]
Finetune = Literal["full", "lora", "qlora"]
AttentionImpl = Literal["sdpa", "eager"]
Quantization = Literal["none", "int8", "nf4"]
KVDtype = Literal["auto", "fp32", "bf16", "fp8"]
Sharding = Literal["none", "zero1", "zero2", "zero3", "fsdp_shard_grad_op", "fsdp_full_shard"]
Device = Literal["cuda", "cpu"]
MLPKind = Literal["gated", "plain"]
NormKind = Literal["rmsnorm", "layernorm"]
TensorKind = Literal["embedding", "position", "linear", "bias", "norm", "router", "experts"]
Scope = Literal["model", "layer", "dense", "moe"]  # once; in every layer; in dense-MLP layers; in MoE layers

# Tensors an activation function saves for its backward, counted in intermediate-size units and including its
# input (read off the autograd graph of transformers' ACT2FN classes): the fused kernels keep only their input;
# gelu_new (GPT-2) is written out in Python, 0.5*x*(1+tanh(...)), and keeps x, tanh(...), 0.5*x and 1+tanh(...).
ACT_SAVED = {"silu": 1, "swish": 1, "gelu": 1, "gelu_pytorch_tanh": 1, "relu": 1, "gelu_new": 4}

# Bytes a parameter or an activation element takes.
_WEIGHT_BYTES = {"fp32": 4, "mixed": 2, "bf16": 2}
_KV_BYTES = {"fp32": 4, "bf16": 2, "fp8": 1}


def _positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def _non_negative(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return value


def _probability(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1:
        raise ValueError(f"{name} must be a number in [0, 1), got {value!r}")
    return float(value)


def _choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}; got {value!r}")
    return str(value)


def _prod(shape: Sequence[int]) -> int:
    return math.prod(shape)


# --------------------------------------------------------------------------------------------------------------
# Architecture
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParamTensor:
    """One parameter tensor, repeated ``count`` times (once per decoder layer that has it)."""

    module: str  # the module path inside a layer ("self_attn.q_proj") or the model ("embed_tokens")
    name: str  # "weight" or "bias" (or the parameter's own name: "gate_up_proj")
    shape: tuple[int, ...]
    count: int
    kind: TensorKind
    scope: Scope
    # (in_features, out_features) for an nn.Linear / GPT-2 Conv1D weight inside a decoder layer: the modules
    # bitsandbytes quantizes and LoRA can target. None otherwise.
    linear: tuple[int, int] | None = None

    @property
    def numel(self) -> int:
        return _prod(self.shape)


@dataclass(frozen=True)
class Arch:
    """A decoder-only transformer, as far as memory is concerned."""

    name: str
    model_type: str  # transformers' model_type: llama, mistral, qwen2, mixtral, qwen2_moe, gpt2
    hidden_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    vocab_size: int
    intermediate_size: int  # the dense MLP (in MoE models: of the layers that stay dense)
    tie_embeddings: bool = False
    mlp: MLPKind = "gated"  # gated = SwiGLU's gate/up/down; plain = GPT-2's fc/proj
    hidden_act: str = "silu"
    norm: NormKind = "rmsnorm"  # rmsnorm: a weight; layernorm: weight and bias
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    max_position_embeddings: int = 0  # learned absolute positions (GPT-2's wpe); 0 = rotary, no parameters
    num_experts: int = 0  # 0 = dense
    experts_per_token: int = 0
    moe_intermediate_size: int = 0
    shared_expert_intermediate_size: int = 0  # Qwen2-MoE's always-on expert (0: none)
    num_moe_layers: int = 0  # layers whose MLP is the expert block (the others are dense)
    moe_norm_topk: bool = False  # the top-k routing weights are renormalised (Mixtral always; Qwen2-MoE optional)
    sliding_window: int = 0  # tokens a sliding-window layer keeps in its KV cache (0: no sliding window)
    num_sliding_layers: int = 0
    attention_dropout: float = 0.0
    hidden_dropout: float = 0.0  # GPT-2's resid_pdrop: a dropout after the attention and after the MLP
    embedding_dropout: float = 0.0
    eager_softmax_fp32: bool = True  # eager attention upcasts the scores to fp32 for the softmax (not GPT-2)

    def __post_init__(self) -> None:
        for name in ("hidden_size", "num_layers", "num_heads", "num_kv_heads", "head_dim", "vocab_size"):
            _positive(name, getattr(self, name))
        for name in (
            "intermediate_size",
            "max_position_embeddings",
            "num_experts",
            "experts_per_token",
            "moe_intermediate_size",
            "shared_expert_intermediate_size",
            "num_moe_layers",
            "sliding_window",
            "num_sliding_layers",
        ):
            _non_negative(name, getattr(self, name))
        for name in ("attention_dropout", "hidden_dropout", "embedding_dropout"):
            _probability(name, getattr(self, name))
        _choice("mlp", self.mlp, get_args(MLPKind))
        _choice("norm", self.norm, get_args(NormKind))
        if self.hidden_act not in ACT_SAVED:
            raise ValueError(f"hidden_act {self.hidden_act!r} is not modeled; supported: {', '.join(ACT_SAVED)}")
        if self.num_heads % self.num_kv_heads:
            raise ValueError(f"num_heads ({self.num_heads}) must be a multiple of num_kv_heads ({self.num_kv_heads})")
        if self.num_moe_layers > self.num_layers:
            raise ValueError(f"num_moe_layers ({self.num_moe_layers}) exceeds num_layers ({self.num_layers})")
        if self.num_sliding_layers > self.num_layers:
            raise ValueError(f"num_sliding_layers ({self.num_sliding_layers}) exceeds num_layers ({self.num_layers})")
        if self.num_moe_layers:
            if not self.num_experts or not self.moe_intermediate_size:
                raise ValueError("an MoE layer needs num_experts and moe_intermediate_size")
            if not 0 < self.experts_per_token <= self.num_experts:
                raise ValueError(
                    f"experts_per_token must be between 1 and num_experts ({self.num_experts}), "
                    f"got {self.experts_per_token}"
                )
            if self.mlp != "gated":
                raise ValueError("MoE experts are modeled as gated (SwiGLU) MLPs only")
        if self.num_layers > self.num_moe_layers and not self.intermediate_size:
            raise ValueError("intermediate_size must be a positive integer for dense layers, got 0")

    # ---- construction ----

    @classmethod
    def from_config(cls, config: Mapping[str, Any], name: str | None = None) -> Arch:
        """From a transformers config dict (``config.to_dict()`` or a hub ``config.json``)."""
        return _from_config(config, name)

    @classmethod
    def preset(cls, name: str) -> Arch:
        if name not in PRESET_CONFIGS:
            raise ValueError(f"unknown preset {name!r}; known presets: {', '.join(PRESET_CONFIGS)}")
        return _from_config(PRESET_CONFIGS[name], name)

    # ---- derived sizes ----

    @property
    def q_dim(self) -> int:
        return self.num_heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        return self.num_kv_heads * self.head_dim

    @property
    def num_dense_layers(self) -> int:
        return self.num_layers - self.num_moe_layers

    def tensors(self) -> tuple[ParamTensor, ...]:
        """Every parameter tensor, named as in the transformers implementation (tied weights once)."""
        return _tensors(self)

    @property
    def param_count(self) -> int:
        return sum(t.numel * t.count for t in self.tensors())

    @property
    def largest_module_params(self) -> int:
        """The most parameters one module holds directly, as DeepSpeed's ZeRO-3 estimator counts a "layer"
        (``model_to_params`` in deepspeed/runtime/zero/stage3.py: ``m.parameters(recurse=False)`` per module)."""
        sizes: dict[str, int] = {}
        for t in self.tensors():
            sizes[t.module] = sizes.get(t.module, 0) + t.numel
        return max(sizes.values())

    @property
    def embedding_params(self) -> int:
        """Input embeddings, learned positions and an untied LM head: what quantization leaves in 16 bits."""
        return sum(t.numel * t.count for t in self.tensors() if t.kind in ("embedding", "position"))


def _tensors(a: Arch) -> tuple[ParamTensor, ...]:
    h, L = a.hidden_size, a.num_layers
    out: list[ParamTensor] = []

    counts = {"model": 1, "layer": L, "dense": a.num_dense_layers, "moe": a.num_moe_layers}

    def add(
        module: str, pname: str, shape: tuple[int, ...], scope: Scope, kind: TensorKind, io: tuple[int, int] | None
    ) -> None:
        if counts[scope]:
            out.append(ParamTensor(module, pname, shape, counts[scope], kind, scope, io))

    def linear(module: str, fan_in: int, fan_out: int, bias: bool, scope: Scope) -> None:
        # nn.Linear stores its weight as (out, in); GPT-2's Conv1D as (in, out)
        shape = (fan_in, fan_out) if a.model_type == "gpt2" else (fan_out, fan_in)
        add(module, "weight", shape, scope, "linear", (fan_in, fan_out))
        if bias:
            add(module, "bias", (fan_out,), scope, "bias", None)

    def norm(module: str, scope: Scope) -> None:
        add(module, "weight", (h,), scope, "norm", None)
        if a.norm == "layernorm":
            add(module, "bias", (h,), scope, "norm", None)

    def gated_mlp(prefix: str, inter: int, scope: Scope) -> None:
        linear(f"{prefix}.gate_proj", h, inter, a.mlp_bias, scope)
        linear(f"{prefix}.up_proj", h, inter, a.mlp_bias, scope)
        linear(f"{prefix}.down_proj", inter, h, a.mlp_bias, scope)

    if a.model_type == "gpt2":
        add("wte", "weight", (a.vocab_size, h), "model", "embedding", None)
        add("wpe", "weight", (a.max_position_embeddings, h), "model", "position", None)
        norm("ln_1", "layer")
        linear("attn.c_attn", h, a.q_dim + 2 * a.kv_dim, a.qkv_bias, "layer")
        linear("attn.c_proj", a.q_dim, h, a.o_bias, "layer")
        norm("ln_2", "layer")
        linear("mlp.c_fc", h, a.intermediate_size, a.mlp_bias, "layer")
        linear("mlp.c_proj", a.intermediate_size, h, a.mlp_bias, "layer")
        norm("ln_f", "model")
    else:
        add("embed_tokens", "weight", (a.vocab_size, h), "model", "embedding", None)
        if a.max_position_embeddings:
            add("embed_positions", "weight", (a.max_position_embeddings, h), "model", "position", None)
        norm("input_layernorm", "layer")
        linear("self_attn.q_proj", h, a.q_dim, a.qkv_bias, "layer")
        linear("self_attn.k_proj", h, a.kv_dim, a.qkv_bias, "layer")
        linear("self_attn.v_proj", h, a.kv_dim, a.qkv_bias, "layer")
        linear("self_attn.o_proj", a.q_dim, h, a.o_bias, "layer")
        norm("post_attention_layernorm", "layer")
        if a.mlp == "gated":
            gated_mlp("mlp", a.intermediate_size, "dense")
        else:
            linear("mlp.fc1", h, a.intermediate_size, a.mlp_bias, "dense")
            linear("mlp.fc2", a.intermediate_size, h, a.mlp_bias, "dense")
        e, ie = a.num_experts, a.moe_intermediate_size
        add("mlp.gate", "weight", (e, h), "moe", "router", None)
        add("mlp.experts", "gate_up_proj", (e, 2 * ie, h), "moe", "experts", None)
        add("mlp.experts", "down_proj", (e, h, ie), "moe", "experts", None)
        if a.shared_expert_intermediate_size:
            gated_mlp("mlp.shared_expert", a.shared_expert_intermediate_size, "moe")
            linear("mlp.shared_expert_gate", h, 1, False, "moe")
        norm("norm", "model")
    if not a.tie_embeddings:
        add("lm_head", "weight", (a.vocab_size, h), "model", "embedding", None)
    return tuple(out)


# transformers config keys per model_type. Sizes are required (a config.json always has them); the rest default
# as the transformers config class does.
_REQUIRED = {
    "gpt2": ("n_embd", "n_layer", "n_head", "vocab_size", "n_positions"),
    "llama": ("hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size", "intermediate_size"),
    "mistral": ("hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size", "intermediate_size"),
    "qwen2": ("hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size", "intermediate_size"),
    "mixtral": (
        "hidden_size",
        "num_hidden_layers",
        "num_attention_heads",
        "vocab_size",
        "intermediate_size",
        "num_local_experts",
        "num_experts_per_tok",
    ),
    "qwen2_moe": (
        "hidden_size",
        "num_hidden_layers",
        "num_attention_heads",
        "vocab_size",
        "intermediate_size",
        "num_experts",
        "num_experts_per_tok",
        "moe_intermediate_size",
    ),
}


def _config_model_type(config: Mapping[str, Any]) -> Any:
    """The config's model_type, once the config is a mapping with a supported model_type and its required keys."""
    if not isinstance(config, Mapping):
        raise ValueError(f"config must be a mapping (config.to_dict() or config.json), got {type(config).__name__}")
    model_type = config.get("model_type")
    if model_type is None:
        raise ValueError("config has no 'model_type' key (the key every transformers config.json carries)")
    if model_type not in _REQUIRED:
        raise ValueError(f"unsupported model_type {model_type!r}; supported: {', '.join(sorted(_REQUIRED))}")
    missing = [key for key in _REQUIRED[model_type] if config.get(key) is None]
    if missing:
        raise ValueError(f"config for model_type {model_type!r} is missing required key(s): {', '.join(missing)}")
    return model_type


def _config_get(config: Mapping[str, Any], key: str, default: Any) -> Any:
    """config[key], or ``default`` where the key is missing or None."""
    value = config.get(key)
    return default if value is None else value


def _gpt2_from_config(config: Mapping[str, Any], label: str) -> Arch:
    """The Arch of a GPT-2 config (n_embd, n_layer, n_head, n_positions keys)."""

    def get(key: str, default: Any) -> Any:
        return _config_get(config, key, default)

    h, heads = config["n_embd"], config["n_head"]
    if isinstance(h, int) and isinstance(heads, int) and heads > 0 and h % heads:
        raise ValueError(f"n_embd ({h}) must be divisible by n_head ({heads})")
    return Arch(
        name=label,
        model_type="gpt2",
        hidden_size=h,
        num_layers=config["n_layer"],
        num_heads=heads,
        num_kv_heads=heads,
        head_dim=h // heads if isinstance(h, int) and isinstance(heads, int) and heads > 0 else h,
        vocab_size=config["vocab_size"],
        intermediate_size=get("n_inner", 4 * h if isinstance(h, int) else h),
        tie_embeddings=bool(get("tie_word_embeddings", True)),
        mlp="plain",
        hidden_act=get("activation_function", "gelu_new"),
        norm="layernorm",
        qkv_bias=True,
        o_bias=True,
        mlp_bias=True,
        max_position_embeddings=config["n_positions"],
        attention_dropout=get("attn_pdrop", 0.1),
        hidden_dropout=get("resid_pdrop", 0.1),
        embedding_dropout=get("embd_pdrop", 0.1),
        eager_softmax_fp32=False,
    )


def _from_config(config: Mapping[str, Any], name: str | None) -> Arch:
    model_type = _config_model_type(config)
    label = name or str(config.get("_name_or_path") or model_type)

    def get(key: str, default: Any) -> Any:
        return _config_get(config, key, default)

    if model_type == "gpt2":
        return _gpt2_from_config(config, label)
    h, heads, layers = config["hidden_size"], config["num_attention_heads"], config["num_hidden_layers"]
    default_head_dim = h // heads if isinstance(h, int) and isinstance(heads, int) and heads > 0 else h
    common: dict[str, Any] = {
        "name": label,
        "model_type": model_type,
        "hidden_size": h,
        "num_layers": layers,
        "num_heads": heads,
        "num_kv_heads": get("num_key_value_heads", heads),
        "head_dim": get("head_dim", default_head_dim),
        "vocab_size": config["vocab_size"],
        "intermediate_size": config["intermediate_size"],
        "tie_embeddings": bool(get("tie_word_embeddings", False)),
        "hidden_act": get("hidden_act", "silu"),
        "attention_dropout": get("attention_dropout", 0.0),
    }
    sliding = _sliding_layers(config, model_type, layers)
    common["sliding_window"], common["num_sliding_layers"] = sliding
    if model_type == "llama":
        bias = bool(get("attention_bias", False))
        return Arch(**common, qkv_bias=bias, o_bias=bias, mlp_bias=bool(get("mlp_bias", False)))
    if model_type == "mistral":
        return Arch(**common)
    if model_type == "qwen2":
        return Arch(**common, qkv_bias=True)  # Qwen2 attention: bias on q, k, v, none on o
    if model_type == "mixtral":
        return Arch(
            **{**common, "intermediate_size": 0},
            num_experts=config["num_local_experts"],
            experts_per_token=config["num_experts_per_tok"],
            moe_intermediate_size=config["intermediate_size"],
            num_moe_layers=layers,
            moe_norm_topk=True,
        )
    # qwen2_moe: layer i is MoE unless listed in mlp_only_layers, and only every decoder_sparse_step-th layer
    step = get("decoder_sparse_step", 1)
    dense_only = set(get("mlp_only_layers", []))
    experts = config["num_experts"]
    n_moe = sum(
        1
        for i in range(layers if isinstance(layers, int) else 0)
        if i not in dense_only and experts > 0 and (i + 1) % step == 0
    )
    return Arch(
        **common,
        qkv_bias=bool(get("qkv_bias", True)),
        num_experts=experts,
        experts_per_token=config["num_experts_per_tok"],
        moe_intermediate_size=config["moe_intermediate_size"],
        shared_expert_intermediate_size=get("shared_expert_intermediate_size", 0),
        num_moe_layers=n_moe,
        moe_norm_topk=bool(get("norm_topk_prob", False)),
    )


def _sliding_layers(config: Mapping[str, Any], model_type: str, layers: Any) -> tuple[int, int]:
    """(window, layers using it): Mistral slides in every layer when sliding_window is set; Qwen2 per layer_types
    when use_sliding_window is on; Llama and Mixtral in transformers 5 keep full caches."""
    window = config.get("sliding_window") or 0
    if model_type == "mistral" and window:
        return window, layers
    if model_type in ("qwen2", "qwen2_moe") and window and config.get("use_sliding_window"):
        types = config.get("layer_types") or []
        return window, sum(1 for t in types if t == "sliding_attention")
    return 0, 0


# Public config.json facts of well-known models (Hugging Face hub, file config.json of each repository named in
# the comment). Only the keys the model reads are kept.
PRESET_CONFIGS: dict[str, dict[str, Any]] = {
    # meta-llama/Llama-2-7b-hf: 6,738,415,616 parameters
    "Llama-2-7B": {
        "model_type": "llama",
        "hidden_size": 4096,
        "intermediate_size": 11008,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 32,
        "vocab_size": 32000,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": False,
    },
    # meta-llama/Llama-2-13b-hf
    "Llama-2-13B": {
        "model_type": "llama",
        "hidden_size": 5120,
        "intermediate_size": 13824,
        "num_hidden_layers": 40,
        "num_attention_heads": 40,
        "num_key_value_heads": 40,
        "vocab_size": 32000,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": False,
    },
    # meta-llama/Llama-2-70b-hf (grouped-query attention: 8 KV heads)
    "Llama-2-70B": {
        "model_type": "llama",
        "hidden_size": 8192,
        "intermediate_size": 28672,
        "num_hidden_layers": 80,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "vocab_size": 32000,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": False,
    },
    # meta-llama/Llama-3.1-8B: 8,030,261,248 parameters
    "Llama-3.1-8B": {
        "model_type": "llama",
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "vocab_size": 128256,
        "max_position_embeddings": 131072,
        "tie_word_embeddings": False,
    },
    # meta-llama/Llama-3.1-70B
    "Llama-3.1-70B": {
        "model_type": "llama",
        "hidden_size": 8192,
        "intermediate_size": 28672,
        "num_hidden_layers": 80,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "vocab_size": 128256,
        "max_position_embeddings": 131072,
        "tie_word_embeddings": False,
    },
    # mistralai/Mistral-7B-v0.3 (sliding_window: null)
    "Mistral-7B": {
        "model_type": "mistral",
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "vocab_size": 32768,
        "max_position_embeddings": 32768,
        "sliding_window": None,
        "tie_word_embeddings": False,
    },
    # Qwen/Qwen2.5-7B (use_sliding_window: false)
    "Qwen2.5-7B": {
        "model_type": "qwen2",
        "hidden_size": 3584,
        "intermediate_size": 18944,
        "num_hidden_layers": 28,
        "num_attention_heads": 28,
        "num_key_value_heads": 4,
        "vocab_size": 152064,
        "max_position_embeddings": 131072,
        "use_sliding_window": False,
        "tie_word_embeddings": False,
    },
    # mistralai/Mixtral-8x7B-v0.1: 8 experts, 2 per token
    "Mixtral-8x7B": {
        "model_type": "mixtral",
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "vocab_size": 32000,
        "max_position_embeddings": 32768,
        "num_local_experts": 8,
        "num_experts_per_tok": 2,
        "sliding_window": None,
        "tie_word_embeddings": False,
    },
    # openai-community/gpt2: 124,439,808 parameters
    "GPT-2": {
        "model_type": "gpt2",
        "n_embd": 768,
        "n_layer": 12,
        "n_head": 12,
        "n_inner": None,
        "n_positions": 1024,
        "vocab_size": 50257,
        "activation_function": "gelu_new",
        "attn_pdrop": 0.1,
        "resid_pdrop": 0.1,
        "embd_pdrop": 0.1,
        "tie_word_embeddings": True,
    },
}
PRESETS = tuple(PRESET_CONFIGS)


# --------------------------------------------------------------------------------------------------------------
# Workload
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    """What runs: training or inference, and every setting that changes memory."""

    mode: Mode = "train"
    precision: Precision = "mixed"  # fp32; mixed = 16-bit weights and gradients, fp32 master; bf16 = pure 16-bit
    # training: the forward runs under torch.autocast(dtype=torch.bfloat16) (Trainer bf16=True, accelerate
    # mixed_precision="bf16"). With precision="fp32" and full fine-tuning that is PyTorch AMP: fp32 weights,
    # gradients and optimizer, bf16 matmuls. With LoRA it is how the Trainer runs the adapters on any base.
    autocast: bool = False
    optimizer: Optimizer = "adamw"
    finetune: Finetune = "full"
    lora_rank: int = 16
    lora_targets: tuple[str, ...] | None = None  # None: peft's default for the family; ("all-linear",)
    lora_dropout: float = 0.05  # LoraConfig(lora_dropout=...): the guide's recipes use 0.05 (peft's default is 0)
    adafactor_first_moment: bool = False  # transformers' Adafactor: beta1=None (no first moment) by default
    gradient_checkpointing: bool = False
    attention: AttentionImpl = "sdpa"
    batch_size: int = 1
    seq_len: int = 2048  # training: tokens per sequence; inference: tokens held in the KV cache per sequence
    quantization: Quantization = "none"  # frozen weights: none, int8 (LLM.int8), nf4 (QLoRA's 4-bit)
    double_quant: bool = True  # NF4: quantize the absmax scales too (QLoRA)
    kv_cache_dtype: KVDtype = "auto"  # auto: the compute dtype
    sharding: Sharding = "none"
    num_gpus: int = 1
    offload_optimizer: bool = False
    offload_params: bool = False
    device: Device = "cuda"
    # inference: prompt tokens one prefill pass processes, the whole batch's together (vLLM's
    # max_num_batched_tokens; transformers' generate(prefill_chunk_size=c) on a batch of b passes b x c); None: the
    # whole prompt of every sequence in one pass
    prefill_chunk: int | None = None

    def __post_init__(self) -> None:
        _choice("mode", self.mode, get_args(Mode))
        _choice("precision", self.precision, get_args(Precision))
        _choice("optimizer", self.optimizer, get_args(Optimizer))
        _choice("finetune", self.finetune, get_args(Finetune))
        _choice("attention", self.attention, get_args(AttentionImpl))
        _choice("quantization", self.quantization, get_args(Quantization))
        _choice("kv_cache_dtype", self.kv_cache_dtype, get_args(KVDtype))
        _choice("sharding", self.sharding, get_args(Sharding))
        _choice("device", self.device, get_args(Device))
        for name in ("lora_rank", "batch_size", "seq_len", "num_gpus"):
            _positive(name, getattr(self, name))
        _probability("lora_dropout", self.lora_dropout)
        if not isinstance(self.autocast, bool):
            raise ValueError(f"autocast must be True or False, got {self.autocast!r}")
        if self.autocast and self.mode == "infer":
            raise ValueError("autocast is modeled for training; for inference set precision (the stored dtype)")
        if self.autocast and self.finetune == "full" and self.precision != "fp32":
            raise ValueError("autocast with finetune='full' is AMP on fp32 weights: set precision='fp32'")
        if self.lora_targets is not None and (not isinstance(self.lora_targets, tuple) or not self.lora_targets):
            raise ValueError(f"lora_targets must be a non-empty tuple of module names, got {self.lora_targets!r}")
        if self.mode == "train":
            if self.finetune == "full" and self.quantization != "none":
                raise ValueError("quantized weights are frozen: train them with finetune='qlora', not 'full'")
            if self.finetune == "lora" and self.quantization != "none":
                raise ValueError("LoRA on a quantized base is finetune='qlora'")
            if self.finetune == "qlora" and self.quantization == "int8":
                raise ValueError("QLoRA quantizes the base to NF4, not int8")
        if self.sharding != "none" and self.mode == "infer":
            raise ValueError("ZeRO/FSDP sharding applies to training; for inference set num_gpus alone")
        if self.offload_params and self.mode == "train" and self.zero_stage != 3:
            raise ValueError("offload_params needs parameter sharding: sharding='zero3' or 'fsdp_full_shard'")
        if self.offload_optimizer and self.mode == "infer":
            raise ValueError("offload_optimizer applies to training")
        if self.offload_optimizer and self.zero_stage == 0:
            raise ValueError("offload_optimizer needs ZeRO (stage 1-3) or FSDP: set sharding")
        if self.prefill_chunk is not None:
            _positive("prefill_chunk", self.prefill_chunk)
            if self.mode == "train":
                raise ValueError("prefill_chunk applies to inference")

    @property
    def zero_stage(self) -> int:
        """ZeRO stage of the sharding: FSDP FULL_SHARD shards like stage 3, SHARD_GRAD_OP like stage 2."""
        return {"none": 0, "zero1": 1, "zero2": 2, "zero3": 3, "fsdp_shard_grad_op": 2, "fsdp_full_shard": 3}[
            self.sharding
        ]

    @property
    def base_quantization(self) -> Quantization:
        return "nf4" if self.finetune == "qlora" and self.mode == "train" else self.quantization

    @property
    def act_bytes(self) -> int:
        """Bytes of an activation element: the dtype the forward computes in (bf16 under autocast)."""
        return 4 if self.precision == "fp32" and not self.autocast else 2

    @property
    def amp(self) -> bool:
        """fp32 weights under bf16 autocast: the residual stream and the norms stay fp32, matmuls run in bf16."""
        return self.autocast and self.precision == "fp32"


# --------------------------------------------------------------------------------------------------------------
# Terms
# --------------------------------------------------------------------------------------------------------------


def quantized_bytes(numel: int, out_features: int, quantization: Quantization, double_quant: bool = True) -> float:
    """Bytes of one quantized linear weight, as bitsandbytes stores it (measured in the tests on CPU).

    int8 (LLM.int8, arXiv 2208.07339; ``Linear8bitLt``): one int8 per weight and one fp32 scale per output row.
    nf4 (QLoRA, arXiv 2305.14314, sec. 3; ``Linear4bit``): two weights per byte, one absmax per block of 64;
    the absmax is fp32, or with double quantization uint8 plus one fp32 second-level scale per 256 blocks, an
    fp32 offset and the 256-entry fp32 second-level code; the 16-entry fp32 NF4 code is kept per tensor too.
    That is 4 + 32/64 = 4.5 bits per weight, or 4 + 8/64 + 32/(64*256) = 4.127 with double quantization.
    """
    if quantization == "int8":
        return numel + 4 * out_features
    if quantization != "nf4":
        raise ValueError(f"quantization must be int8 or nf4 here, got {quantization!r}")
    blocks = math.ceil(numel / 64)
    packed = math.ceil(numel / 2)
    if double_quant:
        return packed + blocks + 4 * math.ceil(blocks / 256) + 4 + 256 * 4 + 16 * 4
    return packed + 4 * blocks + 16 * 4


def optimizer_state_bytes(
    shape: tuple[int, ...], optimizer: Optimizer, element_bytes: int, first_moment: bool = False
) -> float:
    """Optimizer state for one parameter tensor.

    AdamW: m and v (arXiv 1711.05101), each in the parameter's dtype (torch.optim.AdamW); element_bytes is 4 under
    fp32 or mixed precision (the step runs on fp32 master weights) and 2 in pure bf16.
    8-bit AdamW (bitsandbytes, arXiv 2110.02861): m and v as uint8 with one fp32 absmax per block of 256; tensors
    under 4,096 elements (min_8bit_size) keep fp32 states. Paged: the same bytes, in CUDA unified memory.
    Adafactor (arXiv 1804.04235; transformers.optimization.Adafactor): fp32 row and column sums of the squared
    gradient for a tensor of 2+ dimensions (rows = all but the last dimension), a full fp32 v for a 1-D one;
    beta1 adds an fp32 first moment.
    SGD: nothing; with momentum one buffer in the parameter's dtype.
    """
    n = _prod(shape)
    if optimizer == "adamw":
        return 2 * element_bytes * n
    if optimizer in ("adamw_8bit", "paged_adamw_8bit"):
        if n < 4096:
            return 2 * 4 * n
        return 2 * n + 2 * 4 * math.ceil(n / 256)
    if optimizer == "adafactor":
        v = 4 * (_prod(shape[:-1]) + _prod(shape[:-2]) * shape[-1]) if len(shape) >= 2 else 4 * n
        return v + (4 * n if first_moment else 0)
    if optimizer == "sgd_momentum":
        return element_bytes * n
    return 0


def lora_tensors(arch: Arch, rank: int, targets: tuple[str, ...] | None) -> tuple[ParamTensor, ...]:
    """LoRA's A (rank x in) and B (out x rank) for every targeted linear module (Hu et al., arXiv 2106.09685).

    A target matches a module whose path equals it or ends with "." + it, as in peft; "all-linear" takes every
    linear module of the decoder layers. None: peft's default for the family (q_proj and v_proj; GPT-2: c_attn).
    """
    _positive("lora_rank", rank)
    if targets is None:
        targets = ("c_attn",) if arch.model_type == "gpt2" else ("q_proj", "v_proj")
    linears = [t for t in arch.tensors() if t.linear is not None]
    out: list[ParamTensor] = []
    for target in targets:
        hits = [t for t in linears if target == "all-linear" or t.module == target or t.module.endswith("." + target)]
        if not hits:
            names = ", ".join(dict.fromkeys(t.module.rsplit(".", 1)[-1] for t in linears))
            raise ValueError(f"LoRA target {target!r} matches no linear module of {arch.name}; modules: {names}")
        for t in hits:
            assert t.linear is not None
            fan_in, fan_out = t.linear
            out.append(ParamTensor(f"{t.module}.lora_A", "weight", (rank, fan_in), t.count, "linear", t.scope))
            out.append(ParamTensor(f"{t.module}.lora_B", "weight", (fan_out, rank), t.count, "linear", t.scope))
    return tuple(dict.fromkeys(out))


def kv_cache_bytes(arch: Arch, batch_size: int, tokens: int, element_bytes: int) -> float:
    """Keys and values of every layer: 2 x layers x kv_heads x head_dim x bytes per token and sequence.
    A sliding-window layer keeps at most ``sliding_window`` tokens."""
    full = arch.num_layers - arch.num_sliding_layers
    sliding = min(tokens, arch.sliding_window) * arch.num_sliding_layers if arch.sliding_window else 0
    per_token_layer = 2 * arch.kv_dim * element_bytes * batch_size
    return per_token_layer * (full * tokens + sliding)


@dataclass(frozen=True)
class Activations:
    """Bytes the forward keeps for the backward (training), by part.

    Derived from the saved tensors of the transformers 5 implementations (Llama-style block: RMSNorm computed in
    fp32, q/k/v/o projections, rotary, SDPA or eager attention, gated MLP, grouped-GEMM experts; GPT-2 block)
    and checked against torch.autograd.graph.saved_tensors_hooks in the tests.
    """

    per_dense_layer: float
    per_moe_layer: float
    layers: float  # all decoder layers after the forward (checkpointed: only their inputs)
    recompute: float  # checkpointing: one layer's full set, rebuilt during the backward
    extras: float  # token and position ids, rotary tables, final norm, embedding dropout
    logits_output: float  # the logits the forward returns, in the compute dtype
    loss: float  # the fp32 log-probabilities cross-entropy saves, the int64 labels, a scalar

    @property
    def saved(self) -> float:
        """What saved-tensor hooks see at the end of the forward (the loss's tensors included)."""
        return self.layers + self.extras + self.loss

    @property
    def logits(self) -> float:
        return self.logits_output + self.loss


# The input a LoRA module's A matrix reads, by module name: modules sharing one input share it when it needs no
# cast (fp32); "attn_out" is the attention output, which SDPA saves anyway.
_LORA_INPUT = {
    "q_proj": "attn_in",
    "k_proj": "attn_in",
    "v_proj": "attn_in",
    "c_attn": "attn_in",
    "o_proj": "attn_out",
    "attn.c_proj": "attn_out",
    "gate_proj": "mlp_in",
    "up_proj": "mlp_in",
    "c_fc": "mlp_in",
    "shared_expert_gate": "mlp_in",
    "down_proj": "mlp_act",
    "mlp.c_proj": "mlp_act",
    "mlp.fc2": "mlp_act",
    "mlp.fc1": "mlp_in",
}


def _lora_input_group(module: str) -> str:
    for key in ("attn.c_proj", "mlp.c_proj", "mlp.fc1", "mlp.fc2"):
        if module.endswith(key):
            return _LORA_INPUT[key]
    group = _LORA_INPUT[module.rsplit(".", 1)[-1]]
    return "shared_act" if group == "mlp_act" and ".shared_expert." in module else group


def _lora_saved(arch: Arch, w: Workload, scope: Scope, sdpa_output_saved: bool) -> float:
    """What peft's LoRA layers save in one layer of ``scope``. peft casts a module's input to the adapters' fp32
    (``_cast_input_dtype``), applies the module's own dropout, then A and B. Without autocast A keeps its fp32
    input (a cast copy per module on a 16-bit base; on an fp32 base the input itself, once per distinct input and
    not at all when SDPA keeps it already) and B the fp32 output of A. Under bf16 autocast A casts its input back
    to bf16 and keeps that copy (one per module: autocast caches only weights) and B keeps A's bf16 output.
    Dropout (lora_dropout > 0) keeps its mask per module (bool on CUDA, fp32 on CPU) and its output is A's input,
    so inputs are never shared."""
    tokens = w.batch_size * w.seq_len
    mask = 1 if w.device == "cuda" else 4  # the dropout's input is the fp32 cast (see activations())
    inputs: dict[str, int] = {}
    total = 0.0
    for t in lora_tensors(arch, w.lora_rank, w.lora_targets):
        if t.scope not in (scope, "layer") or not t.module.endswith(".lora_A"):
            continue
        rank, fan_in = t.shape
        if w.lora_dropout > 0:
            total += mask * tokens * fan_in
        if w.autocast:
            total += 2 * tokens * rank + 2 * tokens * fan_in
            continue
        total += 4 * tokens * rank
        if w.act_bytes != 4 or w.lora_dropout > 0:
            total += 4 * tokens * fan_in
        else:
            inputs[_lora_input_group(t.module.removesuffix(".lora_A"))] = fan_in
    if sdpa_output_saved:
        inputs.pop("attn_out", None)
    return total + sum(4 * tokens * fan_in for fan_in in inputs.values())


def _first_layer_lora_a(arch: Arch, w: Workload) -> list[ParamTensor]:
    """The LoRA A matrices on the first layer's attention input (q/k/v, GPT-2's c_attn), one per module."""
    return [
        t
        for t in lora_tensors(arch, w.lora_rank, w.lora_targets)
        if t.module.endswith(".lora_A") and _lora_input_group(t.module.removesuffix(".lora_A")) == "attn_in"
    ]


# A norm: what its input side saves, and the outputs a trained weight needs. RMSNorm (Llama): the fp32 copy
# of its input and 1/rms per token (fp32); then the normalised value cast back (the norm weight's gradient)
# and the weighted output (the next matmul's). LayerNorm: input, mean and 1/std per token (fp32 on CUDA,
# the input dtype on CPU); then the output. Under AMP the normalised value and the output stay fp32 and each
# matmul reading the output keeps its own bf16 cast (autocast caches casts of weights, not of activations):
# ``consumers`` counts those matmuls.
def _norm_input(arch: Arch, w: Workload, fp32_ops: bool) -> int:
    """The bytes a norm's input side saves (see the comment above)."""
    d = w.act_bytes
    tokens = w.batch_size * w.seq_len
    h = arch.hidden_size
    fp32_layernorm = fp32_ops and arch.norm == "layernorm"
    if arch.norm == "rmsnorm":
        norm_in = 4 * tokens * h + 4 * tokens
    elif fp32_layernorm:
        norm_in = 4 * tokens * h + 2 * tokens * 4
    else:
        norm_in = d * tokens * h + 2 * tokens * (4 if w.device == "cuda" else d)
    return norm_in


def _norm_saved(arch: Arch, w: Workload, norm_in: int, consumers: int) -> float:
    """The bytes one norm saves: its input side ``norm_in`` plus the outputs a trained weight needs, with
    ``consumers`` matmuls reading the output (see the comment above _norm_input)."""
    d = w.act_bytes
    tokens = w.batch_size * w.seq_len
    h = arch.hidden_size
    if w.finetune != "full":
        return norm_in
    if w.autocast:  # full fine-tuning under autocast is AMP (fp32 weights)
        return norm_in + (4 * tokens * h if arch.norm == "rmsnorm" else 0) + consumers * 2 * tokens * h
    return norm_in + (2 * d * tokens * h if arch.norm == "rmsnorm" else d * tokens * h)


def _attention_saved(arch: Arch, w: Workload, mask: int, fp32_ops: bool, scores_stored: bool) -> int:
    """The bytes one layer's attention saves; ``mask`` is a dropout mask element's size and ``scores_stored``
    whether the attention probabilities are kept (eager, or attention dropout on CPU)."""
    d = w.act_bytes
    b, s = w.batch_size, w.seq_len
    tokens = b * s
    nh = arch.num_heads
    frozen = w.finetune != "full"
    # Attention. SDPA/flash (no padding mask, so GQA runs at KV-head width): q after rotary, k after rotary, v
    # (GPT-2: the fused qkv output), the output (also o_proj's input) and the fp32 log-sum-exp per query and
    # head. Eager: q, k and v repeated to all heads (GPT-2: the qkv output), the scores (fp32 softmax output,
    # plus its 16-bit copy when the model computes in 16 bits; GPT-2 keeps only the softmax in its own dtype),
    # and the output copied to (b, s, heads*head_dim) for o_proj, which a frozen o_proj does not keep.
    qkv = tokens * (arch.q_dim + 2 * arch.kv_dim) * d
    out = tokens * arch.q_dim * d
    if scores_stored:
        if w.attention == "eager" and (arch.eager_softmax_fp32 or fp32_ops):
            score_bytes = 4 + (d if d != 4 else 0)
        else:
            score_bytes = d
        if arch.attention_dropout > 0:
            score_bytes += mask + d  # the mask and the dropped-out probabilities
        q_k_v = qkv if arch.model_type == "gpt2" else 3 * out
        attention = q_k_v + b * nh * s * s * score_bytes + (0 if frozen else out)
    else:
        # CUDA flash / memory-efficient kernels keep an RNG seed for attention dropout, not a mask.
        attention = qkv + out + 4 * b * nh * s
    return attention


def _moe_mlp_saved(arch: Arch, w: Workload, a: int, frozen: bool) -> tuple[int, int, int]:
    """(experts, router, shared expert): the bytes one MoE layer's expert block saves; ``a`` is ACT_SAVED of the
    activation function."""
    d = w.act_bytes
    tokens = w.batch_size * w.seq_len
    h = arch.hidden_size
    kept_output = 0 if frozen else 1
    # Experts (transformers' grouped_mm path), per routed (token, expert) row: the gathered input (not kept
    # by frozen experts), the gate_up output, the activation output, the product (not kept when frozen), the
    # down output (saved by the routing-weight multiply), the routing weight and three int64 indices;
    # per layer the int32 expert offsets. Router, per token: the fp32 softmax, the int64 top-k indices, and
    # when renormalised the sum and the top-k values (fp32).
    rows = tokens * arch.experts_per_token
    ie, e, k = arch.moe_intermediate_size, arch.num_experts, arch.experts_per_token
    # Under AMP the experts compute in fp32 (their weights' dtype: grouped_mm is no autocast op on CPU, where
    # this is measured; not checked on CUDA).
    de = 4 if w.amp else d
    weight = 4 if arch.model_type == "mixtral" else d  # Qwen2-MoE casts the routing weights to the router's
    row = (h + (2 + a) * ie + (0 if frozen else h + ie)) * de + weight + 24
    experts = rows * row + 4 * e
    router = tokens * (4 * e + 8 * k + ((4 + 4 * k) if arch.moe_norm_topk else 0))
    shared = 0
    if arch.shared_expert_intermediate_size:
        # A gated MLP always on, and its sigmoid gate: the gate output and the expert output it scales.
        units = a + 2 + kept_output
        shared = units * tokens * arch.shared_expert_intermediate_size * d + tokens * h * d + tokens * d
    return experts, router, shared


def _layer_totals(
    arch: Arch, w: Workload, per_dense: float, per_moe: float, norm_in: int, r: int
) -> tuple[float, float]:
    """(layers, recompute): the bytes all decoder layers keep, and those the backward rebuilds for one layer at a
    time under gradient checkpointing; ``r`` is the residual stream's element size."""
    tokens = w.batch_size * w.seq_len
    h = arch.hidden_size
    layers: float
    recompute: float
    if w.gradient_checkpointing:
        # transformers checkpoints every decoder layer (torch.utils.checkpoint, non-reentrant): each keeps its
        # input; the backward rebuilds one layer at a time.
        layers = arch.num_layers * tokens * h * r
        recompute = max(per_dense if arch.num_dense_layers else 0, per_moe)
    else:
        layers = arch.num_dense_layers * per_dense + arch.num_moe_layers * per_moe
        recompute = 0.0
        if w.finetune != "full":
            # The first layer's input comes from the frozen embedding without a gradient: its norm saves
            # nothing, and neither do the LoRA dropouts on its attention input (a mask only serves that gradient).
            layers -= norm_in
            if w.lora_dropout > 0:
                mask_bytes = 1 if w.device == "cuda" else 4
                layers -= sum(mask_bytes * tokens * t.shape[1] for t in _first_layer_lora_a(arch, w))
    return layers, recompute


def _extras_saved(arch: Arch, w: Workload, norm_in: int, r: int, scores_stored: bool) -> float:
    """The bytes saved outside the decoder layers, logits and loss aside (see Activations.extras)."""
    b, s = w.batch_size, w.seq_len
    tokens = b * s
    h = arch.hidden_size
    frozen = w.finetune != "full"
    # Token ids (int64, for the embedding's gradient; a frozen embedding keeps none), the final norm (with
    # lm_head's input when lm_head trains), positions: GPT-2's position ids (1, s) or rotary cos and sin
    # (1, s, head_dim) shared by all layers.
    extras = (0 if frozen else 8 * tokens) + _norm_saved(arch, w, norm_in, 1)
    if arch.max_position_embeddings:
        extras += 0 if frozen else 8 * s
    else:
        extras += 2 * s * arch.head_dim * r  # in the residual stream's dtype (the rotary module casts to it)
    if arch.embedding_dropout > 0:
        extras += tokens * h * (1 if w.device == "cuda" else r)
    if w.gradient_checkpointing and scores_stored:
        extras += b * s * s * r  # the additive causal mask (b, 1, s, s), an input every checkpointed layer keeps
    return extras


def activations(arch: Arch, w: Workload) -> Activations:
    """Training activations (see Activations). Each line names the tensors it counts.

    Full fine-tuning saves what every weight gradient needs; with LoRA/QLoRA the base is frozen, so a frozen
    matmul keeps no input (bitsandbytes' 4-bit matmul saves only its weight), norms keep only what the input
    gradient needs, and peft's adapters add their fp32 inputs.
    """
    d = w.act_bytes
    b, s = w.batch_size, w.seq_len
    tokens = b * s
    h = arch.hidden_size
    # The residual stream: in the compute dtype, except under AMP (fp32 weights, bf16 autocast), where the
    # embedding, the norms and the residual adds stay fp32 and only the matmuls' outputs are bf16.
    r = 4 if w.amp else d
    # dropout mask: bool from CUDA's native_dropout, the input's dtype on CPU (torch's _dropout_impl keeps a
    # noise tensor like its input); the dropouts after attention and MLP see the 16-bit matmul outputs
    mask = 1 if w.device == "cuda" else d
    a = ACT_SAVED[arch.hidden_act]
    frozen = w.finetune != "full"
    # CUDA autocast runs layer_norm and softmax in fp32 whatever the input dtype (both on its float32 list, see
    # PyTorch's autocast op reference; CPU autocast leaves them in the input's dtype); under AMP the input is fp32.
    fp32_ops = w.amp or (w.autocast and w.device == "cuda")
    norm_in = _norm_input(arch, w, fp32_ops)

    attn_consumers = 1 if arch.model_type == "gpt2" else 3  # c_attn; q, k and v
    mlp_consumers = 2 if arch.mlp == "gated" else 1  # gate and up; fc
    moe_consumers = 1 + (3 if arch.shared_expert_intermediate_size else 0)  # the router; the shared expert's

    scores_stored = w.attention == "eager" or (w.device == "cpu" and arch.attention_dropout > 0)
    attention = _attention_saved(arch, w, mask, fp32_ops, scores_stored)
    dropout = 2 * tokens * h * mask if arch.hidden_dropout > 0 else 0

    # Dense MLP. Gated: the activation's saved tensors (SiLU: its input, the gate output), the activation output
    # and the up output (both saved by their product) and the product (down_proj's input, not kept by a frozen
    # down_proj). Plain (GPT-2): the activation's saved tensors and its output (c_proj's input).
    kept_output = 0 if frozen else 1
    dense_units = (a + 2 + kept_output) if arch.mlp == "gated" else (a + kept_output)
    mlp = dense_units * tokens * arch.intermediate_size * d
    attn_norm = _norm_saved(arch, w, norm_in, attn_consumers)
    per_dense: float = attn_norm + _norm_saved(arch, w, norm_in, mlp_consumers) + attention + mlp + dropout
    if frozen:
        per_dense += _lora_saved(arch, w, "dense", not scores_stored)

    per_moe = 0.0
    if arch.num_moe_layers:
        experts, router, shared = _moe_mlp_saved(arch, w, a, frozen)
        moe_norm = _norm_saved(arch, w, norm_in, moe_consumers)
        per_moe = attn_norm + moe_norm + attention + experts + router + shared + dropout
        if frozen:
            per_moe += _lora_saved(arch, w, "moe", not scores_stored)

    layers, recompute = _layer_totals(arch, w, per_dense, per_moe, norm_in, r)
    extras = _extras_saved(arch, w, norm_in, r, scores_stored)
    # Logits (b, s, vocab) in the compute dtype, returned by the forward; the loss upcasts them to fp32
    # (transformers' ForCausalLMLoss) and cross-entropy saves the fp32 log-softmax; the int64 labels and a scalar.
    logits_output = tokens * arch.vocab_size * d
    loss = tokens * arch.vocab_size * 4 + 8 * tokens + 4
    return Activations(per_dense, per_moe, layers, recompute, extras, logits_output, loss)


def korthikanti_bytes(arch: Arch, batch_size: int, seq_len: int, scores: bool = True) -> float:
    """Korthikanti et al. (arXiv 2205.05198, eq. 2): s*b*h*(34 + 5*a*s/h) bytes per layer for a GPT-3-style block
    with 16-bit activations and dropout; without the scores (fused attention) 34*s*b*h. All layers."""
    s, b, h, a = seq_len, batch_size, arch.hidden_size, arch.num_heads
    per_layer = s * b * h * (34 + (5 * a * s / h if scores else 0))
    return arch.num_layers * per_layer


# --------------------------------------------------------------------------------------------------------------
# The estimate
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    name: str
    gpu: float  # bytes per GPU
    host: float  # bytes of host RAM per training process
    basis: str


@dataclass(frozen=True)
class Overhead:
    """A GPU-only cost the total leaves out: a range with its source, never a number we made up."""

    name: str
    low: float
    high: float | None  # None: no bound can be stated
    source: str


OVERHEADS = (
    Overhead(
        "cuda_context",
        0.3e9,
        1.0e9,
        "per process; CUDA driver state and loaded kernels, visible in nvidia-smi but not in "
        "torch.cuda.memory_reserved(); varies with GPU, driver, CUDA version and lazy loading "
        "(CUDA_MODULE_LOADING=LAZY). Range from the memory-anatomy snippet; not measured here (no GPU).",
    ),
    Overhead(
        "allocator_slack",
        0.0,
        None,
        "PyTorch's caching allocator keeps freed blocks: torch.cuda.memory_reserved() - memory_allocated(); "
        "workload-dependent, reduced by PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PyTorch CUDA semantics).",
    ),
    Overhead(
        "workspaces",
        0.0,
        None,
        "cuBLAS/cuDNN workspaces, NCCL buffers, optimizer-step temporaries: depend on library versions and sizes.",
    ),
)


@dataclass(frozen=True)
class Estimate:
    arch: Arch
    workload: Workload
    terms: tuple[Term, ...]
    params: int
    trainable_params: int
    activation_detail: Activations | None
    notes: tuple[str, ...] = field(default=())

    @property
    def gpu_total(self) -> float:
        return sum(t.gpu for t in self.terms)

    @property
    def host_total(self) -> float:
        return sum(t.host for t in self.terms)

    def term(self, name: str) -> Term:
        for t in self.terms:
            if t.name == name:
                return t
        raise KeyError(name)

    def as_dict(self) -> dict[str, Any]:
        """Plain data (the calculator's parity check reads this)."""
        return {
            "params": self.params,
            "trainable_params": self.trainable_params,
            "terms": {t.name: {"gpu": t.gpu, "host": t.host} for t in self.terms},
            "gpu_total": self.gpu_total,
            "host_total": self.host_total,
        }


TERM_NAMES = (
    "weights",
    "adapter_weights",
    "gradients",
    "master_weights",
    "optimizer_states",
    "gathered_params",
    "autocast_copies",
    "activations",
    "logits",
    "kv_cache",
)


def estimate(arch: Arch, workload: Workload) -> Estimate:
    """The per-GPU (and host) memory of one workload, term by term."""
    w = workload
    if w.mode == "infer":
        return _infer(arch, w)
    return _train(arch, w)


def _weights(arch: Arch, w: Workload, quant: Quantization) -> float:
    """The stored base weights: quantized linears at their bitsandbytes size, everything else (embeddings, the
    LM head, norms, biases, MoE expert tensors, which bitsandbytes does not replace) in the compute dtype."""
    wb = _WEIGHT_BYTES[w.precision]
    total = 0.0
    for t in arch.tensors():
        if quant != "none" and t.linear is not None:
            total += t.count * quantized_bytes(t.numel, t.linear[1], quant, w.double_quant)
        else:
            total += t.count * t.numel * wb
    return total


def _train(arch: Arch, w: Workload) -> Estimate:
    n = w.num_gpus
    stage = w.zero_stage
    params = arch.param_count
    wb = _WEIGHT_BYTES[w.precision]
    notes: list[str] = []
    quant = w.base_quantization

    # Trainable tensors, their dtype, and whether a separate fp32 master copy exists.
    if w.finetune == "full":
        trainable = arch.tensors()
        train_bytes = wb
        master_bytes = 4 if w.precision == "mixed" else 0
        state_element = 2 if w.precision == "bf16" else 4
    else:
        # peft keeps adapters in fp32 on a 16-bit base (autocast_adapter_dtype=True), so no separate master copy.
        trainable = lora_tensors(arch, w.lora_rank, w.lora_targets)
        train_bytes, master_bytes, state_element = 4, 0, 4
    n_train = sum(t.numel * t.count for t in trainable)
    states = sum(
        t.count * optimizer_state_bytes(t.shape, w.optimizer, state_element, w.adafactor_first_moment)
        for t in trainable
    )
    if w.optimizer in ("adamw_8bit", "paged_adamw_8bit") and any(t.numel >= 4096 for t in trainable):
        states += 2 * 256 * 4  # bitsandbytes' two 256-entry fp32 quantization maps, shared by all tensors
    if w.optimizer == "paged_adamw_8bit":
        notes.append("paged optimizer: the same bytes in CUDA unified memory; under pressure pages move to host RAM")

    # ZeRO (arXiv 1910.02054, sec. 5): stage 1 shards optimizer states (with the fp32 master), stage 2 also
    # gradients, stage 3 also the weights; FSDP FULL_SHARD = stage 3, SHARD_GRAD_OP = stage 2.
    def shard(nbytes: float, from_stage: int) -> float:
        return nbytes / n if stage >= from_stage else nbytes

    weights = shard(_weights(arch, w, quant), 3)
    adapter = n_train * train_bytes if w.finetune != "full" else 0.0
    adapter = shard(adapter, 3)
    grads = shard(n_train * train_bytes, 2)
    master = shard(n_train * master_bytes, 1)
    optim = shard(states, 1)
    # ZeRO-3 gathers a module's 16-bit weights before it runs and reduces its gradients after: DeepSpeed's
    # estimator budgets 4 bytes per parameter of the largest module (estimate_zero3_model_states_mem_needs).
    gathered = 2 * wb * arch.largest_module_params if stage == 3 else 0.0

    host = {"weights": 0.0, "gradients": 0.0, "master_weights": 0.0, "optimizer_states": 0.0}
    gpu = {"weights": weights, "gradients": grads, "master_weights": master, "optimizer_states": optim}
    if w.offload_optimizer:
        # ZeRO-Offload (arXiv 2101.06840): master weights, optimizer states and the step move to the CPU; the
        # reduced gradients go to host RAM as fp32 (with Adam, DeepSpeed's 16 bytes per parameter on the host:
        # 4 gradient + 4 master + 8 states), and the GPU keeps only bucket-sized gradient buffers.
        host["gradients"], gpu["gradients"] = n_train * 4 / n, 0.0
        host["master_weights"], gpu["master_weights"] = master, 0.0
        host["optimizer_states"], gpu["optimizer_states"] = optim, 0.0
    if w.offload_params:
        # ZeRO-Infinity (arXiv 2104.07857) / FSDP CPU offload: the weight shards live in host RAM; only the
        # gathered module (gathered_params) is on the GPU.
        host["weights"], gpu["weights"] = weights, 0.0

    act = activations(arch, w)
    act_gpu = act.layers + act.extras + act.recompute
    terms = (
        Term("weights", gpu["weights"], host["weights"], "params x bytes of the stored dtype (ZeRO paper, sec. 3.1)"),
        Term("adapter_weights", adapter, 0.0, "LoRA A and B in fp32 (peft's autocast_adapter_dtype)"),
        Term("gradients", gpu["gradients"], host["gradients"], "one per trainable param, in its dtype"),
        Term("master_weights", gpu["master_weights"], host["master_weights"], "fp32 copy under mixed precision"),
        Term("optimizer_states", gpu["optimizer_states"], host["optimizer_states"], "optimizer_state_bytes()"),
        Term("gathered_params", gathered, 0.0, "ZeRO-3 working set: 4 bytes x largest module (DeepSpeed)"),
        Term("autocast_copies", autocast_copies(arch, w), 0.0, "autocast_copies(): bf16 casts of fp32 weights"),
        Term("activations", act_gpu, 0.0, "activations(): saved tensors of the transformers implementation"),
        Term("logits", act.logits, 0.0, "logits + fp32 log-softmax for the loss"),
        Term("kv_cache", 0.0, 0.0, "no KV cache in training (use_cache=False)"),
    )
    return Estimate(arch, w, terms, params, n_train, act, tuple(notes))


def autocast_copies(arch: Arch, w: Workload) -> float:
    """The bf16 copies bf16 autocast makes of fp32 weights, alive from the forward until the backward has used
    them: every matmul keeps its bf16 weight for the input's gradient. A trainable fp32 weight is cast once per
    forward and kept in autocast's weight cache (fp32 leaf tensors that require grad) until the autocast region
    ends, when the forward returns; a frozen fp32 weight (LoRA on an fp32 base) is cast at each use and lives only
    as long as a matmul keeps it. Counted: the nn.Linear weights of the decoder layers, the MoE routers and the LM
    head (the input embedding when tied; an embedding lookup is no autocast op), the trainable biases of those
    linears (cached, kept by no matmul), and LoRA's fp32 A and B. MoE
    expert tensors are not nn.Linear weights and are not cast (measured on CPU). Not sharded: a layer's copies are
    of its gathered weights. Gradient checkpointing does not free the cached copies during the forward (measured:
    leaving autocast frees them all), so with it every layer's cached copies still count, the frozen weights'
    copies of the one layer the backward recomputes at a time, and the LM head's, which its matmul keeps.
    2 bytes per counted parameter; 0 without autocast, and a 16-bit or quantized base gives none."""
    if not w.autocast:
        return 0.0
    cached = {"layer": 0, "dense": 0, "moe": 0}  # casts of trainable fp32 weights: autocast's cache holds them
    recast = {"layer": 0, "dense": 0, "moe": 0}  # casts of frozen fp32 weights: held by the matmuls that keep them
    once = 0
    if w.amp:
        layer_casts = cached if w.finetune == "full" else recast
        for t in arch.tensors():
            if t.linear is not None or t.kind == "router":
                layer_casts[t.scope] += t.numel
            elif t.module == "lm_head" or (arch.tie_embeddings and t.kind == "embedding"):
                once += t.numel
            elif t.kind == "bias" and w.finetune == "full":
                cached[t.scope] += t.numel  # cast for the matmul, kept by nothing: its gradient needs no input
    if w.finetune != "full":
        for t in lora_tensors(arch, w.lora_rank, w.lora_targets):
            cached[t.scope] += t.numel

    def all_layers(per: dict[str, int]) -> int:
        return per["layer"] * arch.num_layers + per["dense"] * arch.num_dense_layers + per["moe"] * arch.num_moe_layers

    if w.gradient_checkpointing:
        dense = recast["dense"] if arch.num_dense_layers else 0
        moe = recast["moe"] if arch.num_moe_layers else 0
        return 2.0 * (all_layers(cached) + recast["layer"] + max(dense, moe) + once)
    if w.finetune != "full" and w.amp:
        # The first layer's attention input has no gradient (it comes from the frozen embedding): its matmuls keep
        # no weight for it, so the casts of its frozen q/k/v die at once (their A matrices' stay in the cache).
        once -= sum(
            t.numel for t in arch.tensors() if t.linear is not None and _lora_input_group(t.module) == "attn_in"
        )
    return 2.0 * (all_layers(cached) + all_layers(recast) + once)


def _infer(arch: Arch, w: Workload) -> Estimate:
    n = w.num_gpus
    d = w.act_bytes
    b, s = w.batch_size, w.seq_len
    weights = _weights(arch, w, w.quantization)
    kv_bytes = d if w.kv_cache_dtype == "auto" else _KV_BYTES[w.kv_cache_dtype]
    kv = kv_cache_bytes(arch, b, s, kv_bytes)
    # generate() computes the last position's logits only (logits_to_keep=1) and copies them to fp32.
    logits = b * arch.vocab_size * (d + 4)
    # Prefill working set of one layer under no_grad (an estimate from the forward code): the residual stream and
    # the norm output, q/k/v and the attention output, or the MLP's gate, up and product; eager attention also
    # materialises fp32 scores and their 16-bit copy. A pass holds `tokens` prompt tokens: all of them, or one chunk
    # (chunked prefill); each of its queries attends to at most s cached keys, so eager scores are heads x tokens x s
    # (b x heads x s x s for the whole prompt), while SDPA and flash attention keep none.
    tokens = b * s if w.prefill_chunk is None else min(w.prefill_chunk, b * s)
    h = arch.hidden_size
    inter = max(arch.intermediate_size, arch.moe_intermediate_size * arch.experts_per_token)
    attn = tokens * (2 * arch.q_dim + 2 * arch.kv_dim) * d
    if w.attention == "eager":
        attn += arch.num_heads * tokens * s * (4 + (d if d != 4 else 0))
    working = 2 * tokens * h * d + max(attn, 3 * tokens * inter * d)
    notes = ["inference activations are an estimate of one layer's prefill working set, not a measurement"]
    host_weights = 0.0
    gpu_weights = weights / n  # layers split over the GPUs (device_map="auto"), KV cache with them
    if w.offload_params:
        # accelerate's CPU offload: weights in host RAM, each layer copied to the GPU just before it runs.
        host_weights, gpu_weights = weights, _weights_largest_layer(arch, w)
    terms = (
        Term("weights", gpu_weights, host_weights, "params x bytes, quantized linears at bitsandbytes' size"),
        Term("adapter_weights", 0.0, 0.0, "none at inference"),
        Term("gradients", 0.0, 0.0, "none at inference"),
        Term("master_weights", 0.0, 0.0, "none at inference"),
        Term("optimizer_states", 0.0, 0.0, "none at inference"),
        Term("gathered_params", 0.0, 0.0, "no sharding at inference"),
        Term("autocast_copies", 0.0, 0.0, "no autocast at inference"),
        Term("activations", working, 0.0, f"estimate: one layer's prefill working set, {tokens} tokens a pass"),
        Term("logits", logits, 0.0, "last-position logits and their fp32 copy in generate()"),
        Term("kv_cache", kv / n, 0.0, "2 x layers x kv_heads x head_dim x bytes x tokens x batch"),
    )
    return Estimate(arch, w, terms, arch.param_count, 0, None, tuple(notes))


def _weights_largest_layer(arch: Arch, w: Workload) -> float:
    """One decoder layer's weights (the unit accelerate moves to the GPU when offloading)."""
    wb = _WEIGHT_BYTES[w.precision]

    def size(scope: Scope) -> float:
        total = 0.0
        for t in arch.tensors():
            if t.scope != scope:
                continue
            if w.quantization != "none" and t.linear is not None:
                total += quantized_bytes(t.numel, t.linear[1], w.quantization, w.double_quant)
            else:
                total += t.numel * wb
        return total

    return size("layer") + max(size("dense"), size("moe"))
