"""Gated models: a recipe that loads one says so under its code, with the way in and an open model to run instead.

Meta's Llama and Mistral's checkpoints on the Hub are gated: a download needs an account that accepted the
model's terms, and a token. A reader who pastes a recipe without one gets a 401 or 403 and nothing else. The
maintainers list, in ``extra.perfdocs.gated_models`` (mkdocs.yml), the section that explains access and, per gated
id, an open model the same code runs with::

    gated_models:
      access: index.md#gated-models
      open:
        meta-llama/Llama-3.1-8B-Instruct: Qwen/Qwen2.5-7B-Instruct

Every fenced code block that names a listed id (as a whole id: ``...-8B`` is not named by ``...-8B-Instruct``) gets
one line under it, written by the dialect, so no author has to remember it and none is missing.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .diagnostics import Diagnostic, Location
from .redirects import setting_lines, shown

SETTING = "extra.perfdocs.gated_models"
NOTE_CLASS = "perfdocs-gated"  # docs/assets/perfdocs.css sets the line small and close to its code block
# A Hub repository id: owner/name, letters, digits, '-', '_' and '.' (huggingface_hub's validate_repo_id).
REPO_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
MAX_REPO_ID = 96


@dataclass(frozen=True)
class GatedModels:
    """The gated ids and their open stand-ins (extra.perfdocs.gated_models), and what is wrong with the setting."""

    access: str = ""  # docs-relative page#section that explains access; "" when the setting is unset
    open: tuple[tuple[str, str], ...] = ()  # (gated id, open id), longest gated id first
    problems: tuple[Diagnostic, ...] = ()

    def named_in(self, code: str) -> list[tuple[str, str]]:
        """(gated id, open id) for each listed id ``code`` names as a whole id, in the order they first appear."""
        found: list[tuple[int, str, str]] = []
        for gated, alternative in self.open:
            start = _whole(code, gated)
            if start is not None:
                found.append((start, gated, alternative))
        return [(gated, alternative) for _, gated, alternative in sorted(found)]

    def note(self, code: str, page: str) -> list[str]:
        """The paragraph under a code block of ``page`` (docs-relative) that names gated ids (its line and
        attr_list's class line), or nothing."""
        named = self.named_in(code)
        if not named or not self.access:
            return []
        target, _, section = self.access.partition("#")
        link = posixpath.relpath(target, posixpath.dirname(page) or ".") + (f"#{section}" if section else "")
        gated = " and ".join(f"`{g}`" for g, _ in named)
        alternatives = " and ".join(f"`{a}`" for _, a in named)
        verb, place = ("is", "its") if len(named) == 1 else ("are", "their")
        instead = f"run this code with the open {alternatives} in {place} place"
        return [f"{gated} {verb} gated: [get access]({link}), or {instead}.", f"{{: .{NOTE_CLASS} }}"]


def _whole(code: str, repo_id: str) -> int | None:
    """Where ``repo_id`` first stands in ``code`` as a whole id (not inside a longer one), or None."""
    start = code.find(repo_id)
    while start != -1:
        end = start + len(repo_id)
        before = code[start - 1] if start else " "
        after = code[end] if end < len(code) else " "
        # "x.y" continues an id, "x." ending a sentence does not
        sentence_end = after == "." and (end + 1 >= len(code) or code[end + 1] not in REPO_CHARS)
        if before not in REPO_CHARS and (after not in REPO_CHARS or sentence_end):
            return start
        start = code.find(repo_id, start + 1)
    return None


def _repo_id(value: Any) -> bool:
    if not isinstance(value, str) or len(value) > MAX_REPO_ID or value.count("/") != 1:
        return False
    owner, name = value.split("/")
    return all(part and set(part) <= REPO_CHARS and ".." not in part and "--" not in part for part in (owner, name))


def gated_models(value: Any, config_file: Path | str | None = None, display: str = "mkdocs.yml") -> GatedModels:
    """extra.perfdocs.gated_models as mkdocs.yml sets it (``value``; None when unset: no notes), checked; each
    problem at its line of ``config_file`` (shown as ``display``) when the file says where."""
    if value is None:
        return GatedModels()
    lines = setting_lines(config_file, SETTING) if config_file is not None else {}
    here = Location(display, lines.get(None, 1))
    if not isinstance(value, dict) or set(value) != {"access", "open"}:
        message = f"{SETTING} must be a mapping with 'access' (page#section) and 'open' (gated id: open id)"
        return GatedModels(problems=(Diagnostic(here, f"{message} (got {shown(repr(value))})", "bad-config"),))
    access, mapping = value["access"], value["open"]
    entries = Location(display, setting_lines(config_file, SETTING + ".open").get(None, here.line)) if lines else here
    problems: list[Diagnostic] = []
    if not isinstance(access, str) or not access.partition("#")[0].endswith(".md") or access.startswith("/"):
        problems.append(
            Diagnostic(
                here,
                f"{SETTING}.access: {shown(repr(access))} is not a page of the docs",
                "bad-config",
                hint="write the page's path under docs_dir and the section's id, as in index.md#gated-models",
            )
        )
        access = ""
    pairs: list[tuple[str, str]] = []
    if not isinstance(mapping, dict):
        message = f"{SETTING}.open must map each gated model id to an open one (got {shown(repr(mapping))})"
        problems.append(Diagnostic(here, message, "bad-config"))
        mapping = {}
    for gated, alternative in mapping.items():
        for what in (gated, alternative):
            if not _repo_id(what):
                problems.append(
                    Diagnostic(
                        entries,
                        f"{SETTING}.open: {shown(repr(what))} is not a Hub model id",
                        "bad-config",
                        hint="write owner/name, as in meta-llama/Llama-3.1-8B",
                    )
                )
        if _repo_id(gated) and _repo_id(alternative):
            if alternative in mapping:
                message = f"{SETTING}.open: {alternative} stands in for {gated} but is gated itself"
                problems.append(Diagnostic(entries, message, "bad-config"))
            else:
                pairs.append((gated, alternative))
    pairs.sort(key=lambda pair: -len(pair[0]))
    return GatedModels(str(access), tuple(pairs), tuple(problems))
