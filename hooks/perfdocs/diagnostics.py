"""Located diagnostics and the line source map that carries locations through transforms."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path

from .codes import CODES, Level


@dataclass(frozen=True)
class Location:
    """A place in a source file; ``included_from`` lists the include sites, innermost first."""

    path: str
    line: int
    col: int = 1
    included_from: tuple[tuple[str, int], ...] = ()

    def with_col(self, col: int) -> Location:
        return Location(self.path, self.line, col, self.included_from)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Diagnostic:
    location: Location
    message: str
    code: str
    _: KW_ONLY
    level: Level = "error"
    hint: str | None = None

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unknown diagnostic code {self.code!r}: add it to perfdocs/codes.py")

    def __str__(self) -> str:
        text = f"{self.location}: {self.level}: {self.message} [{self.code}]"
        if self.hint:
            text += f" ({self.hint})"
        for path, line in self.location.included_from:
            text += f"\n    included from {path}:{line}"
        return text


def sort_key(d: Diagnostic) -> tuple[str, int, int, str]:
    """Diagnostics in reading order: by file, line, column, then message."""
    return (d.location.path, d.location.line, d.location.col, d.message)


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.level == "error" for d in diagnostics)


@dataclass
class SourceMap:
    """Maps each line of a generated text (0-based index) to the Location it came from."""

    origins: list[Location] = field(default_factory=list)

    @classmethod
    def identity(cls, path: str, n_lines: int, first_line: int = 1) -> SourceMap:
        return cls([Location(path, first_line + i) for i in range(max(n_lines, 1))])

    def at(self, index: int, col: int = 1) -> Location:
        """Location of 0-based output line ``index``; past the end maps to the last line."""
        if not self.origins:
            return Location("<unknown>", index + 1, col)
        origin = self.origins[min(max(index, 0), len(self.origins) - 1)]
        return origin.with_col(col) if col != 1 else origin

    def compose(self, inner: Sequence[int]) -> SourceMap:
        """``inner[i]`` is the line of *this* map that output line ``i`` came from."""
        return SourceMap([self.at(i) for i in inner])

    def __len__(self) -> int:
        return len(self.origins)


def display_path(path: Path | str, root: Path) -> str:
    """How a Location names a file: relative to the project ``root`` with forward slashes (symlinks in either
    resolved when that is what makes it relative); absolute when the file is outside the root."""
    absolute = os.path.abspath(path)
    for base in (str(root), os.path.realpath(root)):
        try:
            return Path(absolute).relative_to(base).as_posix()
        except ValueError:
            continue
    try:
        return Path(os.path.realpath(absolute)).relative_to(os.path.realpath(root)).as_posix()
    except ValueError:
        return Path(absolute).as_posix()


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate ``word`` most likely misspells, if one is close enough (difflib's ratio of at least 0.6)."""
    import difflib

    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    near = closest(word, candidates)
    return f"did you mean '{near}'?" if near else None


@dataclass
class Reporter:
    """Logs each problem of a build once, as MkDocs prints them (ERROR / WARNING under ``logger``)."""

    logger: logging.Logger
    reported: set[str] = field(default_factory=set)
    reported_at: set[tuple[str, str, str]] = field(default_factory=set)  # (place, code, message) reported
    reported_lines: set[tuple[str, int, str]] = field(default_factory=set)  # (path, line, code) reported

    def report(self, diagnostics: Iterable[Diagnostic]) -> None:
        for d in diagnostics:
            text = str(d)
            # one report per broken link: the dialect resolves extension-less links and says so with a
            # did-you-mean; the site check finds the same link broken in the HTML
            key = f"{d.location} {d.code}" if d.code == "missing-file" else text
            if key in self.reported:
                continue
            self.reported.add(key)
            self.reported_at.add((str(d.location), d.code, d.message))
            self.reported_lines.add((d.location.path, d.location.line, d.code))
            if d.level == "error":
                self.logger.error(text)
            else:
                self.logger.warning(text)

    def unreported(self, diagnostics: Iterable[Diagnostic], *, any_message: bool = False) -> list[Diagnostic]:
        """Those of ``diagnostics`` not reported at their place yet, whatever their hint. ``any_message``: nor a
        problem of the same code at the same line, in other words (the sanitiser's finding of a construct the
        Markdown side already reported there)."""
        if any_message:
            return [d for d in diagnostics if (d.location.path, d.location.line, d.code) not in self.reported_lines]
        return [d for d in diagnostics if (str(d.location), d.code, d.message) not in self.reported_at]

    def forget(self) -> None:
        """Report everything afresh (an incremental rebuild under mkdocs serve)."""
        self.reported.clear()
        self.reported_at.clear()
        self.reported_lines.clear()
