"""Property-based tests of the dialect conversion and theory expansion (hypothesis)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from perfdocs.diagnostics import SourceMap
from perfdocs.dialect import convert
from perfdocs.pipeline import duplicate_ids, render_body
from perfdocs.sanitize import clean_page
from perfdocs.text import code_line_mask
from perfdocs.theory import SnippetLibrary

from .test_dialect_structure import EXTENSIONS

SETTINGS = settings(
    max_examples=int(os.environ.get("PERFDOCS_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
WORDS = st.sampled_from(["memory", "speed", "batch", "GPU", "**bold**", "`x = 1`", "a [link](p.md)", "tensor", "-"])
TOKENS = st.sampled_from(
    [
        "<Tip>",
        "</Tip>",
        "<Tip warning={true}>",
        "<Tip warning={yes}>",
        '<hfoptions id="a">',
        "</hfoptions>",
        '<hfoption id="A">',
        "</hfoption>",
        "<frameworkcontent>",
        "</frameworkcontent>",
        "<pt>",
        "</pt>",
        "<tf>",
        "<jax>",
        '<Youtube id="dQw4w9WgXcQ"/>',
        "<Foo/>",
        "<literalinclude>",
        "</literalinclude>",
        '{"path": 1}',
        "```",
        "~~~",
        "`",
        "> [!NOTE]",
        "> ",
        "## H[[id]]",
        "[[",
        "]]",
        "{#",
        "<!--",
        "-->",
        "<div>",
        "</div>",
        "<script>",
        "\n",
        "\n\n",
        "    ",
        "text",
        "#",
        "<",
        ">",
        "/",
        "=",
        '"',
        "{",
        "}",
        "é",
        "\t",
    ]
)


def ident(text: str) -> SourceMap:
    return SourceMap.identity("p.md", text.count("\n") + 1)


@SETTINGS
@given(st.one_of(st.text(), st.lists(TOKENS, max_size=60).map("".join)))
def test_arbitrary_text_never_raises_and_maps_every_line(text: str) -> None:
    result = convert(text, ident(text))
    n_in = text.count("\n") + 1
    assert len(result.source_map) == result.text.count("\n") + 1
    assert all(o.path == "p.md" and 1 <= o.line <= n_in for o in result.source_map.origins)
    assert all(d.location.path == "p.md" and 1 <= d.location.line <= n_in for d in result.diagnostics)


# A grammar of valid dialect documents.
def blocks(depth: int) -> st.SearchStrategy[list[str]]:
    paragraph = st.lists(WORDS, min_size=1, max_size=6).map(lambda ws: [" ".join(ws)])
    code = st.lists(
        st.text(
            st.characters(
                blacklist_characters="`~\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029", blacklist_categories=("Cs",)
            ),
            max_size=20,
        ),
        min_size=1,
        max_size=4,
    ).map(lambda ls: ["```python", *ls, "```"])
    alert = st.tuples(st.sampled_from(["NOTE", "TIP", "WARNING", "IMPORTANT", "CAUTION"]), WORDS).map(
        lambda t: [f"> [!{t[0]}]", f"> {t[1]}"]
    )
    indented = st.lists(
        st.sampled_from(["x = 1", "<Tip>", "```", "<!-- c -->", "# not a heading"]), min_size=1, max_size=3
    ).map(lambda ls: ["Indented code follows:", "", *[f"    {line}" for line in ls]])
    leaf = st.one_of(paragraph, code, alert, indented)
    if depth == 0:
        return st.lists(leaf, min_size=1, max_size=3).map(lambda bs: [line for b in bs for line in [*b, ""]])
    inner = blocks(depth - 1)
    tip = st.tuples(st.booleans(), inner).map(
        lambda t: [f"<Tip warning={{{'true' if t[0] else 'false'}}}>", *t[1], "</Tip>"]
    )
    options = st.lists(inner, min_size=1, max_size=3).map(
        lambda tabs: [
            '<hfoptions id="api">',
            *[line for i, tab in enumerate(tabs) for line in [f'<hfoption id="Tab{i}">', *tab, "</hfoption>"]],
            "</hfoptions>",
        ]
    )
    frameworks = st.lists(st.sampled_from(["pt", "tf", "jax"]), min_size=1, max_size=3, unique=True).flatmap(
        lambda names: st.lists(inner, min_size=len(names), max_size=len(names)).map(
            lambda bodies: [
                "<frameworkcontent>",
                *[line for n, body in zip(names, bodies) for line in [f"<{n}>", *body, f"</{n}>"]],
                "</frameworkcontent>",
            ]
        )
    )
    numbered = inner.map(lambda body: _prefixed(body, "1. ", "   "))
    bullet = inner.map(lambda body: _prefixed(body, "- ", "  "))
    quote = inner.map(lambda body: [f"> {line}" if line else ">" for line in body])
    details = inner.map(lambda body: ["<details>", "<summary>More</summary>", "", *body, "</details>"])
    block = st.one_of(leaf, tip, options, frameworks, numbered, bullet, quote, details)
    return st.lists(block, min_size=1, max_size=3).map(lambda bs: [line for b in bs for line in [*b, ""]])


def _without_containers(line: str) -> str:
    """A line without the blockquote markers and list markers in front of it."""
    while True:
        line = line.lstrip(" >")
        head, _, rest = line.partition(" ")
        if head in ("-", "*", "+") or (head[:-1].isdigit() and head[-1:] in ".)"):
            line = rest
            continue
        return line


def _prefixed(body: list[str], first: str, rest: str) -> list[str]:
    """``body`` as the content of a list item: ``first`` before its first line, ``rest`` before the others."""
    while body and not body[-1]:
        body = body[:-1]
    return [first + body[0], *[rest + line if line else "" for line in body[1:]]] if body else [first.rstrip()]


DOCS = blocks(2).map("\n".join)


@SETTINGS
@given(DOCS)
def test_valid_documents_convert_without_diagnostics_and_idempotently(text: str) -> None:
    once = convert(text, ident(text))
    assert once.diagnostics == []
    twice = convert(once.text, ident(once.text))
    assert twice.diagnostics == []
    assert twice.text == once.text


@SETTINGS
@given(DOCS)
def test_code_comes_out_byte_for_byte(text: str) -> None:
    """Every line CommonMark reads as code (at any depth) comes out, mapped to itself, with its content intact:
    only container markers and indentation in front of it may change."""
    result = convert(text, ident(text))
    in_lines = text.split("\n")
    out_lines = result.text.split("\n")
    by_origin: dict[int, list[str]] = {}
    for line, origin in zip(out_lines, result.source_map.origins):
        by_origin.setdefault(origin.line, []).append(line)
    for number, (line, code) in enumerate(zip(in_lines, code_line_mask(in_lines)), start=1):
        if not code or not line.strip(" \t>"):  # a blank line (spaces and tabs are both blank): nothing to keep
            continue
        content = _without_containers(line)
        assert any(out.endswith(content) for out in by_origin.get(number, [])), (number, line, by_origin.get(number))
    for span in re.findall(r"`[^`\n]+`", text):
        assert span in result.text


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> SnippetLibrary:
    root = tmp_path_factory.mktemp("lib")
    theory = root / "docs/performance/_theory"
    theory.mkdir(parents=True)
    for name, body in {
        "a": "### Why\n\nx\n\n### Cost[[a-cost]]\n\ny",
        "b": '### Why\n\n<Theory name="a"/>',
        "c": "Plain text only.",
    }.items():
        (theory / f"{name}.md").write_text(f"---\ntitle: {name}\nhelps: []\nsummary: s\n---\n{body}\n")
    return SnippetLibrary(theory, root)


@SETTINGS
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["Setup", "Why", "Recipe", "A", "Memory"]),
            st.lists(st.sampled_from(["a", "b", "c"]), max_size=3),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_heading_ids_stay_unique_when_snippets_repeat(
    library: SnippetLibrary, sections: list[tuple[str, list[str]]]
) -> None:
    body = "\n\n".join(
        f"## {title} {i}\n\n" + "\n\n".join(f'<Theory name="{n}"/>' for n in names)
        for i, (title, names) in enumerate(sections)
    )
    rendered = render_body(body, "docs/p.md", library, library.root, None)
    assert rendered.diagnostics == []
    assert duplicate_ids(rendered.ids) == []
    explicit = re.findall(r"\{ #([^ }]+) \}", rendered.text)
    assert len(explicit) == len(set(explicit))
    files = {"docs/p.md": body.count("\n") + 1}
    files.update(
        {
            f"docs/performance/_theory/{n}.md": len(Path(library.directory / f"{n}.md").read_text().split("\n"))
            for n in "abc"
        }
    )
    assert all(o.path in files and 1 <= o.line <= files[o.path] for o in rendered.source_map.origins)


# -- one reading of HTML structure ---------------------------------------------------------------------------------
# markdown-it decides what the dialect checks (a comment, code), Python-Markdown and the browser what the page
# becomes. Where they could disagree (comments HTML5 ends early, processing instructions, CDATA, declarations,
# raw-text blocks, fences never closed), a construct the dialect did not check must not become markup: either it
# reports an error, or the rendered page has nothing of the probe but its text.
OPENERS = st.sampled_from(
    [
        "<!-- a --!> ",
        "<!--> ",
        "<!---> ",
        "<!-- a -- b ",
        "<?x ",
        "<![CDATA[ ",
        "<!DOCTYPE x ",
        "```\n",
        "~~~~\n",
        "<pre>\n",
        "<div>\n",
        "`",
        "",
    ]
)
PROBES = st.sampled_from(
    ['<autoref identifier="p" optional>q</autoref>', '<span onclick="p">q</span>', "<img src=x onerror=p>"]
)
CLOSERS = st.sampled_from([" -->", " ?>", " ]]>", ">", "", "\n```", "\n\nafter"])
CONTAINERS = st.sampled_from(["", "- ", "1. ", "> ", "Text "])


def probe_markup(html: str) -> list[str]:
    from selectolax.lexbor import LexborHTMLParser

    root = LexborHTMLParser(html).body
    found = []
    for node in root.traverse(include_text=False) if root is not None else []:
        if node.tag == "autoref":
            found.append("<autoref>")
        found += [f"{node.tag} {name}" for name in node.attributes if name.startswith("on")]
    return found


@SETTINGS
@given(CONTAINERS, OPENERS, PROBES, CLOSERS)
def test_what_the_dialect_did_not_check_never_becomes_markup(
    container: str, opener: str, probe: str, closer: str
) -> None:
    import markdown

    body = opener + probe + closer
    indent = " " * len(container) if container.strip() in ("-", "1.") else ("> " if container == "> " else "")
    lines = body.split("\n")
    text = "# Page\n\n" + container + lines[0] + "".join("\n" + (indent + line if line else "") for line in lines[1:])
    converted = convert(text + "\n", ident(text + "\n"))
    html = markdown.markdown(
        converted.text,
        extensions=EXTENSIONS,
        extension_configs={"pymdownx.tabbed": {"alternate_style": True}},
    )
    cleaned, findings = clean_page(html)  # what the build does with the HTML, and reports
    if any(d.level == "error" for d in converted.diagnostics) or findings:
        # reported: the page keeps no handler; an <autoref> left is resolved by mkdocs-autorefs and cleaned again
        assert [m for m in probe_markup(cleaned) if m != "<autoref>"] == [], (text, converted.text)
        return
    assert probe_markup(html) == [], (text, converted.text)
