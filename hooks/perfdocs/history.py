"""What a change does to the site's URLs and pages, judged against a git ref.

``missing_urls``: every page URL (and every redirected URL) that existed at the base ref must
still resolve in the current build. ``affected_pages``: the pages whose output a diff changes,
following theory includes. Git is only read here; the logic below takes plain lists. Paths are
relative to the project root (the directory of mkdocs.yml), which may sit anywhere in the git
work tree; ``docs`` is the docs_dir prefix in that form (``docs/`` by default).
"""

from __future__ import annotations

import difflib
import functools
import posixpath
import subprocess
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from .redirects import load_redirects, normalise_old
from .text import split_front_matter
from .theory import THEORY_DIR

DOCS = "docs/"


class GitError(Exception):
    pass


def git(root: Path, *args: str) -> str:
    try:
        result = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False)
    except FileNotFoundError as exc:
        raise GitError("git is not installed") from exc
    if result.returncode != 0:
        raise GitError(f"git {' '.join(args)}: {result.stderr.strip() or 'failed'}")
    return result.stdout


def files_at(root: Path, ref: str, under: str = DOCS) -> list[str]:
    return [p for p in git(root, "ls-tree", "-r", "--name-only", ref, "--", under).splitlines() if p]


def show(root: Path, ref: str, path: str) -> str | None:
    """``path`` (relative to ``root``) as it was at ``ref``; None when it did not exist."""
    try:
        return git(root, "show", f"{ref}:./{path}")
    except GitError:
        return None


def renames_since(root: Path, ref: str, docs: str = DOCS) -> dict[str, str]:
    """Docs files git sees as renamed between ``ref`` and the work tree: old -> new."""
    out = {}
    for line in git(root, "diff", "--relative", "--name-status", "-M", ref, "--", docs).splitlines():
        parts = line.split("\t")
        if parts[0].startswith("R") and len(parts) == 3:
            out[parts[1]] = parts[2]
    return out


class GitRenames(Mapping[str, str]):
    """``page_renames`` asked of git on first use only: the hints of broken links, redirect targets and nav
    entries read it, and a build with none asks git nothing."""

    def __init__(self, root: Path, ref: str = "HEAD", docs: str = DOCS) -> None:
        self.root, self.ref, self.docs = root, ref, docs

    @functools.cached_property
    def _renames(self) -> dict[str, str]:
        return page_renames(self.root, self.ref, self.docs)

    def __getitem__(self, old: str) -> str:
        return self._renames[old]

    def __iter__(self) -> Iterator[str]:
        return iter(self._renames)

    def __len__(self) -> int:
        return len(self._renames)


def page_renames(root: Path, ref: str = "HEAD", docs: str = DOCS) -> dict[str, str]:
    """``renames_since`` as docs-relative paths (the link checker's spelling); empty outside a git work tree."""
    try:
        renames = renames_since(root, ref, docs)
    except GitError:
        return {}
    return {old.removeprefix(docs): new.removeprefix(docs) for old, new in renames.items()}


def is_page(repo_path: str, docs: str = DOCS) -> bool:
    return (
        repo_path.startswith(docs) and repo_path.endswith(".md") and not repo_path.startswith(docs + THEORY_DIR + "/")
    )


def page_url(docs_path: str) -> str:
    """The directory URL MkDocs gives a docs-relative .md path ('' is the site root)."""
    old = normalise_old(docs_path)
    return old + "/" if old else ""


@dataclass(frozen=True)
class MissingUrl:
    url: str  # site-relative, e.g. "perf_train_gpu_one/"
    origin: str  # "page docs/x.md" or "redirects.yml entry"
    suggestion: str | None  # docs-relative .md path the old URL should redirect to


def missing_urls(
    old_pages: Iterable[str],
    old_redirect_keys: Iterable[str],
    resolves: Callable[[str], bool],
    current_pages: Iterable[str],
    renames: Mapping[str, str],
    docs: str = DOCS,
) -> list[MissingUrl]:
    """Old URLs that no longer resolve, each with the best guess of where it should go."""
    current = sorted(current_pages)
    missing = []
    candidates: list[tuple[str, str, str | None]] = []
    for repo_path in old_pages:
        docs_path = repo_path.removeprefix(docs)
        renamed = renames.get(repo_path)
        candidates.append((page_url(docs_path), f"page {repo_path}", renamed.removeprefix(docs) if renamed else None))
    for key in old_redirect_keys:
        old = normalise_old(key.partition("#")[0])
        candidates.append((old + "/" if old else "", "redirects.yml entry", None))
    for url, origin, renamed in candidates:
        if resolves(url):
            continue
        guess = renamed if renamed in current else _closest(url, current)
        missing.append(MissingUrl(url, origin, guess))
    return sorted(set(missing), key=lambda m: m.url)


def _closest(url: str, pages: list[str]) -> str | None:
    stem = url.rstrip("/").rsplit("/", 1)[-1]
    by_name = [p for p in pages if posixpath.basename(p)[:-3] == stem]
    if len(by_name) == 1:
        return by_name[0]
    close = difflib.get_close_matches(url.rstrip("/") + ".md", pages, n=1, cutoff=0.4)
    return close[0] if close else None


def redirect_lines(missing: Iterable[MissingUrl]) -> list[str]:
    lines = []
    for m in missing:
        key = m.url.rstrip("/") or "index"
        target = m.suggestion or "CHOOSE-A-PAGE.md"
        note = "" if m.suggestion else "  # no obvious successor: pick the page that answers the same question"
        lines.append(f"  {key}: {target}{note}")
    return lines


def relive_problems(redirects_text: str, pages: set[str]) -> list[str]:
    """redirects.yml entries whose old path is a live page again."""
    rmap, problems = load_redirects(redirects_text, "redirects.yml", pages)
    return [str(p) for p in problems if p.code == "redirect-shadows-page"]


@dataclass(frozen=True)
class SiteWide:
    """Files and directories (ending in '/') whose change affects every page."""

    files: frozenset[str] = frozenset({"mkdocs.yml", "pyproject.toml", "redirects.yml"})
    directories: tuple[str, ...] = ("hooks/",)

    def covers(self, path: str) -> bool:
        return path in self.files or path.startswith(self.directories)


def affected_pages(
    changed: Iterable[str],
    pages: Iterable[str],
    snippets_of: Mapping[str, set[str]],
    site_wide: SiteWide = SiteWide(),
    docs: str = DOCS,
    matrix_pages: Iterable[str] = (),
    matrix_changes: Iterable[str] = (),
) -> dict[str, list[str]]:
    """Pages (project paths) whose output changes, each with the changed files that cause it.

    ``snippets_of`` maps each page to every snippet name it expands, nested ones included.
    ``matrix_pages`` show the technique matrix; ``matrix_changes`` are the changed snippet files that change
    its rows (see ``matrix_changes``), so they affect those pages too.
    """
    pages = sorted(pages)
    theory = docs + THEORY_DIR + "/"
    on_matrix, shows_matrix = set(matrix_changes), set(matrix_pages)
    reasons: dict[str, list[str]] = {}
    for path in sorted(set(changed)):
        if site_wide.covers(path):
            hit = pages
        elif path.startswith(theory) and path.endswith(".md"):
            name = posixpath.basename(path)[:-3]
            hit = [p for p in pages if name in snippets_of.get(p, set()) or (path in on_matrix and p in shows_matrix)]
        elif is_page(path, docs):
            hit = [path] if path in pages else []
        else:
            hit = []
        for page in hit:
            reasons.setdefault(page, []).append(path)
    return reasons


def changed_files(root: Path, ref: str) -> list[str]:
    tracked = git(root, "diff", "--relative", "--name-only", ref).splitlines()
    untracked = git(root, "ls-files", "--others", "--exclude-standard").splitlines()
    return sorted({p for p in tracked + untracked if p})


MATRIX_KEYS = ("title", "summary", "helps")


def matrix_fields(source: str | None) -> tuple[object, ...] | None:
    """What of a snippet the technique matrix shows (its front matter's title, summary and helps); None when
    the snippet does not exist."""
    if source is None:
        return None
    data = split_front_matter(source.replace("\r\n", "\n")).data
    return tuple(repr(data.get(key)) for key in MATRIX_KEYS)


def matrix_changed(
    changed: Iterable[str], old: Callable[[str], str | None], new: Callable[[str], str | None]
) -> list[str]:
    """The snippet files among ``changed`` that were added or removed, or whose matrix fields differ between
    ``old`` and ``new`` (each gives a file's text, None when it is absent)."""
    return [path for path in sorted(set(changed)) if matrix_fields(old(path)) != matrix_fields(new(path))]


def matrix_changes(root: Path, ref: str, changed: Iterable[str], docs: str = DOCS) -> list[str]:
    """``matrix_changed`` for the snippet files among ``changed``, between ``ref`` and the work tree."""
    theory = docs + THEORY_DIR + "/"
    snippets = [p for p in changed if p.startswith(theory) and p.endswith(".md")]
    return matrix_changed(snippets, lambda p: show(root, ref, p), lambda p: _work_tree_text(root / p))


def _work_tree_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return None
