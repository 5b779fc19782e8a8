"""The one module that reaches into mkdocstrings and mkdocstrings-python beyond their public API.

perfdocs hands mkdocstrings a folder of module copies (apirefs.write_subset) and collects every entry with
mkdocstrings' own Python handler before any page renders (apirefs.check_entries). Two things have no public way
in: putting that folder on the search path of a handler mkdocstrings already made, and making the handler forget
what it loaded. Both are written here only, for the versions in ``SUPPORTED`` (pyproject.toml pins the same
ranges; tests/test_mkdocstrings_adapter.py checks both, and that the attributes are there on a real handler).
"""

from __future__ import annotations

from typing import Any

import griffe

HANDLER = "python"
# the distributions whose internals this module uses, and the versions it was written against
SUPPORTED = {"mkdocstrings": ">=1.0.8,<2", "mkdocstrings-python": ">=2.0.11,<3"}


def python_handler(plugin: Any) -> Any:
    """mkdocstrings' Python handler of this build (made now if mkdocstrings has not yet); None outside a build."""
    try:
        handler = plugin.handlers.get_handler(HANDLER) if plugin is not None else None
    except (AttributeError, RuntimeError, KeyError):  # the plugin is not set up for a build (load_config only)
        return None
    return handler if hasattr(handler, "collect") and hasattr(handler, "get_options") else None


def made_handler(plugin: Any) -> Any:
    """The Python handler mkdocstrings has already made, without making one (None if there is none yet)."""
    handlers = getattr(plugin, "_handlers", None)  # mkdocstrings: Handlers, made in its on_config
    return getattr(handlers, "_handlers", {}).get(HANDLER) if handlers is not None else None


def search_path(handler: Any) -> list[str] | None:
    """The list of folders a made handler loads modules from (mkdocstrings-python 2.x reads only this one)."""
    paths = getattr(handler, "_paths", None)
    return paths if isinstance(paths, list) else None


def forget_loaded(handler: Any) -> None:
    """Makes the handler read every module again on its next collect (its collections are private)."""
    handler._modules_collection = griffe.ModulesCollection()
    handler._lines_collection = griffe.LinesCollection()
