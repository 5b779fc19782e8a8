"""Front matter is text: each key checked, markup in titles and descriptions a located error (metadata.py),
and the theme gets them escaped (mkdocs_adapter.theme_text)."""

from __future__ import annotations

import pytest
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File
from mkdocs.structure.pages import Page
from perfdocs.metadata import markup_in, page_front_matter_problems
from perfdocs.mkdocs_adapter import theme_text
from perfdocs.text import split_front_matter


@pytest.mark.parametrize(
    "value, found",
    [
        ("Training on one GPU", None),
        ("Q&A: bf16 & fp16", None),  # an ampersand that starts no character reference is text
        ("a < b, c > d", None),
        ("</title><script>alert(1)</script>", "the HTML tag <script>"),
        ('"><img src=x onerror=alert(1)>', "the HTML tag <img>"),
        ("x <!-- y -->", "an HTML comment"),
        ("A &amp; B", "markup that HTML does not show as written (an end tag or a character reference)"),
        ("done</title>", "markup that HTML does not show as written (an end tag or a character reference)"),
        ("bell\x07", "the control character U+0007"),
        ("line\u2028separator", "the control character U+2028"),
    ],
)
def test_markup_in(value: str, found: str | None) -> None:
    assert markup_in(value) == found


def problems(front: str) -> list[str]:
    source = f"---\n{front}---\n# Page\n"
    found, _ = page_front_matter_problems(split_front_matter(source).data, source, "docs/p.md")
    return [str(d) for d in found]


def test_what_a_page_may_not_say_is_left_out_and_escaped_text_is_kept() -> None:
    source = '---\ntitle: "<b>x</b>"\ndescription: [1]\ntemplate: 404.html\nhide: [toc]\n---\n# P\n'
    _, refused = page_front_matter_problems(split_front_matter(source).data, source, "docs/p.md")
    assert refused == {"description", "template"}


def test_a_page_says_only_what_the_site_reads() -> None:
    front = (
        'title: "</title><script>alert(1)</script>"\n'
        "description: [1, 2]\n"
        "scenario: infer-cpu\n"
        "templat: main.html\n"
        "hide: [toc, everything]\n"
        "search: {boost: 99}\n"
        "toc_depth: 9\n"
    )
    assert problems(front) == [
        "docs/p.md:2:1: error: front matter 'title' is plain text, but contains the HTML tag <script> "
        "[markup-in-metadata] (write the characters themselves; the site escapes them)",
        "docs/p.md:3:1: error: front matter 'description' must be a string, got list [bad-front-matter]",
        "docs/p.md:5:1: error: unknown front matter key 'templat' [bad-front-matter] "
        "(allowed: title, description, scenario, hide, search, toc_depth)",
        "docs/p.md:6:1: error: front matter 'hide' names 'everything', which is not one of feedback, footer, "
        "navigation, path, tags, toc [bad-front-matter]",
        "docs/p.md:7:1: error: front matter 'search' has 'boost: 99'; allowed: 'exclude: true|false', "
        "'boost: a number from 0 to 10' [bad-front-matter]",
        "docs/p.md:8:1: error: front matter 'toc_depth' must be a heading level from 1 to 6, got 9 [bad-front-matter]",
    ]
    assert problems("title: Q&A\ndescription: Fit a 7B model on 24 GB.\nhide: [toc]\nsearch: {exclude: true}\n") == []


def page(nav_title: str | None, meta: dict, h1: str | None = None) -> Page:
    """A MkDocs page as the build hands it to on_env: its nav title, front matter and the title its H1 gave."""
    config = MkDocsConfig()
    config.load_dict({"site_name": "t", "docs_dir": "."})
    obj = Page(nav_title, File("p.md", ".", "site", False), config)
    obj.markdown, obj.meta, obj._title_from_render = "# x", meta, h1
    return obj


def test_the_theme_gets_titles_and_descriptions_escaped_and_the_site_keeps_their_text() -> None:
    hostile = "</title><script>alert(1)</script>"
    p = page(None, {"title": hostile, "description": '"><meta http-equiv="refresh">'})
    assert theme_text(p) == (hostile, '"><meta http-equiv="refresh">')
    assert p.title == p.meta["title"] == "&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
    assert p.meta["description"] == "&quot;&gt;&lt;meta http-equiv=&quot;refresh&quot;&gt;"
    # a title from the H1 is HTML already (Python-Markdown escapes heading text): escaped once, not twice
    p = page(None, {}, h1="A &amp; B &lt;i&gt;")
    assert theme_text(p) == ("A & B <i>", None)
    assert p.title == "A &amp; B &lt;i&gt;"
    # a title that is not a string is dropped, so the H1 gives it, as MkDocs would with no title at all
    p = page(None, {"title": [1, 2]}, h1="Page")
    assert theme_text(p) == ("Page", None)
    assert "title" not in p.meta and p.title == "Page"
    # the nav's title (mkdocs.yml) stays the nav's; the header's (page.meta.title) is the front matter's
    p = page("Overview", {"title": "Performance & scalability"}, h1="Performance")
    assert theme_text(p) == ("Performance & scalability", None)
    assert (p.title, p.meta["title"]) == ("Overview", "Performance &amp; scalability")
