"""Run every recipe of the guide that is marked ``<!-- recipe: gpu: <reason> -->``, on a machine with a GPU.

    python bench/recipes_gpu.py --list            # plan only: which blocks, why, in which order (no torch import)
    python bench/recipes_gpu.py                   # run them all with the tiny stand-in models, print a table
    python bench/recipes_gpu.py --only gpu_one    # only blocks whose id contains this text
    python bench/recipes_gpu.py --real            # real hub models instead of the tiny ones (needs the hub)

Each block runs in a child process of its own (with the blocks it continues from), in a temporary working
directory, as a single-process torch.distributed job (RANK=0, WORLD_SIZE=1, LOCAL_RANK=0) so that recipes
written for torchrun start. Recipes that need several processes (a tensor-parallel or HSDP layout) fail with
a single GPU; the table says so. Training recipes are judged as in the CPU suite: a finite loss that
decreases, and trained EOS tokens where the recipe is about them. Exit status: 0 when every block passed,
1 when one failed, 2 without a CUDA device.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.recipes.blocks import PYTHON, Block, chain, guide_blocks, needs_gpu  # noqa: E402

DOCS = ROOT / "docs" / "performance"


def gpu_blocks(docs: Path = DOCS, only: str = "") -> list[tuple[Block, list[Block]]]:
    """Every Python block whose chain contains a gpu block, with that chain, in document order."""
    blocks = guide_blocks(docs)
    planned = []
    for block in blocks:
        if block.lang not in PYTHON or block.kind == "fragment" or only not in block.id:
            continue
        blocks_to_run = chain(block, blocks)
        if needs_gpu(blocks_to_run):
            planned.append((block, blocks_to_run))
    return planned


def reason(blocks_to_run: list[Block]) -> str:
    return needs_gpu(blocks_to_run)


def plan_table(planned: list[tuple[Block, list[Block]]]) -> list[str]:
    rows = [f"{'recipe':<36} {'runs after':<28} reason"]
    for block, blocks_to_run in planned:
        after = ", ".join(str(b.line) for b in blocks_to_run[:-1]) or "-"
        rows.append(f"{block.id:<36} {after:<28} {reason(blocks_to_run)}")
    rows.append(f"{len(planned)} GPU recipes")
    return rows


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_one(block_id: str, real: bool) -> dict[str, object]:
    """In the child: run one chain and judge it; returns the result as a dict."""
    from tests.recipes.runner import run_chain, training_problems, trains

    [(block, blocks_to_run)] = [(b, c) for b, c in gpu_blocks() if b.id == block_id]
    recorder = run_chain(blocks_to_run, on_cpu=False, tiny=not real)
    problems = training_problems(blocks_to_run, recorder) if trains(block.code) else []
    return {"ok": not problems, "detail": "; ".join(problems)}


def run_in_child(block: Block, real: bool, timeout: float) -> tuple[str, float, str]:
    env = dict(os.environ, RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", LOCAL_WORLD_SIZE="1")
    env |= {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port()), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, str(Path(__file__).resolve()), "--run-one", block.id] + (["--real"] if real else [])
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as workdir:
        try:
            done = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "fail", time.perf_counter() - start, f"timed out after {timeout:.0f} s"
    seconds = time.perf_counter() - start
    last = (done.stdout.strip().splitlines() or [""])[-1]
    if done.returncode == 0 and last.startswith("{"):
        result = json.loads(last)
        return ("pass" if result["ok"] else "fail"), seconds, str(result["detail"])
    error = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    return "fail", seconds, error[:160]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print the plan and exit (no torch import)")
    parser.add_argument("--only", default="", help="only blocks whose id (page:line) contains this text")
    parser.add_argument("--real", action="store_true", help="real hub models instead of the tiny stand-ins")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per recipe (default 300)")
    parser.add_argument("--run-one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run_one:
        print(json.dumps(run_one(args.run_one, args.real)))
        return 0
    planned = gpu_blocks(only=args.only)
    if args.list:
        print("\n".join(plan_table(planned)))
        return 0
    import torch

    if not torch.cuda.is_available():  # on CPU, autocast("cuda") and friends only warn: a pass would mean nothing
        print("recipes_gpu.py: no CUDA device here; run it on a GPU machine (--list works anywhere)", file=sys.stderr)
        return 2
    results = [(block, *run_in_child(block, args.real, args.timeout)) for block, _ in planned]
    print(f"{'recipe':<36} {'result':<6} {'seconds':>8}  detail")
    for block, status, seconds, detail in results:
        print(f"{block.id:<36} {status:<6} {seconds:8.1f}  {detail}")
    failed = sum(status != "pass" for _, status, _, _ in results)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
