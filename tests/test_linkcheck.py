from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from perfdocs.diagnostics import Location, SourceMap
from perfdocs.dialect import convert
from perfdocs.html import PageHTML, parse_page
from perfdocs.linkcheck import (
    LinkMap,
    SourceLink,
    Target,
    _Checker,
    check_site,
    external_diagnostics,
    link_targets,
    missing_page_hint,
    resolve_href,
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


def test_parse_ignores_code_and_collects_ids() -> None:
    html = page(
        '<h2 id="sec">S</h2><p><code>&lt;a href="nope/"&gt; id="fake"</code></p>'
        '<a href="x/#sec">x</a><img src=\'i.png\'><a name="old"></a><a href="mailto:a@b">m</a>'
    )
    parsed = parse_page(html)
    assert parsed.ids == {"sec", "old"}  # text that looks like markup is text; name= counts on <a> only
    assert list(parsed.urls) == ["x/#sec", "i.png", "mailto:a@b"]


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


def test_parallel_parse_gives_the_same_report(site: Path) -> None:
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
    links = sorted(convert(text, SourceMap.identity("docs/performance/infer/cpu.md", 7)).links, key=lambda x: x[1].line)
    assert [(raw, loc.line, loc.col) for raw, loc in links] == [
        ("../train/gpu_one.md#x", 1, 9),
        ("img/p.png", 5, 6),
        ("missing.md", 6, 8),
        ("#local", 7, 1),  # raw HTML: the column of its tag
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
    "href",
    ["../", "../#x", "../#y", "../../", "../../../", "../c/d.png", "./", "../x.html", "/x.html", "c/#x", "?q", "#y"],
)
def test_shared_outcomes_equal_fresh_ones(href: str) -> None:
    """Outcomes are shared by scope (all pages, siblings, one directory): a page must never get another's verdict."""
    pages = ["index.html", "x.html", "a/index.html", "a/b/index.html", "a/e/index.html", "c/index.html"]
    files, dirs = {*pages, "a/c/d.png"}, {"", "a", "a/b", "a/e", "a/c", "c"}
    parsed = {p: PageHTML({href: ("a", "href")}, {"x"}) for p in pages}
    for order in (pages, pages[::-1]):
        shared = _Checker(files, dirs, parsed, "/")
        for p in order:
            assert shared.check_page(p, parsed[p]) == _Checker(files, dirs, parsed, "/").check_page(p, parsed[p])


def test_ids_names_comments_and_top() -> None:
    text = page(
        '<h2 id=minified>M</h2><meta name="viewport"><input name="query"><a name="legacy"></a>\n'
        '<!-- <a href="commented/">old</a>\n<h2 id="hidden">x</h2> -->\n<a href="real/">r</a>'
    )
    parsed = parse_page(text)
    assert parsed.ids == {"minified", "legacy"}
    assert list(parsed.urls) == ["real/"]


def test_top_fragment_needs_no_id(tmp_path: Path) -> None:
    site = write_site(tmp_path / "site", {"index.html": page('<a href="#top">up</a> <a href="#TOP">up</a>')})
    assert check_site(site, jobs=1).problems == []


def problems_of(site: Path) -> list[tuple[str, str, int, int, str, str]]:
    return [(p.page, p.href, p.line, p.col, p.status, p.message) for p in check_site(site, jobs=1).problems]


def test_links_the_regex_scanner_missed(tmp_path: Path) -> None:
    site = write_site(
        tmp_path / "site",
        {
            "index.html": page(
                '<a Href="gone1.html">1</a>\n<p>x <a href = "gone2.html">2</a></p>\n'
                '<img src="ok.png" srcset="ok.png 1x, gone3.png 2x">\n<a title="a>b" href="gone4.html">4</a>'
            ),
            "based/index.html": page('<base href="../sub/">\n<a href="ok.html">ok</a>\n  <a href="gone5.html">5</a>'),
            "sub/ok.html": page("ok"),
            "ok.png": "png",
        },
    )
    assert problems_of(site) == [
        ("based/index.html", "gone5.html", 4, 3, "missing-file", "no file sub/gone5.html in the site"),
        ("index.html", "gone1.html", 2, 1, "missing-file", "no file gone1.html in the site"),
        ("index.html", "gone2.html", 3, 6, "missing-file", "no file gone2.html in the site"),
        ("index.html", "gone3.png", 4, 1, "missing-file", "no file gone3.png in the site"),
        ("index.html", "gone4.html", 5, 1, "missing-file", "no file gone4.html in the site"),
    ]


def test_base_href_applies_to_fragment_links(tmp_path: Path) -> None:
    site = write_site(
        tmp_path / "site",
        {
            "index.html": page(
                '<base href="other.html">\n<a href="#there">ok</a> <a href="#here">bad</a>\n<p id="here">'
            ),
            "other.html": page('<h2 id="there">T</h2>'),
        },
    )
    assert problems_of(site) == [
        ("index.html", "#here", 3, 25, "missing-fragment", "no id 'here' in other.html"),
    ]


def test_targets_that_exist_are_not_reported(tmp_path: Path) -> None:
    site = write_site(
        tmp_path / "site",
        {
            "index.html": page(
                '<h2 ID="Sec">S</h2><p id="a&amp;b"></p><p id="a%20c"></p><p id="x y"></p><p id="caf\u00e9"></p>\n'
                '<a href="#Sec">1</a> <a href="#a&amp;b">2</a> <a href="#a%20c">3</a> <a href="#x%20y">4</a>\n'
                '<a href="#x y">5</a> <a href="#caf%C3%A9">6</a> <a href="#caf\u00e9">7</a> <a href="#Top">8</a>\n'
                '<script>document.write(\'<a href="gone.html">\')</script><textarea><a href="gone2.html"></textarea>'
            ),
        },
    )
    assert problems_of(site) == []


def test_fragments_are_matched_raw_then_percent_decoded_only(tmp_path: Path) -> None:
    """'#a&amp;amp;b' is the fragment 'a&amp;b': nothing decodes its entity, so it is not the id 'a&b'."""
    site = write_site(
        tmp_path / "site",
        {
            "index.html": page(
                '<p id="a&amp;b"></p><p id="a c"></p>\n'
                '<a href="#a&amp;amp;b">1</a>\n<a href="#sec">2</a> <a href="#%FF">3</a> <a href="#a%2520c">4</a>'
            ),
        },
    )
    assert problems_of(site) == [
        ("index.html", "#a&amp;b", 3, 1, "missing-fragment", "no id 'a&amp;b' in index.html"),
        ("index.html", "#sec", 4, 1, "missing-fragment", "no id 'sec' in index.html"),
        ("index.html", "#%FF", 4, 22, "missing-fragment", "no id '%FF' in index.html"),
        ("index.html", "#a%2520c", 4, 43, "missing-fragment", "no id 'a%20c' in index.html"),
    ]


@pytest.mark.parametrize("directory", ["a", "z"])  # checked after, and before, the root page
def test_parent_links_from_root_and_top_level_pages_do_not_share_a_verdict(tmp_path: Path, directory: str) -> None:
    site = write_site(
        tmp_path / "site",
        {
            "index.html": page('<a href="../x.html">leaves the site</a>'),
            f"{directory}/index.html": page('<a href="../x.html">the root x.html</a> <a href="../../x.html">out</a>'),
            "x.html": page("x"),
        },
    )
    assert problems_of(site) == sorted(
        [
            (f"{directory}/index.html", "../../x.html", 2, 41, "outside-site", "points outside the site"),
            ("index.html", "../x.html", 2, 1, "outside-site", "points outside the site"),
        ]
    )


def test_problems_are_reported_at_the_line_of_their_tag(tmp_path: Path) -> None:
    site = write_site(
        tmp_path / "site",
        {
            "index.html": page('<p>one</p>\n<p>two\n   <a class="x"\n      href="gone/">g</a></p>'),
            "old/index.html": '<!doctype html>\n<head>\n<meta http-equiv="refresh" content="0; url=../moved/">\n</head>',
        },
    )
    report = check_site(site, jobs=1)
    assert [str(d) for d in to_diagnostics(report, site, None, "site")] == [
        "site/index.html:4:4: error: broken link 'gone/': no file gone/ in the site [missing-file]",
        "site/old/index.html:3:1: error: broken link '../moved/': no file moved/ in the site [missing-file]",
    ]


def test_external_links_are_collected_and_located(tmp_path: Path) -> None:
    site = write_site(
        tmp_path / "site",
        {
            "index.html": page('<p>\n  <a href="https://example.org/a#x">a</a> <img src="http://example.org/i.png">'),
            "b/index.html": page('<a href="mailto:x@y">m</a> <a href="https://example.org/a">again</a>'),
        },
    )
    report = check_site(site, jobs=1)
    assert report.external == {
        "https://example.org/a": [("b/index.html", "https://example.org/a"), ("index.html", "https://example.org/a#x")],
        "http://example.org/i.png": [("index.html", "http://example.org/i.png")],
    }
    results = {"https://example.org/a": SimpleNamespace(status="broken", message="HTTP 404")}
    assert [str(d) for d in external_diagnostics(report, results, site, None, "site")] == [
        "site/b/index.html:2:28: error: external link 'https://example.org/a': HTTP 404 [external-broken]",
        "site/index.html:3:3: error: external link 'https://example.org/a': HTTP 404 [external-broken]",
    ]


def test_a_redirect_to_an_anchor_sends_every_fragment_there(tmp_path: Path) -> None:
    """Like the redirect page's script: a target with its own fragment replaces the one the reader came with."""
    rmap = RedirectMap(pages={"moved": RedirectTarget(page="a.md", anchor="mixed")})
    site = write_site(
        tmp_path / "site",
        {
            "index.html": page('<a href="moved/#anything">1</a> <a href="moved/">2</a>'),
            "a/index.html": page('<h2 id="mixed">M</h2>'),
            **redirect_pages(rmap, lambda p: "a/", lambda p: "A"),
        },
    )
    assert problems_of(site) == []


PAGES = ["performance/infer/cpu_inference.md", "performance/infer/gpu_one.md", "performance/train/gpu_one.md"]


@pytest.mark.parametrize(
    "missing, holder, renames, hint",
    [
        # a renamed page is not "like" an unrelated one because their directories match
        ("performance/infer/cpu.md", "performance/train/gpu_one.md", {}, None),
        (
            "performance/infer/cpu.md",
            "performance/train/gpu_one.md",
            {"performance/infer/cpu.md": "performance/infer/cpu_inference.md"},
            "did you mean 'performance/infer/cpu_inference.md'? git saw performance/infer/cpu.md renamed to it",
        ),
        # a rename to a page that no longer exists is no hint
        ("performance/infer/cpu.md", "performance/train/gpu_one.md", {"performance/infer/cpu.md": "x.md"}, None),
        # the file name decides, the directory breaks the tie
        (
            "performance/train/gpu_uno.md",
            "performance/infer/gpu_one.md",
            {},
            "did you mean 'performance/train/gpu_one.md'?",
        ),
        # never the page holding the link
        (
            "performance/train/gpu_uno.md",
            "performance/train/gpu_one.md",
            {},
            "did you mean 'performance/infer/gpu_one.md'?",
        ),
        (
            "performance/_theory/batch_size.md",
            "performance/train/gpu_one.md",
            {},
            "snippets are not pages: link to the section of the page that shows it",
        ),
    ],
)
def test_missing_page_hints(missing: str, holder: str, renames: dict[str, str], hint: str | None) -> None:
    assert missing_page_hint(missing, PAGES, holder, renames) == hint


def test_missing_page_hints_reach_the_diagnostics(tmp_path: Path) -> None:
    holder_html = "performance/train/gpu_one/index.html"
    raws = ["../infer/cpu.md", "../_theory/batch_size.md"]
    site = write_site(
        tmp_path / "site",
        {
            holder_html: page(" ".join(f'<a href="{raw}">l</a>' for raw in raws)),
            "performance/infer/gpu_one/index.html": page("g"),
            "performance/infer/cpu_inference/index.html": page("c"),
        },
    )
    lmap = LinkMap(sources={f"{p[:-3]}/index.html": f"docs/{p}" for p in PAGES})
    links = [(raw, Location("docs/performance/train/gpu_one.md", 5, 1 + 20 * i)) for i, raw in enumerate(raws)]
    dest_of = {p: f"{p[:-3]}/index.html" for p in PAGES}
    for target, link in link_targets("performance/train/gpu_one.md", holder_html, links, dest_of):
        lmap.add(holder_html, target, link)
    report = check_site(site, jobs=1)
    renames = {"performance/infer/cpu.md": "performance/infer/cpu_inference.md"}
    assert [str(d) for d in to_diagnostics(report, site, lmap, "site")] == [
        "docs/performance/train/gpu_one.md:5:1: error: broken link '../infer/cpu.md': no page "
        "performance/infer/cpu.md in the docs [missing-file]",
        "docs/performance/train/gpu_one.md:5:21: error: broken link '../_theory/batch_size.md': no page "
        "performance/_theory/batch_size.md in the docs [missing-file] (snippets are not pages: link to the section "
        "of the page that shows it)",
    ]
    assert str(to_diagnostics(report, site, lmap, "site", renames=renames)[0]) == (
        "docs/performance/train/gpu_one.md:5:1: error: broken link '../infer/cpu.md': no page "
        "performance/infer/cpu.md in the docs [missing-file] (did you mean 'performance/infer/cpu_inference.md'? "
        "git saw performance/infer/cpu.md renamed to it)"
    )


def test_a_check_with_a_cache_parses_only_the_pages_whose_bytes_changed(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What mkdocs serve's rebuilds pass (BuildState.parsed_pages): the redirect pages, written again each time
    with the same bytes, are not parsed again; the report is a fresh check's."""
    import perfdocs.linkcheck as linkcheck

    parsed: list[str] = []
    real = linkcheck.parse_page
    monkeypatch.setattr(linkcheck, "parse_page", lambda text: parsed.append(text) or real(text))
    cache: dict = {}
    first = check_site(site, jobs=1, cache=cache)
    assert len(parsed) == len(cache) == first.pages
    parsed.clear()
    (site / "a/index.html").write_text(page('<h2 id="mixed">M</h2><h2 id="gone">G</h2>'), encoding="utf-8")
    second = check_site(site, jobs=1, cache=cache)
    assert len(parsed) == 1 and '"gone"' in parsed[0]
    fresh = check_site(site, jobs=1)
    assert sorted(map(repr, second.problems)) == sorted(map(repr, fresh.problems))
    assert "a/#gone" not in {p.href for p in second.problems} and second.links == fresh.links
