from __future__ import annotations

from pathlib import Path

import pytest
from perfdocs.diagnostics import Location, SourceMap
from perfdocs.linkcheck import (
    LinkMap,
    SourceLink,
    Target,
    check_site,
    link_targets,
    markdown_links,
    resolve_href,
    scan_html,
    to_diagnostics,
)
from perfdocs.redirects import RedirectMap, redirect_pages
from perfdocs.redirects import Target as RedirectTarget


def page(body: str, title: str = "t") -> str:
    return f"<!doctype html><html><head><title>{title}</title></head><body>\n{body}\n</body></html>\n"


@pytest.mark.parametrize(
    "page_path, href, base, expected",
    [
        ("a/b/index.html", "../c/", "/", Target("a/c/", "")),
        ("a/b/index.html", "../c/#x", "/", Target("a/c/", "x")),
        ("a/b/index.html", "#x", "/", Target("a/b/index.html", "x")),
        ("a/b/index.html", "/docs/a/c/", "/docs/", Target("a/c/", "")),
        ("a/b/index.html", "/other/a/", "/docs/", None),
        ("index.html", "../../etc/passwd", "/", None),
        ("a/index.html", "img%20one.png", "/", Target("a/img one.png", "")),
        ("a/index.html", "https://example.org/x#y", "/", "https://example.org/x#y"),
        ("a/index.html", "..", "/", Target("", "")),
    ],
)
def test_resolve_href(page_path: str, href: str, base: str, expected: object) -> None:
    assert resolve_href(page_path, href, base) == expected


def test_scan_ignores_code_and_collects_ids() -> None:
    html = page(
        '<h2 id="sec">S</h2><p><code>&lt;a href="nope/"&gt; id="fake"</code></p>'
        '<a href="x/#sec">x</a><img src=\'i.png\'><a name="old"></a><a href="mailto:a@b">m</a>'
    )
    scan = scan_html("p/index.html", html)
    # id="..." written as text can count as an id: that may hide a broken fragment, never invent one
    assert {"sec", "old"} <= scan.ids <= {"sec", "old", "fake"}  # name= counts on <a> only
    assert set(scan.links) == {Target("p/x/", "sec"), Target("p/i.png", "")}
    assert scan.external == {}


def write_site(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def site(tmp_path: Path) -> Path:
    rmap = RedirectMap(
        pages={"old": RedirectTarget(page="a.md")},
        anchors={"old": {"fp16": RedirectTarget(page="a.md", anchor="mixed")}},
    )
    redirects = redirect_pages(rmap, lambda p: "a/", lambda p: "A")
    return write_site(
        tmp_path / "site",
        {
            "index.html": page(
                '<a href="a/">a</a> <a href="a/#mixed">ok</a> <a href="a/#gone">bad frag</a>\n'
                '<a href="b/">missing page</a> <img src="img/x.png"> <img src="img/y.png">\n'
                '<a href="old/#fp16">remapped</a> <a href="old/#mixed">kept</a> '
                '<a href="old/#nope">bad through redirect</a> <a href="#nowhere">self</a>'
                '<a href="https://example.org/">ext</a>'
            ),
            "a/index.html": page('<h2 id="mixed">M</h2><h2 id="top">T</h2>'),
            "img/x.png": "png",
            **redirects,
        },
    )


def test_check_site_finds_exactly_the_broken_links(site: Path) -> None:
    report = check_site(site, jobs=1)
    found = sorted((p.status, p.page, p.href, p.message, p.hint) for p in report.problems)
    assert found == [
        ("missing-file", "index.html", "b/", "no file b/ in the site", None),
        ("missing-file", "index.html", "img/y.png", "no file img/y.png in the site", None),
        ("missing-fragment", "index.html", "#nowhere", "no id 'nowhere' in index.html", None),
        ("missing-fragment", "index.html", "a/#gone", "no id 'gone' in a/index.html", None),
        ("missing-fragment", "index.html", "old/#nope", "no id 'nope' in a/index.html", None),
    ]
    assert set(report.external) == {"https://example.org/"}


def test_parallel_scan_gives_the_same_report(site: Path) -> None:
    for i in range(80):
        write_site(site, {f"extra/{i}/index.html": page(f'<a href="../{(i + 1) % 80}/#s">n</a><h2 id="s">s</h2>')})
    serial = check_site(site, jobs=1)
    parallel = check_site(site, jobs=2)
    assert sorted(map(repr, serial.problems)) == sorted(map(repr, parallel.problems))
    assert serial.links == parallel.links


def test_problems_map_back_to_markdown_lines(site: Path) -> None:
    lmap = LinkMap(sources={"index.html": "docs/index.md"})
    lmap.add(
        "index.html",
        Target("a/", "gone"),
        SourceLink(Location("docs/_theory/x.md", 7, 12, (("docs/index.md", 3),)), "a.md#gone"),
    )
    diagnostics = [
        str(d) for d in to_diagnostics(check_site(site, jobs=1), site, LinkMap.from_json(lmap.to_json()), "site")
    ]
    assert (
        "docs/_theory/x.md:7:12: error: broken link 'a.md#gone': no id 'gone' in a/index.html [missing-fragment]\n"
        "    included from docs/index.md:3"
    ) in diagnostics
    assert (
        "site/index.html:3:1: error: broken link 'b/': no file b/ in the site [missing-file] (page built from "
        "docs/index.md)" in diagnostics
    )


def test_markdown_links_and_their_built_targets() -> None:
    text = (
        "See [a](../train/gpu_one.md#x) and `[no](code.md)`.\n```\n[no](fence.md)\n```\n![i](img/p.png)\n"
        '[ref]: missing.md\n<a href="#local">l</a>'
    )
    links = markdown_links(text, SourceMap.identity("docs/performance/infer/cpu.md", 7))
    assert [(raw, loc.line, loc.col) for raw, loc in links] == [
        ("../train/gpu_one.md#x", 1, 9),
        ("img/p.png", 5, 6),
        ("missing.md", 6, 8),
        ("#local", 7, 10),
    ]
    dest_of = {
        "performance/train/gpu_one.md": "performance/train/gpu_one/index.html",
        "performance/infer/img/p.png": "performance/infer/img/p.png",
    }
    targets = link_targets("performance/infer/cpu.md", "performance/infer/cpu/index.html", links, dest_of)
    assert [(t, s.missing_page) for t, s in targets] == [
        (Target("performance/train/gpu_one/index.html", "x"), None),
        (Target("performance/infer/img/p.png", ""), None),
        (Target("performance/infer/cpu/missing.md", ""), "performance/infer/missing.md"),
        (Target("performance/infer/cpu/index.html", "local"), None),
    ]


@pytest.mark.parametrize(
    "page_path, href, expected",
    [
        ("a/b/index.html", "../", Target("a/", "")),
        ("a/b/index.html", "../#x", Target("a/", "x")),
        ("a/b/index.html", "../../", Target("", "")),
        ("a/b/index.html", "../../../", None),
        ("a/b/index.html", "../c/d.png", Target("a/c/d.png", "")),
        ("a/b/index.html", "./", Target("a/b/", "")),
    ],
)
def test_folded_resolution_matches_plain_resolution(page_path: str, href: str, expected: object) -> None:
    from perfdocs.linkcheck import _Checker

    checker = _Checker(set(), set(), {}, "/")
    assert checker.resolve(page_path.rpartition("/")[0], href) == expected == resolve_href(page_path, href)


def test_ids_names_comments_and_top() -> None:
    text = page(
        '<h2 id=minified>M</h2><meta name="viewport"><input name="query"><a name="legacy"></a>\n'
        '<!-- <a href="commented/">old</a>\n<h2 id="hidden">x</h2> -->\n<a href="real/">r</a>'
    )
    scan = scan_html("p/index.html", text)
    assert scan.ids == {"minified", "legacy"}
    assert set(scan.links) == {Target("p/real/", "")}


def test_top_fragment_needs_no_id(tmp_path: Path) -> None:
    site = write_site(tmp_path / "site", {"index.html": page('<a href="#top">up</a> <a href="#TOP">up</a>')})
    assert check_site(site, jobs=1).problems == []
