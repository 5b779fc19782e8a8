"""The project as MkDocs configures it, read once: paths, URLs, theme overrides and display paths.

``Project.load`` reads ``mkdocs.yml`` with MkDocs' own ``load_config`` (the CLI);
``Project.from_config`` takes the config MkDocs hands to ``on_config`` (the hooks). Everything
that names a file in a diagnostic goes through ``Project.display``, so a build started from any
working directory with ``-f``, and a project whose ``docs_dir`` is not ``docs``, print the same
paths: relative to the directory that holds ``mkdocs.yml``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from .diagnostics import display_path
from .embeds import EmbedHosts, embed_hosts
from .gated import GatedModels, gated_models
from .history import SiteWide
from .linkcheck import base_path
from .redirects import RedirectHosts, redirect_hosts
from .text import markdown_slug, use_slugify
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
    use_directory_urls: bool = True  # page URLs as MkDocs writes them: dir/ or dir.html
    notebooks: str | None = None  # extra.perfdocs.notebooks: the notebook URL pattern of [[open-in-colab]]
    redirect_hosts: RedirectHosts = RedirectHosts()  # extra.perfdocs.redirect_hosts, checked: where redirects may go
    embed_hosts: EmbedHosts = EmbedHosts()  # extra.perfdocs.embed_hosts, checked: where an <iframe> may load from
    gated_models: GatedModels = GatedModels()  # extra.perfdocs.gated_models, checked: the note under their recipes
    templates: tuple[str, ...] = ()  # site files MkDocs renders from the theme (404.html, sitemap.xml[.gz]...)

    # -- loading -----------------------------------------------------------------------
    @classmethod
    def from_config(cls, config: Any) -> Project:
        """From a validated MkDocs config (what ``on_config`` receives)."""
        config_file = Path(os.path.abspath(config.config_file_path or CONFIG_NAMES[0]))
        root = config_file.parent
        theme_dir = getattr(config.theme, "custom_dir", None) if config.theme is not None else None
        toc = (config.get("mdx_configs") or {}).get("toc") or {}
        use_slugify(toc.get("slugify") or markdown_slug)  # automatic heading ids, as the site's toc writes them
        return cls(
            root=root,
            config_file=config_file,
            docs_dir=_under(root, config.docs_dir),
            site_dir=_under(root, config.site_dir),
            site_url=config.site_url or None,
            custom_dir=_under(root, theme_dir) if theme_dir else None,
            extra_css=tuple(str(p) for p in config.extra_css or ()),
            extra_javascript=tuple(_script_path(p) for p in config.extra_javascript or ()),
            hooks=tuple(_under(root, p) for p in (config.get("hooks") or ())),  # keys: paths as in mkdocs.yml
            watch=tuple(_under(root, p) for p in (config.get("watch") or ())),
            nav=config.nav,
            repo_url=config.repo_url or None,
            edit_uri=config.edit_uri,
            use_directory_urls=bool(config.use_directory_urls),
            notebooks=_notebooks(config.get("extra")),
            redirect_hosts=redirect_hosts(_perfdocs_setting(config.get("extra"), "redirect_hosts"), config_file,
                                          display_path(config_file, root)),
            templates=_templates(config),
            embed_hosts=embed_hosts(
                _perfdocs_setting(config.get("extra"), "embed_hosts"), config_file, display_path(config_file, root)
            ),
            gated_models=gated_models(
                _perfdocs_setting(config.get("extra"), "gated_models"), config_file, display_path(config_file, root)
            ),
        )

    @classmethod
    def load(cls, config_file: str | Path | None = None) -> Project:
        """Read ``config_file`` (default: mkdocs.yml in the working directory) the way ``mkdocs build -f`` does."""
        path = _config_path(config_file)
        from mkdocs.config import load_config
        from mkdocs.exceptions import MkDocsException

        with _captured("mkdocs") as messages:
            try:
                config = load_config(str(path))
            except MkDocsException as exc:
                errors = [m for m in messages if m.startswith("Config value")] or [str(exc)]
                raise ProjectError(f"{path}: invalid configuration: " + " ".join("; ".join(errors).split())) from exc
            except (OSError, ValueError) as exc:  # unreadable file, YAML the loader rejects
                raise ProjectError(f"{path}: cannot read the configuration: {exc}") from exc
        return cls.from_config(config)

    # -- paths -------------------------------------------------------------------------
    def display(self, path: Path | str) -> str:
        """``path`` relative to the project root, with forward slashes; absolute when outside the root."""
        return display_path(path, self.root)

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


def _config_path(config_file: str | Path | None) -> Path:
    if config_file is not None:
        path = Path(config_file)
        if path.is_dir():
            path = next((path / n for n in CONFIG_NAMES if (path / n).is_file()), path / CONFIG_NAMES[0])
    else:
        path = next((Path(n) for n in CONFIG_NAMES if Path(n).is_file()), Path(CONFIG_NAMES[0]))
    if not path.is_file():
        raise MissingConfig(f"{path}: no such config file (give one with -f/--config-file)")
    return Path(os.path.abspath(path))


def _notebooks(extra: Any) -> str | None:
    """extra.perfdocs.notebooks as written (the dialect says what is wrong with it where a page needs it)."""
    perfdocs = extra.get("perfdocs") if isinstance(extra, Mapping) else None
    value = perfdocs.get("notebooks") if isinstance(perfdocs, Mapping) else None
    return None if value is None else str(value)


def _perfdocs_setting(extra: Any, name: str) -> Any:
    perfdocs = extra.get("perfdocs") if isinstance(extra, Mapping) else None
    return perfdocs.get(name) if isinstance(perfdocs, Mapping) else None


def _templates(config: Any) -> tuple[str, ...]:
    """The theme's static templates and extra_templates, as the files MkDocs writes (sitemap.xml also gzipped)."""
    names = {*(getattr(config.theme, "static_templates", None) or ()), *(config.get("extra_templates") or ())}
    return tuple(sorted(names | ({"sitemap.xml.gz"} if "sitemap.xml" in names else set())))


def _under(root: Path, path: str | os.PathLike[str]) -> Path:
    """``path`` as MkDocs means it: relative paths are relative to the directory of mkdocs.yml."""
    return Path(os.path.normpath(root / path))


def _script_path(entry: Any) -> str:
    return str(getattr(entry, "path", entry))


def _local(path: str) -> bool:
    return "://" not in path and not path.startswith("//")


@contextmanager
def _captured(logger_name: str) -> Iterator[list[str]]:
    """The messages logged on ``logger_name`` inside the block, not printed."""
    messages: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.ERROR:
                messages.append(record.getMessage())

    logger = logging.getLogger(logger_name)
    handler = Collect()
    previous = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield messages
    finally:
        logger.removeHandler(handler)
        logger.propagate = previous
