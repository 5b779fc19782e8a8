"""The tested-with badge: the versions the guide's recipes run against, read from the ``recipes`` extra.

The pins in ``pyproject.toml`` are the single source: CI installs exactly them before it runs every recipe,
so the badge says what was run, and nothing on a page is typed by hand. Only ``tomllib`` and
``packaging`` (a MkDocs dependency) are imported: reading the pins must not import torch.
"""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from .diagnostics import Diagnostic, Location

EXTRA = "recipes"
PYPROJECT = "pyproject.toml"


def _extra_line(text: str) -> int:
    """1-based line of ``recipes = [`` in the pyproject text (1 when absent)."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().replace(" ", "").startswith(f"{EXTRA}=["):
            return number
    return 1


def recipe_pins(text: str, path: str = PYPROJECT) -> tuple[list[tuple[str, str]], list[Diagnostic]]:
    """(name, version) for every exact pin of the ``recipes`` extra, and a diagnostic per entry that is not one."""
    where = Location(path, _extra_line(text))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return [], [Diagnostic(Location(path, 1), f"not valid TOML: {exc}", "recipes-pins")]
    entries = data.get("project", {}).get("optional-dependencies", {}).get(EXTRA)
    if not entries:
        return [], [Diagnostic(where, f"no '{EXTRA}' extra in [project.optional-dependencies]", "recipes-pins")]
    pins, problems = [], []
    for entry in entries:
        try:
            req = Requirement(entry)
        except InvalidRequirement as exc:
            problems.append(Diagnostic(where, f"'{entry}' is not a requirement: {exc}", "recipes-pins"))
            continue
        specs = list(req.specifier)
        if len(specs) != 1 or specs[0].operator != "==" or "*" in specs[0].version:
            problems.append(
                Diagnostic(where, f"'{entry}' is not an exact pin: the badge needs name==version", "recipes-pins")
            )
            continue
        pins.append((req.name, specs[0].version))
    return pins, problems


def tested_with(pins: list[tuple[str, str]]) -> list[str]:
    """The badge's Markdown: one line naming every pinned version."""
    versions = ", ".join(f"`{name} {version}`" for name, version in pins)
    return [
        f"**Tested with** {versions}. Every recipe on this page runs in CI on CPU against exactly these versions, "
        "with tiny random-weight models; the ones that need a GPU run through `bench/recipes_gpu.py`."
    ]


def installed_recipe_requirements(distribution: str = "perfdocs") -> list[str]:
    """The ``recipes`` extra as the installed package's metadata lists it (written from pyproject.toml when the
    package was installed): the source of the pins for a docs tree copied away from its pyproject.toml."""
    found = []
    for entry in metadata.requires(distribution) or []:
        req = Requirement(entry)
        if req.marker is not None and req.marker.evaluate({"extra": EXTRA}):
            req.marker = None
            found.append(str(req))
    return found


def tested_with_badge(root: Path) -> tuple[list[str], list[Diagnostic]]:
    """The badge from ``root``'s pyproject.toml, else from the installed perfdocs package's metadata."""
    path = root / PYPROJECT
    if path.is_file():
        pins, problems = recipe_pins(path.read_text(encoding="utf-8"))
    else:
        try:
            entries = installed_recipe_requirements()
        except metadata.PackageNotFoundError:
            entries = []
        extra = "[" + ", ".join(f'"{e}"' for e in entries) + "]"
        pins, problems = recipe_pins(f"[project.optional-dependencies]\n{EXTRA} = {extra}\n", "perfdocs metadata")
    return (tested_with(pins) if pins else []), problems
