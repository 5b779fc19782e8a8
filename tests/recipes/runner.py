"""Run a Python recipe on CPU and judge it: training recipes must lower the loss and train their EOS tokens."""

from __future__ import annotations

import ast
import contextlib
import functools
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .blocks import Block
from .names import read_names
from .prelude import PRELUDE_MODEL, PRELUDE_NAMES, build_prelude
from .tiny import SENTENCES, patched_hub, tiny_tokenizer

ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "WANDB_DISABLED": "true"}


@dataclass
class Seen:
    """One training forward a recipe ran: its loss (NaN when the recipe computes the loss itself) and its batch."""

    loss: float
    input_ids: Any
    labels: Any
    attention_mask: Any


@dataclass
class Tracked:
    model: Any
    probe_before: float
    seen: list[Seen] = field(default_factory=list)


@dataclass
class Recorder:
    """Every causal LM a recipe got (from the prelude or ``from_pretrained``) and what it trained on."""

    models: list[Tracked] = field(default_factory=list)

    def track(self, model: Any) -> None:
        if not type(model).__name__.endswith("ForCausalLM") or any(t.model is model for t in self.models):
            return
        tracked = Tracked(model, probe_loss(model))
        self.models.append(tracked)

        def hook(module: Any, args: Any, kwargs: dict[str, Any], output: Any) -> None:
            loss = getattr(output, "loss", None)
            if module.training and len(tracked.seen) < 64:
                ids = kwargs.get("input_ids", args[0] if args else None)
                value = math.nan if loss is None else float(loss.detach().float())
                seen = Seen(value, _cpu(ids), _cpu(kwargs.get("labels")), _cpu(kwargs.get("attention_mask")))
                tracked.seen.append(seen)

        model.register_forward_hook(hook, with_kwargs=True)


def _cpu(tensor: Any) -> Any:
    return None if tensor is None else tensor.detach().to("cpu").clone()


def probe_batch() -> dict[str, Any]:
    tok = tiny_tokenizer("decoder")
    ids = [tok(s + tok.eos_token)["input_ids"] for s in SENTENCES[:4]]
    width = max(map(len, ids))
    import torch

    input_ids = torch.tensor([row + [tok.eos_token_id] * (width - len(row)) for row in ids])
    labels = torch.tensor([row + [-100] * (width - len(row)) for row in ids])
    return {"input_ids": input_ids, "labels": labels}


def probe_loss(model: Any) -> float:
    """The model's loss on a fixed batch, in eval mode and without autocast: comparable before and after."""
    import torch

    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    with torch.no_grad():
        batch = {k: v.to(device) for k, v in probe_batch().items()}
        loss = float(model(**batch).loss.float())
    model.train(was_training)
    return loss


def trains(code: str) -> bool:
    """Whether a block runs training steps: ``<...>.backward(...)`` or ``<trainer>.train()``."""
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if node.func.attr == "backward":
                return True
            if node.func.attr == "train" and isinstance(owner, ast.Name) and "trainer" in owner.id.lower():
                return True
            if node.func.attr == "train" and isinstance(owner, ast.Call) and _called_name(owner).endswith("Trainer"):
                return True
    return False


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def mentions_eos(code: str) -> bool:
    return any(
        isinstance(n, ast.Attribute) and n.attr in {"eos_token", "eos_token_id"} for n in ast.walk(ast.parse(code))
    )


def reset_global_state() -> None:
    """Undo what one recipe leaves behind in-process (Accelerate's singletons, matmul precision, what Dynamo
    compiled and Inductor's settings), as if each recipe ran in a process of its own."""
    import torch
    import torch._dynamo
    import torch._inductor.config
    from accelerate.state import AcceleratorState, GradientState, PartialState

    torch._dynamo.reset()  # a recipe's compiled frames would be guarded, or recompiled, in the next recipe
    torch._inductor.config.load_config(inductor_defaults())  # e.g. cpu.md's `inductor_config.freezing = True`
    AcceleratorState._reset_state(True)
    GradientState._reset_state()
    PartialState._reset_state()
    torch.backends.fp32_precision = "none"
    torch.backends.cuda.matmul.fp32_precision = "none"
    torch.backends.cudnn.fp32_precision = "none"
    torch.backends.cudnn.conv.fp32_precision = "none"
    torch.backends.cudnn.rnn.fp32_precision = "none"
    torch.set_float32_matmul_precision("highest")


@functools.cache
def inductor_defaults() -> bytes:
    """Inductor's settings as the first recipe found them."""
    import torch._inductor.config

    return torch._inductor.config.save_config()


@contextmanager
def recipe_environment() -> Iterator[None]:
    """Offline hub, quiet tokenizers; afterwards the environment as it was (TrainingArguments and Accelerate
    export variables of their own) and Accelerate's singletons reset."""
    saved = dict(os.environ)
    inductor_defaults()  # taken before the first recipe changes them
    os.environ.update(ENV)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
        reset_global_state()


@contextmanager
def training_arguments_on_cpu() -> Iterator[None]:
    """``TrainingArguments(bf16=True)`` refuses a machine without a GPU unless ``use_cpu`` is set: set it, as a
    reader on a CPU machine would; every other argument stays the recipe's."""
    from transformers import TrainingArguments

    real = TrainingArguments.__post_init__

    def post_init(self: Any) -> None:
        self.use_cpu = True
        real(self)

    TrainingArguments.__post_init__ = post_init  # type: ignore[method-assign]
    try:
        yield
    finally:
        TrainingArguments.__post_init__ = real  # type: ignore[method-assign]


def run_chain(chain: list[Block], on_cpu: bool = True, tiny: bool = True) -> Recorder:
    """Execute the blocks in one namespace seeded with the prelude; the caller sets the working directory.

    ``on_cpu`` lets ``TrainingArguments`` accept bf16 without a GPU; ``tiny`` maps hub ids to the tiny models
    (bench/recipes_gpu.py --real turns it off on a machine that reaches the hub).
    """
    recorder = Recorder()
    hub = patched_hub(on_model=recorder.track) if tiny else contextlib.nullcontext()
    cpu = training_arguments_on_cpu() if on_cpu else contextlib.nullcontext()
    with recipe_environment(), hub, cpu:
        used = set().union(*(read_names(ast.parse(b.code)) for b in chain))
        namespace: dict[str, Any] = {"__name__": "__main__"}
        if used & set(PRELUDE_NAMES):
            namespace |= {k: v for k, v in build_prelude().items() if k in used}
        for block in chain:
            exec(compile(block.code, f"docs/performance/{block.path}:{block.line}", "exec"), namespace)
    return recorder


def training_problems(chain: list[Block], recorder: Recorder) -> list[str]:
    """Why a training recipe did not train: no step, a non-finite loss, no decrease, untrained EOS."""
    trained = [t for t in recorder.models if t.seen]
    if not trained:
        return ["the recipe trains, but no causal LM ran a forward in training mode (model.train() missing?)"]
    problems = []
    for tracked in trained:
        name = type(tracked.model).__name__
        losses = [s.loss for s in tracked.seen if s.labels is not None]
        if not all(math.isfinite(x) for x in losses):
            problems.append(f"{name}: non-finite training loss {losses}")
        after = probe_loss(tracked.model)
        if not (math.isfinite(after) and after < tracked.probe_before):
            problems.append(f"{name}: probe loss did not decrease: {tracked.probe_before:.6f} -> {after:.6f}")
    if any(mentions_eos(b.code) for b in chain):
        problems += eos_problems(trained)
    return problems


def eos_problems(trained: list[Tracked]) -> list[str]:
    """Real EOS tokens (attention mask 1) must carry their own id as label, not -100."""
    eos = tiny_tokenizer("decoder").eos_token_id
    real_eos, untrained = 0, 0
    for tracked in trained:
        for seen in tracked.seen:
            if seen.labels is None:
                continue
            mask = seen.attention_mask if seen.attention_mask is not None else (seen.input_ids >= 0)
            at_eos = (seen.input_ids == eos) & (mask == 1)
            real_eos += int(at_eos.sum())
            untrained += int((at_eos & (seen.labels == -100)).sum())
    if real_eos == 0:
        return ["the recipe is about EOS, but no real (unpadded) EOS token reached the model"]
    if untrained:
        return [f"{untrained} of {real_eos} real EOS tokens have label -100: the model never learns to stop"]
    return []


__all__ = ["PRELUDE_MODEL", "Recorder", "run_chain", "trains", "training_problems"]
