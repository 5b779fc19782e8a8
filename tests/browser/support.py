"""What the browser tests and bench/pages.py share: a static host for the built site, the
browser, the list of pages, axe-core. Plain functions; the pytest fixtures live in conftest.py."""

from __future__ import annotations

import fcntl
import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml
from mkdocs.utils.yaml import yaml_load

ROOT = Path(__file__).resolve().parents[2]
NODE_CACHE = ROOT / "tests" / "browser" / ".node"  # gitignored; npm installs axe-core here
ARTIFACTS = ROOT / "test-artifacts"
AXE_VERSION = "axe-core@4"

# Debian's and Ubuntu's names first; $PERFDOCS_CHROMIUM wins over all of them.
BROWSER_CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome-stable", "google-chrome")
BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


class StaticHost(http.server.SimpleHTTPRequestHandler):
    """Serves a built site the way GitHub Pages or Netlify do: /dir -> 301 /dir/, /dir/ -> its
    index.html, and site/404.html with status 404 for anything missing (no directory listings)."""

    protocol_version = "HTTP/1.1"
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".js": "text/javascript", ".json": "application/json", ".xml": "application/xml",
                      ".svg": "image/svg+xml", ".webmanifest": "application/manifest+json"}

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        self.send_error(404)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")  # every test sees the files of this build
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return  # the browser closed a page while a body was still being sent: not an error
        super().handle_error(request, client_address)


@contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve `site` on a free loopback port for the duration; yields the base URL ('http://127.0.0.1:N/')."""
    handler = functools.partial(StaticHost, directory=str(site))
    server = QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="static-host", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def find_browser() -> str | None:
    """A Chromium to drive: $PERFDOCS_CHROMIUM, else a system Chromium or Chrome."""
    explicit = os.environ.get("PERFDOCS_CHROMIUM")
    if explicit:
        return explicit if Path(explicit).is_file() else None
    for name in BROWSER_CANDIDATES:
        found = name if Path(name).is_file() else shutil.which(name)
        if found:
            return found
    return None


def browser_problem() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the Python package playwright is not installed: pip install -e '.[test]'"
    explicit = os.environ.get("PERFDOCS_CHROMIUM")
    if explicit and find_browser() is None:
        return f"PERFDOCS_CHROMIUM={explicit} is not a file"
    if find_browser() is None:
        return ("no Chromium found (looked for $PERFDOCS_CHROMIUM, " + ", ".join(BROWSER_CANDIDATES)
                + "): apt-get install chromium, or run bash .ci/run")
    return None


def launch(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=find_browser(), args=BROWSER_ARGS, headless=True)


def nav_sources(root: Path = ROOT) -> list[str]:
    """The Markdown path of every page in mkdocs.yml's nav, in nav order (performance/infer/cpu.md)."""
    config = yaml_load((root / "mkdocs.yml").read_text(encoding="utf-8"))  # MkDocs' loader: !ENV, python names
    sources: list[str] = []

    def walk(item: Any) -> None:
        if isinstance(item, str):
            sources.append(item)
        elif isinstance(item, list):
            for child in item:
                walk(child)
        elif isinstance(item, dict):
            for child in item.values():
                walk(child)

    walk(config["nav"])
    return sources


def page_url(src_path: str) -> str:
    """performance/infer/cpu.md -> performance/infer/cpu/ (use_directory_urls)."""
    stem = src_path.removesuffix(".md")
    if stem == "index":
        return ""
    return stem.removesuffix("index") if stem.endswith("/index") else stem + "/"


def front_matter(src_path: str, root: Path = ROOT) -> dict[str, Any]:
    text = (root / "docs" / src_path).read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return {}
    return yaml.safe_load(text[4:text.index("\n---", 4)]) or {}


def install_axe(cache: Path = NODE_CACHE) -> Path:
    """axe-core's browser bundle, installed with npm into `cache` on first use (by one test process at a time:
    pytest-xdist's workers each ask for it)."""
    script = cache / "node_modules" / "axe-core" / "axe.min.js"
    if script.is_file():
        return script
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed (it installs axe-core for the accessibility test): "
                           "apt-get install npm, or run bash .ci/run")
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if script.is_file():  # another worker installed it meanwhile
            return script
        return _npm_install_axe(npm, cache, script)


def _npm_install_axe(npm: str, cache: Path, script: Path) -> Path:
    result = subprocess.run([npm, "install", "--prefix", str(cache), "--no-audit", "--no-fund", "--no-save",
                             "--loglevel", "error", AXE_VERSION], capture_output=True, text=True, timeout=300)
    if result.returncode != 0 or not script.is_file():
        raise RuntimeError(f"npm install {AXE_VERSION} failed ({result.returncode}):\n{result.stderr[-2000:]}")
    return script
