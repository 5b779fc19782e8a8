"""mkdocstrings' internals are touched in one module (perfdocs.mkdocstrings_adapter), for the versions it names
(issue 19, item 5): pyproject.toml pins the same ranges, the installed versions are in them, and on a handler the
site's own configuration makes, the private attributes it writes are the ones mkdocstrings-python reads."""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from importlib.metadata import version
from typing import Any

import griffe
import pytest
from mkdocs.config import load_config
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from perfdocs.mkdocstrings_adapter import SUPPORTED, forget_loaded, made_handler, python_handler, search_path

from .conftest import ROOT
from .test_layers import package_modules

PRIVATE = ("_handlers", "_paths", "_modules_collection", "_lines_collection")


def test_pyproject_pins_the_versions_the_adapter_supports() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = {Requirement(r).name: str(Requirement(r).specifier) for r in project["dependencies"]}
    for name, supported in SUPPORTED.items():
        assert SpecifierSet(pins[name]) == SpecifierSet(supported), name
        assert version(name) in SpecifierSet(supported), f"{name} {version(name)} is not one the adapter supports"


def test_no_other_module_touches_mkdocstrings_internals() -> None:
    """The private names the adapter writes or reads appear nowhere else in the package."""
    for name, path in package_modules().items():
        if name == "mkdocstrings_adapter":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        used |= {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        assert not used & set(PRIVATE), f"{name} uses {used & set(PRIVATE)}"


@pytest.fixture(scope="module")
def handler() -> Iterator[Any]:
    config = load_config(str(ROOT / "mkdocs.yml"))
    plugin = config.plugins["mkdocstrings"]
    plugin.on_config(config)  # where mkdocstrings makes its handlers in a build
    yield plugin
    plugin.on_post_build(config=config)


def test_the_adapter_finds_the_handler_mkdocstrings_made(handler: Any) -> None:
    made = made_handler(handler)
    assert made is not None and python_handler(handler) is made
    paths = search_path(made)
    assert paths is not None and str(ROOT / "hooks") in paths


def test_forgetting_empties_the_collections_the_handler_collects_into(handler: Any) -> None:
    made = python_handler(handler)
    options = made.get_options({"preload_modules": []})  # the libraries the site preloads take minutes to read
    made.collect("perfdocs.codes", options)
    assert isinstance(made._modules_collection, griffe.ModulesCollection)
    assert "perfdocs" in made._modules_collection.members
    forget_loaded(made)
    assert "perfdocs" not in made._modules_collection.members
    made.collect("perfdocs.codes", options)  # and it reads them again into the new ones
    assert "perfdocs" in made._modules_collection.members
