"""A non-strict build (mkdocs serve, a PR preview) never drops an author's words: what the build refuses is
reported and removed, the content around it stays. One page per construct that real doc-builder pages use
and that lost text before (minimal cases written for this test), built once; every sentence and every line of
code of each page must be in its built article."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser

from .sitetools import build, minimal_config

FENCE = "```"

PAGES = {
    # layout boxes with a style the policy refuses (margin): the style goes, the paragraphs stay
    "styled_box": (
        '<div style="border: 1px solid #e5e7eb; margin: 1em 0; padding: 1em">\n'
        "<p>Eight-bit weights halve the memory of bf16 weights.</p>\n"
        "<p>Four-bit weights halve it again, at some cost in accuracy.</p>\n"
        "</div>\n\n"
        '<div style="margin-top: 2em">\n\n'
        "A paragraph of Markdown under the second box.\n\n"
        "</div>\n\n"
        '<div style="border: 1px solid #e5e7eb;\n            margin: 1em 0">\n'
        "<p>A style written over two lines loses its margin, not this text.</p>\n"
        "</div>\n"
    ),
    # a tab group never closed (its last tab neither): the sections after it are the page again
    "unclosed_group": (
        '<hfoptions id="install">\n<hfoption id="pip">\n\n'
        f"{FENCE}bash\npip install accelerate\n{FENCE}\n\n"
        '</hfoption>\n<hfoption id="uv">\n\n'
        f"{FENCE}bash\nuv pip install accelerate\n{FENCE}\n\n"
        "## Configure\n\nRun the configuration once per machine.\n\n"
        f"{FENCE}bash\naccelerate config\n{FENCE}\n\n"
        "### Check it\n\nThe environment command prints what was chosen.\n\n"
        f"{FENCE}bash\naccelerate env\n{FENCE}\n\n"
        "## Launch\n\nStart the script with the launcher.\n"
    ),
    # embeds: one from an allowed host becomes a placeholder; one from elsewhere keeps its fallback text
    "embeds": (
        "A demo of the quantizer follows.\n\n"
        '<iframe src="https://org-quantizer.hf.space" width="850" height="450"></iframe>\n\n'
        '<iframe src="https://tracker.example/embed">The tracker shows the same numbers as a table.</iframe>\n\n'
        "After both embeds the page goes on.\n"
    ),
    # what is not a tab inside a tab group, a tab twice, a component where a tab should be
    "tab_slips": (
        '<hfoptions id="api">\nA sentence written between the tags.\n'
        '<hfoption id="Trainer">\nThe Trainer way is the shortest.\n</hfoption>\n'
        '<hfoption id="Trainer">\nA second Trainer tab says more.\n</hfoption>\n'
        "<Tip>\nA tip among the tabs is still read.\n</Tip>\n"
        "</hfoptions>\n"
    ),
    # forbidden elements around text: their tags go, the text stays
    "forbidden_wrappers": (
        '<object data="chart.swf">The chart shows throughput against batch size.</object>\n\n'
        "<form>Fill in the batch size you use.</form>\n"
    ),
    # a tip never closed, under an H3: it ends with its section
    "unclosed_tip": (
        "### Tuning\n\n<Tip>\n\nCompile the model before the first step.\n\n"
        "### Profiling\n\nProfile one step after the warm-up.\n"
    ),
}


def words(text: str) -> str:
    return " ".join(text.split())


def expected_text(source: str) -> list[str]:
    """The sentences and the code lines of a page's source: the text a reader must find in the page."""
    inside = re.sub(r"<[^>]*>", "\n", source)  # the tags are not text; what they hold is
    lines = [line.strip() for line in inside.split("\n")]
    return [line.lstrip("#").strip() for line in lines if line and not line.startswith(FENCE)]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = tmp_path_factory.mktemp("nothing_lost")
    (project / "hooks").symlink_to(Path(__file__).parents[1] / "hooks", target_is_directory=True)
    extra = 'extra:\n  perfdocs:\n    embed_hosts: ["*.hf.space"]\n'
    nav = "nav:\n" + "".join(f"  - {name}.md\n" for name in PAGES)
    (project / "mkdocs.yml").write_text(minimal_config("nothing lost", extra + nav), encoding="utf-8")
    (project / "docs").mkdir()
    for name, body in PAGES.items():
        (project / "docs" / f"{name}.md").write_text(f"# {name}\n\n{body}", encoding="utf-8")
    result = build(project, project / "site", strict=False)
    assert result.returncode == 0, result.stderr
    strict = build(project, project / "strict")
    assert strict.returncode != 0  # each page has something to report
    return project / "site"


@pytest.mark.parametrize("name", list(PAGES))
def test_every_sentence_and_code_line_is_on_the_page(site: Path, name: str) -> None:
    article = LexborHTMLParser((site / name / "index.html").read_text(encoding="utf-8")).css_first("article")
    assert article is not None
    shown = words(article.text(separator=" "))
    missing = [text for text in expected_text(PAGES[name]) if words(text) not in shown]
    assert missing == [], shown


def test_an_allowed_embed_is_a_placeholder_and_a_refused_one_is_gone(site: Path) -> None:
    page = LexborHTMLParser((site / "embeds" / "index.html").read_text(encoding="utf-8"))
    boxes = page.css("article div.perfdocs-embed")
    assert [box.attributes.get("data-perfdocs-embed") for box in boxes] == ["https://org-quantizer.hf.space/"]
    assert page.css("iframe") == []
    urls = [
        value
        for node in page.css("[src], [href]")
        for value in (node.attributes.get("src"), node.attributes.get("href"))
    ]
    assert not [url for url in urls if url and "tracker.example" in url]


@pytest.mark.parametrize("name", ["unclosed_group", "unclosed_tip"])
def test_what_follows_a_component_never_closed_is_not_inside_it(site: Path, name: str) -> None:
    article = LexborHTMLParser((site / name / "index.html").read_text(encoding="utf-8")).css_first("article")
    assert article is not None
    inside = article.css(".tabbed-set h2, .tabbed-set h3, .admonition h2, .admonition h3")
    assert [heading.text(strip=True) for heading in inside] == []
