"""A library written the way doc-builder's libraries are: tests/test_docstrings.py reads it (never imports it)."""

from .blocks import block_forms
from .heads import Loader, load
from .kwargs import GenerationSettings
from .links import link_forms
from .lists import list_forms

__all__ = ["GenerationSettings", "Loader", "block_forms", "link_forms", "list_forms", "load"]
