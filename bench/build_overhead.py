"""How much do the perfdocs hooks add to a MkDocs build?

Generates a deterministic synthetic tree of N MDX pages that use every dialect construct and
theory includes, then builds, in the same run:
  * "hooks": the MDX tree with the perfdocs hooks (theory expansion + dialect + the allowlist
    sanitiser on every page's HTML + redirects + the link check);
  * "plain": the same content pre-converted to Material Markdown, built by plain MkDocs.
Both builds use the same theme and Markdown extensions. Reports the median wall time of each
and the ratio hooks/plain, and what the sanitiser alone costs on the built pages' content. The hooks'
first build, which keeps what the later ones reuse (.cache/perfdocs/), is reported on its own.
Target (issue 19): ratio <= 1.05 at N = 1,000.

    python bench/build_overhead.py [--pages 1000] [--repeat 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "hooks"))
sys.path.insert(0, str(ROOT / "bench"))

from api_build import build_env  # noqa: E402
from perfdocs.pipeline import render_source  # noqa: E402
from perfdocs.sanitize import clean_page  # noqa: E402
from perfdocs.theory import SnippetLibrary  # noqa: E402

SCENARIOS = ["infer-cpu", "infer-gpu-one", "infer-gpu-many", "train-gpu-one", "train-gpu-many"]
WORDS = (
    "memory throughput latency gradient optimizer activation precision kernel batch sequence tensor "
    "pipeline shard offload bandwidth cache token compile fused attention"
).split()

CONFIG = """site_name: bench
docs_dir: docs
theme:
  name: material
  features: [content.tabs.link, content.code.copy]
plugins: [search]
{hooks}
markdown_extensions:
  - admonition
  - attr_list
  - md_in_html
  - tables
  - toc:
      permalink: true
  - pymdownx.details
  - pymdownx.superfences
  - pymdownx.highlight
  - pymdownx.inlinehilite
  - pymdownx.tabbed:
      alternate_style: true
"""


def sentence(rng: random.Random, n: int = 14) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def snippet(i: int, rng: random.Random) -> str:
    return f"""---
title: Technique {i}
helps: [speed, memory]
summary: {sentence(rng, 8)}
---
{sentence(rng)} {sentence(rng)}

## How technique {i} works

{sentence(rng)} {sentence(rng)} {sentence(rng)}

<Only scenario="train-gpu-one,train-gpu-many">
{sentence(rng)}
</Only>

<Tip>
{sentence(rng)}
</Tip>

## What it costs

| Setting | Speed | Memory |
|---|---|---|
| off | 1.0x | 1.0x |
| on | 0.8x | 0.5x |
"""


def page(i: int, rng: random.Random, n_snippets: int) -> str:
    scenario = SCENARIOS[i % len(SCENARIOS)]
    a, b = rng.randrange(n_snippets), rng.randrange(n_snippets)
    return f"""---
title: Page {i}
scenario: {scenario}
---
# Page {i}[[page-{i}]]

{sentence(rng)} {sentence(rng)} {sentence(rng)}

> [!NOTE]
> {sentence(rng)}

## Technique {a}

<Theory name="t{a}"/>

### Recipe

<hfoptions id="api">
<hfoption id="Trainer">
```python
args = TrainingArguments(output_dir="out", bf16=True, per_device_train_batch_size={1 + i % 16})
```
</hfoption>
<hfoption id="Accelerate">
<Tip warning={{true}}>
{sentence(rng)}
</Tip>

```python
accelerator = Accelerator(mixed_precision="bf16")
```
</hfoption>
</hfoptions>

## Technique {b}

<Theory name="t{b}"/>

<frameworkcontent>
<pt>
{sentence(rng)}
</pt>
<tf>
{sentence(rng)}
</tf>
<jax>
{sentence(rng)}
</jax>
</frameworkcontent>

<Youtube id="dQw4w9WgXcQ" title="Video {i}"/>

<literalinclude>
{{"path": "../../../examples/step.py", "language": "python", "start-after": "START", "end-before": "END"}}
</literalinclude>

## Where to go next

See [page {(i + 1) % 1000}](p{(i + 1)}.md) and `<Tip>` in inline code. {sentence(rng)}
"""


def generate(base: Path, n_pages: int, seed: int = 1234) -> tuple[Path, Path]:
    """Writes the MDX project (with hooks) and the pre-converted plain project; returns both."""
    rng = random.Random(seed)
    n_snippets = 20
    mdx, plain = base / "mdx", base / "plain"
    for project in (mdx, plain):
        (project / "docs" / "performance" / "pages").mkdir(parents=True)
        (project / "examples").mkdir()
        (project / "examples" / "step.py").write_text("# START\nloss.backward()\noptimizer.step()\n# END\n")
    for project in (mdx, plain):
        (project / "docs" / "index.md").write_text("# Synthetic guide\n\nThe home page of the benchmark site.\n")
    (mdx / "hooks").symlink_to(ROOT / "hooks", target_is_directory=True)
    (mdx / "mkdocs.yml").write_text(CONFIG.format(hooks="hooks:\n  - hooks/perfdocs_hooks.py"))
    (plain / "mkdocs.yml").write_text(CONFIG.format(hooks=""))
    theory = mdx / "docs" / "performance" / "_theory"
    theory.mkdir(parents=True)
    for i in range(n_snippets):
        (theory / f"t{i}.md").write_text(snippet(i, rng))
    library = SnippetLibrary(theory, mdx)
    for i in range(n_pages):
        text = page(i, rng, n_snippets).replace(f"(p{n_pages}.md)", "(p0.md)")
        rel = Path("docs/performance/pages") / f"p{i}.md"
        (mdx / rel).write_text(text)
        rendered = render_source(text, rel.as_posix(), library, mdx)
        if rendered.diagnostics:
            raise SystemExit(f"generator produced invalid input: {rendered.diagnostics[0]}")
        front = text.split("---\n", 2)
        (plain / rel).write_text(f"---\n{front[1]}---\n{rendered.text}\n")
    return mdx, plain


def timed_build(project: Path) -> float:
    env = build_env()
    start = time.perf_counter()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "-q",
            "--strict",
            "-f",
            str(project / "mkdocs.yml"),
            "-d",
            str(project / "site"),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"build of {project.name} failed:\n{result.stderr[-3000:]}")
    return elapsed


def sanitiser_seconds(plain: Path) -> tuple[float, int, int]:
    """Time clean_page over every page's content HTML, rendered from the pre-converted Markdown with the
    site's Markdown extensions (what on_page_content receives); returns (seconds, pages, findings)."""
    import markdown
    from mkdocs.config import load_config

    config = load_config(str(plain / "mkdocs.yml"))
    contents = []
    for path in sorted((plain / "docs").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        body = text.split("---\n", 2)[2] if text.startswith("---\n") else text
        md = markdown.Markdown(extensions=config.markdown_extensions, extension_configs=config.mdx_configs)
        contents.append(md.convert(body))
    start = time.perf_counter()
    findings = sum(len(clean_page(html)[1]) for html in contents)
    return time.perf_counter() - start, len(contents), findings


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3, help="builds of each variant, interleaved (median reported)")
    ap.add_argument("--keep", type=Path, help="generate into this directory and keep it")
    args = ap.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="perfdocs-bench-"))
    try:
        t0 = time.perf_counter()
        mdx, plain = generate(base, args.pages)
        print(f"generated {args.pages} pages in {time.perf_counter() - t0:.1f} s under {base}", file=sys.stderr)
        # the first build of the hooks' project keeps what later builds reuse (perfdocs.contentcache): on its own
        shutil.rmtree(mdx / ".cache", ignore_errors=True)
        first = timed_build(mdx)
        print(f"  hooks, first build (nothing kept): {first:.2f} s", file=sys.stderr)
        times: dict[str, list[float]] = {"plain": [], "hooks": []}
        for r in range(args.repeat):
            order = [("plain", plain), ("hooks", mdx)] if r % 2 == 0 else [("hooks", mdx), ("plain", plain)]
            for name, project in order:
                times[name].append(timed_build(project))
                print(f"  run {r + 1}/{args.repeat} {name}: {times[name][-1]:.2f} s", file=sys.stderr)
        plain_s, hooks_s = statistics.median(times["plain"]), statistics.median(times["hooks"])
        print(f"pages: {args.pages}  repeat: {args.repeat}")
        print(f"plain MkDocs (pre-converted Markdown): {plain_s:.2f} s (median)")
        print(f"MkDocs + perfdocs hooks (MDX source): {hooks_s:.2f} s (median)")
        print(f"ratio hooks/plain: {hooks_s / plain_s:.3f}  (target <= 1.05)")
        print(f"first build of the hooks' project (nothing kept yet): {first:.2f} s, {first / plain_s:.3f}x plain")
        seconds, n, findings = sanitiser_seconds(plain)
        print(f"sanitiser alone: clean_page on {n} pages' content in {seconds:.2f} s, {findings} findings")
        return 0 if hooks_s / plain_s <= 1.05 else 1
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
