"""Each scenario page shows only the theory that holds for its scenario (issue 13, item 2).

A shared snippet is the *why* for the page that includes it: the CPU page must not teach CUDA code or quote
GPU throughput, and an inference page must not show a training loop. Every scenario page goes through the
real pipeline (theory expansion with the page's scenario, then the dialect conversion); the Markdown that
comes out is rendered by Python-Markdown with the site's own extensions, as MkDocs renders it, and the
checks read the HTML with the HTML5 parser. (The converted Markdown is Python-Markdown's dialect: tab and
admonition bodies are indented four columns, which a CommonMark parser would read as code blocks.)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import markdown
import pytest
from mkdocs.config import load_config
from perfdocs.expansions import PageExpansions, page_text
from perfdocs.matrix import generated_components
from perfdocs.mkdocs_adapter import load_project
from perfdocs.pipeline import render_source
from perfdocs.project import Project
from perfdocs.scenariocheck import CPU, CUDA_CODE, GPU_CLAIM, INFERENCE, INFERENCE_TRAINER_CALLS, TRAINING_CODE
from perfdocs.text import split_front_matter
from perfdocs.theory import SnippetLibrary
from selectolax.lexbor import LexborHTMLParser, LexborNode

from .conftest import ROOT


@dataclass(frozen=True)
class Finding:
    """One thing a page shows that does not hold for its scenario; ``section`` is the id of the heading above it."""

    section: str
    kind: str
    term: str
    text: str

    def __str__(self) -> str:
        excerpt = " ".join(self.text.split())
        excerpt = excerpt if len(excerpt) <= 160 else excerpt[:157] + "..."
        return f"#{self.section}: {self.kind} {self.term!r}: {excerpt}"


@dataclass
class Shown:
    """What a reader of the page sees, in document order: code blocks, inline code and prose blocks."""

    blocks: list[tuple[str, str]]  # (section id, code)
    inline: list[tuple[str, str]]  # (section id, inline code span outside blocks)
    prose: list[tuple[str, str]]  # (section id, text of one block element with its code spans left out)


PROSE_BLOCKS = frozenset({"p", "li", "td", "th", "dt", "dd", "summary", "figcaption", "caption"})
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


def shown(html: str) -> Shown:
    """Walks the rendered page once; prose blocks nest (a list item's own text excludes its nested blocks)."""
    out = Shown([], [], [])
    section = ""

    def walk(node: LexborNode, texts: list[str]) -> None:
        nonlocal section
        for child in node.iter(include_text=True):
            tag = child.tag
            if tag == "-text":
                texts.append(child.text_content or "")
            elif tag == "pre":
                out.blocks.append((section, child.text(deep=True)))
            elif tag == "code":
                out.inline.append((section, child.text(deep=True)))
            elif tag in ("script", "style", "annotation"):
                continue
            elif tag in HEADINGS:
                section = str(child.attributes.get("id") or section)
                heading: list[str] = []
                walk(child, heading)
                out.prose.append((section, "".join(heading)))
            elif tag in PROSE_BLOCKS:
                own: list[str] = []
                walk(child, own)
                out.prose.append((section, "".join(own)))
            else:
                walk(child, texts)

    rest: list[str] = []
    tree = LexborHTMLParser(html)
    assert tree.body is not None
    walk(tree.body, rest)
    out.prose.append((section, "".join(rest)))
    return out


def findings(scenario: str, html: str) -> list[Finding]:
    """Everything on a page of ``scenario`` that holds only for another scenario."""
    page = shown(html)
    found: list[Finding] = []
    if scenario in CPU:
        for kind, items in (("CUDA code", page.blocks), ("CUDA inline code", page.inline)):
            found += [Finding(s, kind, t, code) for s, code in items for t in CUDA_CODE if t in code.lower()]
        for s, text in page.prose:
            found += [Finding(s, "GPU claim", m.group(0), text) for m in GPU_CLAIM.finditer(text)]
    if scenario in INFERENCE:
        for kind, items in (("training code", page.blocks), ("training inline code", page.inline)):
            for s, code in items:
                lowered = code.lower()
                found += [Finding(s, kind, t, code) for t in TRAINING_CODE if t in lowered]
                trains = any(t in lowered for t in TRAINING_CODE)
                if "trainer(" in lowered and (trains or not any(c in lowered for c in INFERENCE_TRAINER_CALLS)):
                    found.append(Finding(s, kind, "Trainer(", code))
    return found


# -- the site ------------------------------------------------------------------------------------------------
@functools.cache
def project() -> Project:
    return load_project(ROOT / "mkdocs.yml")


@functools.cache
def library() -> SnippetLibrary:
    return SnippetLibrary(project().theory_dir, project().root)


@functools.cache
def markdown_config() -> tuple[list, dict]:
    config = load_config(str(ROOT / "mkdocs.yml"))
    return list(config.markdown_extensions), dict(config.mdx_configs)


def scenario_of(path: Path) -> str | None:
    scenario = split_front_matter(path.read_text(encoding="utf-8")).data.get("scenario")
    return scenario if isinstance(scenario, str) else None


def scenario_pages() -> list[Path]:
    return [p for p in project().pages() if scenario_of(p) is not None]


def to_html(text: str) -> str:
    extensions, configs = markdown_config()
    return markdown.Markdown(extensions=extensions, extension_configs=configs).convert(text)


def render_page(path: Path) -> str:
    """The page's HTML content as the build makes it: snippets for its scenario, generated components filled."""
    proj, lib = project(), library()
    source = path.read_text(encoding="utf-8")
    theory = PageExpansions(lib)
    theory.scan([page_text(proj.docs_path(p), proj.display(p), p.read_text(encoding="utf-8")) for p in proj.pages()])
    generated = generated_components(source, lib, theory.matrix, proj.docs_path(path))
    rendered = render_source(source, proj.display(path), lib, proj.root, generated)
    assert [str(d) for d in rendered.diagnostics] == []
    return to_html(rendered.text)


PAGES = scenario_pages()


def test_every_scenario_is_checked() -> None:
    """The checks below are only as good as the pages they see: both kinds of page must be among them."""
    scenarios = {scenario_of(p) for p in PAGES}
    assert CPU <= scenarios and INFERENCE <= scenarios


@pytest.mark.parametrize("page", PAGES, ids=[project().display(p) for p in PAGES])
def test_page_shows_only_what_holds_for_its_scenario(page: Path) -> None:
    scenario = scenario_of(page)
    assert scenario is not None
    assert [str(f) for f in findings(scenario, render_page(page))] == []


# -- the checker finds what it should -------------------------------------------------------------------------
def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


SNIPPET = """---
title: Half precision
helps: [speed]
summary: s
---
An H100 runs bf16 at 989 TFLOPS; `torch.cuda.is_available()` says whether you have one.

```python
with torch.autocast(device_type="cuda", dtype=torch.float16):
    loss = model(**batch).loss
loss.backward()
optimizer.step()
```

<Only scenario="train-gpu-one">

```python
scaler = torch.amp.GradScaler("cuda")
```

</Only>
"""


def planted(tmp_path: Path, scenario: str) -> list[str]:
    write(tmp_path / "docs" / "performance" / "_theory" / "half.md", SNIPPET)
    lib = SnippetLibrary(tmp_path / "docs" / "performance" / "_theory", tmp_path)
    source = f'---\nscenario: {scenario}\n---\n# Page\n\n## Half precision\n\n<Theory name="half"/>\n'
    rendered = render_source(source, "docs/performance/page.md", lib, tmp_path)
    assert {d.code for d in rendered.diagnostics} <= {"wrong-scenario"}
    return [str(f) for f in findings(scenario, to_html(rendered.text))]


def build_reports(tmp_path: Path, scenario: str) -> list[str]:
    """What the build reports of the planted snippet on a page of ``scenario`` (pipeline.render_body)."""
    write(tmp_path / "docs" / "performance" / "_theory" / "half.md", SNIPPET)
    lib = SnippetLibrary(tmp_path / "docs" / "performance" / "_theory", tmp_path)
    source = f'---\nscenario: {scenario}\n---\n# Page\n\n## Half precision\n\n<Theory name="half"/>\n'
    rendered = render_source(source, "docs/performance/page.md", lib, tmp_path)
    for d in rendered.diagnostics:
        assert d.location.included_from == (("docs/performance/page.md", 8),)
        assert d.hint == f'wrap it in <Only scenario="..."> with the scenarios it holds for (not {scenario})'
    return [f"{d.location}: {d.message.split(' on a page')[0]}" for d in rendered.diagnostics]


def test_the_build_reports_what_a_snippet_should_not_show_at_its_line(tmp_path: Path) -> None:
    """The same rules, in the build: each at the snippet's line, on each page that shows it (with that page)."""
    half = "docs/performance/_theory/half.md"
    assert build_reports(tmp_path, "infer-cpu") == [
        f"{half}:6:4: GPU claim 'H100'",
        f"{half}:6:26: GPU claim 'TFLOPS'",
        f"{half}:6:34: CUDA inline code 'cuda'",
        f"{half}:9:34: CUDA code 'cuda'",
        f"{half}:11:5: training code '.backward('",
        f"{half}:12:1: training code 'optimizer.step'",
    ]
    assert build_reports(tmp_path, "infer-gpu-one") == [
        f"{half}:11:5: training code '.backward('",
        f"{half}:12:1: training code 'optimizer.step'",
    ]
    assert build_reports(tmp_path, "train-gpu-one") == []


def test_cpu_page_with_gpu_theory_is_caught(tmp_path: Path) -> None:
    loop = (
        'with torch.autocast(device_type="cuda", dtype=torch.float16): loss = model(**batch).loss loss.backward() '
        "optimizer.step()"
    )
    claim = "An H100 runs bf16 at 989 TFLOPS; says whether you have one."
    assert planted(tmp_path, "infer-cpu") == [
        f"#half-precision: CUDA code 'cuda': {loop}",
        "#half-precision: CUDA inline code 'cuda': torch.cuda.is_available()",
        f"#half-precision: GPU claim 'H100': {claim}",
        f"#half-precision: GPU claim 'TFLOPS': {claim}",
        f"#half-precision: training code '.backward(': {loop}",
        f"#half-precision: training code 'optimizer.step': {loop}",
    ]


def test_gpu_inference_page_is_held_to_the_training_rule_only(tmp_path: Path) -> None:
    found = planted(tmp_path, "infer-gpu-one")
    assert [f.split(":")[1].strip() for f in found] == ["training code '.backward('", "training code 'optimizer.step'"]


def test_training_page_may_show_all_of_it(tmp_path: Path) -> None:
    assert planted(tmp_path, "train-gpu-one") == []


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("trainer = Trainer(model=model, args=args)\npreds = trainer.predict(ds)", []),
        ("trainer = Trainer(model=model, args=args)\nmetrics = trainer.evaluate()", []),
        ("trainer = Trainer(model=model, args=args)", ["Trainer("]),
        ("trainer = Trainer(model=model, args=args)\ntrainer.train()\ntrainer.predict(ds)", [".train(", "Trainer("]),
    ],
)
def test_trainer_counts_as_training_unless_it_only_predicts(code: str, expected: list[str]) -> None:
    html = f"<h2 id='s'>S</h2><pre><code>{code}</code></pre>"
    assert [f.term for f in findings("infer-gpu-one", html)] == expected


def test_prose_code_spans_and_nested_items_are_read_once() -> None:
    html = "<h2 id='s'>S</h2><ul><li>On an A100 <code>x.cuda()</code><ul><li>Hopper</li></ul></li></ul>"
    page = shown(html)
    assert page.prose[1:3] == [("s", "Hopper"), ("s", "On an A100 ")]
    assert page.inline == [("s", "x.cuda()")]
