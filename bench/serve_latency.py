"""How long does an author wait, in `mkdocs serve`, between saving a file and seeing the change?

Serves a copy of this repository's site (the API section included) with `mkdocs serve`, then saves, in
turn and --repeat times each:
  * "page":    a scenario page (a new paragraph at its end);
  * "snippet": the theory snippet shown on the most pages (a new paragraph at its start);
  * "nav":     mkdocs.yml (a nav title renamed; every page shows the nav).
Each save is timed from writing the file to the server's "Reloading browsers" (the moment a reader's
browser reloads), and the served pages are then checked to show the change (every page that shows the
snippet, for "snippet").

Baseline, in the same run: a plain `mkdocs build` of the same docs, with `hooks:` and every plugin but search
removed (what MkDocs itself costs, before and after the saves). Reports medians and each kind's ratio to it.

    python bench/serve_latency.py [--repeat 5] [--keep DIR]
"""

from __future__ import annotations

import argparse
import queue
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from api_build import ROOT, build_env, make_copy, timed_build  # noqa: E402

sys.path.insert(0, str(ROOT / "hooks"))
from mkdocs.utils.yaml import yaml_load  # noqa: E402
from perfdocs.text import split_front_matter  # noqa: E402
from perfdocs.theory import THEORY_DIR, SnippetLibrary, expand  # noqa: E402

PAGE = "performance/infer/gpu_one.md"
RELOADED = "Reloading browsers"
WAIT = 600.0  # seconds a save may take before the benchmark gives up (a broken server, not a slow one)


def plain_copy(dest: Path) -> Path:
    """The site's docs with no hooks and no plugin but search: MkDocs' own cost for the same pages."""
    make_copy(dest, with_api=True)
    with open(dest / "mkdocs.yml", encoding="utf-8") as f:
        config: dict[str, Any] = yaml_load(f)
    config.pop("hooks", None)
    config["plugins"] = [p for p in config["plugins"] if p == "search" or (isinstance(p, dict) and "search" in p)]
    (dest / "mkdocs.yml").write_text(yaml.dump(config, sort_keys=False), encoding="utf-8")
    return dest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """`mkdocs serve` on a project, its log read line by line on a thread."""

    def __init__(self, project: Path) -> None:
        self.port = free_port()
        env = build_env()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "-f", str(project / "mkdocs.yml")]
            + ["-a", f"127.0.0.1:{self.port}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.log: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.wait_for("Serving on")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.log.append(line)
            self.lines.put(line)

    def wait_for(self, text: str) -> float:
        """Block until a log line contains ``text``; the time it arrived."""
        deadline = time.perf_counter() + WAIT
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.perf_counter()))
            except queue.Empty:
                raise SystemExit(f"no {text!r} from mkdocs serve in {WAIT:.0f} s:\n{''.join(self.log[-40:])}") from None
            if text in line:
                return time.perf_counter()

    def drain(self) -> None:
        while not self.lines.empty():
            self.lines.get_nowait()

    def get(self, url: str) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{url}", timeout=60) as response:
            return response.read().decode("utf-8")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def page_url(docs_path: str) -> str:
    stem = docs_path.removesuffix(".md")
    if stem == "index" or stem.endswith("/index"):
        return "/" + stem.removesuffix("index")
    return f"/{stem}/"


def most_shown_snippet(project: Path) -> tuple[str, list[str]]:
    """The snippet the most pages show (with them, as docs paths), as theory expansion finds them."""
    docs = project / "docs"
    library = SnippetLibrary(docs / THEORY_DIR, project)
    users: dict[str, set[str]] = {}
    for path in sorted(docs.rglob("*.md")):
        rel = path.relative_to(docs).as_posix()
        if rel.startswith(THEORY_DIR + "/"):
            continue
        text = path.read_text(encoding="utf-8")
        scenario = split_front_matter(text).data.get("scenario") if text.startswith("---") else None
        for name in expand(text, rel, library, scenario).snippets_used:
            users.setdefault(name, set()).add(rel)
    name = max(users, key=lambda n: (len(users[n]), n))
    return name, sorted(users[name])


def save(path: Path, edit: Any) -> float:
    text = path.read_text(encoding="utf-8")
    start = time.perf_counter()
    path.write_text(edit(text), encoding="utf-8")
    return start


def timed_save(server: Server, path: Path, edit: Any, marker: str, urls: list[str]) -> float:
    server.drain()
    start = save(path, edit)
    done = server.wait_for(RELOADED)
    for url in urls:
        if marker not in server.get(url):
            raise SystemExit(f"{url} does not show {marker!r} after the rebuild:\n{''.join(server.log[-30:])}")
    return done - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--keep", type=Path, help="work in this directory and leave it (default: a temporary one)")
    args = ap.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="serve-latency-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        site = make_copy(base / "site", with_api=True)
        plain = plain_copy(base / "plain")
        plain_times = [timed_build(plain, base / "out-plain")[0] for _ in range(2)]
        name, users = most_shown_snippet(site)
        print(f"snippet {name!r} is shown on {len(users)} pages: {', '.join(users)}", flush=True)
        server = Server(site)
        times: dict[str, list[float]] = {"page": [], "snippet": [], "nav": []}
        try:
            for i in range(args.repeat):
                marker = f"Servelatencymarker{i}page"
                page = site / "docs" / PAGE
                times["page"].append(
                    timed_save(server, page, lambda t, m=marker: t + f"\n\n{m}\n", marker, [page_url(PAGE)])
                )
                marker = f"Servelatencymarker{i}snippet"
                times["snippet"].append(
                    timed_save(
                        server,
                        site / "docs" / THEORY_DIR / f"{name}.md",
                        lambda t, m=marker: _after_front_matter(t, f"{m}\n\n"),
                        marker,
                        [page_url(u) for u in users],
                    )
                )
                marker = f"Servelatencymarker{i}nav"
                times["nav"].append(
                    timed_save(
                        server,
                        site / "mkdocs.yml",
                        lambda t, m=marker: renamed_nav_entry(t, "performance/scalability.md", f"Scalability {m}"),
                        marker,
                        ["/"],
                    )
                )
                print(f"round {i + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items()), flush=True)
        finally:
            server.stop()
        plain_times += [timed_build(plain, base / "out-plain")[0] for _ in range(2)]
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    baseline = statistics.median(plain_times)
    print(f"\nplain mkdocs build (no hooks, search only), median of {len(plain_times)}: {baseline:.2f} s")
    print(f"{'save':<8} {'median':>8} {'min':>7} {'max':>7} {'x plain':>8}")
    for kind, values in times.items():
        median = statistics.median(values)
        print(f"{kind:<8} {median:>7.2f}s {min(values):>6.2f}s {max(values):>6.2f}s {median / baseline:>7.2f}x")
    return 0


def renamed_nav_entry(config_text: str, page: str, title: str) -> str:
    """The config with the nav entry of ``page`` titled ``title``."""
    config = yaml.load(config_text, Loader=yaml.UnsafeLoader)  # the copy's own config: it names perfdocs.text.slugify

    def rename(items: list[Any]) -> bool:
        for i, item in enumerate(items):
            if isinstance(item, dict):
                (key, value), = item.items()
                if value == page:
                    items[i] = {title: page}
                    return True
                if isinstance(value, list) and rename(value):
                    return True
        return False

    if not rename(config["nav"]):
        raise SystemExit(f"{page} is not in the nav")
    return yaml.dump(config, sort_keys=False)


def _after_front_matter(text: str, insert: str) -> str:
    """``insert`` right after the snippet's front matter (or at its start): outside every <Only> part."""
    if text.startswith("---\n"):
        end = text.index("\n---\n", 4) + len("\n---\n")
        return text[:end] + "\n" + insert + text[end:]
    return insert + text


if __name__ == "__main__":
    raise SystemExit(main())
