"""Components are a registry (issue 19, item 2): a component is one module of hooks/perfdocs/components, declaring
its tag, attributes, parent and whether it takes content; the reader checks tags against the declaration and the
converter calls its renderer. A component added the README's way (a class, nothing else) works in a page."""

from __future__ import annotations

import ast
from collections.abc import Iterator

import pytest
from perfdocs.components import REGISTRY, Component, Engine, children_of, void_names
from perfdocs.diagnostics import SourceMap
from perfdocs.dialect import Converted, convert
from perfdocs.document import Line, Node, Out, admonition

from .conftest import ROOT

COMPONENTS = ROOT / "hooks" / "perfdocs" / "components"


def converted(text: str) -> Converted:
    return convert(text, SourceMap.identity("page.md", text.count("\n") + 1))


def messages(result: Converted) -> list[str]:
    return [f"{d.location.line}:{d.location.col} {d.message} [{d.code}]" for d in result.diagnostics]


@pytest.fixture
def caution() -> Iterator[type[Component]]:
    """The README's example component, declared here and taken out of the registry afterwards."""

    class Caution(Component):
        name = "Caution"
        attributes = {"title": "str", "level": "req"}

        def render(self, node: Node, lines: list[Line], engine: Engine) -> list[Out]:
            title = node.attrs.get("title", ("str", "Caution"))[1]
            body = engine.render(*engine.content(node, lines))
            return admonition(f'!!! warning "{title}"', lines[node.line].src, body)

    yield Caution
    del REGISTRY["Caution"]


def test_a_component_declared_as_a_class_renders_in_a_page(caution: type[Component]) -> None:
    result = converted('Intro.\n\n<Caution title="Mind the gap" level="high">\nSome **bold** text.\n</Caution>\n')
    assert result.diagnostics == []
    assert result.text == 'Intro.\n\n!!! warning "Mind the gap"\n\n    Some **bold** text.\n'


def test_a_declared_component_gets_the_readers_checks(caution: type[Component]) -> None:
    result = converted('<Caution titel="x">\ntext\n</Caution>\n\n<Caution level="a"/>\n\n<Cautoin level="b">\nx\n')
    assert messages(result) == [
        "1:1 unknown attribute 'titel' on <Caution> [bad-attribute]",
        '1:1 <Caution> needs a non-empty level="..." attribute [missing-attribute]',
        "5:1 <Caution/> cannot be self-closing: it needs content [empty-component]",
        "7:1 unknown component <Cautoin> [unknown-component]",
    ]
    assert result.diagnostics[0].hint == "did you mean 'title'?"
    assert result.diagnostics[3].hint == "did you mean 'Caution'?"


def test_two_components_cannot_share_a_name() -> None:
    with pytest.raises(TypeError, match="two components are named <Tip>"):
        type("Tip2", (Component,), {"name": "Tip"})
    assert type(REGISTRY["Tip"]).__module__ == "perfdocs.components.tip"


def test_every_module_of_the_package_declares_the_components_it_registers() -> None:
    """Each module holds its own components, and the registry holds exactly those the modules declare."""
    declared = {}
    for path in sorted(COMPONENTS.glob("*.py")):
        if path.name == "__init__.py":
            continue
        names = [
            stmt.value.value
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.ClassDef)
            for stmt in node.body
            if isinstance(stmt, ast.Assign)
            and [getattr(t, "id", None) for t in stmt.targets] == ["name"]
            and isinstance(stmt.value, ast.Constant)
        ]
        assert names, f"{path.name} declares no component"
        declared |= dict.fromkeys(names, path.stem)
    assert {name: type(c).__module__.rsplit(".", 1)[1] for name, c in REGISTRY.items()} == declared
    assert children_of("hfoptions") == ["hfoption"]
    assert children_of("frameworkcontent") == ["pt", "tf", "jax", "flax"]
    assert void_names() == {
        "Youtube",
        "PipelineTag",
        "TechniqueMatrix",
        "TestedWith",
        "MemoryBudget",
        "MemoryEstimator",
        "Measured",
    }


def test_a_tab_outside_its_group_and_a_component_where_a_tab_should_be() -> None:
    result = converted(
        '<hfoption id="A">\nalone\n</hfoption>\n\n<frameworkcontent>\n<Tip>\nx\n</Tip>\n</frameworkcontent>\n'
    )
    assert messages(result) == [
        "1:1 <hfoption> must be directly inside <hfoptions> [misplaced-component]",
        "6:1 <Tip> inside <frameworkcontent>; only <pt>, <tf>, <jax>, <flax> may be here [misplaced-component]",
        "5:1 <frameworkcontent> has no tabs [empty-component]",
    ]
    assert "alone" in result.text and "!!! tip" in result.text


def test_display_math_directly_in_a_tab_group_is_text_outside_every_tab() -> None:
    """It was reported as a component named '<#lines>' before the node kinds were typed."""
    result = converted('<hfoptions id="x">\n$$\nx^2\n$$\n<hfoption id="A">\na\n</hfoption>\n</hfoptions>\n')
    assert messages(result) == ["2:1 text directly inside <hfoptions> is outside every tab [text-outside-tab]"]
    assert "katex-display" in result.text and '===! "A"' in result.text


def test_an_unknown_tag_closed_by_a_sibling_tab_keeps_its_content() -> None:
    """Its content went with it (the tab was empty), and it was reported twice: unknown, then not closed."""
    text = '<hfoptions id="x">\n<hfoption id="A">\n<Foo>\nkept text\n<hfoption id="B">\nb\n</hfoption>\n</hfoptions>\n'
    result = converted(text)
    assert messages(result) == [
        "3:1 unknown component <Foo> [unknown-component]",
        "2:1 <hfoption> opened here is not closed before <hfoption> at line 5 [unclosed-component]",
    ]
    assert '===! "A"\n\n    kept text\n' in result.text


def test_a_close_that_matches_nothing_names_the_innermost_component_by_its_tag() -> None:
    result = converted("<Tip>\n<Foo>\ntext\n</Bar>\n</Foo>\n</Tip>\n")
    assert messages(result) == [
        "2:1 unknown component <Foo> [unknown-component]",
        "4:1 </Bar> closes nothing [unmatched-close]",
    ]
    assert result.diagnostics[1].hint == "innermost open component is <Foo>"
