"""Library docstrings read as doc-builder reads them: a parameter head's type and default, links that wrap lines,
lists under text, code, tips and alerts; and what the site's own API pages show.

Golden files: tests/golden/docstrings/fakelib/<module>.py (a small library written the doc-builder way, read
statically, never imported) -> tests/golden/docstrings/<module>.out.txt: for each object, its docstring as
Markdown, then each parameter as mkdocstrings gets it (name | type | default). After a deliberate change, run
``pytest tests/test_docstrings.py --update-golden`` and review the diff."""

from __future__ import annotations

import re
from pathlib import Path

import griffe
import pytest
from perfdocs import apirefs, docstrings
from perfdocs.apirefs import ApiIndex
from perfdocs.apisources import Source
from perfdocs.diagnostics import Location, SourceMap
from perfdocs.dialect import convert
from perfdocs.docstrings import docstring_markdown, parameter_head

from .conftest import ROOT, check_golden

GOLDEN = ROOT / "tests" / "golden" / "docstrings"
MODULES = sorted(p.stem for p in (GOLDEN / "fakelib").glob("*.py") if p.stem != "__init__")
DOCUMENTED = (
    "Loader",
    "load",
    "GenerationSettings",
    "link_forms",
    "list_forms",
    "block_forms",
)  # each has an [[autodoc]]


@pytest.fixture(scope="module")
def fakelib() -> griffe.Module:
    """fakelib as mkdocstrings reads it with the site's settings (Google style, warnings off, the extension),
    with API links resolved against an index in which each of DOCUMENTED has an entry."""
    index = ApiIndex.from_sources(("fakelib",), {"fakelib": Source("fakelib", "0", GOLDEN)})
    for line, name in enumerate(DOCUMENTED, 1):
        entry = index.add_entry("api.md", Location("docs/api.md", line), name, [])
        assert isinstance(entry, apirefs.Entry), entry
    saved = docstrings._CURRENT[:]
    docstrings._CURRENT[:] = [index]
    try:
        loader = griffe.GriffeLoader(
            extensions=griffe.load_extensions(docstrings.DocBuilderDocstrings),
            search_paths=[str(GOLDEN)],
            docstring_parser=griffe.Parser.google,
            docstring_options={"warnings": False},
            allow_inspection=False,
        )
        module = loader.load("fakelib")
        loader.resolve_aliases(implicit=False, external=False)
    finally:
        docstrings._CURRENT[:] = saved
    assert isinstance(module, griffe.Module)
    return module


def _shown(value: object) -> str:
    return "" if value is None else str(value)


def _golden_text(module: griffe.Module) -> str:
    out = []
    for member in module.members.values():
        if member.is_alias or member.docstring is None:
            continue
        out += [f"# {member.path}", "", member.docstring.value.strip("\n"), ""]
        for section in member.docstring.parsed:
            if section.kind is griffe.DocstringSectionKind.parameters:
                out += [
                    "name | type | default",
                    *(f"{p.name} | {_shown(p.annotation)} | {_shown(p.default)}" for p in section.value),
                    "",
                ]
    return "\n".join(out)


@pytest.mark.parametrize("module", MODULES)
def test_docstrings_read_as_doc_builder_reads_them(fakelib: griffe.Module, module: str, update_golden: bool) -> None:
    check_golden(GOLDEN / f"{module}.out.txt", _golden_text(fakelib.members[module]) + "\n", update_golden)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("    n (`int`, *optional*, defaults to 20):", ("    n (int):", "20", True)),
        ("    n (`int`, *optional*, default to `None`):", ("    n (int):", "None", True)),  # 'default to': meant
        ("    n (`int`, _optional_):", ("    n (int):", None, True)),
        ("    n (`int`): Same line.", ("    n (int): Same line.", None, False)),
        ("    **kwargs (`dict`, *optional*):", ("    **kwargs (dict):", None, True)),
        ("    n ([`~a.B`] or `list[int]`):", ("    n (B or list[int]):", None, False)),
        ("    n ([`a.B`]):", ("    n (a.B):", None, False)),
        ("    n (`str`, *optional*, defaults to [`~a.C`]):", ("    n (str):", "C", True)),
        ("    n (`x`, *optional*, defaults to `f(1)` (or `2`)):", ("    n (x):", "f(1) (or 2)", True)),
        ("    n (*optional*):", ("    n:", None, True)),
        ("    n (`dict` (`{1: 2}`)):", ("    n:", None, False)),  # griffe splits at the first colon
        ("    n (`int` or list[int]`, *optional*):", ("    n (int or list[int]):", None, True)),  # a stray backtick
        ("    n (`str`, *optional*): see (this): here", ("    n (str): see (this): here", None, True)),
    ],
)
def test_parameter_heads(line: str, expected: tuple[str, str | None, bool]) -> None:
    head = parameter_head(line)
    assert head is not None
    assert (head.google(), head.default, head.optional) == expected


@pytest.mark.parametrize(
    "line",
    [
        "    n (int): a Google head: griffe reads it as it is",
        "    n: no parenthesis",
        "n (`int`): not indented: no item of a section",
        "    The value (`x`) is described.",  # no colon after the parenthesis
    ],
)
def test_lines_that_are_no_doc_builder_head(line: str) -> None:
    assert parameter_head(line) is None


def test_a_head_is_read_only_at_its_sections_item_indentation() -> None:
    text = "Args:\n    n (`int`, *optional*):\n        See (`x`, *optional*): not a head.\n\nText (`y`): not a head."
    read = docstrings.read_docstring(text, None)
    assert read.markdown == "Args:\n    n (int):\n        See (`x`, *optional*): not a head.\n\nText (`y`): not a head."
    assert (read.defaults, read.optional) == ({}, frozenset({"n"}))


def test_attributes_take_the_type_and_give_no_default() -> None:
    read = docstrings.read_docstring("Attributes:\n    n (`int`, *optional*, defaults to 2): N.", None)
    assert (read.markdown, read.defaults, read.optional) == ("Attributes:\n    n (int): N.", {}, frozenset())


# -- the site's own API pages ----------------------------------------------------------------------------------
def _parameter_rows(page: Path) -> dict[str, list[tuple[str, str, str]]]:
    """(name, type, default) of each row of each Parameters table on an API page, by the id of its entry."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(page.read_text(encoding="utf-8"))
    rows: dict[str, list[tuple[str, str, str]]] = {}
    for table in tree.css("table"):
        if [th.text(strip=True) for th in table.css("thead th")] != ["Name", "Type", "Description", "Default"]:
            continue
        title = table.prev
        while title is not None and title.tag == "-text":
            title = title.prev
        if title is None or title.text(strip=True) != "Parameters:":
            continue
        owner = table.parent
        while owner is not None and "doc-object" not in (owner.attributes.get("class") or "").split():
            owner = owner.parent
        heading = owner.css_first(".doc-heading") if owner is not None else None
        identifier = heading.attributes.get("id") if heading is not None else None
        assert identifier, "a parameters table outside an entry"
        for tr in table.css("tbody tr"):
            cells = [" ".join(td.text().split()) for td in tr.css("td")]
            rows.setdefault(identifier, []).append((cells[0], cells[1], cells[3]))
    return rows


def _written_optional(index: ApiIndex, identifier: str) -> set[str]:
    """The parameters the source docstrings of an entry write *optional* (a class's and its __init__'s)."""
    found = index._find(identifier)
    assert found is not None and found[1] is not None, identifier
    obj = found[1]
    docstrings = [obj.docstring]
    if obj.is_class and "__init__" in obj.members:
        docstrings.append(obj.members["__init__"].docstring)
    names = set()
    for docstring in docstrings:
        for line in (docstring.value if docstring else "").split("\n"):
            head = parameter_head(line)
            if head is not None and head.optional:
                names.add(head.name)
    return names


@pytest.mark.slow
def test_no_parameter_written_optional_is_shown_required(site_as_deployed: Path) -> None:
    """Over the built site's API pages: every parameter a docstring writes *optional* has a default shown, and
    the rows of the objects the issue named (GenerationConfig, from_pretrained) all have a type and a default."""
    from perfdocs.apiconfig import ApiConfig
    from perfdocs.apirefs import build_index

    docs = ROOT / "docs"
    pages = sorted((docs / "performance" / "api").glob("*.md"))
    index = build_index(
        ApiConfig(ROOT, ("transformers", "peft", "accelerate")),
        [(p.relative_to(docs).as_posix(), p.as_posix(), p.read_text("utf-8")) for p in pages],
    )
    rows: dict[str, list[tuple[str, str, str]]] = {}
    for page in pages:
        folder = site_as_deployed / "performance" / "api" / ("" if page.stem == "index" else page.stem)
        rows.update(_parameter_rows(folder / "index.html"))
    checked = 0
    wrong = []
    for identifier, entries in rows.items():
        optional = _written_optional(index, identifier)
        for name, _, default in entries:
            if name in optional:
                checked += 1
                if default == "required":
                    wrong.append(f"{identifier}({name})")
    assert not wrong, f"written *optional*, shown required: {wrong}"
    assert checked > 200  # the site's API pages have several hundred such parameters
    for identifier, count in (
        ("transformers.GenerationConfig", 62),
        ("transformers.PreTrainedModel.from_pretrained", 30),
    ):
        shown = rows[identifier]
        assert len(shown) == count
        assert [row for row in shown if not row[1] or row[2] == "required"] == []
    assert dict((n, (t, d)) for n, t, d in rows["transformers.PreTrainedModel.from_pretrained"])["revision"] == (
        "str",
        '"main"',
    )


@pytest.mark.slow
def test_the_site_has_no_raw_markdown_in_docstrings(site_as_deployed: Path) -> None:
    """No wrapped link shows as '[text](url)', no list runs into its paragraph, on the built API pages."""
    from selectolax.lexbor import LexborHTMLParser

    leftovers = []
    for page in (site_as_deployed / "performance" / "api").glob("**/index.html"):
        article = LexborHTMLParser(page.read_text(encoding="utf-8")).css_first("article")
        for paragraph in article.css("p"):
            text = paragraph.text()
            if re.search(r"\]\(|\n\s*(?:[-*+]|1[.)]) \S|<Tip|\[!(?:NOTE|TIP|WARNING)\]", text):
                leftovers.append(f"{page.parent.name}: {text[:120]!r}")
    assert leftovers == []


# -- fakelib rendered by mkdocstrings with the site's handler options ---------------------------------------------
def _handler_options() -> str:
    """The Python handler's options of the site's mkdocs.yml, indented for a test site, reading fakelib only."""
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    lines = []
    for line in text.split("        python:\n", 1)[1].split("\n"):
        if line.strip() and not line.startswith("          "):
            break
        lines.append(line)
    options = "\n".join(lines) + "\n"
    assert "preload_modules: [transformers, peft, accelerate]" in options
    return options.replace("preload_modules: [transformers, peft, accelerate]", "preload_modules: [fakelib]")


@pytest.fixture(scope="module")
def fakelib_page(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The HTML of a page with an entry for each of DOCUMENTED, built by MkDocs with mkdocstrings as the site
    configures it, while the API index knows those entries (as in a build, where the hooks set it)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    tmp = tmp_path_factory.mktemp("fakelib")
    (tmp / "docs").mkdir()
    index = ApiIndex.from_sources(("fakelib",), {"fakelib": Source("fakelib", "0", GOLDEN)})
    blocks = []
    for line, name in enumerate(DOCUMENTED, 1):
        entry = index.add_entry("index.md", Location("docs/index.md", line), name, [])
        assert isinstance(entry, apirefs.Entry), entry
        # Loader's entry takes the place of a heading "## Loader" above it (apirefs.twin_heading)
        blocks.append("\n".join(index.autodoc_lines(entry, heading_level=2 if name == "Loader" else None)))
    body = "\n\n".join(blocks)
    (tmp / "docs" / "index.md").write_text(f"# API\n\n{body}\n", encoding="utf-8")
    (tmp / "mkdocs.yml").write_text(
        "site_name: fakelib\ntheme:\n  name: material\nmarkdown_extensions: [admonition, attr_list, md_in_html, "
        "tables, toc, pymdownx.superfences, pymdownx.highlight, pymdownx.inlinehilite]\n"
        f"plugins:\n  - mkdocstrings:\n      handlers:\n        python:\n          paths: [{GOLDEN}]\n"
        + _handler_options(),
        encoding="utf-8",
    )
    saved = docstrings._CURRENT[:]
    docstrings._CURRENT[:] = [index]
    try:
        build(load_config(str(tmp / "mkdocs.yml"), site_dir=str(tmp / "site")))
    finally:
        docstrings._CURRENT[:] = saved
    return (tmp / "site" / "index.html").read_text(encoding="utf-8")


def _entry(page: str, identifier: str):  # type: ignore[no-untyped-def]
    from selectolax.lexbor import LexborHTMLParser

    heading = LexborHTMLParser(page).css_first(f'[id="{identifier}"]')
    assert heading is not None, identifier
    return heading.parent


def test_parameter_heads_render_with_type_and_default(fakelib_page: str) -> None:
    rows = _parameter_rows_of(fakelib_page)
    assert rows["fakelib.load"] == [
        ("path", "str or PathLike", "required"),
        ("model", "Loader or Module", "None"),
        ("revision", "str", '"main"'),
        ("extra", "sequence of positional arguments", "()"),
        ("mode", "str", '"slow"'),
        ("strict", "bool", "True"),
        ("mapping", "dict[str, str]", "None"),
        ("depth", "tuple(int, float)", "None"),
        ("cache_dir", "Union[str, PathLike]", "None"),
        ("retries", "int", "3"),
        ("layout", "", "None"),
        ("timeout", "", "model.config.timeout"),
        ("plain", "int", "required"),
    ]
    assert rows["fakelib.GenerationSettings"] == [
        ("max_length", "int", "20"),
        ("do_sample", "bool", "False"),
        ("top_k", "int", "50"),
        ("beams", "int", "required"),
        ("guidance", "float", "None"),
    ]


def _parameter_rows_of(page: str) -> dict[str, list[tuple[str, str, str]]]:
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".html", delete=False, encoding="utf-8") as f:
        f.write(page)
    try:
        return _parameter_rows(Path(f.name))
    finally:
        Path(f.name).unlink()


def test_links_that_wrap_lines_render_as_links(fakelib_page: str) -> None:
    entry = _entry(fakelib_page, "fakelib.link_forms")
    links = {a.text(strip=False).replace("\n", " "): a.attributes.get("href") for a in entry.css("a[href]")}
    assert links["this paper"] == "https://huggingface.co/papers/2202.00666"
    assert links["wrapped link"] == "https://example.org/a-long-path"  # in a parameter's description
    assert links["Loader"] == "#fakelib.Loader" and links["load()"] == "#fakelib.load"
    assert links["GenerationSettings.missing"] == "#fakelib.GenerationSettings"
    text = entry.text()
    assert "](" not in text and "loading guide" in " ".join(text.split())
    assert "<namespace>/<repo>[@<revision>]" in text


def test_lists_under_text_render_as_lists(fakelib_page: str) -> None:
    entry = _entry(fakelib_page, "fakelib.list_forms")
    lists = [[" ".join(li.text().split()) for li in ul.css("li")] for ul in entry.css("ul, ol")]
    assert lists == [
        ["right under a line of text;", "with no blank line."],
        ["first;", "second."],
        ['"no": indented deeper than its text. Its continuation line.', '"steps": the next item. After the list.'],
        ["an integer: a number of steps;", "a float in [0, 1): a ratio."],
        ["a path;", "a dictionary. Key options:", "split (bool): after a line that continues the item above."],
        ["a path;", "a dictionary."],
    ]


def test_code_tips_and_alerts_render(fakelib_page: str) -> None:
    entry = _entry(fakelib_page, "fakelib.block_forms")
    admonitions = [(a.attributes.get("class"), " ".join(a.text().split())) for a in entry.css("div.admonition")]
    assert admonitions == [
        ("admonition tip", "Tip A tip with a Loader link."),
        ("admonition warning", "Warning A warning with no blank lines."),
        ("admonition note", "Note A note, as an alert, whose last line continues it without its marker."),
        ("admonition tip", "Tip A tip inside a parameter."),
    ]
    code = [" ".join(pre.text().split()) for pre in entry.css(".doc-contents pre")]
    assert code == ['block_forms(device="cuda:0")', ">>> block_forms()"]


def test_long_signatures_are_laid_out_on_lines(fakelib_page: str) -> None:
    """The signature formatter ran (ruff, a dependency of perfdocs): the long signature is split over lines."""
    signature = _entry(fakelib_page, "fakelib.load").css_first(".doc-signature").text()
    assert signature.count("\n") > 3


def test_an_entry_takes_the_level_of_the_heading_it_replaces(fakelib_page: str) -> None:
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(fakelib_page)
    headings = [(h.tag, h.attributes.get("id")) for h in tree.css("article h1, article h2, article h3")]
    assert headings[:3] == [("h1", "api"), ("h2", "fakelib.Loader"), ("h3", "fakelib.load")]


@pytest.mark.parametrize(
    ("heading", "name", "level"),
    [
        ("### GenerationSettings", "GenerationSettings", 3),
        ("## `GenerationSettings`", "GenerationSettings", 2),
        ("## GenerationSettings ##", "GenerationSettings", 2),
        ("### fakelib.GenerationSettings", "GenerationSettings", 3),  # its public path
        ("### kwargs.GenerationSettings", "kwargs.GenerationSettings", 3),  # as the [[autodoc]] line names it
        ("### fakelib.kwargs.GenerationSettings", "GenerationSettings", 3),  # where it is defined
        ("## Generation", "GenerationSettings", None),  # a section: the entry goes under it
        ("### GenerationSettings[[settings]]", "GenerationSettings", None),  # its own id: links may use it
        ("### GenerationSettings {#settings}", "GenerationSettings", None),
        ("GenerationSettings", "GenerationSettings", None),  # no heading
        ("    ### GenerationSettings", "GenerationSettings", None),  # code, not a heading
    ],
)
def test_a_heading_that_only_names_the_object_is_its_twin(heading: str, name: str, level: int | None) -> None:
    index = ApiIndex.from_sources(("fakelib",), {"fakelib": Source("fakelib", "0", GOLDEN)})
    entry = index.add_entry("api.md", Location("docs/api.md", 3), name, [])
    assert isinstance(entry, apirefs.Entry), entry
    assert apirefs.twin_heading(heading, name, entry) == level


@pytest.mark.parametrize("kind", ["NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION"])
def test_an_alert_in_a_docstring_renders_as_the_same_alert_on_a_page(kind: str) -> None:
    """One table serves both (perfdocs.admonitions): a docstring's [!CAUTION] was a plain danger box, without the
    'Caution' title a page's has."""
    page = convert(f"> [!{kind}]\n> Mind it.\n", SourceMap.identity("p.md", 3)).text
    docstring = docstring_markdown(f"Intro.\n\n> [!{kind}]\n> Mind it.\n", None)
    assert docstring == "Intro.\n\n" + page + "\n"


@pytest.mark.parametrize(("tag", "head"), [("<Tip>", "!!! tip"), ("<Tip warning={true}>", "!!! warning")])
def test_a_tip_in_a_docstring_renders_as_the_same_tip_on_a_page(tag: str, head: str) -> None:
    page = convert(f"{tag}\n\nMind it.\n\n</Tip>\n", SourceMap.identity("p.md", 6)).text
    assert page == f"{head}\n\n    Mind it.\n"
    assert docstring_markdown(f"Intro.\n\n{tag}\n\nMind it.\n\n</Tip>\n", None) == "Intro.\n\n" + page
