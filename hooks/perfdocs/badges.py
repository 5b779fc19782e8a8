"""The tested-with badge: the versions the guide's recipes run against, and what runs where on this page.

The pins of the ``recipes`` extra in ``pyproject.toml`` are the single source of the versions: CI installs
exactly them before it runs every recipe. What each of the page's code blocks gets (run in CI on CPU, run on a
GPU by ``bench/recipes_gpu.py``, only compiled because it needs its own environment, ...) comes from the blocks'
recipe markers, read by the tests' own parser (``recipes.py``), so the badge says what was run, and nothing on a
page is typed by hand. Only ``tomllib``, ``packaging`` (a MkDocs dependency) and markdown-it are imported:
reading the pins and the markers must not import torch.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from .diagnostics import Diagnostic, Location
from .recipes import CONFIG, PYTHON, SHELL, Block, MarkerError, blocks_of, chain, needs_gpu, needs_own_environment

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


@dataclass(frozen=True)
class PageRecipes:
    """What the checks do with each code block of one page (theory snippets expanded into it included)."""

    run: int = 0  # Python recipes CI runs on CPU
    gpu: int = 0  # Python recipes that need a GPU: compiled in CI, run by bench/recipes_gpu.py
    separate: int = 0  # Python recipes that need their own environment: compiled only
    separate_sections: tuple[tuple[str, str], ...] = ()  # (heading, id) of the sections that hold them
    fragments: int = 0  # compiled only
    scripts: tuple[str, ...] = ()  # the tests that run the page's scripts (<!-- recipe: script: tests/... -->)
    shell: int = 0  # checked, not run
    configs: int = 0  # validated with the launchers' config classes


def page_recipes(blocks: Sequence[Block]) -> PageRecipes:
    """Counts ``blocks`` (every block of one page, in order) the way tests/test_recipes.py treats them."""
    run = gpu = separate = fragments = 0
    sections: dict[tuple[str, str], None] = {}
    python = [b for b in blocks if b.lang in PYTHON]
    scripts = tuple(dict.fromkeys(b.reason for b in python if b.kind == "script"))
    for block in python:
        if block.kind == "fragment":
            fragments += 1
            continue
        if block.kind == "script":
            continue
        blocks_to_run = chain(block, list(blocks))
        if needs_gpu(blocks_to_run):
            gpu += 1
        elif needs_own_environment(blocks_to_run):
            separate += 1
            sections[(block.section, block.section_id)] = None
        else:
            run += 1
    return PageRecipes(
        run,
        gpu,
        separate,
        tuple(sections),
        fragments,
        scripts,
        sum(b.lang in SHELL for b in blocks),
        sum(b.lang in CONFIG for b in blocks),
    )


def recipes_on_page(expanded: str, page: str) -> PageRecipes | None:
    """What runs where on a page, from its body with its theory snippets expanded. None when a recipe marker is
    malformed: the recipe tests report it at its line, and the badge is left out rather than guessed."""
    try:
        return page_recipes(blocks_of(expanded, page))
    except MarkerError:
        return None


def _count(number: int, one: str, many: str) -> str:
    """``number`` and the words that agree with it: ``_count(1, "recipe runs", "recipes run")``."""
    return f"{number} {one if number == 1 else many}"


def coverage(recipes: PageRecipes) -> str:
    """One sentence: what runs where on the page ("" when the page has no code block the checks read)."""
    python = []  # (count, what one does, what several do)
    if recipes.run:
        python.append(
            (recipes.run, "runs", "run", " in CI on CPU against exactly these versions, with tiny random-weight models")
        )
    if recipes.gpu:
        it, its, them = ("it", "its", "it") if recipes.gpu == 1 else ("them", "their", "them")
        python.append(
            (
                recipes.gpu,
                "needs",
                "need",
                f" a GPU: CI compiles {it} and checks {its} names, `bench/recipes_gpu.py` runs {them} on a GPU",
            )
        )
    if recipes.separate:
        where = ", ".join(f"[{text}](#{anchor})" if anchor else text for text, anchor in recipes.separate_sections)
        its, is_ = ("its", "is") if recipes.separate == 1 else ("their", "are")
        python.append(
            (
                recipes.separate,
                "needs",
                "need",
                f" {its} own environment and {is_} only compiled, with {its} names checked ({where})",
            )
        )
    parts = []
    for index, (number, single, several, rest) in enumerate(python):
        noun = ("Python recipe " if number == 1 else "Python recipes ") if index == 0 else ""
        parts.append(f"{number} {noun}{single if number == 1 else several}{rest}")
    if recipes.fragments:
        parts.append(_count(recipes.fragments, "fragment is", "fragments are") + " compiled and name-checked")
    if recipes.scripts:
        tests = " and ".join(f"`{test}`" for test in recipes.scripts)
        parts.append(f"the {'script runs' if len(recipes.scripts) == 1 else 'scripts run'} in CI under {tests}")
    if recipes.shell:
        parts.append(
            _count(recipes.shell, "shell block is", "shell blocks are")
            + " checked, not run (launcher arguments and `pip install` names)"
        )
    if recipes.configs:
        parts.append(
            _count(recipes.configs, "config file is", "config files are")
            + " validated with the config classes of DeepSpeed and Accelerate"
        )
    return f"On this page: {'; '.join(parts)}." if parts else ""


def tested_with(pins: list[tuple[str, str]], recipes: PageRecipes | None = None) -> list[str]:
    """The badge's Markdown: one line naming every pinned version, then (``recipes``: the page's blocks) what
    runs where on the page. Without ``recipes`` it names the versions only and claims nothing about a page."""
    versions = ", ".join(f"`{name} {version}`" for name, version in pins)
    line = f"**Tested with** {versions}."
    if recipes is None:
        return [line]
    said = coverage(recipes)
    return [f"{line} {said}" if said else f"{line} This page has no recipe."]


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


def tested_with_badge(root: Path, recipes: PageRecipes | None = None) -> tuple[list[str], list[Diagnostic]]:
    """The badge from ``root``'s pyproject.toml, else from the installed perfdocs package's metadata;
    ``recipes``: what runs where on the page it goes on."""
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
    return (tested_with(pins, recipes) if pins else []), problems
