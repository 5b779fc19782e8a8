"""``<Measured data="cpu_speed"/>``: speed-ups a benchmark measured, rendered from its committed results.

A benchmark under ``bench/`` (``bench/cpu_speed.py``) writes its results as JSON to ``bench/results/<name>.json``:
the machine, the model, the workloads, and for each variant its time and its speed-up over the baseline measured
in the same run. The component turns one such file into a table of relative speed-ups (never absolute times,
which describe the machine more than the technique) with the machine, the date and the method named under it,
so the page states what was measured and nothing a reader could mistake for a promise.

Pure: functions return their text and the problems found (``Problem``); the dialect reports them at the tag.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .budgets import Problem
from .diagnostics import did_you_mean

__all__ = ["ATTRIBUTES", "RESULTS", "SCHEMA", "load", "render_measured"]

# The attributes the dialect parses (kinds: "req" a required string, "str" a string).
ATTRIBUTES: dict[str, str] = {"data": "req", "variants": "str", "workloads": "str"}
RESULTS = "bench/results"  # relative to the project root
SCHEMA = 1
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


def _file(name: str) -> str:
    return f"{RESULTS}/{name}.json"


def _shape_problem(data: Any, name: str) -> str | None:
    """What is missing or of the wrong type in a results file (None: it has what the table needs)."""
    if not isinstance(data, dict):
        return "not a JSON object"
    if data.get("schema") != SCHEMA:
        return f"schema is {data.get('schema')!r}; this build reads schema {SCHEMA}"
    wanted: dict[str, type | tuple[type, ...]] = {
        "date": str,
        "mode": str,
        "rounds": int,
        "baseline": str,
        "machine": dict,
        "model": dict,
        "workloads": list,
        "variants": list,
        "results": list,
    }
    for key, kind in wanted.items():
        if not isinstance(data.get(key), kind):
            return f"'{key}' is missing or not a {getattr(kind, '__name__', 'value')}"
    for key, kind in {"cpu": str, "physical_cores": int, "flags": list, "versions": dict}.items():
        if not isinstance(data["machine"].get(key), kind):
            return f"'machine.{key}' is missing or not a {kind.__name__}"
    for key, kind in {"name": str, "parameters": int}.items():
        if not isinstance(data["model"].get(key), kind):
            return f"'model.{key}' is missing or not a {kind.__name__}"
    for group in ("workloads", "variants"):
        for entry in data[group]:
            if not (
                isinstance(entry, dict) and isinstance(entry.get("id"), str) and isinstance(entry.get("label"), str)
            ):
                return f"every entry of '{group}' needs an 'id' and a 'label'"
    if data["baseline"] not in {v["id"] for v in data["variants"]}:
        return f"the baseline '{data['baseline']}' is not one of the variants"
    found = set()
    for entry in data["results"]:
        numbers = ("speedup", "speedup_min", "speedup_max")
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), int | float) for k in numbers):
            return "every result needs a 'variant', a 'workload', 'speedup', 'speedup_min' and 'speedup_max'"
        found.add((entry.get("variant"), entry.get("workload")))
    for variant in data["variants"]:
        for workload in data["workloads"]:
            if (variant["id"], workload["id"]) not in found:
                return f"no result for variant '{variant['id']}' on workload '{workload['id']}'"
    return None


def load(name: str, root: Path | None) -> tuple[dict[str, Any] | None, Problem | None]:
    """The results file ``bench/results/<name>.json`` under ``root``, checked, or the problem with it."""
    if not NAME_RE.fullmatch(name):
        return None, Problem(
            f'data="{name}" in <Measured> is not a results name',
            f'the name of a file in {RESULTS}/ without .json, e.g. data="cpu_speed"',
        )
    if root is None:
        return None, Problem(f"<Measured> reads {RESULTS}/ of the project, and this conversion has no project root")
    directory = root / RESULTS
    path = directory / f"{name}.json"
    if not path.is_file():
        names = sorted(p.stem for p in directory.glob("*.json")) if directory.is_dir() else []
        hint = did_you_mean(name, names) or (f"results: {', '.join(names)}" if names else f"{RESULTS}/ is empty")
        return None, Problem(f'<Measured data="{name}">: there is no {_file(name)}', hint)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return None, Problem(f"<Measured>: cannot read {_file(name)}: {exc}")
    except json.JSONDecodeError as exc:
        return None, Problem(f"<Measured>: {_file(name)} is not JSON: {exc.msg} at line {exc.lineno}")
    problem = _shape_problem(data, name)
    if problem:
        return None, Problem(f"<Measured>: {_file(name)}: {problem}", "write it with the benchmark that made it")
    return data, None


def _pick(attr: str, value: str | None, known: list[str], name: str, problems: list[Problem]) -> list[str]:
    """The ids a ``variants=``/``workloads=`` attribute names, in its order (all of ``known`` when absent)."""
    if value is None:
        return known
    picked = [item.strip() for item in value.split(",") if item.strip()]
    if not picked:
        problems.append(Problem(f'{attr}="{value}" in <Measured> names none', f"ids: {', '.join(known)}"))
    for item in picked:
        if item not in known:
            problems.append(
                Problem(
                    f"{attr}=\"{value}\" in <Measured>: {_file(name)} has no {attr[:-1]} '{item}'",
                    did_you_mean(item, known) or f"ids: {', '.join(known)}",
                )
            )
    return picked


def _times(value: float) -> str:
    return f"{value:.2f}×"


def _cell(result: Mapping[str, Any]) -> str:
    return f"{_times(result['speedup'])} ({result['speedup_min']:.2f}–{result['speedup_max']:.2f})"


def _millions(count: int) -> str:
    return f"{count / 1e6:,.0f} M"


def _busy(machine: Mapping[str, Any]) -> str:
    """A sentence when other work ran on the machine, else "": a load average above half its logical CPUs before
    the run, or after it once the benchmark's own threads (one per physical core) are taken off."""
    cpus = machine.get("logical_cpus")
    loads = [machine.get("load_average_before"), machine.get("load_average_after")]
    numbers = [float(load) for load in loads if isinstance(load, int | float)]
    if not isinstance(cpus, int) or len(numbers) != 2:
        return ""
    cores = machine.get("physical_cores")
    own: int = cores if isinstance(cores, int) else cpus
    if max(numbers[0], numbers[1] - own) <= cpus / 2:
        return ""
    return (
        f"Other work shared the machine (load average {numbers[0]:g} before the run and {numbers[1]:g} after, on "
        f"{cpus} logical CPUs), which slows runs on all cores most."
    )


def render_measured(attrs: Mapping[str, tuple[str, str]], root: Path | None) -> tuple[list[str], list[Problem]]:
    """Markdown: a table of speed-ups (a row per variant, a column per workload), then what was measured, on
    which machine, when and how (``attrs``: name -> (kind, text), as the dialect parses them)."""
    name = attrs.get("data", ("str", ""))[1].strip()
    if not name:
        return [], []  # the dialect reports the missing data="..." attribute
    data, problem = load(name, root)
    if data is None:
        return [], [problem] if problem else []
    baseline = data["baseline"]
    variant_ids = [v["id"] for v in data["variants"] if v["id"] != baseline]
    workload_ids = [w["id"] for w in data["workloads"]]
    problems: list[Problem] = []
    rows = _pick("variants", attrs.get("variants", (None, None))[1], variant_ids, name, problems)
    columns = _pick("workloads", attrs.get("workloads", (None, None))[1], workload_ids, name, problems)
    if problems:
        return [], problems
    labels = {v["id"]: v["label"] for v in data["variants"]}
    workloads = {w["id"]: w for w in data["workloads"]}
    results = {(r["variant"], r["workload"]): r for r in data["results"]}
    lines = [
        "| Change from the baseline | " + " | ".join(workloads[w]["label"] for w in columns) + " |",
        "|:--|" + "--:|" * len(columns),
    ]
    for variant in rows:
        lines.append(f"| {labels[variant]} | " + " | ".join(_cell(results[(variant, w)]) for w in columns) + " |")
    machine, model = data["machine"], data["model"]
    flags = ", ".join(machine["flags"]) or "none of AVX2, AVX-512, AMX"
    where = f"{machine['cpu']}, {machine['physical_cores']} physical cores"
    if machine.get("virtual_machine"):
        where += ", a virtual machine"
    versions = ", ".join(f"{k} {v}" for k, v in machine["versions"].items())
    setups = "; ".join(
        f"{workloads[w]['label'].lower()}: {workloads[w]['setup']}" for w in columns if workloads[w].get("setup")
    )
    note = (
        f"Speed-up over the baseline ({labels[baseline]}): the baseline's time over the variant's in the same round, "
        f"median of {data['rounds']} interleaved rounds after warm-up (lowest–highest in brackets); above 1× is "
        f"faster. Measured {data['date']} on {where} (CPU flags: {flags}), {versions}, with {model['name']}'s "
        f"architecture and random weights ({_millions(model['parameters'])} parameters)"
        + (f"; {setups}" if setups else "")
        + f". Data: `{_file(name)}`, written by `{data.get('command', 'bench/')}`."
    )
    busy = _busy(machine)
    if busy:
        note += " " + busy
    if data["mode"] == "quick":
        note += f" A quick run (`--quick`: short inputs, {data['rounds']} rounds): read the figures as rough."
    lines += ["", note]
    return lines, []
