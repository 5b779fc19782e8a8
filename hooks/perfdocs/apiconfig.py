"""The API reference's settings, read from the mkdocstrings plugin in mkdocs.yml (perfdocs.apirefs) by
mkdocs_adapter.api_config."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class ApiConfig:
    """The API reference's settings, read from the mkdocstrings plugin in mkdocs.yml."""

    root: Path  # the directory of mkdocs.yml
    namespaces: tuple[str, ...]  # the libraries, in lookup order (the handler's preload_modules)
    handler: dict[str, Any] | None = None  # the Python handler's live config: its ``paths`` are set per build
    config_file: str = "mkdocs.yml"  # as diagnostics name it
    plugin: Any = None  # the mkdocstrings plugin, whose Python handler may already exist (see use_subset)
    settings: str = ""  # the rest of mkdocs.yml that decides how an entry renders (apicache.settings_key of it)
