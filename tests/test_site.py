"""End to end: the real site builds with --strict, and the HTML holds what the dialect promises."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from perfdocs.redirects import normalise_old

from .conftest import ROOT
from .sitetools import build, copy_project, visible_text

pytestmark = pytest.mark.slow

PAGES = [
    "index.html",
    "performance/infer/index.html",
    "performance/infer/cpu/index.html",
    "performance/infer/gpu_one/index.html",
    "performance/infer/gpu_many/index.html",
    "performance/train/index.html",
    "performance/train/gpu_one/index.html",
    "performance/train/gpu_many/index.html",
    "performance/scalability/index.html",
]
OLD_NAMES = [
    "performance",
    "perf_infer",
    "perf_infer_cpu",
    "perf_infer_gpu_one",
    "perf_infer_gpu_many",
    "perf_train",
    "perf_train_gpu_one",
    "perf_train_gpu_many",
    "parallelism",
]
RAW_DIALECT = [
    "<Tip",
    "<Theory",
    "[[",
    "<hfoption",
    "<frameworkcontent",
    "<Only",
    "<Youtube",
    "<literalinclude",
    "> [!NOTE]",
    "{ #",
    "{#",
]


@pytest.fixture(scope="module")
def site(site_bare: Path) -> Path:
    return site_bare


def test_all_pages_built(site: Path) -> None:
    missing = [p for p in PAGES if not (site / p).is_file()]
    assert missing == []
    assert not (site / "performance" / "_theory").exists(), "theory snippets must not become pages"


@pytest.mark.parametrize("page", PAGES)
def test_no_raw_dialect_in_page_text(site: Path, page: str) -> None:
    text = visible_text((site / page).read_text(encoding="utf-8"))
    leftovers = [token for token in RAW_DIALECT if token in text]
    assert leftovers == [], f"{page} shows raw dialect: {leftovers}"
    assert "Build error" not in text


def test_tabs_admonitions_and_theory_rendered(site: Path) -> None:
    html = (site / "performance/train/gpu_one/index.html").read_text(encoding="utf-8")
    assert 'class="tabbed-set tabbed-alternate"' in html
    assert re.search(r'<label for="__tabbed_\d+_\d+">Trainer</label>', html)
    every_page = "".join((site / p).read_text(encoding="utf-8") for p in PAGES)
    assert re.search(r'class="admonition (tip|warning|note|info|danger)"', every_page)
    assert 'id="gradient-checkpointing"' in html
    assert re.search(r'id="gradient-checkpointing-[a-z0-9-]+"', html), "snippet headings get predictable ids"


def test_every_page_has_unique_ids(site: Path) -> None:
    for page in PAGES:
        ids = re.findall(r'\sid="([^"]+)"', (site / page).read_text(encoding="utf-8"))
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        assert duplicates == [], f"{page}: duplicate ids {duplicates}"


def test_theory_expanded_on_several_pages(site: Path) -> None:
    marker = "Bytes per parameter"
    pages_with = [p for p in PAGES if marker in (site / p).read_text(encoding="utf-8")]
    assert len(pages_with) >= 2, pages_with


@pytest.mark.parametrize("old", OLD_NAMES)
def test_old_names_redirect_in_every_form(site: Path, old: str) -> None:
    spec = yaml.safe_load((ROOT / "redirects.yml").read_text(encoding="utf-8"))["redirects"]
    target = spec[old]
    while not target.endswith(".md"):
        target = spec[normalise_old(target)]
    target_url = target.removesuffix("index.md").removesuffix(".md").rstrip("/")  # "" is the home
    forms = [f"{old}.html", f"{old}.md/index.html", f"{old}.mdx/index.html"]
    if not (site / old / "index.html").read_text(encoding="utf-8").count("<title>Moved:") == 0:
        forms.append(f"{old}/index.html")
    for form in forms:
        page = (site / form).read_text(encoding="utf-8")
        href = re.search(r'http-equiv="refresh" content="0; url=([^"]+)"', page)
        assert href, form
        landed = ((site / form).parent / href.group(1).split("#")[0]).resolve()
        assert landed == (site / target_url).resolve(), f"{form} -> {href.group(1)}"
        assert (landed / "index.html").is_file()


def test_fragment_rename_and_netlify_file(site: Path) -> None:
    page = (site / "perf_train_gpu_one/index.html").read_text(encoding="utf-8")
    assert '"fp16": "../performance/train/gpu_one/#mixed-precision"' in page
    html = (site / "performance/train/gpu_one/index.html").read_text(encoding="utf-8")
    assert 'id="mixed-precision"' in html
    rules = (site / "_redirects").read_text(encoding="utf-8").splitlines()
    assert "/perf_train_gpu_one.mdx /performance/train/gpu_one/ 301" in rules
    assert "/parallelism/ /performance/scalability/ 301" in rules


def test_site_builds_the_same_under_properdocs(site: Path, tmp_path: Path) -> None:
    out = tmp_path / "properdocs-site"
    result = build(ROOT, out, command="properdocs")
    assert result.returncode == 0, result.stderr
    ours = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    theirs = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.html"))
    assert ours == theirs


def test_strict_build_fails_with_located_errors(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    page = project / "docs/performance/infer/cpu.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n<Tipp>\nx\n</Tipp>\n", encoding="utf-8")
    bad_line = page.read_text(encoding="utf-8").split("\n").index("<Tipp>") + 1
    snippet = project / "docs/performance/_theory/batch_size.md"
    snippet.write_text(snippet.read_text(encoding="utf-8") + "\n<Tip warning={yes}>\nx\n</Tip>\n", encoding="utf-8")
    snippet_line = snippet.read_text(encoding="utf-8").split("\n").index("<Tip warning={yes}>") + 1
    site = tmp_path / "site"
    result = build(project, site)
    assert result.returncode != 0
    assert (
        f"docs/performance/infer/cpu.md:{bad_line}:1: error: unknown component <Tipp> [unknown-component] "
        "(did you mean 'Tip'?)"
    ) in result.stderr
    assert (
        f"docs/performance/_theory/batch_size.md:{snippet_line}:1: error: attribute warning={{yes}} on <Tip> "
        "must be {true} or {false} [bad-attribute]"
    ) in result.stderr
    assert "included from docs/performance/" in result.stderr
    per_inclusion = result.stderr.count(f"batch_size.md:{snippet_line}:1: error")  # once per including page
    assert per_inclusion >= 2
    assert f"Aborted with {1 + per_inclusion} errors in strict mode!" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_redirect_over_live_page_fails_the_build(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    redirects = project / "redirects.yml"
    redirects.write_text(
        redirects.read_text(encoding="utf-8").replace(
            "redirects:\n", "redirects:\n  performance/scalability: index.md\n"
        ),
        encoding="utf-8",
    )
    result = build(project, tmp_path / "site")
    assert result.returncode != 0
    assert (
        "redirects.yml:11:1: error: 'performance/scalability' is a live page; a redirect to "
        "index.md would shadow it [redirect-shadows-page]"
    ) in result.stderr
    assert (tmp_path / "site/performance/scalability/index.html").read_text(encoding="utf-8").count("Moved:") == 0
