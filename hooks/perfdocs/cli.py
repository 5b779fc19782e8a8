"""The ``perfdocs`` command: render or lint pages without a build, and validate redirects.yml.

Exit codes: 0 clean, 1 unexpected internal error, 2 problems found in the docs, 3 bad usage.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .diagnostics import Diagnostic, Location, has_errors
from .pipeline import render_source, sort_key
from .redirects import load_redirects
from .theory import SnippetLibrary

EXIT_OK, EXIT_INTERNAL, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2, 3
THEORY_SUBDIR = Path("performance/_theory")


class UsageError(Exception):
    pass


def _project(root: str) -> tuple[Path, Path]:
    base = Path(root).resolve()
    docs = base / "docs"
    if not (base / "mkdocs.yml").is_file() or not docs.is_dir():
        raise UsageError(f"{root}: not a perfdocs project (needs mkdocs.yml and docs/)")
    return base, docs


def _display(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _read(path: Path, shown: str) -> tuple[str | None, list[Diagnostic]]:
    try:
        return path.read_text(encoding="utf-8"), []
    except UnicodeDecodeError as exc:
        return None, [Diagnostic(Location(shown, 1), f"not UTF-8 text ({exc.reason} at byte {exc.start})",
                                 "bad-encoding")]


def _pages(docs: Path, paths: Sequence[str]) -> list[Path]:
    if not paths:
        return sorted(p for p in docs.rglob("*.md") if THEORY_SUBDIR not in p.relative_to(docs).parents)
    found = []
    for raw in paths:
        path = Path(raw)
        if not path.is_file():
            raise UsageError(f"{raw}: no such file")
        found.append(path)
    return found


def cmd_render(args: argparse.Namespace) -> int:
    root, docs = _project(args.root)
    library = SnippetLibrary(docs / THEORY_SUBDIR, root)
    path = _pages(docs, [args.page])[0]
    shown = _display(path, root)
    source, problems = _read(path, shown)
    if source is not None:
        rendered = render_source(source, shown, library, root)
        sys.stdout.write(rendered.text + "\n")
        problems += rendered.diagnostics
    for d in problems:
        print(d, file=sys.stderr)
    return EXIT_PROBLEMS if has_errors(problems) else EXIT_OK


def cmd_lint(args: argparse.Namespace) -> int:
    root, docs = _project(args.root)
    library = SnippetLibrary(docs / THEORY_SUBDIR, root)
    problems: list[Diagnostic] = []
    pages = _pages(docs, args.paths)
    for path in pages:
        shown = _display(path, root)
        source, read_problems = _read(path, shown)
        problems += read_problems
        if source is not None:
            problems += render_source(source, shown, library, root).diagnostics
    unique = sorted(set(problems), key=sort_key)
    for d in unique:
        print(d)
    errors = sum(d.level == "error" for d in unique)
    print(f"perfdocs lint: {len(pages)} pages, {errors} errors, {len(unique) - errors} warnings", file=sys.stderr)
    return EXIT_PROBLEMS if errors else EXIT_OK


def cmd_redirects(args: argparse.Namespace) -> int:
    root, docs = _project(args.root)
    path = root / "redirects.yml"
    if not path.is_file():
        raise UsageError(f"{_display(path, root)}: not found")
    pages = {p.relative_to(docs).as_posix() for p in docs.rglob("*.md")
             if THEORY_SUBDIR not in p.relative_to(docs).parents}
    rmap, problems = load_redirects(path.read_text(encoding="utf-8"), _display(path, root), pages)
    for d in problems:
        print(d, file=sys.stderr)
    for old, target in sorted(rmap.pages.items()):
        print(f"/{old} -> {target.describe()}")
        for frag, anchored in sorted(rmap.anchors.get(old, {}).items()):
            print(f"/{old}#{frag} -> {anchored.describe()}")
    return EXIT_PROBLEMS if has_errors(problems) else EXIT_OK


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="perfdocs", description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=".", help="project directory holding mkdocs.yml (default: .)")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("render", help="print a page as Material Markdown after theory expansion and conversion")
    p.add_argument("page", help="path of a .md page")
    p.set_defaults(func=cmd_render)
    p = sub.add_parser("lint", help="convert every page (or the given ones) and report every diagnostic")
    p.add_argument("paths", nargs="*", help="pages to check (default: all pages under docs/)")
    p.set_defaults(func=cmd_lint)
    p = sub.add_parser("redirects", help="validate redirects.yml and print the resolved one-hop map")
    p.set_defaults(func=cmd_redirects)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    ap = parser()
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:
        return EXIT_USAGE if exc.code else EXIT_OK
    try:
        return int(args.func(args))
    except UsageError as exc:
        print(f"perfdocs: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # noqa: BLE001 - the CLI's last line of defence
        print(f"perfdocs: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
