"""The serving benchmark of infer/gpu_many.md measures what it says it measures.

The script is taken from the page as a reader copies it (the code block that starts with
``# serving_bench.py``), run against ``transformers serve`` holding a tiny random-weight Llama on a free
loopback port, at a finite Poisson rate and at an infinite one. The checks read the script's own JSON
report: every request completed with the tokens it asked for, the token arrival times are consistent with
one another, the percentiles are ordered and the throughputs are the script's own totals over its own
duration.
"""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT
from .recipes.blocks import Block, blocks_of

PAGE = ROOT / "docs" / "performance" / "infer" / "gpu_many.md"
SCRIPT_HEAD = "# serving_bench.py"
OUTPUT_LEN = 8
NUM_PROMPTS = 6
RATES = ("4", "inf")
READY_WITHIN_S = 600.0  # a generous bound for a CPU server to load a 2-layer model; the poll ends as soon as it is up
SERVER_ENV = {"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_UPDATE_CHECK": "1", "TOKENIZERS_PARALLELISM": "false"}


def bench_block() -> Block:
    blocks = blocks_of(PAGE.read_text(encoding="utf-8"), "infer/gpu_many.md")
    [block] = [b for b in blocks if b.code.startswith(SCRIPT_HEAD)]
    return block


def _needs_serving() -> None:
    for module in ("torch", "fastapi", "uvicorn", "openai"):
        if os.environ.get("CI"):  # CI installs the test and recipes extras: a missing module is a failure there
            __import__(module)
        else:
            pytest.importorskip(module, reason="needs the test and recipes extras: pip install -e '.[test,recipes]'")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def tiny_model(path: Path) -> list[int]:
    """A 2-layer Llama whose vocabulary is exactly the tiny tokenizer's, saved with it; returns the ids of the
    special tokens (the server's streamer skips them, so the benchmark suppresses them: one chunk per token)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from .recipes.tiny import DECODER, tiny_tokenizer

    tokenizer = tiny_tokenizer("decoder")
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        num_key_value_heads=2,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        **DECODER,
    )
    LlamaForCausalLM(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return sorted(tokenizer.added_tokens_decoder)


def wait_until_healthy(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + READY_WITHIN_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"transformers serve exited with {process.returncode}:\n{log.read_text(errors='replace')}")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    pytest.fail(f"transformers serve was not healthy after {READY_WITHIN_S:.0f} s:\n{log.read_text(errors='replace')}")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Starts the server, runs the page's script against it at two rates, returns the script's JSON report."""
    _needs_serving()
    tmp = tmp_path_factory.mktemp("serving")
    model = tmp / "tiny-llama"
    specials = tiny_model(model)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp / "server.log"
    env = {**os.environ, **SERVER_ENV}
    command = [sys.executable, "-m", "transformers.cli.transformers", "serve", str(model)]
    command += ["--device", "cpu", "--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as sink:
        server = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env, cwd=tmp)
    try:
        wait_until_healthy(server, url, log)
        script = tmp / "serving_bench.py"
        script.write_text(bench_block().code, encoding="utf-8")
        # transformers serve refuses fields it does not know (ignore_eos); its own way to fix the output length is
        # a generation config: exactly OUTPUT_LEN tokens, none of them special.
        generation = {
            "max_new_tokens": OUTPUT_LEN,
            "min_new_tokens": OUTPUT_LEN,
            "do_sample": False,
            "suppress_tokens": specials,
        }
        out = tmp / "report.json"
        run = subprocess.run(
            [sys.executable, str(script), "--base-url", f"{url}/v1", "--model", str(model)]
            + ["--rates", *RATES, "--num-prompts", str(NUM_PROMPTS), "--input-words", "16"]
            + ["--output-len", str(OUTPUT_LEN), "--warmup", "1", "--json", str(out)]
            + ["--extra-body", json.dumps({"generation_config": json.dumps(generation)})],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp,
        )
        assert run.returncode == 0, run.stdout + run.stderr + log.read_text(errors="replace")
        data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        data["stdout"] = run.stdout
        return data
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_the_page_has_one_benchmark_script_that_compiles() -> None:
    block = bench_block()
    assert block.lang == "python"
    compile(block.code, block.id, "exec")


def test_every_request_completes_at_both_rates_with_the_tokens_it_asked_for(report: dict[str, Any]) -> None:
    assert [run["summary"]["rate"] for run in report["runs"]] == [float(r) for r in RATES]
    for run in report["runs"]:
        summary, requests = run["summary"], run["requests"]
        assert [r.get("error") for r in requests] == [None] * NUM_PROMPTS
        assert summary["completed"] == NUM_PROMPTS and summary["failed"] == 0
        assert [r["output_tokens"] for r in requests] == [OUTPUT_LEN] * NUM_PROMPTS


def test_token_timings_are_consistent_per_request(report: dict[str, Any]) -> None:
    for run in report["runs"]:
        for r in run["requests"]:
            assert 0 < r["ttft"] < r["latency"]
            assert len(r["itl"]) == r["output_tokens"] - 1  # one streamed chunk per token
            assert all(gap >= 0 for gap in r["itl"])
            # the first token, then the gaps between tokens, fit inside the request's end-to-end latency
            assert r["ttft"] + sum(r["itl"]) <= r["latency"]
            assert math.isclose(r["tpot"], (r["latency"] - r["ttft"]) / (r["output_tokens"] - 1))


def test_percentiles_are_ordered(report: dict[str, Any]) -> None:
    for run in report["runs"]:
        s = run["summary"]
        for metric in ("ttft", "tpot", "itl", "latency"):
            p50, p90, p99 = (s[f"{metric}_p{q}_ms"] for q in (50, 90, 99))
            assert 0 <= p50 <= p90 <= p99, metric
        # the median TTFT lies between the smallest and largest TTFT the script recorded
        ttfts = sorted(r["ttft"] * 1000 for r in run["requests"])
        assert ttfts[0] <= s["ttft_p50_ms"] <= ttfts[-1]


def test_throughputs_are_the_scripts_own_totals_over_its_duration(report: dict[str, Any]) -> None:
    for run in report["runs"]:
        s, requests = run["summary"], run["requests"]
        tokens = sum(r["output_tokens"] for r in requests)
        assert s["output_tokens"] == tokens == NUM_PROMPTS * OUTPUT_LEN
        assert math.isclose(s["output_throughput"], tokens / s["duration_s"])
        assert math.isclose(s["request_throughput"], NUM_PROMPTS / s["duration_s"])
        assert 0 <= s["goodput"] <= s["request_throughput"]
        # the run lasts at least from the first request sent to the last one answered
        first_sent = min(r["sent"] for r in requests)
        last_done = max(r["sent"] + r["latency"] for r in requests)
        assert last_done - first_sent <= s["duration_s"]


def test_an_infinite_rate_sends_every_request_before_the_first_answer(report: dict[str, Any]) -> None:
    burst = next(run for run in report["runs"] if math.isinf(run["summary"]["rate"]))
    requests = burst["requests"]
    assert max(r["sent"] for r in requests) < min(r["sent"] + r["latency"] for r in requests)


def test_the_table_prints_one_row_per_rate(report: dict[str, Any]) -> None:
    lines = report["stdout"].strip().splitlines()
    assert lines[0].startswith("rate")
    assert [line.split()[0] for line in lines[1:]] == [str(float(r)) for r in RATES]
