"""The project as MkDocs configures it, read once: paths, URLs, theme overrides and display paths.

mkdocs_adapter.py makes it: ``load_project`` reads ``mkdocs.yml`` with MkDocs' own loader (the CLI),
``project_from_config`` takes the config MkDocs hands to ``on_config`` (the hooks). Everything
that names a file in a diagnostic goes through ``Project.display``, so a build started from any
working directory with ``-f``, and a project whose ``docs_dir`` is not ``docs``, print the same
paths: relative to the directory that holds ``mkdocs.yml``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from .diagnostics import display_path
from .embeds import EmbedHosts
from .gated import GatedModels
from .history import SiteWide
from .linkcheck import base_path
from .redirects import RedirectHosts
from .theory import THEORY_DIR, Snippet

CONFIG_NAMES = ("mkdocs.yml", "mkdocs.yaml")
REDIRECTS_FILE = "redirects.yml"
PYPROJECT = "pyproject.toml"


class ProjectError(Exception):
    """The configuration is missing or invalid; the message says which file and why."""


class MissingConfig(ProjectError):
    """No configuration file where one was looked for."""


@dataclass(frozen=True)
class Project:
    root: Path  # the directory of mkdocs.yml, absolute
    config_file: Path
    docs_dir: Path
    site_dir: Path
    site_url: str | None
    custom_dir: Path | None
    extra_css: tuple[str, ...]  # docs-relative, as in mkdocs.yml
    extra_javascript: tuple[str, ...]
    hooks: tuple[Path, ...]
    watch: tuple[Path, ...]
    nav: Any
    repo_url: str | None
    edit_uri: str | None
    site_name: str = ""
    site_description: str | None = None
    use_directory_urls: bool = True  # page URLs as MkDocs writes them: dir/ or dir.html
    notebooks: str | None = None  # extra.perfdocs.notebooks: the notebook URL pattern of [[open-in-colab]]
    redirect_hosts: RedirectHosts = RedirectHosts()  # extra.perfdocs.redirect_hosts, checked: where redirects may go
    embed_hosts: EmbedHosts = EmbedHosts()  # extra.perfdocs.embed_hosts, checked: where an <iframe> may load from
    gated_models: GatedModels = GatedModels()  # extra.perfdocs.gated_models, checked: the note under their recipes
    templates: tuple[str, ...] = ()  # site files MkDocs renders from the theme (404.html, sitemap.xml[.gz]...)

    # -- paths -------------------------------------------------------------------------
    def display(self, path: Path | str) -> str:
        """``path`` relative to the project root, with forward slashes; absolute when outside the root."""
        return display_path(path, self.root)

    def site_label(self, site: Path) -> str:
        """How diagnostics name the built site: its path under the project, else (a temporary directory, as
        under ``mkdocs serve``, or any other place) the URL path it is served under."""
        if site.resolve().is_relative_to(self.root.resolve()):
            return self.display(site)
        return self.base.rstrip("/")

    @property
    def theory_dir(self) -> Path:
        return self.docs_dir / THEORY_DIR

    @property
    def redirects_file(self) -> Path:
        return self.root / REDIRECTS_FILE

    @property
    def pyproject(self) -> Path:
        return self.root / PYPROJECT

    @property
    def base(self) -> str:
        """The path the site is served under: '/' for https://example.org/, '/docs/' for .../docs/."""
        return base_path(self.site_url)

    @property
    def edit_base(self) -> str | None:
        """repo_url joined with edit_uri: the "edit this page" URL of docs_dir, ending in '/'."""
        if not self.repo_url or self.edit_uri is None:
            return None
        edit_uri = self.edit_uri if self.edit_uri.endswith("/") else self.edit_uri + "/"
        return urljoin(self.repo_url if self.repo_url.endswith("/") else self.repo_url + "/", edit_uri)

    def edit_url(self, snippet: Snippet) -> str | None:
        """Where "edit this explanation" leads: the snippet's source, not the page that shows it."""
        edit_base = self.edit_base
        return edit_base + self.docs_path(self.root / snippet.path) if edit_base else None

    def pages(self) -> list[Path]:
        """Every Markdown page under docs_dir, theory snippets excluded, sorted."""
        theory = self.theory_dir
        return sorted(p for p in self.docs_dir.rglob("*.md") if not p.is_relative_to(theory))

    def docs_path(self, path: Path) -> str:
        """``path`` relative to docs_dir (MkDocs' src_uri); the file name when it is outside."""
        absolute = Path(os.path.abspath(path))
        if absolute.is_relative_to(self.docs_dir):
            return absolute.relative_to(self.docs_dir).as_posix()
        return absolute.name

    def site_wide(self) -> SiteWide:
        """What affects every page when it changes, as display paths.

        mkdocs.yml, pyproject.toml, redirects.yml, the hook files with the package beside them and
        what ``watch:`` names, the theme's custom_dir, and the extra CSS and JavaScript under docs_dir.
        """
        files = {self.display(self.config_file), self.display(self.pyproject), self.display(self.redirects_file)}
        files |= {self.display(self.docs_dir / p) for p in (*self.extra_css, *self.extra_javascript) if _local(p)}
        directories = set()
        for path in (*self.hooks, *self.watch, *([self.custom_dir] if self.custom_dir else [])):
            if path.is_dir():
                directories.add(self.display(path).rstrip("/") + "/")
            else:
                files.add(self.display(path))
                if path.suffix == ".py":  # the package a hook file imports lives beside it
                    directories.add(self.display(path.parent).rstrip("/") + "/")
        directories.discard("./")
        return SiteWide(frozenset(files), tuple(sorted(directories)))


def _local(path: str) -> bool:
    return "://" not in path and not path.startswith("//")
