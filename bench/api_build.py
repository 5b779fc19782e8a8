"""What does the API reference add to a build of the site?

Builds two copies of this repository's site, alternately, in the same run:
  * "api": the site as it is: the mkdocstrings plugin, docs/performance/api/ ([[autodoc]] entries rendered
    from the libraries' sources) and the guide's [`Name`] links;
  * "plain": the same site without the plugin, the API pages and their nav entry (the links stay as text).
The first build of "api" starts with nothing kept (perfdocs.apicache, perfdocs.contentcache) and is reported on
its own; the timed builds after it reuse what it kept, as every build but a project's first does. Reports, per
variant, the median wall time and the median CPU time of the build process (user + system, steadier than wall time on a
shared machine), the ratio api/plain, and what the API index alone costs (sources located, every [[autodoc]]
resolved, the module subset written), measured in this process.

    python bench/api_build.py [--repeat 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "hooks"))

from mkdocs.utils.yaml import yaml_load  # noqa: E402
from perfdocs.apiconfig import ApiConfig  # noqa: E402
from perfdocs.apirefs import build_index  # noqa: E402

API_PAGES = Path("performance") / "api"
KEPT_PER_BUILD = ("api-index", "api-render", "content")  # what a build keeps for the next (apicache, contentcache)
COPIED = ("docs", "hooks", "overrides", "redirects.yml", "pyproject.toml", "bench/results")


def make_copy(dest: Path, with_api: bool) -> Path:
    dest.mkdir(parents=True)
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif src.exists():
            shutil.copy2(src, dest / name)
    # the pinned sources and the name scan are shared, read once; the kept API index and entries start empty
    (dest / ".cache" / "perfdocs").mkdir(parents=True)
    for kept in (ROOT / ".cache" / "perfdocs").glob("*"):
        if kept.name not in KEPT_PER_BUILD:
            (dest / ".cache" / "perfdocs" / kept.name).symlink_to(kept, target_is_directory=kept.is_dir())
    with open(ROOT / "mkdocs.yml", encoding="utf-8") as f:
        config: dict[str, Any] = yaml_load(f)
    if not with_api:
        shutil.rmtree(dest / "docs" / API_PAGES)
        config["plugins"] = [p for p in config["plugins"] if not (isinstance(p, dict) and "mkdocstrings" in p)]
        config["nav"] = [e for e in config["nav"] if not (isinstance(e, dict) and "API reference" in e)]
    config["site_url"] = config.get("site_url") or None
    (dest / "mkdocs.yml").write_text(yaml.dump(config, sort_keys=False), encoding="utf-8")
    return dest


def build_env() -> dict[str, str]:
    """The environment of a timed build or server: this checkout's perfdocs first (the virtualenv's editable
    install may be another checkout's, and a before/after comparison would time the same code twice), MkDocs 2's
    notice off."""
    path = os.pathsep.join(p for p in (str(ROOT / "hooks"), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}


def timed_build(project: Path, site: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the build and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    env = build_env()
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(project / "mkdocs.yml"), "-d", str(site)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"build of {project.name} failed:\n{done.stdout}{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def index_cost() -> float:
    docs = ROOT / "docs"
    pages = [(p.relative_to(docs).as_posix(), p.as_posix(), p.read_text("utf-8")) for p in docs.rglob("*.md")]
    start = time.perf_counter()
    index = build_index(ApiConfig(ROOT, ("transformers", "peft", "accelerate"), {}), pages)
    spent = time.perf_counter() - start
    modules = sum(len(lib.files) for lib in index.libraries.values())
    print(f"API index: {len(index.entries)} entries, {modules} modules read, {spent:.2f} s")
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build the copies under this directory and keep them")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="perfdocs-api-bench-"))
    try:
        projects = {"api": make_copy(work / "api", True), "plain": make_copy(work / "plain", False)}
        cold = timed_build(projects["api"], work / "cold")  # what the next builds reuse is made here
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in projects}
        for run in range(args.repeat):
            for name, project in projects.items() if run % 2 == 0 else reversed(list(projects.items())):
                results[name].append(timed_build(project, work / f"site-{name}-{run}"))
        for name, runs in results.items():
            wall = statistics.median(w for w, _ in runs)
            cpu = statistics.median(c for _, c in runs)
            print(f"{name:6s} wall {wall:6.1f} s   cpu {cpu:6.1f} s   ({len(runs)} builds)")
        wall_ratio = statistics.median(w for w, _ in results["api"]) / statistics.median(w for w, _ in results["plain"])
        cpu_ratio = statistics.median(c for _, c in results["api"]) / statistics.median(c for _, c in results["plain"])
        print(f"api/plain: wall {wall_ratio:.2f}x, cpu {cpu_ratio:.2f}x")
        plain = statistics.median(w for w, _ in results["plain"])
        print(f"api, first build (nothing kept yet): wall {cold[0]:.1f} s, cpu {cold[1]:.1f} s, {cold[0] / plain:.2f}x")
        index_cost()
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
