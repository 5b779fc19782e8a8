"""html.py: one HTML5 parse per page gives its links, ids, base and redirect data; tags are located on demand."""

from __future__ import annotations

import pytest
from perfdocs.html import Link, locate, page_ids, parse_page, refresh_url, srcset_urls
from perfdocs.redirects import RedirectMap, redirect_pages
from perfdocs.redirects import Target as RedirectTarget


def test_links_in_any_attribute_case_spacing_and_quoting() -> None:
    parsed = parse_page(
        '<a Href="upper.html">u</a> <a href = "spaced.html">s</a> <A HREF=bare.html>b</A>\n'
        '<a title="a>b" href="after-gt.html">t</a> <a href="&#x2e;/entity.html">e</a> <a href="  trimmed.html\n">x</a>'
    )
    assert list(parsed.urls) == [
        "upper.html",
        "spaced.html",
        "bare.html",
        "after-gt.html",
        "./entity.html",
        "trimmed.html",
    ]


def test_every_kind_of_link_with_its_tag_and_attribute() -> None:
    parsed = parse_page(
        '<link rel="stylesheet" href="s.css"><script src="j.js"></script>'
        '<img src="i.png" srcset="i-1x.png 1x, i-2x.png 2x"><picture><source srcset="w.webp 100w,w2.webp"></picture>'
        '<video src="v.mp4" poster="p.jpg"><track src="t.vtt"></video><audio src="a.ogg"></audio>'
        '<iframe src="f.html"></iframe><embed src="e.swf"><object data="o.svg"></object>'
        '<map><area href="area.html"></map>'
    )
    assert parsed.links == [
        Link("s.css", "link", "href"),
        Link("j.js", "script", "src"),
        Link("i.png", "img", "src"),
        Link("i-1x.png", "img", "srcset"),
        Link("i-2x.png", "img", "srcset"),
        Link("w.webp", "source", "srcset"),
        Link("w2.webp", "source", "srcset"),
        Link("v.mp4", "video", "src"),
        Link("p.jpg", "video", "poster"),
        Link("t.vtt", "track", "src"),
        Link("a.ogg", "audio", "src"),
        Link("f.html", "iframe", "src"),
        Link("e.swf", "embed", "src"),
        Link("o.svg", "object", "data"),
        Link("area.html", "area", "href"),
    ]


def test_text_that_looks_like_markup_is_not_a_link() -> None:
    parsed = parse_page(
        '<script>var s = \'<a href="in-script.html">\';</script><style>a[href="in-style.html"]{}</style>\n'
        '<textarea><a href="in-textarea.html"></textarea><!-- <a href="in-comment.html"> -->\n'
        '<title><a href="in-title.html"></title><p>&lt;a href="escaped.html"&gt;</p><a href="real.html">r</a>'
    )
    assert list(parsed.urls) == ["real.html"]


def test_ids_are_decoded_and_case_kept() -> None:
    parsed = parse_page(
        '<h2 ID="Sec">S</h2><p id="a&amp;b">x</p><p id="a%20c">y</p><a name="legacy"></a>'
        '<input name="query"><meta name="viewport"><!-- <p id="commented"> -->'
    )
    assert parsed.ids == {"Sec", "a&b", "a%20c", "legacy"}
    assert page_ids('<h1 id=x>a</h1><textarea><p id="y"></textarea>') == {"x"}


def test_base_href_is_the_first_one() -> None:
    parsed = parse_page('<head><BASE HREF=" ../docs/ "><base href="ignored/"></head><a href="x.html">x</a>')
    assert parsed.base == "../docs/"


@pytest.mark.parametrize(
    "value, expected",
    [
        ("a.png", ["a.png"]),
        ("a.png 1x, b.png 2x", ["a.png", "b.png"]),
        ("a.png 100w,b.png 200w", ["a.png", "b.png"]),
        ("  a.png,b.png", ["a.png,b.png"]),  # a comma with no space before the next URL is part of the URL
        ("a.png 1x (min-width: 1px, 2px), c.png", ["a.png", "c.png"]),
        ("data:image/png;base64,AAAA 1x, b.png 2x", ["data:image/png;base64,AAAA", "b.png"]),
        ("a.png,, ,", ["a.png"]),
        ("", []),
    ],
)
def test_srcset_urls(value: str, expected: list[str]) -> None:
    assert srcset_urls(value) == expected


@pytest.mark.parametrize(
    "content, expected",
    [
        ("0; url=x.html", "x.html"),
        ("0;URL='y.html'", "y.html"),
        ('3, url = "z.html" trailing', "z.html"),
        ("0; plain.html", "plain.html"),
        ("0.5 spaced.html ", "spaced.html"),
        ("5", None),
        ("0;", None),
        ("soon; url=x.html", None),
        ("0x; url=x.html", None),
    ],
)
def test_refresh_url(content: str, expected: str | None) -> None:
    assert refresh_url(content) == expected


def test_redirect_pages_written_by_the_build_are_read_back() -> None:
    rmap = RedirectMap(
        pages={"old": RedirectTarget(page="a.md")},
        anchors={"old": {"fp16": RedirectTarget(page="a.md", anchor="mixed"), "</x>": RedirectTarget(page="a.md")}},
    )
    pages = redirect_pages(rmap, lambda p: "a/", lambda p: "A")
    parsed = parse_page(pages["old/index.html"])
    assert parsed.refresh == "../a/"
    assert parsed.remaps == {"fp16": "../a/#mixed", "</x>": "../a/"}
    assert parsed.urls == {"../a/": ("link", "href")}  # rel=canonical comes first; the refresh is the same URL


def test_a_refresh_without_the_build_script_has_no_remaps() -> None:
    parsed = parse_page('<meta http-equiv="refresh" content="0; url=new/"><script>var t=1</script>')
    assert (parsed.refresh, parsed.remaps, parsed.urls) == ("new/", {}, {"new/": ("meta", "content")})


@pytest.mark.parametrize(
    "text, url, expected",
    [
        ('<p>x</p>\n  <a href="b.html">b</a>', "b.html", (2, 3)),
        ('<p>\n<a\n   href="split.html"\n>s</a>', "split.html", (2, 1)),
        ('<a title="a>b"\n href="gt.html">g</a>', "gt.html", (1, 1)),
        ('<!-- <a href="c.html"> -->\n<script>"<a href=\\"c.html\\">"</script>\n\n<a href="c.html">', "c.html", (4, 1)),
        ('<p>\n <a href="q&amp;r.html">e</a>', "q&r.html", (2, 2)),
        ('x\n<img srcset="a.png 1x,\n  b.png 2x">', "b.png", (2, 1)),
        ('<table><tr><td><a href="t1">1</a>\n</td></tr><a href="t2">2</a></table>', "t2", (2, 11)),
        ('<p>\n\n  <a href="&#x2e;/e.html">', "./e.html", (3, 3)),  # no plain spelling: found by bisection
        ('<a href="x.html">', "absent.html", (1, 1)),
    ],
)
def test_locate_finds_the_tag_the_parser_read(text: str, url: str, expected: tuple[int, int]) -> None:
    assert locate(text, url) == expected
