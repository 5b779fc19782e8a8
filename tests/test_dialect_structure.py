"""What a converted page becomes once Python-Markdown renders it with the site's extensions.

The golden files pin the Markdown the dialect writes; these tests pin what a reader gets: CommonMark's
structure (list items, blockquotes, code) survives the trip to Python-Markdown.
"""

from __future__ import annotations

import markdown
import pytest
from perfdocs.diagnostics import SourceMap
from perfdocs.dialect import convert
from selectolax.lexbor import LexborHTMLParser

from .conftest import ROOT

EXTENSIONS = [
    "admonition",
    "attr_list",
    "md_in_html",
    "tables",
    "pymdownx.details",
    "pymdownx.superfences",
    "pymdownx.tabbed",
]


def rendered(text: str) -> LexborHTMLParser:
    converted = convert(text, SourceMap.identity("page.md", text.count("\n") + 1))
    assert converted.diagnostics == []
    html = markdown.markdown(
        converted.text, extensions=EXTENSIONS, extension_configs={"pymdownx.tabbed": {"alternate_style": True}}
    )
    return LexborHTMLParser(html)


def texts(tree: LexborHTMLParser, selector: str) -> list[str]:
    return [node.text(strip=True) for node in tree.css(selector)]


def test_component_in_numbered_item_indented_three_spaces_stays_in_the_item() -> None:
    tree = rendered("1. First\n   <Tip>\n   Inside.\n   </Tip>\n2. Second\n")
    items = tree.css("body > ol > li")
    assert len(items) == 2
    assert texts(tree, "body > ol > li:first-child > div.admonition.tip > p:not(.admonition-title)") == ["Inside."]
    assert "!!!" not in tree.body.text()


def test_component_in_bullet_item_indented_two_spaces_stays_in_the_item() -> None:
    tree = rendered("- One\n  <Tip warning={true}>\n  Careful.\n  </Tip>\n- Two\n")
    assert len(tree.css("body > ul > li")) == 2
    assert texts(tree, "body > ul > li:first-child > div.admonition.warning > p:not(.admonition-title)") == ["Careful."]


def test_fences_indented_three_spaces_keep_one_numbered_list() -> None:
    text = "1. One\n\n   ```py\n   a = 1\n   ```\n2. Two\n\n   ```py\n   b = 2\n   ```\n3. Three\n"
    tree = rendered(text)
    assert len(tree.css("ol")) == 1  # before: three lists, each numbered "1."
    items = tree.css("body > ol > li")
    assert [li.css_first("p").text(strip=True) for li in items] == ["One", "Two", "Three"]
    assert [code.text() for code in tree.css("li code")] == ["a = 1\n", "b = 2\n"]


def test_nested_bullets_two_spaces_nest() -> None:
    tree = rendered("- outer\n  - inner\n- next\n")
    assert texts(tree, "body > ul > li > ul > li") == ["inner"]


def test_tip_inside_a_blockquote_is_an_admonition_in_the_quote() -> None:
    tree = rendered("> <Tip>\n> Quoted tip.\n> </Tip>\n")
    assert texts(tree, "blockquote div.admonition.tip p:not(.admonition-title)") == ["Quoted tip."]


@pytest.mark.parametrize(
    "text, literal",
    [
        ("> ```html\n> <Tip>raw</Tip>\n> ```\n", "<Tip>raw</Tip>\n"),
        ("    <Tip>indented code</Tip>\n", "<Tip>indented code</Tip>\n"),
        ("Text `spanning\n<Tip>` lines.\n", "spanning\n<Tip>"),
    ],
    ids=["fence in blockquote", "indented code", "code span over two lines"],
)
def test_code_is_never_a_component(text: str, literal: str) -> None:
    tree = rendered(text)
    assert tree.css("div.admonition") == []
    assert literal in [node.text() for node in tree.css("code")]


def test_a_comment_before_a_tip_on_one_line() -> None:
    tree = rendered("<!-- note --> <Tip>After the comment.</Tip>\n")
    assert texts(tree, "div.admonition.tip p:not(.admonition-title)") == ["After the comment."]


def test_indented_code_line_with_backticks_before_a_tip() -> None:
    tree = rendered("    ```\n\nText.\n\n<Tip>\nStill a tip.\n</Tip>\n")
    assert texts(tree, "div.admonition.tip p:not(.admonition-title)") == ["Still a tip."]


def test_indented_tip_body_is_markdown_once_dedented() -> None:
    tree = rendered("<Tip>\n    Body with <b>HTML</b>\n\n    1. a list\n</Tip>\n")
    assert texts(tree, "div.admonition.tip b") == ["HTML"]
    assert texts(tree, "div.admonition.tip ol > li") == ["a list"]


def test_the_golden_containers_page_renders_every_component() -> None:
    source = (ROOT / "tests/golden/dialect/containers.md").read_text(encoding="utf-8")
    tree = rendered(source)
    assert len(tree.css("body > ol > li")) == 3
    assert len(tree.css("div.admonition")) == 7
    assert texts(tree, "details div.admonition.tip p:not(.admonition-title)") == ["A tip inside details."]
    for code in tree.css("code"):
        code.decompose()
    assert "<Tip" not in tree.body.text()


def test_tip_warning_shorthand_is_a_warning() -> None:
    tree = rendered("<Tip warning>\nCareful.\n</Tip>\n")
    assert texts(tree, "div.admonition.warning p:not(.admonition-title)") == ["Careful."]


# Each attribute list and what Python-Markdown's attr_list does with it: the dialect reports a refused attribute
# only where attr_list sets it, at the attribute (line, column); the forms it leaves to the check of the page's
# HTML (after emphasis) are set too, and text that only looks like a list is set on nothing.
ATTRIBUTE_LISTS = [
    ("# Title {: onclick=a }", (1, 12)),  # ends a heading
    ("Title {: onabort=b }\n=====", (1, 10)),  # ends a setext heading's text
    ("`code`{: onmouseover=c } and [a link](x.md){: onfocus=d }", (1, 10)),  # right after a code span, a link
    ("Two lines\n{: onblur=e }", (2, 4)),  # alone on a paragraph's last line
    ("- item\n  {: oncopy=f }", (2, 6)),  # the same in a list item
    ("{: onkeyup=g }", None),  # a paragraph of one line: text
    ("The set {a, onchange=h} in prose.", None),  # inside a sentence: text
    ("Shown as `{: oninput=i }` in code.", None),  # in a code span: code
    ("*em*{: onload=j }", None),  # after emphasis: set, and found in the HTML
]


@pytest.mark.parametrize("text, reported", ATTRIBUTE_LISTS)
def test_attribute_lists_are_checked_where_attr_list_sets_them(text: str, reported: tuple[int, int] | None) -> None:
    converted = convert(text, SourceMap.identity("page.md", text.count("\n") + 1))
    html = markdown.markdown(converted.text, extensions=EXTENSIONS)
    root = LexborHTMLParser(html).body
    assert root is not None
    handlers = {name for node in root.traverse() for name in node.attributes if name.startswith("on")}
    found = [(d.location.line, d.location.col, d.code) for d in converted.diagnostics]
    expected = [(*reported, "forbidden-html")] if reported else []
    if text.startswith("`code`"):  # two lists on the line: the second is right after the link
        expected.append((1, 47, "forbidden-html"))
    assert found == expected
    named = {message.split("'")[1] for message in (d.message for d in converted.diagnostics)}
    assert named <= handlers  # never reported where attr_list sets nothing
    assert bool(handlers) == (reported is not None or text.startswith("*em*"))
