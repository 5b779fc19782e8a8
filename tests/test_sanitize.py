"""The allowlist sanitiser: what it reports in raw HTML, what it removes from pages, what it keeps."""

from __future__ import annotations

from pathlib import Path

import pytest
from mkdocs_autorefs import AUTOREF_RE
from perfdocs.build import BuildState, SiteFile
from perfdocs.diagnostics import Diagnostic
from perfdocs.embeds import embed_hosts
from perfdocs.pagecontent import clean_late
from perfdocs.sanitize import (
    EMBED,
    SPAN_MARK,
    attribute_spans,
    clean_page,
    marked,
    replaced,
    srcset_urls,
    unsafe_constructs,
    url_scheme,
)
from selectolax.lexbor import LexborHTMLParser

STYLE = (
    "style property '{}' is not allowed in pages (only border, border-radius, float, font-style, font-weight, "
    "height, max-height, max-width, min-width, padding, text-align, text-decoration, vertical-align, white-space, "
    "width)"
)
EVENT = "event handler attribute '{}' is not allowed in pages"
SCHEME = "URL with the {}: scheme is not allowed"


def found(fragment: str) -> list[tuple[int, str, str]]:
    return [(f.offset, f.code, f.message) for f in unsafe_constructs(fragment)]


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        ("<img/onerror=alert(1) src=x>", [(5, "forbidden-html", EVENT.format("onerror"))]),
        ("<svg/onload=alert(1)>", [(0, "forbidden-html", "raw <svg> is not allowed in pages")]),
        ('<a href="&#106;avascript:alert(1)">x</a>', [(3, "unsafe-url", SCHEME.format("javascript"))]),
        ('<img src="x.png"\n     onerror="alert(2)">', [(22, "forbidden-html", EVENT.format("onerror"))]),
        (
            '<iframe\n  src="https://evil.example/"></iframe>',
            [(0, "forbidden-html", "raw <iframe> is not allowed in pages")],
        ),
        (
            '<div srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;">',
            [(5, "forbidden-html", "attribute 'srcdoc' is not allowed in pages")],
        ),
        ('<a href="java&#x09;script:alert(1)">', [(3, "unsafe-url", SCHEME.format("javascript"))]),
        ('<a href="  javascript:alert(1)">', [(3, "unsafe-url", SCHEME.format("javascript"))]),
        ('<a href="JaVaScRiPt:alert(1)">', [(3, "unsafe-url", SCHEME.format("javascript"))]),
        ('<a href="vbscript:msgbox(1)">', [(3, "unsafe-url", SCHEME.format("vbscript"))]),
        ('<img src="data:image/svg+xml;base64,PHN2Zz4=">', [(5, "unsafe-url", SCHEME.format("data"))]),
        ('<img srcset="a.png 1x, javascript:alert(1) 2x">', [(5, "unsafe-url", SCHEME.format("javascript"))]),
        ('<blockquote cite="javascript:alert(1)">q</blockquote>', [(12, "unsafe-url", SCHEME.format("javascript"))]),
        ("<script>alert(1)</script>", [(0, "forbidden-html", "raw <script> is not allowed in pages")]),
        ("<style>body{}</style>", [(0, "forbidden-html", "raw <style> is not allowed in pages")]),
        ('<object data="x.swf"></object>', [(0, "forbidden-html", "raw <object> is not allowed in pages")]),
        ('<embed src="x.swf">', [(0, "forbidden-html", "raw <embed> is not allowed in pages")]),
        ('<base href="https://evil.example/">', [(0, "forbidden-html", "raw <base> is not allowed in pages")]),
        ('<meta http-equiv="refresh" content="0">', [(0, "forbidden-html", "raw <meta> is not allowed in pages")]),
        # a form is reported once: what it holds goes with it
        (
            '<form action="/x"><button formaction="javascript:x">b</button></form>',
            [(0, "forbidden-html", "raw <form> is not allowed in pages")],
        ),
        ('<p style="position:fixed">x</p>', [(3, "forbidden-html", STYLE.format("position"))]),
        (
            '<table><tr><td style="text-align: left; color: red">x</td></tr></table>',
            [(15, "forbidden-html", STYLE.format("color"))],
        ),
        ('<span style="background: url(https://evil.example/x.png)">x</span>', [(6, "forbidden-html", STYLE.format("background"))]),
        # the second <img> is the bad one, and an attribute value with '>' does not hide the handler
        ('<img src="ok.png"><img src=x onerror=y>', [(29, "forbidden-html", EVENT.format("onerror"))]),
        ('<a title="a>b" onclick="x">t</a>', [(15, "forbidden-html", EVENT.format("onclick"))]),
        ('<img ONERROR="x" src=y>', [(5, "forbidden-html", EVENT.format("onerror"))]),
        (
            '<img src="x" onerror="a" onload="b">',
            [(13, "forbidden-html", EVENT.format("onerror")), (25, "forbidden-html", EVENT.format("onload"))],
        ),
        ("<math><mi onclick=x>x</mi></math>", [(10, "forbidden-html", EVENT.format("onclick"))]),
        (
            '<math><mi href="javascript:x">x</mi></math>',
            [(10, "forbidden-html", "attribute 'href' is not allowed in pages")],
        ),
    ],
)
def test_unsafe_constructs(fragment: str, expected: list[tuple[int, str, str]]) -> None:
    assert found(fragment) == expected


@pytest.mark.parametrize(
    "fragment",
    [
        '<kbd>Ctrl</kbd> H<sub>2</sub>O x<sup>2</sup><br><abbr title="t">T</abbr><mark>m</mark><del>d</del><ins>i</ins>',
        '<span class="highlight">s</span><dl><dt>t</dt><dd>d</dd></dl><details open><summary>s</summary>b</details>',
        '<figure><picture><source srcset="a.webp 1x, b.webp 2x" type="image/webp"><img src="a.png" alt="a" '
        'width="10" loading="lazy"></picture><figcaption>c</figcaption></figure>',
        '<video controls poster="p.png" width="320"><source src="v.mp4" type="video/mp4"></video>',
        '<a href="https://example.org/x?q=1#f" title="t">e</a><a href="../x.md#y">r</a><a href="#top">f</a>',
        '<a href="mailto:a@example.org">m</a><a href="a/b:c">relative with a colon</a>',
        '<table><tr><th style="text-align: center;">h</th><td align="right" colspan="2">d</td></tr></table>',
        # layout as pages pasted from doc-builder write it
        '<span style="white-space:nowrap;">a b</span><img src="a.png" alt="a" style="width: 50%; float: right">',
        '<math display="block"><mrow><mi>x</mi><mo>=</mo><mfrac><mn>1</mn><mn>2</mn></mfrac></mrow></math>',
        '<div class="admonition tip" data-x="1" aria-label="a" role="note" id="i">x</div>',
        "</div>",
    ],
)
def test_ordinary_html_is_kept(fragment: str) -> None:
    assert unsafe_constructs(fragment) == []
    cleaned, findings = clean_page(fragment)
    assert findings == []
    assert shape(cleaned) == shape(fragment)


def test_unknown_names_are_left_to_the_dialect() -> None:
    """A component the dialect did not convert (it reports it) is not ours to report; its tag is dropped."""
    assert unsafe_constructs("<Tip warning={true}>") == []
    assert clean_page("<Tip warning={true}><p>x</p></Tip>") == ("<p>x</p>", [])


@pytest.mark.parametrize(
    "fragment, message",
    [
        (
            '<div id="__config" hidden>{}</div>',
            "id '__config' is reserved for the theme (its ids start with two underscores or 'md-')",
        ),
        (
            '<p id="md-header">x</p>',
            "id 'md-header' is reserved for the theme (its ids start with two underscores or 'md-')",
        ),
        (
            '<input id="__tabbed_1_1" type="radio">',
            "id '__tabbed_1_1' is reserved for the theme (its ids start with two underscores or 'md-')",
        ),
        ('<div class="note md-dialog">x</div>', "class 'md-dialog' is reserved for the theme and the site's scripts"),
        (
            '<div class="perfdocs-estimator">x</div>',
            "class 'perfdocs-estimator' is reserved for the theme and the site's scripts",
        ),
        (
            '<span data-md-component="search">x</span>',
            "attribute 'data-md-component' is reserved for the theme and the site's scripts",
        ),
        (
            "<span data-perfdocs-copy-page>x</span>",
            "attribute 'data-perfdocs-copy-page' is reserved for the theme and the site's scripts",
        ),
    ],
)
def test_names_the_theme_and_scripts_rely_on_are_refused_in_authored_html(fragment: str, message: str) -> None:
    assert [(f.message, f.code) for f in unsafe_constructs(fragment)] == [(message, "reserved-name")]


def test_the_output_keeps_only_the_extensions_own_reserved_names() -> None:
    # pymdownx.tabbed writes __tabbed_ ids, pymdownx.highlight __codelineno- anchors, the dialect perfdocs-* classes
    ours = (
        '<input checked="checked" id="__tabbed_1_1" name="__tabbed_1" type="radio"><label for="__tabbed_1_1">A</label>'
        '<a id="__codelineno-0-1" name="__codelineno-0-1"></a><div class="perfdocs-estimator" data-estimator="{}"></div>'
    )
    cleaned, findings = clean_page(ours)
    assert findings == []
    assert shape(cleaned) == shape(ours)
    theirs = '<div id="__config">{}</div><p id="__tabbed_x">t</p><p class="note md-overlay" data-md-state="lock">o</p>'
    cleaned, findings = clean_page(theirs)
    assert [(f.message, f.offset) for f in findings] == [
        ("id '__config' is reserved for the theme (its ids start with two underscores or 'md-')", theirs.index("id=")),
        (
            "id '__tabbed_x' is reserved for the theme (its ids start with two underscores or 'md-')",
            theirs.index('id="__tabbed_x"'),
        ),
        ("class 'md-overlay' is reserved for the theme and the site's scripts", theirs.index("class=")),
        ("attribute 'data-md-state' is reserved for the theme and the site's scripts", theirs.index("data-md-state")),
    ]
    assert cleaned == '<div>{}</div><p>t</p><p class="note">o</p>'


def test_classes_nothing_writes_are_dropped_from_the_output_without_a_report() -> None:
    # pages pasted from doc-builder carry Tailwind classes; nothing styles them here
    cleaned, findings = clean_page(
        '<div class="flex justify-center highlight"><span class="n">x</span><span class="l-Scalar-Plain">y</span>'
        '<span class="nX">z</span></div><details class="arg"><summary>s</summary></details>'
    )
    assert findings == []
    assert cleaned == (
        '<div class="highlight"><span class="n">x</span><span class="l-Scalar-Plain">y</span><span>z</span></div>'
        '<details class="arg"><summary>s</summary></details>'
    )


def shape(html: str) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """Elements and text in document order, attributes sorted: what a browser renders from the HTML.

    Comments render nothing, so they are left out and the text around them is joined.
    """
    root = LexborHTMLParser(html, is_fragment=True).root
    if root is None:
        return []
    out: list[tuple[str, tuple[tuple[str, str], ...]]] = []
    for node in root.traverse(include_text=True):
        if node.tag == "-comment":
            continue
        if node.tag == "-text":
            text = node.text_content or ""
            if out and out[-1][0] == "#text":
                text = out.pop()[1][0][1] + text
            out.append(("#text", (("", text),)))
        else:
            out.append((node.tag or "", tuple(sorted((k, _normal(k, v or "")) for k, v in node.attributes.items()))))
    return out


def _normal(name: str, value: str) -> str:
    return value.replace(" ", "").rstrip(";") if name == "style" else value


@pytest.mark.parametrize(
    ("value", "scheme"),
    [
        ("javascript:x", "javascript"),
        ("  JavaScript:x", "javascript"),
        ("java\tscript:x", "javascript"),
        ("java\nscript:x", "javascript"),
        ("\x01javascript:x", "javascript"),
        ("https://x", "https"),
        ("x.html", None),
        ("../a/b.md#c", None),
        ("#frag", None),
        ("a/b:c", None),
        ("?q=a:b", None),
        ("1x:y", None),
    ],
)
def test_url_scheme(value: str, scheme: str | None) -> None:
    assert url_scheme(value) == scheme


def test_srcset_urls() -> None:
    assert srcset_urls("a.png 1x,  b.png 2x , c.png") == ["a.png", "b.png", "c.png"]


def test_attribute_spans_skip_quoted_values() -> None:
    tag = "<img title='onerror=x' / src=x\n  onerror = \"y\">"
    spans = attribute_spans(tag)
    assert [(name, offset) for name, offset, _, _ in spans] == [("title", 5), ("src", 25), ("onerror", 33)]
    assert [tag[offset:end] for _, offset, end, _ in spans] == ["title='onerror=x'", "src=x", 'onerror = "y"']
    assert [tag[lead:offset] for _, offset, _, lead in spans] == [" ", " / ", "  "]  # what goes with it (not a line)


@pytest.mark.parametrize(
    ("page", "kept"),
    [
        ('<p>a</p><img src="x.png" onerror="alert(1)"><p>b</p>', '<p>a</p><img src="x.png"><p>b</p>'),
        ("<p>a<script>alert(1)</script>b</p>", "<p>ab</p>"),
        ('<iframe src="https://evil.example/"></iframe><p>x</p>', "<p>x</p>"),
        ('<a href="&#106;avascript:alert(1)">x</a>', "<a>x</a>"),
        ('<a href="java&#x09;script:alert(1)">x</a>', "<a>x</a>"),
        ('<img srcset="javascript:alert(1) 1x" src="a.png">', '<img src="a.png">'),
        ('<svg onload="alert(1)"><circle r="1"></circle></svg><p>x</p>', "<p>x</p>"),
        ("<p>x<!-- a comment --></p>", "<p>x</p>"),
    ],
)
def test_clean_page_removes_what_it_reports(page: str, kept: str) -> None:
    cleaned, findings = clean_page(page)
    assert shape(cleaned) == shape(kept)
    assert len(findings) == (0 if "<!--" in page else 1)
    assert_not_executable(cleaned)


def assert_not_executable(html: str) -> None:
    tree = LexborHTMLParser(html, is_fragment=True)
    assert tree.root is not None
    for node in tree.root.traverse(include_text=False):
        assert node.tag not in {"script", "iframe", "object", "embed", "svg", "style", "form", "base", "meta"}
        for name, value in node.attributes.items():
            assert not name.lower().startswith("on"), (node.tag, name)
            for url in srcset_urls(value or "") if name == "srcset" else [value or ""]:
                assert url_scheme(url) in {None, "http", "https", "mailto"}, (node.tag, name, value)


def test_clean_page_finding_offsets_point_into_the_page() -> None:
    page = '<p>intro</p>\n<p><img src="a.png"\n   onerror="alert(2)"></p>'
    [finding] = clean_page(page)[1]
    assert page[finding.offset :].startswith("onerror")
    assert finding.construct == "onerror"


HOSTS = embed_hosts(["www.youtube-nocookie.com", "www.youtube.com", "*.hf.space"])


@pytest.mark.parametrize(
    ("fragment", "address"),
    [
        ('<iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ" title="A talk"></iframe>',
         "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"),
        ('<iframe\n  src="https://org-demo.hf.space"\n  width="850" height="450"\n></iframe>', "https://org-demo.hf.space/"),
    ],
)
def test_an_iframe_from_an_allowed_host_becomes_a_placeholder_that_loads_nothing(fragment: str, address: str) -> None:
    [finding] = unsafe_constructs(fragment, HOSTS)
    assert finding.code == EMBED and finding.spans == ((0, len(fragment)),)
    shown = LexborHTMLParser(finding.replacement, is_fragment=True)
    [box] = shown.css("div.perfdocs-embed")
    assert box.attributes["data-perfdocs-embed"] == address
    assert [a.attributes["href"] for a in box.css("a")] == [address]  # without JavaScript: a link to it
    # nothing in it requests anything: no iframe, image, script or style
    assert [n.tag for n in shown.root.traverse(include_text=False)] == ["div", "p", "strong", "br", "code", "a"]
    cleaned, findings = clean_page(finding.replacement)
    assert findings == [] and shape(cleaned) == shape(finding.replacement)  # the output allowlist keeps it whole


@pytest.mark.parametrize(
    ("fragment", "message"),
    [
        ('<iframe src="https://evil.example/x">fallback</iframe>',
         "<iframe> not allowed: evil.example is not a host pages may embed from (extra.perfdocs.embed_hosts: "
         "www.youtube-nocookie.com, www.youtube.com, *.hf.space)"),
        ('<iframe src="http://org-demo.hf.space">fallback</iframe>',
         "<iframe> not allowed: 'http://org-demo.hf.space' is not an https:// address"),
        ('<iframe srcdoc="<b>x</b>">fallback</iframe>', "raw <iframe> is not allowed in pages"),
    ],
)
def test_an_iframe_from_anywhere_else_is_refused_with_its_reason(fragment: str, message: str) -> None:
    [finding] = unsafe_constructs(fragment, HOSTS)
    assert (finding.code, finding.message) == ("forbidden-html", message)
    assert [fragment[a:b] for a, b in finding.spans][1:] == ["</iframe>"]  # its tags go, its fallback text stays


def test_an_author_cannot_write_a_placeholder_of_their_own() -> None:
    fake = '<div class="perfdocs-embed" data-perfdocs-embed="https://evil.example/">x</div>'
    assert [f.construct for f in unsafe_constructs(fake, HOSTS)] == ["perfdocs-embed", "data-perfdocs-embed"]


def test_an_iframe_written_as_raw_html_is_removed_even_when_it_points_to_youtube() -> None:
    page = '<iframe src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"></iframe>'
    cleaned, findings = clean_page(page)
    assert [f.message for f in findings] == ["raw <iframe> is not allowed in pages"]
    assert "iframe" not in cleaned


CAPTURE_HOOK = """
from pathlib import Path

OUT = Path(__file__).parent / "captured"


def on_page_content(html, page, **_):
    OUT.mkdir(exist_ok=True)
    (OUT / (page.file.src_uri.replace("/", "__") + ".html")).write_text(html, encoding="utf-8")
    return html
"""

# What the site's own markup must keep: tabs, admonitions, code, details, the matrix, headerlinks.
PARTS = [
    "div.tabbed-set > input[type=radio][name][id]",
    "div.tabbed-labels > label[for]",
    "div.tabbed-content > div.tabbed-block",
    "div.admonition > p.admonition-title",
    "div.highlight pre code span[class]",
    "a.headerlink[href^='#']",
    "td[style], th[style]",
    "span.perfdocs-sr-only",
    "p.perfdocs-edit > a[href^='https://']",
    "table",
]


@pytest.mark.slow
def test_the_real_site_loses_nothing(tmp_path: Path) -> None:
    """Every page's content, as MkDocs renders it, goes through the allowlist unchanged in meaning."""
    from .sitetools import DEPLOYMENT, build, copy_project

    project = copy_project(tmp_path / "project")
    (project / "capture.py").write_text(CAPTURE_HOOK, encoding="utf-8")
    config = project / "mkdocs.yml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("hooks:\n", "hooks:\n  - capture.py\n", 1), encoding="utf-8"
    )
    result = build(project, tmp_path / "site", deploy=DEPLOYMENT)  # with a repository: "Edit this explanation"
    assert result.returncode == 0, result.stderr
    pages = sorted((project / "captured").glob("*.html"))
    assert len(pages) >= 9
    totals = dict.fromkeys(PARTS, 0)
    for page in pages:
        raw = page.read_text(encoding="utf-8")
        cleaned, findings = clean_page(raw)
        assert findings == [], page.name
        assert shape(cleaned) == shape(raw), page.name
        before, after = LexborHTMLParser(raw, is_fragment=True), LexborHTMLParser(cleaned, is_fragment=True)
        for selector in PARTS:
            assert len(after.css(selector)) == len(before.css(selector)), (page.name, selector)
            totals[selector] += len(before.css(selector))
    assert all(totals.values()), totals  # the site really has each kind of markup


def without(fragment: str, findings: list) -> str:
    """The fragment with each finding's spans replaced as the dialect replaces them."""
    edits = sorted(((span, f.replacement if i == 0 else "") for f in findings for i, span in enumerate(f.spans)))
    for (a, b), new in reversed(edits):
        fragment = fragment[:a] + new + fragment[b:]
    return fragment


@pytest.mark.parametrize(
    ("fragment", "kept"),
    [
        # the layout doc-builder pages write around prose: the refused property goes, the box and the text stay
        (
            '<div style="border: 1px solid #ccc; margin: 2em">Two paragraphs of prose</div>',
            '<div style="border:1px solid #ccc">Two paragraphs of prose</div>',
        ),
        ('<p onclick="x()" class="md-typeset">Text</p>', "<p>Text</p>"),
        ('<object data="a.swf">Fallback text</object>', "Fallback text"),
        ('<iframe\n  src="https://evil.example/">Fallback</iframe>', "Fallback"),
        ("a<script>alert(1)</script>b", "ab"),
        ('<img src="x.png"\n     onerror="alert(2)">', '<img src="x.png"\n>'),
    ],
)
def test_removing_what_is_refused_keeps_the_content(fragment: str, kept: str) -> None:
    findings = unsafe_constructs(fragment)
    assert findings and all(f.spans for f in findings)
    assert without(fragment, findings) == kept
    assert unsafe_constructs(kept) == []


def test_layout_styles_of_doc_builder_pages_are_allowed() -> None:
    assert unsafe_constructs('<div style="border: 1px solid; padding: 1em; border-radius: 8px">x</div>') == []


def test_a_forbidden_element_holding_another_is_not_unwrapped() -> None:
    # <object><embed> unwrapped would leave the <embed>: the caller leaves the block out instead
    [finding] = unsafe_constructs('<object data="a"><embed src="b"></object>')
    assert finding.construct == "<object" and finding.spans == ()


def test_embed_hosts_that_are_not_host_names_are_errors_at_their_line(tmp_path) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "site_name: x\nextra:\n  perfdocs:\n    embed_hosts:\n      - huggingface.co\n      - https://evil.example/\n"
        "      - '*.hf.space'\n      - '*'\n",
        encoding="utf-8",
    )
    hosts = embed_hosts(["huggingface.co", "https://evil.example/", "*.hf.space", "*"], config, "mkdocs.yml")
    assert [str(d) for d in hosts.problems] == [
        "mkdocs.yml:6:1: error: extra.perfdocs.embed_hosts: 'https://evil.example/' is not a host name [bad-config] "
        "(write the bare name, as in huggingface.co, or *.hf.space for every host under a domain)",
        "mkdocs.yml:8:1: error: extra.perfdocs.embed_hosts: '*' is not a host name [bad-config] "
        "(write the bare name, as in huggingface.co, or *.hf.space for every host under a domain)",
    ]
    assert hosts.allows("huggingface.co") and hosts.allows("org-demo.hf.space") and not hosts.allows("hf.space")
    assert not hosts.allows("evil.example")


# -- what plugins put in place of the placeholders, after the sanitiser (BuildState.after_plugins) -----------------

PLACEHOLDERS = (
    '<p>See <autoref identifier="a.B" optional>B</autoref>, then <autoref identifier="a.C">C</autoref>.</p>'
    '<table><tr><td><autoref identifier="a.D"><code>D</code></autoref></td></tr></table>'
)


def test_marks_find_exactly_what_took_each_placeholders_place() -> None:
    given = marked(PLACEHOLDERS, AUTOREF_RE)
    assert given.replace(SPAN_MARK, "") == PLACEHOLDERS
    assert given.count(SPAN_MARK) == 6
    links = iter(['<a href="#b">B</a>', "[C][a.C]", '<a href="#d"><code>D</code></a>'])
    now = AUTOREF_RE.sub(lambda _: next(links), given)  # what mkdocs-autorefs does to the marked content
    assert replaced(given, now) == ['<a href="#b">B</a>', "[C][a.C]", '<a href="#d"><code>D</code></a>']
    assert replaced(given, given) == [m.group(0) for m in AUTOREF_RE.finditer(PLACEHOLDERS)]


@pytest.mark.parametrize(
    "change",
    [
        lambda now: now.replace(", then ", ', <img src="x" onerror="steal()"> then '),  # text between placeholders
        lambda now: now.replace(SPAN_MARK, "", 1),  # a mark lost
        lambda now: now + SPAN_MARK + "<b>x</b>" + SPAN_MARK,  # a span added
    ],
    ids=["text between", "a mark lost", "a span added"],
)
def test_any_other_change_is_not_read_as_replacements(change) -> None:
    given = marked(PLACEHOLDERS, AUTOREF_RE)
    assert replaced(given, change(AUTOREF_RE.sub("<a>x</a>", given))) is None


def test_content_with_a_mark_of_its_own_is_not_marked() -> None:
    assert marked(f"<p>{SPAN_MARK}</p>" + PLACEHOLDERS, AUTOREF_RE) == f"<p>{SPAN_MARK}</p>" + PLACEHOLDERS
    assert marked(PLACEHOLDERS, None) == PLACEHOLDERS


def _converted(html: str) -> tuple[BuildState, SiteFile, list[Diagnostic], str]:
    """A build's state that converted one page to ``html`` with mkdocs-autorefs configured: what it reported, and
    the content it handed over."""
    state = BuildState()
    state.checks.placeholders = AUTOREF_RE
    reported: list[Diagnostic] = []
    state.report = reported.extend  # type: ignore[method-assign]
    file = SiteFile("p.md", "p/index.html", "p/", None, True, True, read=lambda: "")
    return state, file, reported, state.page_content(html, file, None)


PLUGIN = "written by a plugin after the sanitiser; removed from the page"


def test_what_a_plugin_puts_in_a_placeholders_place_goes_through_the_allowlist() -> None:
    state, file, reported, given = _converted(PLACEHOLDERS)
    links = iter(['<a href="#b" onclick="steal()">B</a>', "[C][a.C]", '<a href="#d" autofocus><code>D</code></a>'])
    printed = state.after_plugins(file, AUTOREF_RE.sub(lambda _: next(links), given))
    assert printed == (
        '<p>See <a href="#b">B</a>, then [C][a.C].</p>'
        '<table><tbody><tr><td><a href="#d"><code>D</code></a></td></tr></tbody></table>'
    )
    assert [(d.message, d.hint) for d in reported] == [
        ("event handler attribute 'onclick' is not allowed in pages", PLUGIN),
        ("attribute 'autofocus' is not allowed in pages", PLUGIN),
    ]
    assert state.late_content(file, printed) is None, "printed as after_plugins left it"
    assert state.after_plugins(file, printed) is None, "once per conversion: a rebuild leaves other pages as printed"


def test_a_plugin_that_changes_anything_else_gets_the_whole_content_cleaned_again() -> None:
    state, file, reported, given = _converted(PLACEHOLDERS)
    now = AUTOREF_RE.sub('<a href="#x">x</a>', given).replace(", then ", ', <img src="x" onerror="steal()"> then ')
    printed = state.after_plugins(file, now)
    assert SPAN_MARK not in printed and "onerror" not in printed and '<img src="x">' in printed
    assert [(d.message, d.hint) for d in reported] == [
        ("event handler attribute 'onerror' is not allowed in pages", PLUGIN)
    ]


@pytest.mark.parametrize(
    "link",
    [
        '<a class="autorefs autorefs-internal" title="a.B" href="../api/#a.B"><code>B</code></a>',
        '<span class="autorefs autorefs-external" title="a &amp; b">B &lt;x&gt;</span>',
        '<a href="#b" onclick="steal()" style="color: red; position: fixed">B</a>',
        '<a href="javascript:alert(1)"><a href="#inner">nested</a></a>',
        "<b>unclosed <i>tags",
        "</p><script>alert(1)</script><p>",
    ],
)
def test_cleaning_each_replacement_gives_the_page_cleaning_the_whole_content_gives(link: str) -> None:
    """Where what a plugin wrote is well-formed, the page is the one the whole content cleaned again would give; where
    it is not, each replacement is still cleaned on its own, closed before the cleaned text after it."""
    state, file, reported, given = _converted(PLACEHOLDERS)
    now = AUTOREF_RE.sub(lambda _: link, given)
    printed = state.after_plugins(file, now)
    whole, _ = clean_late(now.replace(SPAN_MARK, ""))
    fragment, _ = clean_late(link)
    assert printed == PLACEHOLDERS_CLEANED.format(fragment, fragment, fragment)
    if "</p>" not in link and "unclosed" not in link and "nested" not in link:
        assert printed == whole


PLACEHOLDERS_CLEANED = "<p>See {}, then {}.</p><table><tbody><tr><td>{}</td></tr></tbody></table>"
