"""The readers' journeys of issue 13, as structure the built site must keep.

(a) "my Llama-3-8B QLoRA fine-tune OOMs on a 24 GB GPU": the decision table of train/gpu_one links to the QLoRA
recipe heading itself, and to a checklist for "already on QLoRA and still out of memory".
(c) "8 x 80 GB GPUs and a 70B model: FSDP or DeepSpeed?": train/gpu_many answers it right after its recommended
order, with a table of criteria and the 70B case, and has a LoRA + FSDP recipe for a 70B model.
Long pages stay scannable: every section opens with an "In short" line, no heading id is a generic `recipe_3`,
and the contents list only the sections. The diagrams are accessible SVG, small, self-contained and used.

The browser walk of the same journeys (clicks, scroll offsets) is tests/browser/test_journeys.py.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from selectolax.lexbor import LexborHTMLParser, LexborNode

from .conftest import ROOT

pytestmark = pytest.mark.slow

GPU_ONE = "performance/train/gpu_one/index.html"
GPU_MANY = "performance/train/gpu_many/index.html"
SCALABILITY = "performance/scalability/index.html"
LONG_PAGES = [GPU_ONE, GPU_MANY, SCALABILITY]
DIAGRAMS = ROOT / "docs" / "assets" / "diagrams"
SVG = "{http://www.w3.org/2000/svg}"
# Headings that say nothing on their own; Python-Markdown numbers repeats of them as recipe_1, pitfalls_2 ...
GENERIC_ID = re.compile(r"(recipe|expected-effect|pitfalls|at-scale|pitfalls-at-scale)(_\d+)?")
# Sections that are themselves the overview of the page or a list of links.
NO_IN_SHORT = {"summary", "recommended-order", "where-to-go-next"}
CRITERIA = [
    "Model size vs total GPU memory",
    "Offload needs",
    "Checkpoint format",
    "LoRA / QLoRA",
    "Ease of config",
    "Throughput notes",
]
DIAGRAM_BYTES = 10_000


@pytest.fixture(scope="module")
def site(site_as_deployed: Path) -> Path:
    return site_as_deployed


@dataclass
class Section:
    """One ## section of a page: its id, its title and the elements up to the next ##."""

    id: str
    title: str
    nodes: list[LexborNode] = field(default_factory=list)

    def first(self, selector: str) -> LexborNode | None:
        return next(self.all(selector), None)

    def all(self, selector: str) -> Iterator[LexborNode]:
        """Elements matching ``selector``: a plain tag name may be one of the section's own top-level nodes."""
        for node in self.nodes:
            if node.tag == selector:
                yield node
            yield from node.css(selector)


def parse(site: Path, page: str) -> LexborHTMLParser:
    return LexborHTMLParser((site / page).read_text(encoding="utf-8"))


def article(tree: LexborHTMLParser) -> LexborNode:
    node = tree.css_first("article.md-content__inner")
    assert node is not None, "no Material article"
    return node


def sections(tree: LexborHTMLParser) -> list[Section]:
    found: list[Section] = []
    for node in article(tree).iter(include_text=False):
        if node.tag == "h2":
            found.append(Section(node.attributes.get("id") or "", heading_text(node), [node]))
        elif found:
            found[-1].nodes.append(node)
    return found


def heading_text(node: LexborNode) -> str:
    """The heading as the reader sees it, without Material's permalink sign."""
    return node.text(deep=True).replace("¶", "").strip()


def section(tree: LexborHTMLParser, section_id: str) -> Section:
    by_id = {s.id: s for s in sections(tree)}
    assert section_id in by_id, f"no ## section #{section_id}; sections: {list(by_id)}"
    return by_id[section_id]


def table_rows(table: LexborNode) -> list[list[LexborNode]]:
    return [row.css("th, td") for row in table.css("tr")]


def row_starting(table: LexborNode, text: str) -> list[LexborNode]:
    rows = [cells for cells in table_rows(table) if cells and cells[0].text().strip().startswith(text)]
    assert len(rows) == 1, f"{len(rows)} rows start with {text!r}"
    return rows[0]


def fragment_links(node: LexborNode) -> list[str]:
    return [href[1:] for a in node.css("a[href^='#']") for href in [a.attributes.get("href") or ""]]


def heading_level(node: LexborNode) -> int:
    """1 to 6 for h1 to h6, 0 for anything else."""
    tag = node.tag or ""
    return int(tag[1]) if re.fullmatch(r"h[1-6]", tag) else 0


def following(tree: LexborHTMLParser, element_id: str) -> list[LexborNode]:
    """The elements after the one with ``element_id``, up to the next heading of its level or above."""
    start = tree.css_first(f"[id='{element_id}']")
    assert start is not None, f"no element #{element_id}"
    level = heading_level(start) or 6
    out: list[LexborNode] = []
    node = start.next
    while node is not None:
        if 0 < heading_level(node) <= level:
            break
        if node.tag != "-text":
            out.append(node)
        node = node.next
    return out


def code_blocks(nodes: list[LexborNode]) -> list[str]:
    """The text of each code block among ``nodes`` (the HTML names no language: tell them apart by content)."""
    return [pre.text(deep=True) for node in nodes for pre in ([node] if node.tag == "pre" else node.css("pre"))]


def one_block(blocks: list[str], needle: str) -> str:
    found = [b for b in blocks if needle in b]
    assert len(found) == 1, f"{len(found)} code blocks contain {needle!r}"
    return found[0]


# ---- journey (c): FSDP or DeepSpeed, and the 70B case ------------------------------------------------------------


def test_fsdp_or_deepspeed_comes_right_after_the_recommended_order(site: Path) -> None:
    order = [s.id for s in sections(parse(site, GPU_MANY))]
    assert order[:3] == ["summary", "recommended-order", "fsdp-or-deepspeed"], order


def test_the_decision_table_has_every_criterion_for_both(site: Path) -> None:
    decision = section(parse(site, GPU_MANY), "fsdp-or-deepspeed")
    table = decision.first("table")
    assert table is not None, "no table in FSDP or DeepSpeed?"
    header = [cell.text().strip() for cell in table_rows(table)[0]]
    assert header[0] == "Criterion" and "FSDP" in header[1] and "DeepSpeed" in header[2], header
    labels = [cells[0].text().strip() for cells in table_rows(table)[1:]]
    assert [c for c in CRITERIA if c not in labels] == [], labels
    for label in CRITERIA:
        cells = row_starting(table, label)
        assert len(cells) == 3 and all(len(c.text().strip()) > 20 for c in cells[1:]), f"{label}: an empty side"
    sources = [p for p in decision.all("p") if p.text().strip().startswith("Sources:")]
    assert sources, "the table names no sources"
    hosts = {urlsplit(a.attributes.get("href") or "").hostname for a in sources[0].css("a")}
    assert {"docs.pytorch.org", "www.deepspeed.ai", "huggingface.co"} <= hosts, hosts


def test_the_70b_case_is_in_the_recommended_order_and_links_its_answers(site: Path) -> None:
    tree = parse(site, GPU_MANY)
    order = section(tree, "recommended-order")
    steps = [li for li in order.all("ol > li") if "70B" in li.text()]
    assert len(steps) == 1, "one step of the recommended order is the 70B case"
    assert {"lora-fsdp-70b", "llama-70b-on-8-gpus"} <= set(fragment_links(steps[0])), fragment_links(steps[0])
    rules = order.first("table")
    assert rules is not None
    row = row_starting(rules, "A 70B model, one node of 8 × 80 GB")
    assert "lora-fsdp-70b" in fragment_links(row[1])
    case = tree.css_first("[id='llama-70b-on-8-gpus']")
    assert case is not None and case.tag == "h3"


def test_the_lora_fsdp_recipe_for_70b_has_its_config_script_and_launch(site: Path) -> None:
    tree = parse(site, GPU_MANY)
    heading = tree.css_first("[id='lora-fsdp-70b']")
    assert heading is not None and heading.tag == "h3"
    assert heading_text(heading).startswith("Recipe: LoRA on a 70B model with FSDP")
    body = following(tree, "lora-fsdp-70b")
    blocks = code_blocks(body)
    assert len(blocks) == 3, "a config file, a script and the launch command"
    config = one_block(blocks, "distributed_type: FSDP")
    assert "fsdp_version: 2" in config and "mixed_precision: bf16" in config
    script = one_block(blocks, "get_peft_model(")
    assert '"meta-llama/Llama-3.1-70B"' in script and "trainer.train()" in script and "save_model(" in script
    launch = one_block(blocks, "accelerate launch")
    assert launch.strip() == "accelerate launch --config_file fsdp2_lora.yaml train_lora_70b.py"
    table = next((n for n in body if n.css_first("table") is not None), None)
    assert table is not None and "Total" in table.text(), "the memory model's budget for the recipe"


# ---- journey (a): QLoRA on 24 GB -----------------------------------------------------------------------------------


def decision_rules(site: Path) -> LexborNode:
    table = section(parse(site, GPU_ONE), "recommended-order").first("table")
    assert table is not None, "no decision table in the recommended order of train/gpu_one"
    return table


def test_the_recipe_link_of_the_decision_table_lands_on_the_recipe(site: Path) -> None:
    row = row_starting(decision_rules(site), "7B–13B on 16–24 GB")
    [target] = fragment_links(row[1])
    tree = parse(site, GPU_ONE)
    heading = tree.css_first(f"[id='{target}']")
    assert heading is not None and heading.tag == "h3", f"#{target} is not a subsection heading"
    assert heading_text(heading).startswith("Recipe: QLoRA"), heading_text(heading)
    assert code_blocks(following(tree, target)), "the recipe's code follows its heading"


def test_still_out_of_memory_on_qlora_has_a_checklist_with_knobs(site: Path) -> None:
    row = row_starting(decision_rules(site), "Already on QLoRA and still out of memory")
    [target] = fragment_links(row[1])
    tree = parse(site, GPU_ONE)
    heading = tree.css_first(f"[id='{target}']")
    assert heading is not None and heading.tag == "h3"
    lists = [n for n in following(tree, target) if n.tag == "ol"]
    assert lists, "no numbered checklist"
    items = lists[0].css("li")
    topics = ["logits", "sequence length", "micro-batch", "checkpointing", "optimizer"]
    titles = [strong.text().lower() if strong else "" for li in items for strong in [li.css_first("strong")]]
    assert [t for t in topics if not any(t in title for title in titles)] == [], titles
    knobless = [
        title for li, title in zip(items, titles, strict=True) if "Knob:" not in li.text() or not li.css("code")
    ]
    assert knobless == [], "every item names the knob to turn"


# ---- long pages: ids, "In short", contents ------------------------------------------------------------------------


@pytest.mark.parametrize("page", LONG_PAGES)
def test_heading_ids_are_unique_and_meaningful(site: Path, page: str) -> None:
    ids = [h.attributes.get("id") or "" for h in article(parse(site, page)).css("h2, h3, h4")]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    assert [i for i in ids if GENERIC_ID.fullmatch(i) or re.search(r"_\d+$", i)] == []


@pytest.mark.parametrize("page", LONG_PAGES)
def test_every_section_opens_with_an_in_short_line(site: Path, page: str) -> None:
    missing = []
    for sec in sections(parse(site, page)):
        if sec.id in NO_IN_SHORT:
            continue
        first = next((n for n in sec.nodes[1:] if n.tag == "p"), None)
        if first is None or not first.text().strip().startswith("In short:"):
            missing.append(sec.id)
    assert missing == []


@pytest.mark.parametrize("page", LONG_PAGES)
def test_the_contents_list_the_sections_only(site: Path, page: str) -> None:
    tree = parse(site, page)
    toc = tree.css_first("nav.md-nav--secondary ul[data-md-component='toc']")
    assert toc is not None
    listed = [a.attributes.get("href") for a in toc.css("a.md-nav__link")]
    assert listed == [f"#{s.id}" for s in sections(tree)]
    assert len(listed) <= 20, f"{len(listed)} entries"


# ---- diagrams -----------------------------------------------------------------------------------------------------


def diagram_files() -> list[Path]:
    return sorted(DIAGRAMS.glob("*.svg"))


def test_there_are_diagrams() -> None:
    names = {p.stem for p in diagram_files()}
    assert {"memory-anatomy", "zero-stages", "parallelism", "pipeline-bubble"} <= names, names


@pytest.mark.parametrize("path", diagram_files(), ids=lambda p: p.name)
def test_a_diagram_is_small_accessible_svg_that_follows_the_colour_scheme(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert len(text.encode()) < DIAGRAM_BYTES
    root = ET.fromstring(text)
    assert root.tag == f"{SVG}svg" and root.get("viewBox"), "an SVG root with a viewBox"
    assert root.get("role") == "img"
    title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
    assert title is not None and (title.text or "").strip(), "a <title>"
    assert desc is not None and len((desc.text or "").strip()) > 80, "a <desc> that says what the picture shows"
    assert list(root)[:2] == [title, desc], "title and desc come first"
    assert (root.get("aria-labelledby") or "").split() == [title.get("id"), desc.get("id")]
    style = " ".join(s.text or "" for s in root.iter(f"{SVG}style"))
    assert "currentColor" in style and "prefers-color-scheme:dark" in style.replace(" ", "")
    references = [v for el in root.iter() for k, v in el.attrib.items() if k.endswith("href")]
    references += re.findall(r"url\(([^)]*)\)", text)
    assert [r for r in references if not r.startswith("#")] == [], "nothing loads from elsewhere"


def diagram_uses(site: Path) -> dict[str, list[tuple[str, str]]]:
    """Diagram file name -> (page, alt text) of every <img> that shows it in the built site."""
    uses: dict[str, list[tuple[str, str]]] = {}
    for page in sorted(site.rglob("*.html")):
        rel = page.relative_to(site).as_posix()
        for img in LexborHTMLParser(page.read_text(encoding="utf-8")).css("img[src]"):
            target = urljoin(f"https://site.test/{rel}", img.attributes.get("src") or "")
            path = urlsplit(target).path
            if path.startswith("/assets/diagrams/"):
                uses.setdefault(path.rsplit("/", 1)[1], []).append((rel, img.attributes.get("alt") or ""))
    return uses


def test_every_diagram_is_shown_with_alt_text_and_every_shown_one_exists(site: Path) -> None:
    uses = diagram_uses(site)
    files = {p.name for p in diagram_files()}
    assert [name for name in files if name not in uses] == [], "diagrams no page shows"
    assert [name for name in uses if name not in files] == [], "pages show diagrams that do not exist"
    short = [(name, page) for name, shown in uses.items() for page, alt in shown if len(alt) < 40]
    assert short == [], "alt text that says what the diagram shows"


def test_the_diagrams_appear_where_they_explain(site: Path) -> None:
    uses = {name: {page for page, _ in shown} for name, shown in diagram_uses(site).items()}
    assert GPU_ONE in uses["memory-anatomy.svg"] and "index.html" in uses["memory-anatomy.svg"]
    assert {GPU_MANY, SCALABILITY} <= uses["zero-stages.svg"]
    assert SCALABILITY in uses["parallelism.svg"]
    assert {GPU_MANY, SCALABILITY} <= uses["pipeline-bubble.svg"]
    infer = sorted({page for pages in uses.values() for page in pages if page.startswith("performance/infer/")})
    assert infer == [], "the diagrams show training (gradients, optimizer states, backwards): not on inference pages"
