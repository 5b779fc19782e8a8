"""The API reference's settings, read from the mkdocstrings plugin in mkdocs.yml (perfdocs.apirefs)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .mkdocstrings_adapter import HANDLER


@dataclass
class ApiConfig:
    """The API reference's settings, read from the mkdocstrings plugin in mkdocs.yml."""

    root: Path  # the directory of mkdocs.yml
    namespaces: tuple[str, ...]  # the libraries, in lookup order (the handler's preload_modules)
    handler: dict[str, Any] | None = None  # the Python handler's live config: its ``paths`` are set per build
    config_file: str = "mkdocs.yml"  # as diagnostics name it
    plugin: Any = None  # the mkdocstrings plugin, whose Python handler may already exist (see use_subset)


def api_config(config: Any, display: str = "mkdocs.yml") -> ApiConfig | None:
    """The API settings of a validated MkDocs config; None when the mkdocstrings plugin is not enabled."""
    plugins = config.get("plugins") if hasattr(config, "get") else None
    plugin = plugins.get("mkdocstrings") if plugins is not None else None
    if plugin is None:
        return None
    handlers = plugin.config.get("handlers") if hasattr(plugin, "config") else None
    if not isinstance(handlers, dict):
        return None
    handler = handlers.setdefault(HANDLER, {})
    options = handler.get("options") or {}
    namespaces = tuple(str(n) for n in options.get("preload_modules") or ())
    root = Path(os.path.abspath(config.config_file_path or "mkdocs.yml")).parent
    return ApiConfig(root, namespaces, handler, display, plugin)
