"""Our redirect pages against the mkdocs-redirects plugin, which the design names and the hooks replace.

README.md ("Why not mkdocs-redirects") lists what the plugin cannot do; the first tests pin each of those claims on
a three-page MkDocs project, so the README stays true when the plugin changes. The last ones feed the plugin the
map our hooks resolve from redirects.yml, build the real site with it, and check that every page the plugin writes
is also in our build and leads to the same page and fragment. What the plugin cannot express is skipped, counted
by reason, and the counts are asserted.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest
import yaml
from packaging.requirements import Requirement
from perfdocs.html import parse_page
from perfdocs.redirects import RedirectMap, load_redirects, url_forms
from selectolax.lexbor import LexborHTMLParser

from .conftest import ROOT
from .sitetools import build, copy_project

pytestmark = pytest.mark.slow

HOST = "https://site.invalid/"  # resolves relative redirect URLs; never fetched


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.fixture(scope="module", autouse=True)
def plugin_installed() -> None:
    try:
        importlib.metadata.version("mkdocs-redirects")
    except importlib.metadata.PackageNotFoundError:
        reason = "mkdocs-redirects is not installed (pip install -e '.[test]')"
        if in_ci():
            pytest.fail(f"{reason}; CI is set, so this is a failure, not a skip", pytrace=False)
        pytest.skip(reason)


# -- following redirect pages --------------------------------------------------------------------------------------


def site_file(site: Path, rel: str) -> str | None:
    """The file a static host serves for site-relative path ``rel`` ('' is the root), or None."""
    rel = unquote(rel)
    for candidate in [rel + "index.html"] if rel.endswith("/") or not rel else [rel, rel + "/index.html"]:
        if (site / candidate).is_file():
            return candidate
    return None


def follow(site: Path, rel: str, hops: int = 5) -> tuple[str, str]:
    """Where a reader who opens ``rel`` ends up: (the final page's file, or an external URL; the fragment).

    Each redirect page's meta refresh is followed, and its canonical link must say the same.
    """
    fragment = ""
    for _ in range(hops):
        page = parse_page((site / rel).read_text(encoding="utf-8"))
        if page.refresh is None:
            return rel, fragment
        canonical = [url for url, (tag, _) in page.urls.items() if tag == "link"]
        assert canonical == [page.refresh], f"{rel}: canonical {canonical} is not the refresh URL {page.refresh}"
        resolved = urlsplit(urljoin(HOST + rel, page.refresh))
        fragment = resolved.fragment or fragment
        if f"{resolved.scheme}://{resolved.netloc}/" != HOST:
            return resolved._replace(fragment="").geturl(), fragment
        found = site_file(site, resolved.path.lstrip("/"))
        assert found is not None, f"{rel}: redirects to {page.refresh}, which the site does not have"
        rel = found
    raise AssertionError(f"{rel}: more than {hops} redirects")


# -- the claims of README.md, on a small project --------------------------------------------------------------------


def small_project(tmp_path: Path, redirect_maps: dict[str, str]) -> Path:
    """Three pages, the default theme, the plugin with ``redirect_maps``: nothing of ours is involved."""
    (tmp_path / "docs/sub").mkdir(parents=True)
    (tmp_path / "docs/a.md").write_text("# A\n\n## Mixed precision\n\nText.\n", encoding="utf-8")
    (tmp_path / "docs/b.md").write_text("# B\n", encoding="utf-8")
    (tmp_path / "docs/sub/c.md").write_text("# C\n", encoding="utf-8")
    config = {"site_name": "t", "plugins": [{"redirects": {"redirect_maps": redirect_maps}}]}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return tmp_path


def test_the_plugin_writes_one_url_form_per_entry(tmp_path: Path) -> None:
    project = small_project(tmp_path, {"old.md": "a.md"})
    result = build(project, project / "site")
    assert result.returncode == 0, result.stderr
    forms = {form: (project / "site" / form).is_file() for form in url_forms("old")}
    assert forms == {"old/index.html": True, "old.html": False, "old.md/index.html": False, "old.mdx/index.html": False}
    assert follow(project / "site", "old/index.html") == ("a/index.html", "")


def test_the_plugin_rejects_mdx_and_anchor_keys_and_strict_stops(tmp_path: Path) -> None:
    project = small_project(tmp_path, {"old.mdx": "a.md", "old.md#fp16": "a.md#mixed-precision"})
    result = build(project, project / "site")
    assert result.returncode == 1
    warnings = [line for line in result.stderr.splitlines() if line.startswith("WARNING")]
    assert sorted(warnings) == [
        "WARNING -  redirects plugin: 'old.md#fp16' is not a valid markdown file!",
        "WARNING -  redirects plugin: 'old.mdx' is not a valid markdown file!",
    ]
    assert result.stdout.strip() == "Aborted with 2 warnings in strict mode!"
    # Without --strict it writes both anyway, under names no URL reaches as HTML: a file called 'old.mdx' (served
    # with a Markdown type, if at all) and one called 'old.md#fp16' ('#' starts the fragment, so never requested).
    result = build(project, project / "site", strict=False)
    assert result.returncode == 0, result.stderr
    assert (project / "site/old.mdx").is_file() and (project / "site/old.md#fp16").is_file()
    assert not (project / "site/old.mdx/index.html").exists() and not (project / "site/old/index.html").exists()


def test_the_plugin_cannot_remap_an_anchor(tmp_path: Path) -> None:
    """Its page appends the reader's fragment to the target's: old/#fp16 would go to a/#mixed-precision#fp16."""
    project = small_project(tmp_path, {"old.md": "a.md#mixed-precision"})
    assert build(project, project / "site").returncode == 0
    tree = LexborHTMLParser((project / "site/old/index.html").read_text(encoding="utf-8"))
    scripts = [node.text() for node in tree.css("script")]
    assert scripts == [
        'var anchor=window.location.hash.substr(1);location.href="../a/#mixed-precision"+(anchor?"#"+anchor:"")'
    ]
    assert follow(project / "site", "old/index.html") == ("a/index.html", "mixed-precision")


def test_the_plugin_silently_overwrites_a_live_page(tmp_path: Path) -> None:
    project = small_project(tmp_path, {"b.md": "sub/c.md"})
    result = build(project, project / "site")
    assert result.returncode == 0 and "WARNING" not in result.stderr, result.stderr
    assert follow(project / "site", "b/index.html") == ("sub/c/index.html", "")  # page B is gone


def test_the_plugin_pulls_in_properdocs() -> None:
    requires = [Requirement(r) for r in importlib.metadata.requires("mkdocs-redirects") or []]
    assert "properdocs" in {r.name for r in requires if r.marker is None}  # unconditional, at run time


# -- the same map through the plugin, on the real site ---------------------------------------------------------------


def resolved_map() -> RedirectMap:
    """redirects.yml resolved as the hooks resolve it (chains collapsed, live-page entries marked)."""
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    pages = {p for p in pages if not p.startswith("performance/_theory/")}
    rmap, problems = load_redirects((ROOT / "redirects.yml").read_text(encoding="utf-8"), "redirects.yml", pages)
    assert problems == []
    return rmap


def plugin_plan(rmap: RedirectMap) -> tuple[dict[str, str], dict[str, str], Counter[str]]:
    """The plugin's redirect_maps for ``rmap``, the file each key makes it write, and what it cannot express.

    Each URL form our hooks serve becomes a key whose page MkDocs writes at that form's file: ``old.md`` for
    old/index.html, ``old.md/index.md`` and ``old.mdx/index.md`` for the .md and .mdx forms (an ``old.mdx`` key
    is refused). Not expressible, counted: the ``old.html`` form (a key must be a Markdown file, and with
    use_directory_urls every Markdown key becomes a directory), anchor remaps, and the directory form of an
    entry whose directory is a live page (the plugin would write over that page).
    """
    from mkdocs_redirects.plugin import get_html_path

    redirect_maps: dict[str, str] = {}
    writes: dict[str, str] = {}
    skipped: Counter[str] = Counter()
    for old, target in sorted(rmap.pages.items()):
        value = target.url or f"{target.page}{'#' + target.anchor if target.anchor else ''}"
        for dest in url_forms(old, old in rmap.live):
            if dest == "index.html" or dest.endswith("/index.html"):
                key = f"{old}.md" if dest == f"{old}/index.html" else dest.removesuffix(".html") + ".md"
                assert get_html_path(key, True) == dest  # the plugin's own naming agrees
                redirect_maps[key] = value
                writes[key] = dest
            else:
                skipped["html form"] += 1
        skipped["live page"] += old in rmap.live
        skipped["anchor remap"] += len(rmap.anchors.get(old, {}))
    return redirect_maps, writes, skipped


def with_plugin(config_text: str, redirect_maps: dict[str, str]) -> str:
    """mkdocs.yml with the plugin added as the first entry of ``plugins:`` (located by the YAML parser)."""
    root = yaml.compose(config_text, Loader=yaml.SafeLoader)
    plugins = next(value for key, value in root.value if key.value == "plugins")
    assert isinstance(plugins, yaml.SequenceNode) and plugins.flow_style is False
    line, col = plugins.start_mark.line, plugins.start_mark.column
    pad = " " * col
    entries = [f"{pad}      {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(redirect_maps.items())]
    lines = config_text.split("\n")
    lines[line:line] = [f"{pad}- redirects:", f"{pad}    redirect_maps:", *entries]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def ours(site_bare: Path) -> Path:
    return site_bare


@pytest.fixture(scope="module")
def plan() -> tuple[dict[str, str], dict[str, str], Counter[str]]:
    return plugin_plan(resolved_map())


@pytest.fixture(scope="module")
def theirs(tmp_path_factory: pytest.TempPathFactory, plan: tuple[dict[str, str], dict[str, str], Counter[str]]) -> Path:
    """The real site built with the plugin holding the map, and an empty redirects.yml: its redirects only."""
    project = copy_project(tmp_path_factory.mktemp("plugin") / "project")
    (project / "redirects.yml").write_text("redirects: {}\n", encoding="utf-8")
    config = project / "mkdocs.yml"
    config.write_text(with_plugin(config.read_text(encoding="utf-8"), plan[0]), encoding="utf-8")
    result = build(project, project / "site")
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr, result.stderr  # every key we gave it is one it accepts
    return project / "site"


def test_what_the_plugin_cannot_express_is_counted(
    plan: tuple[dict[str, str], dict[str, str], Counter[str]],
) -> None:
    """Counted against redirects.yml as written (parsed again here): one .html form per entry but the root, one
    skip per 'old#fragment' key, one per entry that names a live page's own directory."""
    raw = yaml.safe_load((ROOT / "redirects.yml").read_text(encoding="utf-8"))["redirects"]
    entries = [str(k) for k in raw if "#" not in str(k)]
    anchors = [str(k) for k in raw if "#" in str(k)]
    live = [k for k in entries if f"{raw[k]}".removesuffix(".md").removesuffix("/index") == k]
    redirect_maps, writes, skipped = plan
    assert skipped == Counter({"html form": len(entries) - ("index" in entries), "anchor remap": len(anchors)}) + (
        Counter({"live page": len(live)})
    )
    assert len(writes) == 4 * len(entries) - skipped["html form"] - skipped["live page"]
    assert skipped["anchor remap"] >= 1 and skipped["live page"] >= 1  # both kinds of skip are exercised
    assert set(redirect_maps) == set(writes)


def test_the_plugin_wrote_exactly_the_planned_pages(
    theirs: Path, plan: tuple[dict[str, str], dict[str, str], Counter[str]]
) -> None:
    redirect_pages = {
        p.relative_to(theirs).as_posix()
        for p in theirs.rglob("*.html")
        if parse_page(p.read_text(encoding="utf-8")).refresh is not None
    }
    assert redirect_pages == set(plan[1].values())


def test_every_plugin_page_is_ours_too_and_lands_on_the_same_target(
    ours: Path, theirs: Path, plan: tuple[dict[str, str], dict[str, str], Counter[str]]
) -> None:
    _, writes, _ = plan
    compared = 0
    for key, dest in sorted(writes.items()):
        assert (ours / dest).is_file(), f"the plugin writes {dest} for {key!r}; our build has no such file"
        assert parse_page((ours / dest).read_text(encoding="utf-8")).refresh is not None, f"{dest} is not a redirect"
        mine, its = follow(ours, dest), follow(theirs, dest)
        assert mine == its, f"{dest}: ours lands on {mine}, the plugin's on {its}"
        page, fragment = mine
        assert parse_page((ours / page).read_text(encoding="utf-8")).refresh is None
        assert not fragment or fragment in parse_page((ours / page).read_text(encoding="utf-8")).ids
        compared += 1
    assert compared == len(writes) > 0
