"""Scenario pages a reader can take in (issue 22, item 3): each is at most 25 screens long on a 1280 x 900
desktop, and shorter only because parts of it start collapsed, never because words went missing. Every
sentence and every code line of the page's source, after theory expansion, is in the page's DOM, shown or
inside a collapsed box or a tab not picked."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from markdown_it.token import Token
from perfdocs.markdown import MD
from perfdocs.text import split_front_matter
from perfdocs.theory import THEORY_DIR, SnippetLibrary, expand

from .conftest import NAV_SOURCES, Watch, settle
from .support import DESKTOP, ROOT, front_matter, page_url

MAX_SCREENS = 25
SCENARIO_PAGES = [src for src in NAV_SOURCES if front_matter(src).get("scenario") not in (None, "overview")]
# Where the built page shows something else than the source's text, a fragment ends: components (a
# <MemoryBudget/> becomes a figure), math (MathML), the ids written after a heading.
MATH = re.compile(r"\$\$.*?\$\$|\$[^$\s][^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]")
HEADING_ID = re.compile(r"\[\[[^\]]*\]\]\s*$|\{\s*#[^}]*\}\s*$")
ALERT = re.compile(r"^\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]")
TAG = re.compile(r"<!--.*?-->|<[^>]*>", re.DOTALL)


def expanded_source(src: str) -> str:
    """The page's Markdown after theory expansion, as the build expands it."""
    path = ROOT / "docs" / src
    front = split_front_matter(path.read_text(encoding="utf-8"))
    library = SnippetLibrary(ROOT / "docs" / THEORY_DIR, ROOT)
    return expand(front.body, path.relative_to(ROOT).as_posix(), library, front.data.get("scenario")).text


def fragments(text: str) -> list[str]:
    """The runs of text a reader must find on the page: each paragraph, list item, table cell and heading
    broken where the build shows something other than the source (components, math, API links), plus every
    line of every code block. Raw HTML counts by the text it holds, read as Markdown again."""
    found: list[str] = []
    for token in MD.parse(text):
        if token.type in ("fence", "code_block"):
            found += [line.strip() for line in token.content.split("\n") if line.strip()]
        elif token.type == "html_block":
            inner = TAG.sub("\n", token.content)
            if inner.strip():
                found += fragments(inner)
        elif token.type == "inline":
            found += inline_fragments(token.children or [])
    return [words(f) for f in found if re.search(r"\w", f)]


def inline_fragments(children: list[Token]) -> list[str]:
    runs: list[str] = []
    current: list[str] = []

    def cut() -> None:
        runs.append("".join(current))
        current.clear()

    for i, child in enumerate(children):
        before = children[i - 1].content if i and children[i - 1].type == "text" else ""
        after = children[i + 1].content if i + 1 < len(children) and children[i + 1].type == "text" else ""
        if child.type == "code_inline" and before.endswith("[") and after.startswith("]"):
            if current and current[-1].endswith("["):  # an API link: shown as its name, without brackets
                current[-1] = current[-1][:-1]
            cut()
            children[i + 1].content = after[1:]
        elif child.type == "code_inline":
            current.append(child.content)
        elif child.type == "text":
            current.append(ALERT.sub("", child.content) if not current and not runs else child.content)
        elif child.type in ("softbreak", "hardbreak"):
            current.append(" ")
        elif child.type in ("html_inline", "image"):
            cut()
    cut()
    out: list[str] = []
    for run in runs:
        run = HEADING_ID.sub("", run)
        out += MATH.split(run)
    return out


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("src", SCENARIO_PAGES)
def test_a_scenario_page_is_at_most_25_screens_on_a_desktop(context: Any, watch: Watch, src: str) -> None:
    page = watch.attach(context.new_page())
    assert page.viewport_size == DESKTOP
    page.goto(page_url(src))
    settle(page)
    height = page.evaluate("() => document.documentElement.scrollHeight")
    screens = height / DESKTOP["height"]
    assert screens <= MAX_SCREENS, f"{src} is {height} px tall: {screens:.1f} screens of {DESKTOP['height']} px"
    assert watch.problems == []


@pytest.mark.parametrize("src", SCENARIO_PAGES)
def test_every_sentence_of_the_source_is_in_the_page(context: Any, src: str) -> None:
    page = context.new_page()
    page.goto(page_url(src))
    settle(page)
    shown = words(page.evaluate("() => document.querySelector('article').textContent"))
    expected = fragments(expanded_source(src))
    assert len(expected) > 100, f"{src}: only {len(expected)} fragments read from the source"
    missing = [text for text in expected if text not in shown]
    assert missing == [], f"{len(missing)} of {len(expected)} fragments of {src} are not in the page:\n" + "\n".join(
        missing[:20]
    )


def test_the_fragments_of_a_source_are_what_the_page_shows() -> None:
    source = (
        '## Budget[[budget]]\n\nThe model has <MemoryBudget model="x" show="params"/> parameters and '
        "costs $2 \\times N$ bytes.\nSee [`Trainer`] or [the guide](x.md).\n\n"
        '<details class="info">\n<summary>Why it works</summary>\n\n- **Bold** item\n\n</details>\n\n'
        "```python\nx = 1\n\ny = 2\n```\n\n| A | B |\n|---|---|\n| one | two |\n\n> [!NOTE]\n> A note.\n"
    )
    assert fragments(source) == [
        "Budget",
        "The model has",
        "parameters and costs",
        "bytes. See",
        "or the guide.",
        "Why it works",
        "Bold item",
        "x = 1",
        "y = 2",
        "A",
        "B",
        "one",
        "two",
        "A note.",
    ]


def test_the_source_pages_exist() -> None:
    assert len(SCENARIO_PAGES) == 6, SCENARIO_PAGES
    assert all((ROOT / "docs" / src).is_file() for src in SCENARIO_PAGES)
    assert {Path(src).name for src in SCENARIO_PAGES} >= {"cpu.md", "gpu_one.md", "gpu_many.md", "scalability.md"}
