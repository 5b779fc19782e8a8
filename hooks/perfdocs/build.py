"""Per-build state behind the MkDocs hooks: each method is one event's work, logging included.

The hook module only forwards events here. State is reset in ``start`` (``on_config``) because
``mkdocs serve`` keeps the hook module loaded across rebuilds.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from .diagnostics import Diagnostic, Location
from .dialect import error_block
from .linkcheck import (
    MAP_FILE,
    LinkMap,
    base_path,
    check_site,
    link_targets,
    markdown_links,
    page_ids,
    to_diagnostics,
)
from .matrix import generated_components, scan_scenario_pages
from .pipeline import page_problems, page_scenario, render_body
from .redirects import (
    RedirectMap,
    load_redirects,
    missing_anchor_problems,
    netlify_redirects,
    redirect_pages,
    url_forms,
)
from .text import body_offset, split_front_matter
from .theory import THEORY_DIR, Inclusion, Snippet, SnippetLibrary

log = logging.getLogger("mkdocs.plugins.perfdocs")

REDIRECTS_FILE = "redirects.yml"
REQUIRED_EXTENSIONS = ("admonition", "attr_list", "md_in_html", "toc", "pymdownx.superfences", "pymdownx.tabbed")


@dataclass
class BuildState:
    root: Path = Path(".")
    docs_dir: Path = Path("docs")
    library: SnippetLibrary | None = None
    redirects: RedirectMap = field(default_factory=RedirectMap)
    page_urls: dict[str, str] = field(default_factory=dict)
    page_titles: dict[str, str] = field(default_factory=dict)
    page_ids: dict[str, set[str]] = field(default_factory=dict)
    inclusions: dict[str, list[Inclusion]] = field(default_factory=dict)
    snippet_users: dict[str, set[str]] = field(default_factory=dict)
    anchor_targets: set[str] = field(default_factory=set)
    scenario_pages: dict[str, tuple[str, list[Inclusion]]] = field(default_factory=dict)
    dest_of: dict[str, str] = field(default_factory=dict)
    link_map: LinkMap = field(default_factory=LinkMap)
    base: str = "/"
    docs_display: str = "docs"
    edit_base: str | None = None
    reported: set[str] = field(default_factory=set)
    errors: int = 0

    # -- helpers -----------------------------------------------------------------------
    def display(self, path: Path | str) -> str:
        try:
            return Path(os.path.abspath(path)).relative_to(os.path.abspath(self.root)).as_posix()
        except ValueError:
            return Path(path).as_posix()

    def report(self, diagnostics: list[Diagnostic]) -> None:
        for d in diagnostics:
            text = str(d)
            if text in self.reported:
                continue
            self.reported.add(text)
            if d.level == "error":
                self.errors += 1
                log.error(text)
            else:
                log.warning(text)

    # -- events ------------------------------------------------------------------------
    def start(self, config: Any) -> None:
        self.__init__()  # type: ignore[misc]
        self.root = Path(config.config_file_path).parent if config.config_file_path else Path.cwd()
        self.base = base_path(config.site_url)
        self.docs_display = self.display(self.docs_dir)
        if config.repo_url and config.edit_uri is not None:
            edit_uri = config.edit_uri if config.edit_uri.endswith("/") else config.edit_uri + "/"
            self.edit_base = urljoin(
                config.repo_url if config.repo_url.endswith("/") else config.repo_url + "/", edit_uri
            )
        self.docs_dir = Path(config.docs_dir)
        self.library = SnippetLibrary(self.docs_dir / THEORY_DIR, self.root)
        missing = [ext for ext in REQUIRED_EXTENSIONS if ext not in config.markdown_extensions]
        if not config.mdx_configs.get("pymdownx.tabbed", {}).get("alternate_style"):
            missing.append("pymdownx.tabbed with alternate_style: true")
        if missing:
            from mkdocs.exceptions import PluginError

            raise PluginError(
                f"{self.display(config.config_file_path)}: perfdocs needs these markdown_extensions: "
                + ", ".join(missing)
            )

    def files(self, files: Any) -> Any:
        for file in [f for f in files if f.src_uri.startswith(THEORY_DIR + "/")]:
            files.remove(file)
        for file in list(files.documentation_pages()):
            problem = self._unreadable(file)
            if problem:  # MkDocs would stop with a traceback; the build goes on without the page instead
                self.report([problem])
                files.remove(file)
        pages = {f.src_uri for f in files.documentation_pages()}
        if any("<TechniqueMatrix" in f.content_string for f in files.documentation_pages()):
            assert self.library is not None
            self.scenario_pages = scan_scenario_pages(
                [(f.src_uri, self.display(f.abs_src_path), f.content_string) for f in files.documentation_pages()],
                self.library,
            )
        self.page_urls = {f.src_uri: f.url for f in files.documentation_pages()}
        self.dest_of = {f.src_uri: f.dest_uri for f in files}
        path = self.root / REDIRECTS_FILE
        if path.is_file():
            self.redirects, problems = load_redirects(path.read_text(encoding="utf-8"), self.display(path), pages)
            taken = {f.dest_uri for f in files}
            for old in self.redirects.pages:
                clash = next((form for form in url_forms(old, old in self.redirects.live) if form in taken), None)
                if clash:
                    problems.append(
                        Diagnostic(
                            Location(self.display(path), self.redirects.lines.get(old, 1)),
                            f"redirect '{old}' would overwrite the site file {clash}",
                            "redirect-shadows-page",
                        )
                    )
            self.report(problems)
            targets = [*self.redirects.pages.values()] + [
                t for m in self.redirects.anchors.values() for t in m.values()
            ]
            self.anchor_targets = {t.page for t in targets if t.page and t.anchor}
        return files

    def _unreadable(self, file: Any) -> Diagnostic | None:
        try:
            source = file.content_string
        except UnicodeDecodeError as exc:
            return Diagnostic(
                Location(self.display(file.abs_src_path), 1),
                f"page is not UTF-8 text ({exc.reason} at byte {exc.start})",
                "bad-encoding",
                hint="save the file as UTF-8",
            )
        problems = page_problems(source, self.display(file.abs_src_path))
        return problems[0] if problems else None

    def nav(self, nav: Any, config: Any, files: Any) -> None:
        """With an explicit nav in mkdocs.yml, every page must be in it."""
        if not config.nav:
            return
        in_nav = {page.file.src_uri for page in nav.pages}
        self.report(
            [
                Diagnostic(
                    Location(self.display(f.abs_src_path), 1),
                    "page is not in the nav of mkdocs.yml",
                    "not-in-nav",
                    hint="add it to nav: so readers can find it",
                )
                for f in files.documentation_pages()
                if f.src_uri not in in_nav
            ]
        )

    def snippet_edit_url(self, snippet: Snippet) -> str | None:
        """Where "edit this explanation" leads: the snippet's source, not the page that shows it."""
        if not self.edit_base:
            return None
        return self.edit_base + Path(snippet.path).relative_to(self.docs_display).as_posix()

    def page_markdown(self, markdown: str, page: Any) -> str:
        assert self.library is not None
        source = page.file.content_string.replace("\r\n", "\n")
        display = self.display(page.file.abs_src_path)
        # MkDocs drops front matter it cannot parse without a word; parse again only then, to say why.
        front = split_front_matter(source) if source.startswith("---") and not page.meta else None
        scenario, problems = page_scenario(
            source, page.meta, front.error if front else None, front.error_line if front else 1, display
        )
        rendered = render_body(
            markdown,
            display,
            self.library,
            self.root,
            scenario,
            body_offset(source, markdown),
            source,
            generated_components(markdown, self.library, self.scenario_pages, page.file.src_uri),
            self.snippet_edit_url,
        )
        self.report(problems + rendered.diagnostics)
        errors = [d for d in problems + rendered.diagnostics if d.level == "error"]
        if errors:  # under mkdocs serve the author sees them on the page too; --strict fails the build anyway
            listing = "\n\n".join(f"- `{d.location}`: {d.message}" for d in errors)
            title = f"Build error: this page has {len(errors)} problem{'s' if len(errors) > 1 else ''}"
            return "\n".join(error_block(listing, title=title)) + "\n" + rendered.text
        self.inclusions[page.file.src_uri] = rendered.inclusions
        dest = page.file.dest_uri
        self.link_map.sources[dest] = display
        for target, link in link_targets(
            page.file.src_uri, dest, markdown_links(rendered.text, rendered.source_map), self.dest_of, self.base
        ):
            self.link_map.add(dest, target, link)
        for name in rendered.snippets_used:
            self.snippet_users.setdefault(name, set()).add(page.file.src_uri)
        return rendered.text

    def post_page(self, output: str, page: Any) -> None:
        if page.file.src_uri in self.anchor_targets:  # only redirect targets need their ids
            self.page_ids[page.file.src_uri] = page_ids(output)
        self.page_titles[page.file.src_uri] = page.meta.get("title") or page.title or page.file.src_uri

    def post_build(self, config: Any) -> None:
        site = Path(config.site_dir)
        path = self.display(self.root / REDIRECTS_FILE)
        self.report(missing_anchor_problems(self.redirects, self.page_ids, path))
        files = redirect_pages(self.redirects, self.page_urls.__getitem__, lambda p: self.page_titles.get(p, p))
        for rel, content in files.items():
            dest = site / rel
            if dest.exists() and not _is_redirect_page(dest):
                self.report(
                    [
                        Diagnostic(
                            Location(path, 1), f"refusing to overwrite {rel} in the built site", "redirect-shadows-page"
                        )
                    ]
                )
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(content, encoding="utf-8")
        (site / "_redirects").write_text(
            netlify_redirects(self.redirects, self.page_urls.__getitem__, self.base), encoding="utf-8"
        )
        log.debug("perfdocs: wrote %d redirect files", len(files))
        map_file = site / MAP_FILE
        map_file.parent.mkdir(parents=True, exist_ok=True)
        map_file.write_text(self.link_map.to_json(), encoding="utf-8")
        report = check_site(site, self.base)
        self.report(to_diagnostics(report, site, self.link_map, self.display(site), self.base))
        log.info("perfdocs: checked %d links to %d targets in %d pages", report.links, report.targets, report.pages)

    def watch_paths(self) -> list[str]:
        return [os.fspath(self.root / REDIRECTS_FILE)]


def _is_redirect_page(path: Path) -> bool:
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:400]
    except OSError:
        return False
    return "<title>Moved:" in head
