"""<MemoryBudget/> for serving: prefill_chunk="..." (chunked prefill), show="kv_seqs" (how many sequences of
seq_len fit beside the weights and one prefill pass), and the calculator link that carries the chunk."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest
from perfdocs import budgets
from perfdocs.diagnostics import SourceMap
from perfdocs.dialect import convert
from perfdocs.memory import Arch, Workload, estimate, kv_cache_bytes


def render(text: str) -> tuple[str, list[str]]:
    converted = convert(text, SourceMap.identity("page.md", text.count("\n") + 1))
    return converted.text, [str(d) for d in converted.diagnostics]


SERVE = 'model="Llama-3.1-70B" mode="infer" gpus="2" seq_len="32768"'


def test_prefill_chunk_shrinks_the_activations_and_nothing_else() -> None:
    whole, problems = render(f'<MemoryBudget {SERVE} show="total"/>')
    assert problems == []
    chunked, problems = render(f'<MemoryBudget {SERVE} prefill_chunk="8,192" show="total"/>')
    assert problems == []
    arch = Arch.preset("Llama-3.1-70B")
    base = {"mode": "infer", "precision": "bf16", "num_gpus": 2, "seq_len": 32768}
    assert whole.strip() == f"{budgets.format_amount(estimate(arch, Workload(**base)).gpu_total / 1e9)} GB"  # type: ignore[arg-type]
    expected = estimate(arch, Workload(**base, prefill_chunk=8192))  # type: ignore[arg-type]
    assert chunked.strip() == f"{budgets.format_amount(expected.gpu_total / 1e9)} GB"
    # the numbers: the whole 32k prompt at once needs more than an 80 GB card, 8,192-token passes do not
    assert budgets.fits(estimate(arch, Workload(**base)).gpu_total) == [141]  # type: ignore[arg-type]
    assert budgets.fits(expected.gpu_total) == [80, 141]


def test_kv_seqs_counts_whole_sequences_in_the_room_left() -> None:
    attrs = f'{SERVE} prefill_chunk="8192" card="80"'
    room, _ = render(f'<MemoryBudget {attrs} show="kv_room" unit="MB"/>')
    seqs, problems = render(f'<MemoryBudget {attrs} show="kv_seqs"/>')
    assert problems == []
    fp8, problems = render(f'<MemoryBudget {attrs} kv_dtype="fp8" show="kv_seqs" bare/>')
    assert problems == []
    arch = Arch.preset("Llama-3.1-70B")
    est = estimate(arch, Workload(mode="infer", precision="bf16", num_gpus=2, seq_len=32768, prefill_chunk=8192))
    left = 80e9 - budgets.HEADROOM - (est.gpu_total - est.term("kv_cache").gpu)
    per_sequence = kv_cache_bytes(arch, 1, 32768, 2) / 2  # bf16, split over 2 GPUs
    assert seqs.strip() == str(int(left // per_sequence)) == "1"  # a count, as kv_tokens: the prose names it
    assert fp8.strip() == str(int(left // (per_sequence / 2))) == "2"
    assert room.strip() == f"{budgets.format_amount(left / 1e6)} MB"


def test_the_budget_line_and_the_calculator_link_carry_the_chunk() -> None:
    text, problems = render(f'<MemoryBudget {SERVE} prefill_chunk="8192"/>')
    assert problems == []
    assert "prefill in passes of 8,192 tokens" in text.split("\n")[0]
    work = Workload(mode="infer", precision="bf16", num_gpus=2, seq_len=32768, prefill_chunk=8192)
    query = dict(parse_qsl(budgets.calculator_query("Llama-3.1-70B", work)))
    assert query["prefill_chunk"] == "8192"
    assert "prefill_chunk" not in dict(parse_qsl(budgets.calculator_query("Llama-3.1-70B", Workload())))


@pytest.mark.parametrize(
    ("tag", "messages"),
    [
        (
            '<MemoryBudget model="Llama-3.1-8B" mode="infer" prefill_chunk="0"/>',
            ['page.md:1:1: error: prefill_chunk="0" in <MemoryBudget> must be a positive whole number [bad-attribute]'],
        ),
        (
            '<MemoryBudget model="Llama-3.1-8B" prefill_chunk="2048"/>',
            ["page.md:1:1: error: <MemoryBudget>: prefill_chunk applies to inference [bad-attribute]"],
        ),
        (
            'It holds <MemoryBudget model="Llama-3.1-8B" mode="infer" show="kv_seqs"/>.',
            [
                'page.md:1:10: error: show="kv_seqs" in <MemoryBudget> needs card="GB", the card\'s size '
                '(e.g. card="24") [bad-attribute]'
            ],
        ),
        (
            'It holds <MemoryBudget model="Llama-3.1-8B" mode="infer" card="24" show="kv_seqs" unit="GB"/>.',
            ['page.md:1:10: error: unit="GB" in <MemoryBudget show="kv_seqs"> is not one of sequences [bad-attribute]'],
        ),
        (
            'It holds <MemoryBudget model="Llama-3.1-8B" card="24" show="kv_seqs"/>.',
            ['page.md:1:10: error: <MemoryBudget>: kv_seqs is an inference figure: set mode="infer" [bad-attribute]'],
        ),
    ],
)
def test_bad_serving_attributes_are_located_errors(tag: str, messages: list[str]) -> None:
    assert render(tag)[1] == messages
