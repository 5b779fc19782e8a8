"""Statements of the training pages checked against the pinned libraries (issue 21): what FSDP does with the
parameters' dtype and with ``reshard_after_forward``, what DeepSpeed's ZeRO-3 estimator prints for the arguments
the page labels, and that the pages give one piece of advice where they used to give two."""

from __future__ import annotations

import ast
import inspect
import os
import subprocess
import sys
import textwrap
from importlib.util import find_spec
from pathlib import Path

import pytest
from perfdocs import budgets
from perfdocs.diagnostics import SourceMap
from perfdocs.dialect import convert
from perfdocs.markdown import parse
from perfdocs.memory import Arch
from perfdocs.text import split_front_matter

from .recipes.blocks import blocks_of

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "performance"


def _needs(*modules: str) -> None:
    for module in modules:
        if os.environ.get("CI"):  # CI installs the recipes extra: a missing module there is a failure
            __import__(module)
        elif not find_spec(module):
            pytest.skip(f"recipes extra not installed ({module}): pip install -e '.[recipes]'")


def _page(path: str) -> str:
    return (DOCS / path).read_text(encoding="utf-8")


def _blocks_of_text(path: str) -> list[str]:
    """The text of every paragraph, list item and table row of a page or snippet (front matter skipped)."""
    body = split_front_matter(_page(path)).body
    lines = body.split("\n")
    found = []
    for token in parse(body):
        if token.map is None or token.nesting != 1:
            continue
        if token.type in ("paragraph_open", "list_item_open", "tr_open"):
            start, end = token.map
            found.append(" ".join(line.strip() for line in lines[start:end]))
    return found


def _rendered(markdown: str) -> str:
    """A piece of a page as the build writes it: <MemoryBudget show=.../> replaced by its figure."""
    converted = convert(markdown, SourceMap.identity("page.md", markdown.count("\n") + 1))
    assert [str(d) for d in converted.diagnostics] == []
    return " ".join(converted.text.split())


# ---- FSDP: dtypes and resharding, on one CPU process over gloo -----------------------------------------------

FSDP_SCRIPT = textwrap.dedent(
    """
    import json, socket, types
    import torch, torch.distributed as dist
    from accelerate.state import PartialState
    from accelerate.utils import FullyShardedDataParallelPlugin
    from accelerate.utils.fsdp_utils import fsdp2_prepare_model
    from torch.distributed.fsdp import fully_shard
    from torch.distributed.tensor import DTensor

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    PartialState(cpu=True)
    out = {}

    # Accelerate's FSDP2 preparation of a model loaded in bf16, mixed precision on: a frozen and a trainable layer
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 2)).to(torch.bfloat16)
    model[0].requires_grad_(False)
    plugin = FullyShardedDataParallelPlugin(fsdp_version=2)
    plugin.set_mixed_precision("bf16")
    accelerator = types.SimpleNamespace(
        state=types.SimpleNamespace(fsdp_plugin=plugin), mixed_precision="bf16", is_main_process=True,
        device=torch.device("cpu"), torch_device_mesh=None,
    )
    model = fsdp2_prepare_model(accelerator, model)
    out["dtypes"] = {name: str(p.dtype) for name, p in model.named_parameters()}

    # fully_shard with its default reshard_after_forward: after a forward, which parameters are sharded again?
    net = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 4), torch.nn.Linear(4, 1))
    fully_shard(net[0])
    fully_shard(net[1])
    fully_shard(net)  # the root keeps net[2]
    net(torch.randn(2, 4)).sum()
    out["sharded_after_forward"] = {name: isinstance(p, DTensor) for name, p in net.named_parameters()}
    dist.destroy_process_group()
    print(json.dumps(out))
    """
)


@pytest.fixture(scope="module")
def fsdp_facts() -> dict[str, dict[str, object]]:
    """What the pinned torch and Accelerate do, run in a fresh process (a process group is process-wide)."""
    _needs("torch", "accelerate")
    import json

    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}
    result = subprocess.run(
        [sys.executable, "-c", FSDP_SCRIPT], capture_output=True, text=True, timeout=300, env=env, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    facts: dict[str, dict[str, object]] = json.loads(result.stdout.strip().splitlines()[-1])
    return facts


def test_accelerate_upcasts_the_trainable_parameters_of_a_bf16_model_under_fsdp(
    fsdp_facts: dict[str, dict[str, object]],
) -> None:
    assert fsdp_facts["dtypes"] == {
        "0.weight": "torch.bfloat16",  # frozen: stays as loaded
        "0.bias": "torch.bfloat16",
        "1.weight": "torch.float32",  # trainable: fp32 master weights although the model was loaded in bf16
        "1.bias": "torch.float32",
    }
    # The pages say so, and no longer that the shards keep the dtype the model was loaded in.
    mixed = next(t for t in _blocks_of_text("train/gpu_many.md") if "Accelerator(mixed_precision=" in t)
    assert "upcasts every trainable parameter to fp32" in mixed and "keep the dtype" not in mixed
    context_parallel = next(b for b in blocks_of(_page("scalability.md"), "scalability.md") if "cp_size=4" in b.code)
    comments = " ".join(
        line.strip().removeprefix("#").strip() for line in context_parallel.code.split("\n") if line.startswith("#")
    )
    assert "a bf16 load would get them too: Accelerate upcasts the trainable parameters" in comments


def test_fully_shard_reshards_every_module_but_the_root_by_default(fsdp_facts: dict[str, dict[str, object]]) -> None:
    _needs("torch")
    from torch.distributed.fsdp import fully_shard

    default = inspect.signature(fully_shard).parameters["reshard_after_forward"].default
    assert default is None
    assert fsdp_facts["sharded_after_forward"] == {
        "0.weight": True,
        "0.bias": True,
        "1.weight": True,
        "1.bias": True,
        "2.weight": False,  # the root's own parameters stay gathered for the backward
        "2.bias": False,
    }
    rows = [t for t in _blocks_of_text("_theory/zero_fsdp.md") if "reshard_after_forward=" in t and t.startswith("|")]
    assert [r for r in rows if "(default)" in r or "(the default)" in r] == [
        "| stage 3, root kept gathered | – | `reshard_after_forward=None` (the default) |"
    ]


# ---- DeepSpeed's ZeRO-3 estimator, with the arguments the page labels -----------------------------------------

ESTIMATOR = "estimate_zero3_model_states_mem_needs"


def _estimator_call() -> tuple[dict[str, object], str]:
    """The keyword arguments of the page's estimator call and the label its print gives the result."""
    block = next(b for b in blocks_of(_page("train/gpu_many.md"), "train/gpu_many.md") if f"{ESTIMATOR}(" in b.code)
    tree = ast.parse(block.code)
    call = next(
        n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == ESTIMATOR
    )
    kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
    label = next(
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.startswith("ZeRO-3")
    )
    return kwargs, label


def test_the_estimator_call_on_the_page_is_what_its_label_says_and_the_page_states_its_figure() -> None:
    _needs("deepspeed")
    from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs

    kwargs, label = _estimator_call()
    assert label.startswith("ZeRO-3, optimizer offloaded")
    assert kwargs["cpu_offload"] is True and kwargs["cpu_offload_params"] is False  # optimizer only, as labelled
    assert inspect.signature(estimate_zero3_model_states_mem_needs).parameters["cpu_offload_params"].default is True

    arch = Arch.preset("Llama-3.1-8B")
    psi, largest = arch.param_count, arch.largest_module_params
    _, gpu, _ = estimate_zero3_model_states_mem_needs(psi, largest, **kwargs)
    _, gpu_params_too, _ = estimate_zero3_model_states_mem_needs(psi, largest, **{**kwargs, "cpu_offload_params": True})
    assert (round(gpu / 2**30, 2), round(gpu_params_too / 2**30, 2)) == (3.83, 1.96)  # reviewed: issue 21

    sentence = next(t for t in _blocks_of_text("train/gpu_many.md") if "the last call gives" in t)
    shown = _rendered(sentence)
    assert f"gives {gpu / 2**30:.2f} GiB per GPU" in shown
    assert f"only the gathered layer stays, {gpu_params_too / 2**30:.2f} GiB" in shown


# ---- one piece of advice per question ------------------------------------------------------------------------


def test_the_lora_pages_never_advise_fsdps_checkpointing_switch_for_adapters() -> None:
    # The LoRA recipe shows FSDP's switch saving an empty adapter: every place that recommends FSDP's own switch
    # says it is for a full fine-tune and sends LoRA to the Trainer's.
    advice = [t for t in _blocks_of_text("train/gpu_many.md") if "FSDP's own" in t]
    assert len(advice) >= 2
    for text in advice:
        assert "full fine-tune" in text and "LoRA" in text, text
    blocks = blocks_of(_page("train/gpu_many.md"), "train/gpu_many.md")
    recipe = next(b for b in blocks if "Llama-3.1-70B" in b.code and "get_peft_model" in b.code)
    recipe_line = recipe.line
    assert "activation_checkpointing=True" in recipe.code
    lora_section = next(
        i for i, line in enumerate(_page("train/gpu_many.md").split("\n"), 1) if line.endswith("[[lora-fsdp-70b]]")
    )
    configs = [b for b in blocks if b.lang == "yaml"]
    lora_config = next(b.code for b in configs if b.line < recipe_line and b.line > lora_section)
    assert "fsdp_activation_checkpointing: false" in lora_config


def test_one_gpu_order_and_decision_table_agree_on_the_8bit_optimizer() -> None:
    # An 8-bit AdamW keeps 10 bytes per parameter of model states (16 with AdamW): step 2 of the order and the
    # decision table both send a run to it when that fits, and to LoRA / QLoRA when it does not.
    attrs = {"model": ("str", "Mistral-7B"), "optimizer": ("str", "adamw_8bit"), "show": ("str", "states")}
    assert budgets.figure({**attrs, "unit": ("str", "bytes/param")}) == ("10 bytes/param", [])
    texts = _blocks_of_text("train/gpu_one.md")
    step = next(t for t in texts if t.startswith("2. **Do the arithmetic.**"))
    row = next(t for t in texts if t.startswith("| `16 × params` alone"))
    assert "10 × parameters" in step and "8-bit" in step and "step 7" in step
    assert "10 × params" in row and "8-bit optimizer" in row and "LoRA / QLoRA" in row
    assert "10 bytes/param" in _rendered(step)
