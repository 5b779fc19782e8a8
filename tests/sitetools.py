"""Helpers for the tests that build or serve a copy of the real site."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

from perfdocs.apicache import INDEX_DIR, RENDER_DIR

from .conftest import ROOT

# The least a project needs for the hooks: the theme, the hooks, and the Markdown extensions they require.
MINIMAL_CONFIG = """site_name: {name}
theme:
  name: material
hooks:
  - hooks/perfdocs_hooks.py
markdown_extensions:
  - admonition
  - attr_list
  - md_in_html
  - toc
  - pymdownx.superfences
  - pymdownx.tabbed:
      alternate_style: true
"""


def minimal_config(name: str, more: str = "") -> str:
    """MINIMAL_CONFIG for a site called ``name``, with ``more`` YAML (top-level keys) after it."""
    return MINIMAL_CONFIG.format(name=name) + more


def stop(proc: subprocess.Popen) -> None:
    """Ends a server started for a test: politely, then for good."""
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


PROJECT_FILES = ("mkdocs.yml", "redirects.yml", "pyproject.toml", ".gitignore", "docs", "hooks", "overrides", "bench/results")
# Where mkdocs.yml takes the site's and the repository's address from (README, "Deploying").
DEPLOY_VARS = ("SITE_URL", "REPO_URL", "REPO_NAME", "EDIT_URI", "GITHUB_REPOSITORY")
# A deployment for the tests that check what a deployed site links to (.test is reserved: RFC 6761).
DEPLOYMENT = {"SITE_URL": "https://docs.perfdocs.test/", "REPO_URL": "https://git.perfdocs.test/team/perfdocs"}


def copy_project(dest: Path, kept: bool = True) -> Path:
    """A copy of everything a build reads, so a test can break it without touching the repo. ``kept``: with
    what the repository's own builds kept for the next (the API index and entries, perfdocs.apicache), as a
    developer's checkout has them; hard links, since a build replaces those files and never writes into one."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_FILES:
        src = ROOT / name
        if not src.exists():
            continue
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dest / name)
    for folder in (INDEX_DIR, RENDER_DIR) if kept else ():
        try:
            shutil.copytree(ROOT / folder, dest / folder, copy_function=os.link, ignore=shutil.ignore_patterns("*.tmp"))
        except (OSError, shutil.Error):  # none yet, or a build in another worker replacing it now: a cold build
            shutil.rmtree(dest / folder, ignore_errors=True)
    return dest


def hooked_project(project: Path, files: dict[str, str]) -> Path:
    """A project of ``files`` (path -> text) built with this repository's hooks (a link to them)."""
    for rel, text in files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text, encoding="utf-8")
    (project / "hooks").symlink_to(ROOT / "hooks", target_is_directory=True)
    return project


def site_files(site: Path) -> dict[str, bytes]:
    """Every file of a built site, by its path in the site."""
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def build_messages(log: str) -> list[str]:
    """What a build logged, less the lines that name its output folder or its time."""
    return [line for line in log.splitlines() if "Documentation built in" not in line and "directory" not in line]


def tool(name: str) -> str:
    """The console script installed next to this interpreter (mkdocs, properdocs, perfdocs)."""
    candidate = Path(sys.executable).parent / name
    found = str(candidate) if candidate.exists() else shutil.which(name)
    assert found, f"{name} is not installed: pip install -e '.[test]'"
    return found


def build(
    project: Path, site: Path, command: str = "mkdocs", strict: bool = True, deploy: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``deploy``: the deployment variables to build with (SITE_URL, REPO_URL...); the ones of the environment
    running the tests are never passed on, so every build is the same wherever the tests run."""
    env = {k: v for k, v in os.environ.items() if k not in DEPLOY_VARS}
    env |= {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true", "NO_COLOR": "1", **(deploy or {})}
    args = [tool(command), "build", "-f", str(project / "mkdocs.yml"), "-d", str(site)]
    if strict:
        args.append("--strict")
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=600)


def build_in_process(
    project: Path, site: Path, strict: bool = True, then: Callable[[], None] | None = None
) -> subprocess.CompletedProcess[str]:
    """What ``build`` returns, from MkDocs' build run in this process as its command line runs it (startup and
    shutdown events, the log as it prints it: ``ERROR   -  message``), without a new interpreter (~0.7 s less
    per build). For the many small builds of the error corpus; ``build`` stays the one the site is built with.
    ``then``: the build is ``mkdocs serve``'s first, and ``then`` runs after it, before the shutdown event (an
    incremental rebuild: perfdocs.serve.LIVE.rebuild)."""
    import logging

    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, ConfigurationError

    lines: list[str] = []

    class Printed(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(f"{record.levelname:<8}-  {record.getMessage()}")

    logger = logging.getLogger("mkdocs")
    handler, level = Printed(logging.INFO), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    code = 0
    try:
        config = load_config(config_file=str(project / "mkdocs.yml"), site_dir=str(site), strict=strict)
        config.plugins.on_startup(command="build" if then is None else "serve", dirty=False)
        try:
            mkdocs_build(config)
            if then is not None:
                then()
        finally:
            config.plugins.on_shutdown()
    except (Abort, ConfigurationError) as exc:  # what the command line prints and exits 1 on
        lines.append(str(exc))
        code = 1
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    return subprocess.CompletedProcess(["mkdocs", "build"], code, "", "\n".join(lines) + "\n")


class VisibleText(HTMLParser):
    """Text a reader sees: everything outside code, scripts, styles and the search index."""

    SKIP = {"pre", "code", "script", "style", "noscript"}

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP and self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if not self.depth:
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = VisibleText()
    parser.feed(html)
    return "".join(parser.parts)
