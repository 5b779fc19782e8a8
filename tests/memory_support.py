"""Measure memory terms from real tensors on CPU, for tests/test_memory_model.py and bench/memory_agreement.py.

Random-weight models are built from transformers configs (no hub). Every measure counts unique storages (by
``untyped_storage().data_ptr()``), so views and tied weights count once.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch
from perfdocs.memory import Arch

SMALL = {"vocab_size": 512, "hidden_size": 64, "intermediate_size": 176, "num_hidden_layers": 2}
HEADS = {"num_attention_heads": 4, "num_key_value_heads": 2}
MEDIUM = {"vocab_size": 1024, "hidden_size": 256, "intermediate_size": 688, "num_hidden_layers": 2}
MEDIUM_HEADS = {"num_attention_heads": 8, "num_key_value_heads": 2}

# model name -> transformers config dict (as config.to_dict() gives it); "tiny" and "medium" sizes.
CONFIGS: dict[str, dict[str, Any]] = {
    "llama-tiny": {"model_type": "llama", **SMALL, **HEADS},
    "llama-medium": {"model_type": "llama", **MEDIUM, **MEDIUM_HEADS},
    "qwen2-medium": {"model_type": "qwen2", **MEDIUM, **MEDIUM_HEADS, "tie_word_embeddings": True},
    "mistral-medium": {"model_type": "mistral", **MEDIUM, **MEDIUM_HEADS, "head_dim": 48, "sliding_window": None},
    "gpt2-medium": {
        "model_type": "gpt2",
        "vocab_size": 1024,
        "n_embd": 256,
        "n_layer": 2,
        "n_head": 8,
        "n_positions": 256,
        "attn_pdrop": 0.0,
        "resid_pdrop": 0.0,
        "embd_pdrop": 0.0,
    },
    "mistral-window": {"model_type": "mistral", **MEDIUM, **MEDIUM_HEADS, "sliding_window": 16},
    "gpt2-dropout": {
        "model_type": "gpt2",
        "vocab_size": 512,
        "n_embd": 128,
        "n_layer": 2,
        "n_head": 4,
        "n_positions": 128,
    },
    "mixtral-medium": {
        "model_type": "mixtral",
        **MEDIUM,
        "intermediate_size": 256,
        **MEDIUM_HEADS,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
    },
    "qwen2_moe-medium": {
        "model_type": "qwen2_moe",
        **MEDIUM,
        **MEDIUM_HEADS,
        "num_hidden_layers": 3,
        "intermediate_size": 512,
        "moe_intermediate_size": 128,
        "shared_expert_intermediate_size": 256,
        "num_experts": 4,
        "num_experts_per_tok": 2,
        "mlp_only_layers": [1],
        "norm_topk_prob": True,
    },
}


def config(name: str) -> Any:
    """The transformers config object for CONFIGS[name]."""
    from transformers import AutoConfig

    kwargs = dict(CONFIGS[name])
    model_type = kwargs.pop("model_type")
    return AutoConfig.for_model(model_type, bos_token_id=1, eos_token_id=2, pad_token_id=0, **kwargs)


def build(name: str, dtype: torch.dtype = torch.float32, attn: str = "sdpa") -> Any:
    """A seeded random-weight causal LM of CONFIGS[name]."""
    from transformers import AutoModelForCausalLM

    torch.manual_seed(0)
    return AutoModelForCausalLM.from_config(config(name), dtype=dtype, attn_implementation=attn)


def arch(name: str) -> Arch:
    return Arch.from_config(config(name).to_dict(), name)


def storage_bytes(tensors: Iterator[torch.Tensor] | list[torch.Tensor]) -> int:
    """Bytes of the unique storages behind ``tensors``."""
    seen: dict[int, int] = {}
    for t in tensors:
        storage = t.untyped_storage()
        seen[storage.data_ptr()] = storage.nbytes()
    return sum(seen.values())


def parameter_bytes(model: Any, trainable: bool | None = None) -> int:
    return storage_bytes(p for p in model.parameters() if trainable is None or p.requires_grad == trainable)


def gradient_bytes(model: Any) -> int:
    return storage_bytes(p.grad for p in model.parameters() if p.grad is not None)


def optimizer_bytes(optimizer: torch.optim.Optimizer) -> int:
    """Every tensor in the optimizer's state (torch's scalar ``step`` tensors included)."""
    return storage_bytes(v for state in optimizer.state.values() for v in state.values() if torch.is_tensor(v))


def one_step(model: Any, optimizer: torch.optim.Optimizer, batch: int = 2, seq: int = 16) -> None:
    """A forward, backward and optimizer step on random tokens."""
    ids = torch.randint(3, model.config.vocab_size, (batch, seq))
    model.train()
    loss = model(input_ids=ids, labels=ids, use_cache=False).loss
    loss.backward()
    optimizer.step()


@dataclass(frozen=True)
class Saved:
    saved: int  # unique storages the autograd graph holds for the backward (parameters excluded)
    logits: int  # the logits tensor the forward returned
    # of ``saved``: the casts of parameters (autocast's bf16 weight copies): a parameter's values, or their
    # transpose (as a matmul keeps them), in another dtype
    copies: int = 0
    # what leaving the autocast region frees: the bf16 weight copies autocast's cache kept and no matmul saved
    # (with gradient checkpointing, every layer's; without it, the casts whose matmuls needed no weight)
    cache: int = 0


def saved_for_backward(model: Any, batch: int, seq: int, checkpointing: bool = False, autocast: bool = False) -> Saved:
    """Unique storages packed by torch.autograd.graph.saved_tensors_hooks during one training forward (with the
    loss), parameters excluded: what the forward keeps for the backward. ``autocast``: the forward and the loss
    under torch.autocast("cpu", dtype=torch.bfloat16), as the Trainer runs them with bf16=True; the bf16 weight
    copies the matmuls keep are not parameters, so they are counted here too."""
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    weights = [p for p in model.parameters() if p.dim() == 2]

    def is_copy(t: torch.Tensor) -> bool:
        return t.dim() == 2 and any(
            p.dtype != t.dtype
            and (torch.equal(p.detach().to(t.dtype), t) or torch.equal(p.detach().to(t.dtype).t(), t))
            for p in weights
            if p.shape in (t.shape, t.shape[::-1])
        )

    seen: dict[int, int] = {}
    copies: set[int] = set()

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        if storage.data_ptr() not in params:
            seen[storage.data_ptr()] = storage.nbytes()
            if is_copy(t):
                copies.add(storage.data_ptr())
        return t

    if checkpointing:
        model.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": False})
    torch.manual_seed(1)
    ids = torch.randint(3, model.config.vocab_size, (batch, seq))
    model.train()
    from torch.profiler import ProfilerActivity, profile, record_function

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        with (
            torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast),
            torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t),
        ):
            out = model(input_ids=ids, labels=ids, use_cache=False)
            with record_function("perfdocs.forward_done"):
                pass
        with record_function("perfdocs.autocast_left"):
            pass
    events = prof.events()
    done, left = (
        next(e.time_range.start for e in events if e.name == m)
        for m in ("perfdocs.forward_done", "perfdocs.autocast_left")
    )
    freed = -sum(e.cpu_memory_usage for e in events if e.name == "[memory]" and done <= e.time_range.start < left)
    return Saved(sum(seen.values()), out.logits.untyped_storage().nbytes(), sum(seen[p] for p in copies), freed)


@contextlib.contextmanager
def saved_model(name: str, dtype: torch.dtype = torch.bfloat16) -> Iterator[str]:
    """A directory holding a saved random-weight model (from_pretrained needs one to quantize)."""
    with tempfile.TemporaryDirectory() as tmp:
        build(name, dtype).save_pretrained(tmp)
        yield tmp


def quantized_model(path: str, quantization: str, double_quant: bool = True) -> Any:
    """A bitsandbytes-quantized model loaded on CPU."""
    from transformers import AutoModelForCausalLM, BitsAndBytesConfig

    if quantization == "nf4":
        qc = BitsAndBytesConfig(
            load_in_4bit=True,
            bnb_4bit_quant_type="nf4",
            bnb_4bit_use_double_quant=double_quant,
            bnb_4bit_compute_dtype=torch.bfloat16,
        )
    else:
        qc = BitsAndBytesConfig(load_in_8bit=True)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    return AutoModelForCausalLM.from_pretrained(path, quantization_config=qc, device_map="cpu", dtype=torch.bfloat16)


def quantized_weight_bytes(model: Any) -> int:
    """Parameters plus every tensor of the bitsandbytes quantization states (absmax, codes, offsets, row scales):
    what the weights occupy (transformers' get_memory_footprint() leaves the quantization states out)."""
    tensors: list[torch.Tensor] = list(model.parameters())
    for module in model.modules():
        weight = getattr(module, "weight", None)
        state = getattr(weight, "quant_state", None)
        if state is not None:
            tensors += [v for v in (state.absmax, state.code, state.offset) if torch.is_tensor(v)]
            if state.state2 is not None:
                tensors += [v for v in (state.state2.absmax, state.state2.code) if torch.is_tensor(v)]
        scb = getattr(weight, "SCB", None)
        if torch.is_tensor(scb):
            tensors.append(scb)
    return storage_bytes(tensors)


def kv_cache_after_generate(model: Any, batch: int, prompt: int, new_tokens: int) -> int:
    """Bytes of the tensors in the cache ``generate`` returns (every layer's keys and values)."""
    torch.manual_seed(2)
    ids = torch.randint(3, model.config.vocab_size, (batch, prompt))
    model.eval()
    with torch.no_grad():
        out = model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=new_tokens,
            min_new_tokens=new_tokens,
            do_sample=False,
            return_dict_in_generate=True,
            pad_token_id=0,
        )
    cache = out.past_key_values if getattr(out, "past_key_values", None) is not None else out.cache
    tensors = [t for layer in cache.layers for t in (layer.keys, layer.values) if torch.is_tensor(t)]
    return storage_bytes(tensors)
