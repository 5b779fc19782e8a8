"""The memory calculator (docs/performance/calculator.md, docs/assets/estimator.js) in Chromium: it computes what the
Python model computes (a grid of inputs, within 1e-9 relative), errors included; a link reproduces an estimate; every
budget table's link opens its setup with the table's total; the keyboard reaches every control; axe finds nothing in
its states; it fits a 390 px phone; it asks no other host; its script loads on its page only."""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from perfdocs import budgets
from perfdocs.memory import PRESET_CONFIGS, Arch, Workload, estimate

from .accessibility import BLOCKING, describe, run_axe
from .conftest import Watch, settle
from .support import PHONE

OVERVIEW = "performance/calculator/"  # docs/performance/calculator.md
REL = 1e-9

# Architectures beyond the presets: the config paths a preset does not take (MoE with a shared expert and dense
# layers, sliding windows, GPT-2 with dropout, biases, tied embeddings, an explicit head_dim).
EXTRA_CONFIGS: dict[str, dict[str, Any]] = {
    "qwen2-moe": {
        "model_type": "qwen2_moe",
        "hidden_size": 2048,
        "num_hidden_layers": 24,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "vocab_size": 151936,
        "intermediate_size": 5632,
        "moe_intermediate_size": 1408,
        "shared_expert_intermediate_size": 5632,
        "num_experts": 60,
        "num_experts_per_tok": 4,
        "decoder_sparse_step": 1,
        "mlp_only_layers": [0, 5],
        "norm_topk_prob": False,
    },
    "mistral-window": {
        "model_type": "mistral",
        "hidden_size": 4096,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "vocab_size": 32000,
        "intermediate_size": 14336,
        "sliding_window": 4096,
    },
    "qwen2-sliding": {
        "model_type": "qwen2",
        "hidden_size": 896,
        "num_hidden_layers": 4,
        "num_attention_heads": 14,
        "num_key_value_heads": 2,
        "vocab_size": 151936,
        "intermediate_size": 4864,
        "tie_word_embeddings": True,
        "use_sliding_window": True,
        "sliding_window": 512,
        "layer_types": ["full_attention", "sliding_attention", "sliding_attention", "full_attention"],
    },
    "gpt2-dropout": {
        "model_type": "gpt2",
        "n_embd": 1024,
        "n_layer": 24,
        "n_head": 16,
        "n_positions": 1024,
        "vocab_size": 50257,
        "activation_function": "gelu_new",
    },
    "llama-bias": {
        "model_type": "llama",
        "hidden_size": 3072,
        "num_hidden_layers": 28,
        "num_attention_heads": 24,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "vocab_size": 128256,
        "intermediate_size": 8192,
        "attention_bias": True,
        "mlp_bias": True,
        "tie_word_embeddings": True,
        "attention_dropout": 0.1,
    },
}
CONFIGS = {**budgets.PRESETS, **EXTRA_CONFIGS}

CHOICES: dict[str, list[Any]] = {
    "mode": ["train", "infer"],
    "precision": ["fp32", "mixed", "bf16"],
    "autocast": [False, True],  # with full fine-tuning only on fp32 weights (AMP); the others are errors
    "optimizer": ["adamw", "adamw_8bit", "paged_adamw_8bit", "adafactor", "sgd", "sgd_momentum"],
    "finetune": ["full", "lora", "qlora"],
    "lora_rank": [8, 16, 64],
    "lora_dropout": [0.0, 0.05, 0.1],
    "lora_targets": [None, ["all-linear"], ["q_proj", "k_proj", "v_proj", "o_proj"], ["down_proj"], ["c_attn"]],
    "adafactor_first_moment": [False, True],
    "gradient_checkpointing": [False, True],
    "attention": ["sdpa", "eager"],
    "batch_size": [1, 2, 8],
    "seq_len": [128, 2048, 8192],
    "quantization": ["none", "int8", "nf4"],
    "double_quant": [True, False],
    "kv_cache_dtype": ["auto", "fp32", "bf16", "fp8"],
    "sharding": ["none", "zero1", "zero2", "zero3", "fsdp_shard_grad_op", "fsdp_full_shard"],
    "num_gpus": [1, 2, 8, 64],
    "offload_optimizer": [False, True],
    "offload_params": [False, True],
    "device": ["cuda", "cpu"],
    "prefill_chunk": [None, 1, 512, 8192],  # inference only: a chunk above batch x seq_len is the whole prompt
}
assert set(CHOICES) == {f.name for f in fields(Workload)}, "every workload field is varied"


def grid() -> list[tuple[str, dict[str, Any]]]:
    """Each field through its values on a base setup, per architecture, then 600 random combinations."""
    cases: list[tuple[str, dict[str, Any]]] = []
    bases = [{"mode": "train"}, {"mode": "infer", "precision": "bf16"}]
    for name, base in itertools.product(CONFIGS, bases):
        for key, values in CHOICES.items():
            for value in values:
                cases.append((name, {**base, key: value}))
        cases.append(
            (name, {**base, "finetune": "qlora", "optimizer": "paged_adamw_8bit", "gradient_checkpointing": True})
        )
        cases.append(
            (name, {**base, "sharding": "zero3", "num_gpus": 8, "offload_optimizer": True, "offload_params": True})
        )
    # the recipes' settings under bf16 autocast: AMP full fine-tuning, LoRA with and without dropout on a bf16 or
    # fp32 base, QLoRA; each checkpointed or not, on GPU and CPU (where dropout masks and norms differ)
    autocast = [
        {"precision": "fp32"},
        {"precision": "bf16", "finetune": "lora", "lora_targets": ["all-linear"]},
        {"precision": "bf16", "finetune": "lora", "lora_dropout": 0.0},
        {"precision": "fp32", "finetune": "lora", "lora_targets": ["all-linear"], "attention": "eager"},
        {"precision": "bf16", "finetune": "qlora", "lora_targets": ["all-linear"], "optimizer": "paged_adamw_8bit"},
    ]
    for name, setup, ckpt, device in itertools.product(CONFIGS, autocast, [False, True], ["cuda", "cpu"]):
        cases.append(
            (name, {"mode": "train", "autocast": True, **setup, "gradient_checkpointing": ckpt, "device": device})
        )
    rng = random.Random(12)
    for _ in range(600):
        cases.append((rng.choice(list(CONFIGS)), {key: rng.choice(values) for key, values in CHOICES.items()}))
    return cases


def python_side(name: str, work: dict[str, Any]) -> dict[str, Any]:
    """What memory.py says: the estimate as plain data, or the ValueError's message."""
    try:
        arch = Arch.from_config(CONFIGS[name], name)
        w = dict(work)
        if w.get("lora_targets") is not None:
            w["lora_targets"] = tuple(w["lora_targets"])
        result = estimate(arch, Workload(**w)).as_dict()
    except ValueError as exc:
        return {"error": str(exc)}
    return result


JS_SIDE = """(cases) => cases.map(([config, name, work]) => {
  const m = window.perfdocsMemory;
  try {
    const r = m.estimate(m.fromConfig(config, name), work);
    return {params: r.params, trainable_params: r.trainable_params, terms: r.terms,
            gpu_total: r.gpu_total, host_total: r.host_total};
  } catch (e) { return {error: e.message}; }
})"""


def same(py: Any, js: Any, where: str) -> list[str]:
    if isinstance(py, dict):
        if set(py) != set(js):
            return [f"{where}: keys {sorted(py)} != {sorted(js)}"]
        return [p for key in py for p in same(py[key], js[key], f"{where}.{key}")]
    if isinstance(py, str):
        return [] if py == js else [f"{where}: {py!r} != {js!r}"]
    if math.isclose(py, js, rel_tol=REL, abs_tol=0.0) or py == js:
        return []
    return [f"{where}: python {py!r} != js {js!r}"]


@pytest.fixture
def overview(context: Any, watch: Watch) -> Any:
    page = watch.attach(context.new_page())
    page.goto(OVERVIEW)
    settle(page)
    page.wait_for_selector("#memory-estimator[data-state='ok']")
    return page


def test_the_javascript_computes_what_memory_py_computes(overview: Any, watch: Watch) -> None:
    cases = grid()
    python = [python_side(name, work) for name, work in cases]
    javascript = overview.evaluate(JS_SIDE, [[CONFIGS[name], name, work] for name, work in cases])
    problems = [p for (name, work), py, js in zip(cases, python, javascript) for p in same(py, js, f"{name} {work}")]
    assert problems == [], f"{len(problems)} differences, first ones:\n" + "\n".join(problems[:20])
    errors = sum(1 for py in python if "error" in py)
    assert 100 < len(cases) - errors, "most cases are estimates, not errors"
    assert errors > 50, "and the errors are compared too"
    assert watch.problems == [] and watch.external == []


BAD_CONFIGS = [
    {"model_type": "bert", "hidden_size": 768},
    {"hidden_size": 8},
    {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2},
    {**EXTRA_CONFIGS["gpt2-dropout"], "n_head": 6},
    {**PRESET_CONFIGS["Llama-3.1-8B"], "num_key_value_heads": 5},
    {**PRESET_CONFIGS["Mixtral-8x7B"], "num_experts_per_tok": 9},
    {**PRESET_CONFIGS["Llama-2-7B"], "hidden_act": "gelu_fast"},
    {**PRESET_CONFIGS["Llama-2-7B"], "hidden_size": -4096},
    {**PRESET_CONFIGS["Llama-2-7B"], "attention_dropout": 1.5},
]


def test_a_config_the_model_rejects_gets_the_same_message(overview: Any) -> None:
    python = []
    for config in BAD_CONFIGS:
        with pytest.raises(ValueError) as caught:
            Arch.from_config(config, "bad")
        python.append(str(caught.value))
    javascript = overview.evaluate(
        """(configs) => configs.map(c => { try { window.perfdocsMemory.fromConfig(c, "bad"); return "accepted"; }
                                          catch (e) { return e.message; } })""",
        BAD_CONFIGS,
    )
    assert javascript == python


def test_figures_are_formatted_and_cards_judged_as_in_the_tables(overview: Any) -> None:
    values = [
        0,
        0.004,
        0.01,
        0.0149,
        0.125,
        0.5,
        0.999,
        1,
        1.005,
        2.5,
        4.127,
        9.999,
        10,
        12.25,
        12.34,
        99.94,
        99.96,
        100,
        1234.5,
        2.5e6,
        1e9 / 3,
        9.996,
    ]
    totals = [0, 14e9, 15e9, 15.1e9, 23e9, 23.5e9, 79e9, 80e9, 140e9, 150e9]
    js = overview.evaluate(
        """([values, totals, cards, headroom]) => [values.map(v => window.perfdocsMemory.format(v)),
            totals.map(t => window.perfdocsMemory.fits(t, cards, headroom))]""",
        [values, totals, list(budgets.CARDS_GB), budgets.HEADROOM],
    )
    assert js[0] == [budgets.format_amount(v) for v in values]
    assert js[1] == [budgets.fits(t) for t in totals]


def controls(page: Any) -> dict[str, Any]:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#memory-estimator [name]')]
        .map(c => [c.name, c.type === 'checkbox' ? c.checked : c.value]))""")


def status(page: Any) -> str:
    return page.locator("#memory-estimator [role=status]").inner_text()


def test_a_link_reproduces_the_estimate(overview: Any, context: Any, watch: Watch) -> None:
    page = overview
    page.select_option("#memory-estimator select[name=preset]", "Llama-2-13B")
    page.select_option("#memory-estimator select[name=finetune]", "qlora")
    page.select_option("#memory-estimator select[name=optimizer]", "paged_adamw_8bit")
    page.check("#memory-estimator input[name=gradient_checkpointing]")
    page.fill("#memory-estimator input[name=batch_size]", "4")
    page.locator("#memory-estimator details summary").click()
    page.fill("#memory-estimator input[name=layers]", "20")  # a custom architecture travels in the link too
    before, shown = controls(page), status(page)
    fragment = page.evaluate("location.hash")
    assert fragment.startswith("#memory-estimator?")
    assert page.locator("#memory-estimator a.pe-link").get_attribute("href") == fragment

    again = watch.attach(context.new_page())
    again.goto(OVERVIEW + fragment)
    settle(again)
    again.wait_for_selector("#memory-estimator[data-state='ok']")
    assert controls(again) == before
    assert status(again) == shown
    assert again.evaluate("document.getElementById('memory-estimator').getBoundingClientRect().top") < 900, (
        "a link to an estimate scrolls the calculator into view"
    )
    arch = Arch.from_config({**PRESET_CONFIGS["Llama-2-13B"], "num_hidden_layers": 20}, "custom")
    work = Workload(finetune="qlora", optimizer="paged_adamw_8bit", gradient_checkpointing=True, batch_size=4)
    total = budgets.format_amount(estimate(arch, work).gpu_total / 1e9)
    assert shown.startswith(f"Per GPU: {total} GB."), shown
    assert watch.problems == [] and watch.external == []


def test_the_keyboard_reaches_every_control_and_changes_the_result(overview: Any) -> None:
    page = overview
    visible = page.evaluate("""() => [...document.querySelectorAll('#memory-estimator :is(select, input, textarea, button, summary, a)')]
        .filter(c => c.checkVisibility() && !c.disabled).map(c => c.id || c.tagName.toLowerCase())""")
    page.focus("#memory-estimator select[name=preset]")
    reached = []
    for _ in range(len(visible) + 5):
        here = page.evaluate("""() => { const a = document.activeElement;
            return a.closest('#memory-estimator') ? (a.id || a.tagName.toLowerCase()) : null; }""")
        if here is None:
            break
        reached.append(here)
        page.keyboard.press("Tab")
    assert reached == visible, "Tab walks every visible control once, in order"

    before = status(page)
    page.focus("#memory-estimator select[name=mode]")
    page.keyboard.press("ArrowDown")  # Train -> Inference
    assert page.locator("#memory-estimator select[name=mode]").input_value() == "infer"
    assert status(page) != before
    assert page.locator("#memory-estimator select[name=optimizer]").is_hidden(), "training fields step aside"
    page.focus("#memory-estimator input[name=seq_len]")
    page.keyboard.press("Control+A")
    page.keyboard.type("0")
    assert status(page).startswith("Not a setup the model covers: seq_len must be a positive integer"), status(page)
    page.keyboard.press("Control+A")
    page.keyboard.type("4096")
    arch = Arch.preset("Llama-2-7B")
    total = budgets.format_amount(
        estimate(arch, Workload(mode="infer", precision="bf16", seq_len=4096)).gpu_total / 1e9
    )
    assert status(page).startswith(f"Per GPU: {total} GB."), status(page)
    live = page.locator("#memory-estimator [role=status]")
    assert live.get_attribute("aria-live") == "polite"


def test_a_pasted_config_is_read_by_the_same_model(overview: Any) -> None:
    page = overview
    page.locator("#memory-estimator details summary").click()
    config = EXTRA_CONFIGS["qwen2-moe"]
    import json

    page.fill("#memory-estimator textarea", json.dumps({**config, "architectures": ["Qwen2MoeForCausalLM"]}))
    page.get_by_role("button", name="Use this config").click()
    assert page.locator("#memory-estimator select[name=preset]").input_value() == "custom"
    assert page.locator("#memory-estimator input[name=experts]").input_value() == "60"
    total = budgets.format_amount(estimate(Arch.from_config(config), Workload()).gpu_total / 1e9)
    assert status(page).startswith(f"Per GPU: {total} GB."), status(page)
    page.fill("#memory-estimator textarea", '{"model_type": "bert"}')
    page.get_by_role("button", name="Use this config").click()
    assert status(page) == (
        "Cannot use that config: unsupported model_type 'bert'; supported: gpt2, llama, mistral, mixtral, qwen2, qwen2_moe"
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_in_the_calculator(browser: Any, base_url: str, axe_script: str, scheme: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=base_url, color_scheme=scheme)
    try:
        page = context.new_page()
        states = {
            "training": "#memory-estimator?model=Llama-2-7B&finetune=qlora&optimizer=paged_adamw_8bit",
            "offload": "#memory-estimator?model=Llama-3.1-70B&sharding=zero3&num_gpus=8&offload_optimizer=1&offload_params=1",
            "inference": "#memory-estimator?model=Llama-3.1-8B&mode=infer&quantization=int8&device=cpu",
            "error": "#memory-estimator?model=Llama-2-7B&offload_params=1",
        }
        for state, fragment in states.items():
            page.goto("about:blank")
            page.goto(OVERVIEW + fragment)
            settle(page)
            page.wait_for_selector("#memory-estimator[data-state]")
            page.locator("#memory-estimator details summary").click()
            violations = [v for v in run_axe(page, axe_script) if v["impact"] in BLOCKING]
            assert violations == [], f"{state} ({scheme}):\n{describe(violations)}"
    finally:
        context.close()


def test_the_calculator_fits_a_phone(browser: Any, base_url: str) -> None:
    context = browser.new_context(viewport=PHONE, base_url=base_url, has_touch=True)
    try:
        page = context.new_page()
        page.goto(OVERVIEW + "#memory-estimator?model=Llama-3.1-70B&sharding=zero3&num_gpus=8&offload_optimizer=1")
        settle(page)
        page.wait_for_selector("#memory-estimator[data-state='ok']")
        page.locator("#memory-estimator details summary").click()
        inner, box, right, rightmost = page.evaluate("""() => { const e = document.getElementById('memory-estimator');
            return [e.scrollWidth, e.clientWidth, e.getBoundingClientRect().right,
                    Math.max(...[...e.querySelectorAll('*')].filter(c => c.checkVisibility())
                        .map(c => c.getBoundingClientRect().right))]; }""")
        assert right <= PHONE["width"] and rightmost <= right, "the calculator and all it shows are within the screen"
        assert inner <= box, "nothing in the calculator scrolls sideways"
        small = page.evaluate("""() => [...document.querySelectorAll('#memory-estimator :is(select, input, button, summary)')]
            .filter(c => c.checkVisibility() && c.getBoundingClientRect().height < 24).map(c => c.name || c.tagName)""")
        assert small == [], "touch targets at least 24 px high (WCAG 2.5.8)"
    finally:
        context.close()


def test_the_estimator_is_only_on_its_page_and_needs_no_other_host(overview: Any, watch: Watch, site: Path) -> None:
    page = overview
    assert page.locator(".perfdocs-estimator").count() == 1
    assert page.locator(".perfdocs-estimator-fallback").count() == 0, "the script replaced the no-script text"
    assert watch.problems == [] and watch.external == []
    # its script and styles load on this page only (overrides/main.html): 48 kB no other page needs
    loading = [p.relative_to(site).as_posix() for p in site.rglob("*.html") if "assets/estimator." in p.read_text()]
    assert loading == ["performance/calculator/index.html"]


def test_the_calculator_is_in_the_navigation(context: Any, watch: Watch) -> None:
    page = watch.attach(context.new_page())
    page.goto("performance/train/gpu_one/")
    settle(page)
    page.locator(".md-tabs").get_by_role("link", name="Memory calculator").click()
    page.wait_for_selector("#memory-estimator[data-state='ok']")
    assert status(page).startswith("Per GPU: ")
    assert watch.problems == [] and watch.external == []


BUDGET_LINKS = """() => {
  // each "Open this setup in the calculator" link, with the total of the budget table above it
  const tables = [...document.querySelectorAll('article table')];
  return [...document.querySelectorAll('article a')].filter(a => a.textContent === 'Open this setup in the calculator')
    .map(a => {
      const above = tables.filter(t => t.compareDocumentPosition(a) & Node.DOCUMENT_POSITION_FOLLOWING).pop();
      const total = [...above.querySelectorAll('tr')].find(r => r.cells[0].textContent.trim() === 'Total');
      return [a.href, total.cells[1].textContent.trim()];
    });
}"""


def test_every_budget_table_opens_in_the_calculator_with_its_total(context: Any, watch: Watch, site: Path) -> None:
    pages = sorted(
        p.relative_to(site).as_posix().removesuffix("index.html")
        for p in site.rglob("index.html")
        if "Open this setup in the calculator" in p.read_text(encoding="utf-8")
    )
    assert len(pages) >= 2, pages
    page, calc = watch.attach(context.new_page()), watch.attach(context.new_page())
    opened = 0
    for url in pages:
        page.bring_to_front()  # a tab behind another has its timers and frames slowed
        page.goto(url)
        settle(page)
        calc.bring_to_front()
        for href, total in page.evaluate(BUDGET_LINKS):
            calc.goto(href)
            calc.wait_for_selector("#memory-estimator[data-state='ok']")
            shown = calc.locator("#memory-estimator tr.pe-total td").first.inner_text()
            assert shown == total, f"{url}: the table says {total} GB, the calculator {shown} GB ({href})"
            opened += 1
    for tab in (page, calc):  # what the last loads asked for, seen whole (test_pages.py sees every page whole)
        tab.wait_for_load_state("networkidle")
    assert opened >= 4
    assert watch.problems == [] and watch.external == []


def test_a_page_material_swaps_in_gets_its_calculator(overview: Any) -> None:
    """With instant navigation Material replaces the content and emits document$; the script starts the
    calculator of the new content then (Material's own navigation needs the deployed host to be used)."""
    page = overview
    assert page.evaluate("typeof document$.subscribe") == "function"
    page.evaluate("""() => {
        const old = document.getElementById('memory-estimator');
        const fresh = document.createElement('div');
        fresh.className = 'perfdocs-estimator';
        fresh.id = 'memory-estimator';
        fresh.setAttribute('data-estimator', old.getAttribute('data-estimator'));
        old.replaceWith(fresh);
        history.replaceState(null, '', '#memory-estimator?model=GPT-2&mode=infer');
        document$.next(document);
    }""")
    page.wait_for_selector("#memory-estimator[data-state='ok']")
    assert page.locator("#memory-estimator select[name=preset]").input_value() == "GPT-2"
    assert page.locator(".perfdocs-estimator").count() == 1
