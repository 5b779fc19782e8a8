"""Math, the notebook menu, pipeline badges and <details>: doc-builder constructs as the site renders them.

Where a formula is (doc-builder's delimiters and whitespace rule), what KaTeX makes of it, what the page
keeps once Python-Markdown and the sanitiser have read it, and the errors an author gets.
"""

from __future__ import annotations

import markdown
import pytest
from perfdocs import docbuilder, mathtex
from perfdocs import markdown as md
from perfdocs.diagnostics import SourceMap
from perfdocs.dialect import Converted, Site, convert
from perfdocs.sanitize import ALLOWED_ATTRIBUTES, MATHML_TAGS, clean_page
from selectolax.lexbor import LexborHTMLParser

from .conftest import ROOT
from .test_sanitize import shape

EXTENSIONS = [
    "admonition",
    "attr_list",
    "md_in_html",
    "tables",
    "toc",
    "pymdownx.details",
    "pymdownx.superfences",
    "pymdownx.highlight",
    "pymdownx.inlinehilite",
    "pymdownx.tabbed",
]
NOTEBOOKS = "https://github.com/example/notebooks/blob/main/docs/{framework}{page}.ipynb"


def converted(text: str, notebooks: str | None = NOTEBOOKS, page: str = "guide/perf_train.md") -> Converted:
    site = Site(page, frozenset({page}), notebooks=notebooks)
    return convert(text, SourceMap.identity("page.md", text.count("\n") + 1), site=site)


def rendered(text: str) -> LexborHTMLParser:
    """The page as a reader gets it: converted, rendered by Python-Markdown, through the sanitiser."""
    result = converted(text)
    assert [str(d) for d in result.diagnostics] == []
    html = markdown.markdown(
        result.text, extensions=EXTENSIONS, extension_configs={"pymdownx.tabbed": {"alternate_style": True}}
    )
    cleaned, findings = clean_page(html)
    assert findings == []
    return LexborHTMLParser(cleaned)


def tex_of(text: str) -> list[tuple[str, bool]]:
    return [(f.tex, f.display) for f in mathtex.find_formulas(text, md.scan_inline(text))]


# -- where formulas are ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, expected",
    [
        ("the loss $L$ here", [("L", False)]),
        ("$a$ and $b$ both", [("a", False), ("b", False)]),
        ("at the edges: $x$", [("x", False)]),
        ("$x$ at the start", [("x", False)]),
        ("it costs $5 and $10 a month", []),  # the closing '$' must be followed by white space
        ("it costs $ 5 and $ 10", [(" 5 and ", False)]),  # ... as doc-builder's rule has it
        ("a comma follows $x$, so no", []),
        ("glued a$b$ c", []),
        ("no newline $a\nb$ inside", []),
        ("no < inside $a < b$ here", []),
        ("an escaped \\$x$ opens nothing", []),
        ("code `$x$` and ` $y$ ` stays code", []),
        ("an autolink <https://x.org/$a$> is not math", []),
        ("raw <span title=' $x$ '>html</span> is not math", []),
        ("parens \\\\( a + b \\\\), before a comma", [(" a + b ", False)]),
        ("no space before\\\\( a \\\\)", []),
        ("parens over\n\\\\( two\nlines \\\\) ok", [(" two\nlines ", False)]),
        ("$$E = mc^2$$", [("E = mc^2", True)]),
        ("$$\n\\frac{a}{b}\n$$", [("\n\\frac{a}{b}\n", True)]),
        ("text then\n$$ x $$\nmore", [(" x ", True)]),
        ("mid-line $$x$$ is not display", []),
        ("$$ a $ b $$", [(" a $ b ", True)]),  # display first: its '$' is not inline math
        ("\\\\( $a$ \\\\)", [(" $a$ ", False)]),  # parens before dollars, never overlapping
    ],
)
def test_formulas_are_found_where_doc_builder_finds_them(text: str, expected: list[tuple[str, bool]]) -> None:
    assert tex_of(text) == expected


def test_formula_offsets_cover_the_delimiters() -> None:
    text = "a $x$ b \\\\(y\\\\) c"
    assert [(text[f.start : f.end]) for f in mathtex.find_formulas(text)] == ["$x$", "\\\\(y\\\\)"]


def test_unclosed_display_math_is_found_at_its_line_start() -> None:
    text = "first line\n$$ a + b\nno close"
    formulas = mathtex.find_formulas(text)
    assert formulas == []
    assert mathtex.unclosed_display(text, formulas) == [11]


# -- what KaTeX makes of them ---------------------------------------------------------------------------
def test_inline_formula_is_mathml_with_its_tex_annotation() -> None:
    rendering = mathtex.render("$x^2$", "x^2", False)
    assert rendering.error is None
    assert rendering.lines == [
        '<span class="katex"><math xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow><msup><mi>x</mi>'
        '<mn>2</mn></msup></mrow><annotation encoding="application/x-tex">x&#94;2</annotation></semantics>'
        "</math></span>"
    ]


def test_display_formula_gives_each_source_line_a_part() -> None:
    tex = "\n\\frac{a*b}{c_1} \\\\\n| x |\n"
    rendering = mathtex.render(f"$${tex}$$", tex, True)
    assert len(rendering.lines) == 4 and all(part.strip() for part in rendering.lines)
    assert rendering.lines[0].startswith('<span class="katex-display"><span class="katex"><math ')
    assert 'display="block"' in rendering.lines[0]
    assert rendering.lines[1] == "&#92;frac&#123;a&#42;b&#125;&#123;c&#95;1&#125; &#92;&#92;"
    assert rendering.lines[3] == "</annotation></semantics></math></span></span>"
    tree = LexborHTMLParser("\n".join(rendering.lines))
    assert tree.css_first("annotation").text() == tex  # the entities decode to the TeX as written


@pytest.mark.parametrize(
    "tex, message",
    [
        ("\\foo{x}", "Undefined control sequence: \\foo (at character 1 of the formula)"),
        ("\\frac{a", "Unexpected end of input in a macro argument, expected '}' (at the end of the formula)"),
        ("x^^2", "Expected group after '^' (at character 2 of the formula)"),
        ("a_b_c", "Double subscript (at character 4 of the formula)"),
        ("\\left( x", "Expected '\\right', got 'EOF' (at the end of the formula)"),
        ("\\href{https://x.org}{x}", "\\href is not allowed in math: links, images and HTML need KaTeX's trust option"),
        (
            "\\includegraphics{a.png}",
            "\\includegraphics is not allowed in math: links, images and HTML need KaTeX's trust option",
        ),
        ("\\htmlClass{a}{x}", "\\htmlClass is not allowed in math: links, images and HTML need KaTeX's trust option"),
    ],
)
def test_katex_errors_keep_the_formula_visible(tex: str, message: str) -> None:
    source = f"${tex}$"
    rendering = mathtex.render(source, tex, False)
    assert rendering.error == message
    tree = LexborHTMLParser(rendering.lines[0])
    error = tree.css_first("span.katex-error")
    assert error.attributes["title"] == message
    assert error.text() == source
    assert tree.css("math") == []


# What KaTeX writes for most of what pages use: every element and attribute is on the sanitiser's list.
CORPUS = [
    "\\frac{a}{b} + \\dfrac{1}{2} + \\binom{n}{k} + \\sqrt{x} + \\sqrt[3]{y}",
    "\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix} \\begin{cases}a & x>0\\\\b&\\text{else}\\end{cases}",
    "\\begin{array}{|c|l|}\\hline a&b\\\\\\hline\\end{array}",
    "\\begin{aligned}a&=b\\tag{1}\\end{aligned}",
    "\\cancel{x} \\bcancel{x} \\sout{x} \\boxed{x} \\colorbox{red}{x} \\fcolorbox{red}{blue}{x} \\pmb{x}",
    "\\overbrace{a+b}^{n} \\underbrace{a+b}_{n} \\overline{x} \\hat{x} \\widehat{xy} \\vec{x}",
    "\\color{red}{x} \\Huge x \\tiny y \\mathbb{R} \\mathcal{O} \\boldsymbol{\\alpha} \\operatorname{softmax}",
    "\\left( \\frac{a}{b} \\middle| c \\right) \\big( \\sum_{i=1}^n x_i \\int_0^1 \\lim_{x\\to 0}",
    "\\overset{!}{=} \\underset{a}{b} \\xrightarrow{f} \\not= \\leq \\approx \\times \\cdot \\ldots",
    "\\phantom{x} \\smash{x} \\mathrlap{x} \\rule{1em}{2em} \\kern1em \\hspace{1em} \\raisebox{2pt}{x} a \\\\ b",
]


@pytest.mark.parametrize(
    "tex, display", [(tex, display) for tex in CORPUS for display in (False, True) if display or "\\tag" not in tex]
)
def test_katex_output_passes_the_sanitiser_unchanged(tex: str, display: bool) -> None:
    rendering = mathtex.render(tex, tex, display)
    assert rendering.error is None
    html = "\n".join(rendering.lines)
    cleaned, findings = clean_page(html)
    assert findings == []
    assert shape(cleaned) == shape(html)
    for node in LexborHTMLParser(html, is_fragment=True).root.traverse(include_text=False):  # type: ignore[union-attr]
        tag = node.tag or ""
        if tag in ("span", "-undef") or tag.startswith("#"):
            continue
        assert tag in MATHML_TAGS
        allowed = ALLOWED_ATTRIBUTES[tag] | ALLOWED_ATTRIBUTES["*"]
        assert set(node.attributes) <= allowed, (tag, node.attributes)


def test_style_katex_writes_is_dropped_before_the_page() -> None:
    html = "".join(mathtex.render("x", "\\pmb{x} \\fcolorbox{red}{blue}{y}", False).lines)
    assert "style=" not in html
    assert "<mpadded" in html and 'mathbackground="blue"' in html


@pytest.mark.parametrize(
    "hostile, gone",
    [
        ('<math><mi href="javascript:alert(1)">x</mi></math>', "javascript"),
        ("<math><mtext><script>alert(1)</script></mtext></math>", "alert"),
        ('<math><mi onclick="alert(1)">x</mi></math>', "onclick"),
        ('<math><mi style="position:fixed;inset:0">x</mi></math>', "position"),
        ('<math><mglyph src="https://evil.example/x.png"></mglyph></math>', "evil.example"),
        ('<math><maction actiontype="statusline">x<mtext>hi</mtext></maction></math>', "actiontype"),
        (
            '<math><semantics><annotation-xml encoding="text/html"><img src=x onerror=alert(1)>'
            "</annotation-xml></semantics></math>",
            "onerror",
        ),
        (  # namespace confusion (mXSS): a style element that HTML and MathML parse differently
            '<math><mtext><table><mglyph><style><img src=x onerror="alert(1)"></style></mglyph></table></mtext></math>',
            "onerror",
        ),
        ('<math><mi xlink:href="javascript:alert(1)">x</mi></math>', "javascript"),
    ],
)
def test_the_sanitiser_still_strips_what_is_dangerous_in_mathml(hostile: str, gone: str) -> None:
    cleaned, _ = clean_page(hostile)
    assert gone not in cleaned
    again, _ = clean_page(cleaned)
    assert again == cleaned
    result = converted(f"Before.\n\n{hostile}\n\nAfter.\n")
    assert result.diagnostics, "the author hears of it, at its line"
    assert {d.location.line for d in result.diagnostics} == {3}


# -- in a page ------------------------------------------------------------------------------------------
MATH_PAGE = (ROOT / "tests/golden/dialect/math.md").read_text(encoding="utf-8")


def test_the_golden_math_page_renders_every_formula() -> None:
    tree = rendered(MATH_PAGE)
    annotations = [node.text() for node in tree.css("math annotation")]
    assert annotations == [
        "L = -\\log p",
        "\\nabla_\\theta L",
        " e^{i\\pi} + 1 = 0 ",
        "\n\\text{bubble} = \\frac{p - 1}{m + p - 1}\n",
        "E = mc^2",
        " s \\, b \\, h \\left(34 + \\frac{5as}{h}\\right) ",
        "2\\Psi",
        "\n\\frac{K\\Psi}{N_d}\n",
        "a_1 * b_1 * c_1",
        "4\\Psi + K\\Psi/N_d",
        "|x|",
        "O(n^2)",
        "m \\ge 4p",
    ]
    assert len(tree.css('math[display="block"]')) == 4
    assert tree.css("em") == []  # the stars and underscores in the TeX stayed TeX
    rows = tree.css("table tr")
    assert [len(row.css("td, th")) for row in rows] == [2, 2, 2]  # '|' in a formula splits no cell
    assert tree.css_first("h2 math") is not None
    assert tree.css_first(".admonition.tip math") is not None
    assert tree.css_first("li math") is not None and tree.css_first("blockquote math") is not None


def test_text_that_is_not_math_stays_as_written() -> None:
    tree = rendered(MATH_PAGE)
    for node in tree.css("math, code"):
        node.decompose()
    text = tree.body.text() if tree.body else ""
    assert "it costs $5 and $10, and $x$, is not math" in text
    assert "nor is a$b$." in text
    assert "\\\\(" not in text and "$$" not in text


def test_a_paragraph_keeps_its_display_formula_and_its_text() -> None:
    tree = rendered("A paragraph that goes on\n$$\nx + y\n$$\nafter its formula.\n")
    paragraphs = tree.css("p")
    assert len(paragraphs) == 1
    assert paragraphs[0].css_first('math[display="block"] annotation').text() == "\nx + y\n"
    assert paragraphs[0].text().startswith("A paragraph that goes on") and "after its formula." in paragraphs[0].text()


def test_bad_math_is_located_and_left_visible() -> None:
    text = "# T\n\nSee $\\foo$ here.\n\n$$\n\\frac{a\n$$\n"
    result = converted(text)
    assert [str(d) for d in result.diagnostics] == [
        "page.md:3:5: error: bad math: Undefined control sequence: \\foo (at character 1 of the formula) [bad-math]",
        "page.md:5:1: error: bad math: Unexpected end of input in a macro argument, expected '}' (at the end of the "
        "formula) [bad-math]",
    ]
    html = markdown.markdown(result.text, extensions=EXTENSIONS)
    tree = LexborHTMLParser(html)
    assert [node.text() for node in tree.css("span.katex-error")] == ["$\\foo$", "$$\n\\frac{a\n$$"]


def test_a_blank_line_inside_display_math_is_one_error_where_it_opened() -> None:
    result = converted("$$\na + b\n\n= c\n$$\n")
    assert [str(d) for d in result.diagnostics] == [
        "page.md:1:1: error: display math opened with $$ is not closed in this paragraph [bad-math] "
        "(close it with $$; a formula cannot contain a blank line)",
    ]


def test_math_in_code_is_never_touched() -> None:
    text = "```py\nprice = '$5 and $x$'\n```\n\n    $$ indented code $$\n\nInline `$y$` too.\n"
    result = converted(text)
    assert result.diagnostics == []
    assert result.text == text.rstrip("\n").replace("\n\n    $$", "\n\n    $$") + "\n"


# -- [[open-in-colab]] --------------------------------------------------------------------------------------
def test_the_notebook_menu_links_colab_and_studio_lab_for_each_framework() -> None:
    tree = rendered("# Train\n\n[[open-in-colab]]\n\nText.\n")
    menus = tree.css("h1 + div.perfdocs-notebooks > details.perfdocs-notebook-menu")
    assert [menu.css_first("summary").text() for menu in menus] == ["Open in Colab", "Open in Studio Lab"]
    assert [(a.text(), a.attributes["href"]) for a in menus[0].css("ul > li > a")] == [
        ("Mixed", "https://colab.research.google.com/github/example/notebooks/blob/main/docs/perf_train.ipynb"),
        (
            "PyTorch",
            "https://colab.research.google.com/github/example/notebooks/blob/main/docs/pytorch/perf_train.ipynb",
        ),
        (
            "TensorFlow",
            "https://colab.research.google.com/github/example/notebooks/blob/main/docs/tensorflow/perf_train.ipynb",
        ),
    ]
    assert menus[1].css_first("a").attributes["href"] == (
        "https://studiolab.sagemaker.aws/import/github/example/notebooks/blob/main/docs/perf_train.ipynb"
    )
    assert tree.css_first("script") is None and "[[" not in (tree.body.text() if tree.body else "")


def test_a_pattern_without_framework_gives_one_link_per_host() -> None:
    result = converted("[[open-in-colab]]\n", notebooks="https://github.com/o/r/blob/v1/nb/{page}.ipynb")
    assert result.diagnostics == []
    tree = LexborHTMLParser(result.text)
    assert [(a.text(), a.attributes["href"]) for a in tree.css("a.perfdocs-notebook-link")] == [
        ("Open in Colab", "https://colab.research.google.com/github/o/r/blob/v1/nb/perf_train.ipynb"),
        ("Open in Studio Lab", "https://studiolab.sagemaker.aws/import/github/o/r/blob/v1/nb/perf_train.ipynb"),
    ]
    assert [href for href, _ in result.links] == [a.attributes["href"] for a in tree.css("a")]


@pytest.mark.parametrize(
    "notebooks, message",
    [
        (None, "[[open-in-colab]] needs a notebook URL pattern: set extra.perfdocs.notebooks in mkdocs.yml"),
        (
            "https://github.com/o/r/blob/main/x.ipynb",
            "extra.perfdocs.notebooks in mkdocs.yml must contain {page} (got 'https://github.com/o/r/blob/main/x.ipynb')",
        ),
        (
            "https://github.com/o/r/blob/main/{lang}/{page}.ipynb",
            "extra.perfdocs.notebooks in mkdocs.yml must contain {page} (and no field but {framework}; found {lang})",
        ),
        (
            "https://gitlab.com/o/r/-/blob/main/{page}.ipynb",
            "extra.perfdocs.notebooks in mkdocs.yml must be a notebook on GitHub, "
            "https://github.com/OWNER/REPO/blob/BRANCH/...: 'https://gitlab.com/o/r/-/blob/main/{page}.ipynb'",
        ),
        (
            "https://github.com/o/r/blob/main/{page",
            "extra.perfdocs.notebooks in mkdocs.yml is not a valid pattern (expected '}' before end of string): "
            "'https://github.com/o/r/blob/main/{page'",
        ),
    ],
)
def test_the_marker_without_a_usable_pattern_is_a_located_error(notebooks: str | None, message: str) -> None:
    result = converted("# T\n\n  [[open-in-colab]]\n", notebooks=notebooks)
    assert [str(d) for d in result.diagnostics] == [
        f"page.md:3:3: error: {message} [bad-marker] (for example {docbuilder.EXAMPLE})"
    ]
    assert "[[open-in-colab]]" not in result.text.replace(f"page.md:3:3: {message}", "")
    assert "!!! failure" in result.text


# -- <PipelineTag> ------------------------------------------------------------------------------------------
def test_pipeline_tag_is_a_task_badge() -> None:
    tree = rendered('Supported by:\n<PipelineTag pipeline="fill-mask"/>\n')
    badge = tree.css_first("span.perfdocs-pipeline-tag")
    assert badge.text() == "Fill-Mask" and badge.attributes["data-pipeline"] == "fill-mask"


@pytest.mark.parametrize(
    "tag, diagnostic",
    [
        (
            '<PipelineTag pipeline="fil-mask"/>',
            'page.md:1:1: error: <PipelineTag pipeline="fil-mask"> is not a pipeline task [bad-attribute] '
            "(did you mean 'fill-mask'?)",
        ),
        (
            '<PipelineTag pipeline="juggling"/>',
            'page.md:1:1: error: <PipelineTag pipeline="juggling"> is not a pipeline task [bad-attribute] '
            "(a transformers pipeline task, e.g. text-generation)",
        ),
        (
            "<PipelineTag/>",
            'page.md:1:1: error: <PipelineTag> needs a non-empty pipeline="..." attribute [missing-attribute]',
        ),
    ],
)
def test_a_bad_pipeline_tag_is_one_located_error(tag: str, diagnostic: str) -> None:
    result = converted(tag + "\n")
    assert [str(d) for d in result.diagnostics] == [diagnostic]
    assert "PipelineTag" not in result.text


def test_every_transformers_pipeline_task_has_a_badge() -> None:
    pipelines = pytest.importorskip("transformers.pipelines")
    tasks = set(pipelines.SUPPORTED_TASKS) | set(pipelines.TASK_ALIASES)
    assert tasks - set(docbuilder.PIPELINE_TASKS) == set()
    assert docbuilder.PIPELINE_TASKS["ner"] == docbuilder.PIPELINE_TASKS[pipelines.TASK_ALIASES["ner"]]


# -- <details> -------------------------------------------------------------------------------------------------
def test_details_render_markdown_components_and_math_inside() -> None:
    tree = rendered((ROOT / "tests/golden/dialect/details.md").read_text(encoding="utf-8"))
    blocks = tree.css("details")
    assert [d.css_first("summary").text() for d in blocks] == [
        "Show the full configuration",
        "Open by default",
        "No blank lines",
    ]
    first = blocks[0]
    assert first.css_first("strong").text() == "renders"
    assert first.css_first("a").attributes["href"] == "https://example.org"
    assert "TrainingArguments" in first.css_first("pre code").text()
    assert [li.text() for li in first.css("ul > li")] == ["a list", "of items"]
    assert first.css_first(".admonition.warning p:not(.admonition-title)").text() == "A warning inside details."
    assert "open" in blocks[1].attributes and blocks[1].css_first("math annotation").text() == "a^2 + b^2"
    assert blocks[2].css_first("em").text() == "Markdown"
    assert "!!!" not in (tree.body.text() if tree.body else "") and "markdown" not in first.attributes
