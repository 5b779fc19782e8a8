"""What a snippet may show on a page of each scenario: the CPU page gets no CUDA code and no GPU hardware or
throughput claims, an inference page no training code. A shared snippet wraps such text in ``<Only>``; what slips
through is an error at the snippet's line, on every page that shows it (README, "Adding a theory snippet").
tests/test_scenario_theory.py applies the same rules to whole rendered pages."""

from __future__ import annotations

import re

from .diagnostics import Diagnostic
from .markdown import scan_inline
from .text import mask_code_spans
from .theory import Expansion

INFERENCE = frozenset({"infer-cpu", "infer-gpu-one", "infer-gpu-many"})
CPU = frozenset({"infer-cpu"})
# Code (blocks and inline spans) that only runs with an NVIDIA GPU. Substrings, compared case-insensitively:
# "cuda" covers .cuda(), device="cuda", device_map="cuda", torch.cuda, torch.backends.cuda, CUDA_VISIBLE_DEVICES,
# PYTORCH_CUDA_ALLOC_CONF and cudagraphs. bitsandbytes itself has a CPU backend; its paged optimizers (CUDA unified
# memory) do not.
CUDA_CODE = (
    "cuda",
    "nvidia-smi",
    "gradscaler",
    "nccl",
    "flash_attention_2",
    "flash_attention_3",
    "flash_attn",
    "paged_adam",
    "pagedadam",
)
# Code that trains. ``Trainer(`` counts only in a block that also trains or never predicts/evaluates:
# Trainer.predict is a batched inference loop (the CPU page uses it).
TRAINING_CODE = (".backward(", "optimizer.step", "gradscaler", ".train(", "zero_grad")
INFERENCE_TRAINER_CALLS = (".predict(", ".evaluate(")
# GPU hardware and throughput in prose: a CPU reader can act on none of it.
GPU_CLAIM = re.compile(r"\b(A100|H100|H200|Hopper|Ampere|Blackwell|TFLOPS|tensor[- ]cores?)\b", re.IGNORECASE)


def code_terms(code: str, scenario: str | None) -> list[tuple[str, str]]:
    """(what, term) for each term of a block or span of code that does not hold on a page of ``scenario``."""
    lowered = code.lower()
    found: list[tuple[str, str]] = []
    if scenario in CPU:
        found += [("CUDA code", term) for term in CUDA_CODE if term in lowered]
    if scenario in INFERENCE:
        found += [("training code", term) for term in TRAINING_CODE if term in lowered]
        trains = any(term in lowered for term in TRAINING_CODE)
        if "trainer(" in lowered and (trains or not any(c in lowered for c in INFERENCE_TRAINER_CALLS)):
            found.append(("training code", "Trainer("))
    return found


def wrong_scenario_problems(expansion: Expansion, scenario: str | None) -> list[Diagnostic]:
    """The text of snippets (the lines the source map places in a snippet, with the page that included them) that
    does not hold for the page's ``scenario``, in the page's expansion (perfdocs.theory); each at the first line
    that shows it."""
    if scenario not in INFERENCE:
        return []
    lines, source_map, code = expansion.text.split("\n"), expansion.source_map, expansion.code
    from_snippet = [bool(source_map.at(i).included_from) for i in range(len(lines))]
    if not any(from_snippet):
        return []
    problems: list[Diagnostic] = []

    def report(index: int, col: int, what: str, term: str) -> None:
        where = source_map.at(index, col)
        problems.append(
            Diagnostic(
                where,
                f"{what} '{term}' on a page of scenario {scenario}, where it does not hold",
                "wrong-scenario",
                hint=f'wrap it in <Only scenario="..."> with the scenarios it holds for (not {scenario})',
            )
        )

    i = 0
    while i < len(lines):
        if code[i]:  # a code block: the lines up to the next line that is not code
            end = next((j for j in range(i, len(lines)) if not code[j]), len(lines))
            block = "\n".join(lines[i:end])
            for what, term in code_terms(block, scenario):
                row = next((j for j in range(i, end) if term.lower() in lines[j].lower()), i)
                if from_snippet[row]:
                    report(row, lines[row].lower().find(term.lower()) + 1, what, term)
            i = end
            continue
        if from_snippet[i]:
            line = lines[i]
            for start, stop in scan_inline(line).literal if "`" in line else ():
                if line[start] == "`":
                    for what, term in code_terms(line[start:stop], scenario):
                        report(i, start + 1, what.replace("code", "inline code"), term)
            if scenario in CPU:
                prose = mask_code_spans(line)
                for offset, href in scan_inline(line).links if "](" in line else ():
                    at = line.find(href, offset)
                    prose = prose[:at] + " " * len(href) + prose[at + len(href) :] if at >= 0 else prose
                for m in GPU_CLAIM.finditer(prose):
                    report(i, m.start() + 1, "GPU claim", m.group(0))
        i += 1
    return problems
