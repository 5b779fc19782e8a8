"""The guide's code blocks and their recipe markers, for the recipe tests and bench/recipes_gpu.py.

The parser is ``perfdocs.recipes`` (the convention is described there and in the README's "Recipes"): the
build's "Tested with" badge reads the same markers, so there is one reader of them.
"""

from __future__ import annotations

from perfdocs.recipes import (
    CONFIG,
    KINDS,
    MARKER_PREFIX,
    PYTHON,
    SHELL,
    WITH_REASON,
    Block,
    MarkerError,
    blocks_of,
    chain,
    guide_blocks,
    needs_gpu,
    needs_own_environment,
    parse_marker,
)

__all__ = [
    "CONFIG",
    "KINDS",
    "MARKER_PREFIX",
    "PYTHON",
    "SHELL",
    "WITH_REASON",
    "Block",
    "MarkerError",
    "blocks_of",
    "chain",
    "guide_blocks",
    "needs_gpu",
    "needs_own_environment",
    "parse_marker",
]
