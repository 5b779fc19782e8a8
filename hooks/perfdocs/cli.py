"""The ``perfdocs`` command: render or lint pages without a build, and validate redirects.yml.

Exit codes: 0 clean, 1 unexpected internal error, 2 problems found in the docs, 3 bad usage.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import sys
import time
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import yaml

from . import history
from .apirefs import ApiIndex, build_index
from .budgets import calculator_pages
from .diagnostics import Diagnostic, Location, did_you_mean, has_errors, sort_key
from .dialect import Site
from .expansions import PageExpansions, page_text
from .external import ExternalConfig
from .linkcheck import MAP_FILE, LinkMap, base_path, check_site, collect, external_diagnostics, file_for, to_diagnostics
from .matrix import generated_components
from .mkdocs_adapter import load_api_config, load_project, page_dest, page_url
from .pipeline import Rendered, render_source, unshown_parts
from .project import MissingConfig, Project, ProjectError
from .redirects import load_redirects
from .sitecheck import heading_ids, link_problems, nav_entries, nav_missing_pages, not_in_nav
from .theory import THEORY_DIR, Expansion, SnippetLibrary

EXIT_OK, EXIT_INTERNAL, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2, 3


class UsageError(Exception):
    pass


def _project(args: argparse.Namespace) -> Project:
    try:
        return load_project(_config_arg(args))
    except ProjectError as exc:
        raise UsageError(str(exc)) from exc


def _config_arg(args: argparse.Namespace) -> str | None:
    """-f/--config-file, or --root DIR (DIR/mkdocs.yml), or None for mkdocs.yml in the working directory."""
    if args.config_file:
        return str(args.config_file)
    return str(args.root) if args.root else None


def _read(path: Path, shown: str) -> tuple[str | None, list[Diagnostic]]:
    try:
        return path.read_text(encoding="utf-8"), []
    except UnicodeDecodeError as exc:
        return None, [
            Diagnostic(Location(shown, 1), f"not UTF-8 text ({exc.reason} at byte {exc.start})", "bad-encoding")
        ]


def _pages(project: Project, paths: Sequence[str]) -> list[Path]:
    if not paths:
        return project.pages()
    found = []
    for raw in paths:
        path = Path(raw)
        if not path.is_file():
            raise UsageError(f"{raw}: no such file")
        found.append(path)
    return found


class _Site:
    """Every page of the docs, read once, with what generated components need."""

    def __init__(self, project: Project):
        self.project = project
        self.library = SnippetLibrary(project.theory_dir, project.root)
        self.sources: dict[Path, tuple[str | None, list[Diagnostic]]] = {}
        self.rendered: dict[Path, tuple[Rendered | None, list[Diagnostic]]] = {}
        self.theory = PageExpansions(self.library)  # each page expanded once, the technique matrix's index
        self._scanned = False
        self._api: tuple[ApiIndex | None] | None = None
        docs = project.docs_dir
        self.files = frozenset(
            p.relative_to(docs).as_posix()
            for p in docs.rglob("*")
            if p.is_file() and not p.is_relative_to(project.theory_dir)
        )

    def read(self, path: Path) -> tuple[str | None, list[Diagnostic]]:
        if path not in self.sources:
            self.sources[path] = _read(path, self.project.display(path))
        return self.sources[path]

    def render(self, path: Path) -> tuple[Rendered | None, list[Diagnostic]]:
        if path not in self.rendered:
            self.rendered[path] = self._render(path)
        return self.rendered[path]

    def _render(self, path: Path) -> tuple[Rendered | None, list[Diagnostic]]:
        source, problems = self.read(path)
        if source is None:
            return None, problems
        shown = self.project.display(path)
        page = self.project.docs_path(path)
        if "<TechniqueMatrix" in source and not self._scanned:  # needs every page's includes
            project = self.project
            sources = [(p, s) for p in project.pages() if (s := self.read(p)[0]) is not None]
            self.theory.scan([page_text(project.docs_path(p), project.display(p), s) for p, s in sources])
            self._scanned = True
        api = self.api() if "[`" in source or "[[autodoc]]" in source else None
        text = source.replace("\r\n", "\n")

        def expand(body: str, scenario: str | None) -> Expansion:
            return self.theory.expand(page, shown, text, body, scenario)

        def generated(expansion: Expansion | None) -> dict[str, list[str]]:  # the badge counts the same expansion
            return generated_components(source, self.library, self.theory.matrix, page, expansion)

        site = self.site(page, api)
        rendered = render_source(source, shown, self.library, self.project.root, generated, site, expand)
        return rendered, problems + (api.problems if api else []) + rendered.diagnostics

    def across_pages(self, rendered: dict[str, Rendered], whole: bool) -> list[Diagnostic]:
        """What the build checks across pages (sitecheck.py): the links of the ``rendered`` pages (the pages they
        link to are rendered too, for their ids) and, for the ``whole`` site, the nav and redirects.yml."""
        project = self.project
        everything = {project.docs_path(p): p for p in project.pages()}
        ids: dict[str, set[str] | None] = {}
        for page, path in everything.items():
            source = self.read(path)[0] or ""
            if "[[autodoc]]" in source:
                ids[page] = None  # mkdocstrings gives an API entry its id
                continue
            done = rendered.get(page) or self.render(path)[0]
            ids[page] = heading_ids(done.text, (anchor for anchor, _ in done.ids)) if done is not None else set()
        dest_of = {page: page_dest(project, page) for page in everything}
        files = self.files | frozenset(everything)
        renames = history.GitRenames(project.root, "HEAD", _docs_prefix(project))  # as a build: asked when needed
        problems = [d for src, r in rendered.items() for d in link_problems(src, r.links, ids, files, dest_of, renames)]
        if not whole:
            return problems
        problems += self.unshown_parts(rendered)
        if project.nav:
            config, shown = project.config_file.read_text(encoding="utf-8"), project.display(project.config_file)
            listed = ((page, project.display(path)) for page, path in everything.items())
            problems += not_in_nav(listed, {node.value.lstrip("/") for node in nav_entries(config)})
            problems += nav_missing_pages(config, shown, everything, renames)
        if project.redirects_file.is_file():
            shown, text = project.display(project.redirects_file), project.redirects_file.read_bytes()
            problems += load_redirects(text, shown, set(everything), project.redirect_hosts, renames)[1]
        return problems

    def unshown_parts(self, rendered: dict[str, Rendered]) -> list[Diagnostic]:
        """The snippet parts no page shows, checked as the build checks them (pipeline.unshown_parts); what a
        page's render found already is left out."""
        shown: dict[str, set[str | None]] = {}
        for result in rendered.values():
            for name in result.snippets_used:
                shown.setdefault(name, set()).add(result.scenario)
        bodies = [snippet.body for name in self.library.names() if (snippet := self.library.get(name)[0])]
        api = self.api() if any("[`" in body for body in bodies) else None
        found = {(str(d.location), d.code, d.message) for r in rendered.values() for d in r.diagnostics}
        parts = unshown_parts(self.library, self.project.root, self.site(f"{THEORY_DIR}/.check.md", api), shown)
        return [d for d in parts if (str(d.location), d.code, d.message) not in found]

    def site(self, page: str, api: ApiIndex | None) -> Site:
        """What the conversion of the page ``page`` (docs path) may know about the rest of the site."""
        project = self.project
        return Site(
            page,
            self.files,
            api,
            notebooks=project.notebooks,
            embeds=project.embed_hosts,
            gated=project.gated_models,
            calculator=self.calculator,
        )

    @functools.cached_property
    def calculator(self) -> str | None:
        """The page budget tables link to, as the build finds it (budgets.calculator_pages)."""
        pages = calculator_pages({self.project.docs_path(p): self.read(p)[0] or "" for p in self.project.pages()})
        return pages[0] if pages else None

    def api(self) -> ApiIndex | None:
        """The API index, as a build makes it (every page's [[autodoc]] entries), made once when a page needs it."""
        if self._api is None:
            project = self.project
            pages = [(project.docs_path(p), project.display(p), self.read(p)[0] or "") for p in project.pages()]
            settings = load_api_config(project.config_file, project.display(project.config_file))
            self._api = (build_index(settings, pages) if settings is not None else None,)
        return self._api[0]


def cmd_render(args: argparse.Namespace) -> int:
    site = _Site(_project(args))
    path = _pages(site.project, [args.page])[0]
    rendered, problems = site.render(path)
    if rendered is not None:
        sys.stdout.write(rendered.text + "\n")
    for d in problems:
        print(d, file=sys.stderr)
    return EXIT_PROBLEMS if has_errors(problems) else EXIT_OK


def cmd_lint(args: argparse.Namespace) -> int:
    site = _Site(_project(args))
    project = site.project
    problems: list[Diagnostic] = [*project.embed_hosts.problems, *project.gated_models.problems]
    pages = _pages(project, args.paths)
    rendered: dict[str, Rendered] = {}
    for path in pages:
        result, found = site.render(path)
        problems += found
        if result is not None:
            rendered[project.docs_path(path)] = result
    problems += site.across_pages(rendered, whole=not args.paths)
    unique = sorted(set(problems), key=sort_key)
    for d in unique:
        print(d)
    errors = sum(d.level == "error" for d in unique)
    print(f"perfdocs lint: {len(pages)} pages, {errors} errors, {len(unique) - errors} warnings", file=sys.stderr)
    return EXIT_PROBLEMS if errors else EXIT_OK


def cmd_redirects(args: argparse.Namespace) -> int:
    project = _project(args)
    path = project.redirects_file
    if not path.is_file():
        raise UsageError(f"{project.display(path)}: not found")
    pages = {project.docs_path(p) for p in project.pages()}
    rmap, problems = load_redirects(path.read_bytes(), project.display(path), pages, project.redirect_hosts)
    for d in problems:
        print(d, file=sys.stderr)
    for old, target in sorted(rmap.pages.items()):
        print(f"/{old} -> {target.describe()}")
        for frag, anchored in sorted(rmap.anchors.get(old, {}).items()):
            print(f"/{old}#{frag} -> {anchored.describe()}")
    return EXIT_PROBLEMS if has_errors(problems) else EXIT_OK


def _link_config(pyproject: Path) -> dict:
    if not pyproject.is_file():
        return {}
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{pyproject}: {exc}") from exc
    section = data.get("tool", {}).get("perfdocs", {}).get("check-links", {})
    if not isinstance(section, dict):
        raise UsageError(f"{pyproject}: [tool.perfdocs.check-links] must be a table")
    return section


def cmd_check_links(args: argparse.Namespace) -> int:
    site = Path(args.site)
    if not (site / "index.html").is_file() and not any(site.glob("**/*.html")):
        raise UsageError(f"{args.site}: not a built site (no HTML files); run mkdocs build first")
    project = _optional_project(args) if args.site_url is not None else _project(args)
    base = base_path(args.site_url) if args.site_url is not None or project is None else project.base
    root = project.root if project else Path.cwd()
    started = time.perf_counter()
    report = check_site(site, base, args.jobs)
    link_map = None
    map_file = site / MAP_FILE
    if map_file.is_file():
        try:
            link_map = LinkMap.from_json(map_file.read_text(encoding="utf-8"))
        except (ValueError, KeyError, TypeError) as exc:
            print(f"perfdocs: warning: ignoring {map_file}: {exc}", file=sys.stderr)
    renames = history.page_renames(project.root, "HEAD", _docs_prefix(project)) if project and report.problems else {}
    problems = to_diagnostics(report, site, link_map, args.site.rstrip("/") or ".", base, renames)
    external_checked = 0
    if args.external:
        from .external import check_external

        pyproject = root / "pyproject.toml"
        config = _external_config(_link_config(pyproject), project.display(pyproject) if project else str(pyproject))
        cache = root / ".cache" / "perfdocs" / "external.json"
        try:
            results = check_external(
                sorted(report.external), config, cache, progress=_progress if sys.stderr.isatty() else None
            )
        except (ValueError, OSError) as exc:
            raise UsageError(f"check-links --external: {exc}") from exc
        external_checked = len(results)
        problems += external_diagnostics(report, results, site, link_map, args.site.rstrip("/") or ".")
    elapsed = time.perf_counter() - started
    _emit(problems, args.format)
    print(
        f"perfdocs check-links: {report.pages} pages, {report.links} links to {report.targets} targets"
        + (f", {external_checked} external URLs" if args.external else "")
        + f", {len(problems)} problems, {elapsed:.2f} s",
        file=sys.stderr,
    )
    return EXIT_PROBLEMS if problems else EXIT_OK


def _optional_project(args: argparse.Namespace) -> Project | None:
    """The project when a configuration was given or is in the working directory; None when there is none."""
    given = _config_arg(args)
    try:
        return load_project(given)
    except MissingConfig as exc:
        if given is not None:
            raise UsageError(str(exc)) from exc
        return None
    except ProjectError as exc:
        raise UsageError(str(exc)) from exc


def _external_config(section: dict[str, Any], shown: str) -> ExternalConfig:
    """[tool.perfdocs.check-links] of pyproject.toml as an ExternalConfig; every mistake is a usage error."""
    fields = {f.name: f for f in dataclasses.fields(ExternalConfig)}
    values: dict[str, Any] = {}
    where = f"{shown} [tool.perfdocs.check-links]"
    for key, value in section.items():
        name = key.replace("-", "_")
        if name not in fields:
            raise UsageError(
                f"{where}: unknown option '{key}'" + (f" ({hint})" if (hint := did_you_mean(name, fields)) else "")
            )
        default = fields[name].default
        if isinstance(default, tuple):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise UsageError(f"{where}: '{key}' must be a list of strings")
            value = tuple(value)
        elif isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if type(value) is not type(default) or (isinstance(value, (int, float)) and value < 0):
            raise UsageError(f"{where}: '{key}' must be a non-negative {type(default).__name__}")
        values[name] = value
    return ExternalConfig(**values)


def _progress(done: int, total: int) -> None:
    print(f"\rexternal links: {done}/{total}", end="" if done < total else "\n", file=sys.stderr)


def _emit(problems: list[Diagnostic], fmt: str) -> None:
    if fmt == "json":
        rows = [
            {
                "path": d.location.path,
                "line": d.location.line,
                "col": d.location.col,
                "level": d.level,
                "code": d.code,
                "message": d.message,
                "hint": d.hint,
                "included_from": [{"path": p, "line": n} for p, n in d.location.included_from],
            }
            for d in problems
        ]
        print(json.dumps({"problems": rows}, indent=2))
    elif fmt == "github":
        for d in problems:
            text = d.message + (f" ({d.hint})" if d.hint else "")
            text += "".join(f" [included from {p}:{n}]" for p, n in d.location.included_from)
            text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            print(
                f"::{d.level} file={d.location.path},line={d.location.line},col={d.location.col},title={d.code}::{text}"
            )
    else:
        for d in problems:
            print(d)


def cmd_check_redirects(args: argparse.Namespace) -> int:
    site = Path(args.site)
    if not site.is_dir():
        raise UsageError(f"{args.site}: no built site; run mkdocs build first")
    project = _project(args)
    root, docs = project.root, _docs_prefix(project)
    try:
        old_pages = [p for p in history.files_at(root, args.base, docs) if history.is_page(p, docs)]
        old_redirects = history.show(root, args.base, project.display(project.redirects_file))
        renames = history.renames_since(root, args.base, docs)
    except history.GitError as exc:
        raise UsageError(str(exc)) from exc
    old_keys: list[str] = []
    if old_redirects:
        try:
            data = yaml.safe_load(old_redirects) or {}
            old_keys = [str(k) for k in (data.get("redirects") or {})] if isinstance(data, dict) else []
        except yaml.YAMLError:
            print(
                f"perfdocs: warning: redirects.yml at {args.base} is not valid YAML; its entries are not checked",
                file=sys.stderr,
            )
    files, dirs, _ = collect(site)

    def resolves(url: str) -> bool:
        return file_for(url, files, dirs) is not None or f"{url.rstrip('/')}.html" in files

    current_pages = sorted(project.docs_path(p) for p in project.pages())
    missing = history.missing_urls(old_pages, old_keys, resolves, current_pages, renames, docs)
    redirects_file = project.redirects_file
    relive = (
        history.relive_problems(redirects_file.read_text(encoding="utf-8"), set(current_pages))
        if redirects_file.is_file()
        else []
    )
    text = redirects_file.read_text(encoding="utf-8") if redirects_file.is_file() else ""
    add_at = next((i + 1 for i, line in enumerate(text.split("\n")) if line.startswith("redirects:")), 1)
    for m in missing:  # located where the new entries go
        print(
            Diagnostic(
                Location(project.display(redirects_file), add_at),
                f"/{m.url} existed at {args.base} ({m.origin}) and no longer resolves",
                "missing-redirect",
                hint="add the line below under 'redirects:'",
            )
        )
    for line in relive:
        print(line)
    if missing:
        print("\nAdd these lines under 'redirects:' in redirects.yml:")
        print("\n".join(history.redirect_lines(missing)))
    print(
        f"perfdocs check-redirects: {len(old_pages)} pages and {len(old_keys)} redirects at {args.base}, "
        f"{len(missing)} missing, {len(relive)} shadowing",
        file=sys.stderr,
    )
    return EXIT_PROBLEMS if missing or relive else EXIT_OK


def cmd_affected(args: argparse.Namespace) -> int:
    project = _project(args)
    preview = _preview_base(args.preview_url, args.format) if args.preview_url is not None else None
    try:
        changed = history.changed_files(project.root, args.base)
    except history.GitError as exc:
        raise UsageError(str(exc)) from exc
    site = _Site(project)
    snippets_of = {}
    for path in project.pages():
        rendered, _ = site.render(path)
        snippets_of[project.display(path)] = rendered.snippets_used if rendered else set()
    matrix_pages = [project.display(p) for p in project.pages() if "<TechniqueMatrix" in p.read_text(encoding="utf-8")]
    affected = history.affected_pages(
        changed,
        snippets_of,
        snippets_of,
        project.site_wide(),
        _docs_prefix(project),
        matrix_pages=matrix_pages,
        matrix_changes=history.matrix_changes(project.root, args.base, changed, _docs_prefix(project)),
    )
    urls = {page: _preview_link(project, page, preview) for page in affected} if preview else {}
    if args.format == "json":
        data: dict[str, Any] = {"base": args.base, "changed": changed, "affected": affected}
        if preview:
            data["preview"] = preview
            data["preview_urls"] = urls
        print(json.dumps(data, indent=2))
    elif args.format == "markdown":
        print(f"### Pages changed by this diff (against `{args.base}`)\n")
        if preview:
            print(f"Preview of the whole site: {preview}\n")
        if not affected:
            print("No page's output changes.")
        for page, causes in sorted(affected.items()):
            shown = ", ".join(f"`{c}`" for c in causes[:3]) + (
                f" and {len(causes) - 3} more" if len(causes) > 3 else ""
            )
            print(f"- [`{page}`]({urls[page]}) (via {shown})" if preview else f"- `{page}` (via {shown})")
    else:
        for page in sorted(affected):
            print(page)
    return EXIT_OK


def _preview_base(url: str, fmt: str) -> str:
    """--preview-url checked: an absolute http(s) URL of the site's root, ending in '/'."""
    if fmt == "text":
        raise UsageError("--preview-url needs --format markdown or json")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise UsageError(f"--preview-url must be an absolute http(s) URL without query or fragment, got '{url}'")
    return url if url.endswith("/") else url + "/"


def _preview_link(project: Project, page: str, preview: str) -> str:
    """Where ``page`` (a project path under docs_dir) is served in the preview, as MkDocs names its URL."""
    return urljoin(preview, page_url(project, project.docs_path(project.root / page)))


def _docs_prefix(project: Project) -> str:
    return project.display(project.docs_dir).rstrip("/") + "/"


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="perfdocs", description=__doc__.splitlines()[0])
    ap.add_argument(
        "-f", "--config-file", metavar="FILE", help="the MkDocs configuration file (default: mkdocs.yml here)"
    )
    ap.add_argument("--root", metavar="DIR", help="the project directory: same as -f DIR/mkdocs.yml")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("render", help="print a page as Material Markdown after theory expansion and conversion")
    p.add_argument("page", help="path of a .md page")
    p.set_defaults(func=cmd_render)
    p = sub.add_parser("lint", help="convert every page (or the given ones) and report every diagnostic")
    p.add_argument("paths", nargs="*", help="pages to check (default: all pages under docs/)")
    p.set_defaults(func=cmd_lint)
    p = sub.add_parser("redirects", help="validate redirects.yml and print the resolved one-hop map")
    p.set_defaults(func=cmd_redirects)
    p = sub.add_parser("check-links", help="check every internal link and fragment of a built site")
    p.add_argument("site", help="the built site directory (mkdocs build -d SITE)")
    p.add_argument("--format", choices=("text", "json", "github"), default="text")
    p.add_argument("--external", action="store_true", help="also check http(s) links (cached, rate-limited)")
    p.add_argument("--site-url", help="the site's URL (default: site_url of the configuration)")
    p.add_argument("--jobs", type=int, default=None, help="worker processes (default: up to 2)")
    p.set_defaults(func=cmd_check_links)
    p = sub.add_parser("check-redirects", help="every page URL at git ref BASE must still resolve in the build")
    p.add_argument("--base", required=True, help="git ref to compare with, e.g. origin/main")
    p.add_argument("--site", default="site", help="the built site directory (default: site)")
    p.set_defaults(func=cmd_check_redirects)
    p = sub.add_parser("affected", help="list the pages whose output the diff against BASE changes")
    p.add_argument("--base", required=True, help="git ref to compare with, e.g. origin/main")
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    p.add_argument(
        "--preview-url",
        metavar="URL",
        help="root URL of a preview of this build: each page links into it (markdown), or gets its URL (json)",
    )
    p.set_defaults(func=cmd_affected)
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
