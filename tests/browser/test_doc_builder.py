"""doc-builder constructs as a reader meets them in Chromium: KaTeX math laid out as MathML with nothing
fetched from another host, the "Open in Colab" menu worked from the keyboard without JavaScript,
<details> with Markdown, a <Tip> and math inside, and a Space embedded that loads only when the reader asks.
The page is added to a copy of the real site."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..sitetools import build, copy_project
from .accessibility import BLOCKING, describe, run_axe
from .conftest import Watch, settle
from .support import DESKTOP, serve

PAGE = r"""# Notebooks, math and details

[[open-in-colab]]

The pipeline bubble is $\frac{p - 1}{m + p - 1}$ of each step, and \\( 16\Psi \\) bytes hold the model states.

$$
\text{bubble} = \frac{p - 1}{m + p - 1}
$$

<PipelineTag pipeline="text-generation"/>

<iframe src="https://org-demo.hf.space" title="The quantizer demo" width="850" height="450"></iframe>

<details>
<summary>Show the derivation</summary>

Each of the $p$ **stages** idles for $p - 1$ slots:

<Tip>
More micro-batches, smaller bubble.
</Tip>

</details>
"""
URL = "doc-builder-demo/"
COLAB = "https://colab.research.google.com/github/huggingface/notebooks/blob/main/transformers_doc/en/"


@pytest.fixture(scope="module")
def demo_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    project = copy_project(tmp_path_factory.mktemp("doc-builder-project"))
    (project / "docs" / "doc-builder-demo.md").write_text(PAGE, encoding="utf-8")
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    assert "\nnav:\n" in text
    config.write_text(text.replace("\nnav:\n", "\nnav:\n  - Demo: doc-builder-demo.md\n", 1), encoding="utf-8")
    site = tmp_path_factory.mktemp("doc-builder-site")
    result = build(project, site)
    assert result.returncode == 0, result.stderr
    with serve(site) as url:
        yield url


def open_demo(browser: Any, demo_url: str, **options: Any) -> tuple[Any, Any, Watch]:
    context = browser.new_context(viewport=DESKTOP, base_url=demo_url, color_scheme="light", **options)
    watch = Watch(demo_url)
    page = watch.attach(context.new_page())
    page.goto(URL)
    if options.get("java_script_enabled", True):
        settle(page)
    else:
        page.wait_for_load_state("load")
    return context, page, watch


BOXES = """() => [...document.querySelectorAll('article math')].filter(m => !m.closest('details')).map(m => {
  const box = m.getBoundingClientRect();
  const frac = m.querySelector('mfrac');
  const [num, den] = frac ? [...frac.children].map(c => c.getBoundingClientRect()) : [null, null];
  return {display: m.getAttribute('display'), width: box.width, height: box.height,
          stacked: num ? num.bottom <= den.top + 1 : null};
})"""


def test_math_is_laid_out_as_mathml_with_nothing_from_another_host(browser: Any, demo_url: str) -> None:
    context, page, watch = open_demo(browser, demo_url)
    try:
        boxes = page.evaluate(BOXES)
        assert [box["display"] for box in boxes] == [None, None, "block"]
        assert all(box["width"] > 0 and box["height"] > 0 for box in boxes)
        # a fraction's numerator sits above its denominator: the browser lays out MathML, not text
        assert [box["stacked"] for box in boxes] == [True, None, True]
        display = page.locator("article .katex-display math")
        inline = page.locator("article p > .katex math").first
        assert display.bounding_box()["height"] > inline.bounding_box()["height"]
        assert "$" not in page.inner_text("article") and "\\\\(" not in page.inner_text("article")
        assert watch.problems == [] and watch.external == []
    finally:
        context.close()


def test_an_embed_requests_nothing_until_the_reader_loads_it(browser: Any, demo_url: str) -> None:
    context, page, watch = open_demo(browser, demo_url)
    try:
        box = page.locator("article .perfdocs-embed")
        assert "The quantizer demo" in box.inner_text() and "org-demo.hf.space" in box.inner_text()
        assert page.locator("iframe").count() == 0 and watch.external == []
        # the Space answers from here: this machine reaches no other host
        context.route(
            "https://org-demo.hf.space/**", lambda route: route.fulfill(body="<p>demo</p>", content_type="text/html")
        )
        box.get_by_role("link", name="Load it here").click()
        frame = box.locator("iframe")
        frame.wait_for()
        assert frame.get_attribute("src") == "https://org-demo.hf.space/"
        assert frame.get_attribute("title") == "The quantizer demo"
        assert page.frame_locator("article .perfdocs-embed iframe").locator("p").inner_text() == "demo"
        assert page.url == demo_url + URL  # the page stayed where it was
        assert watch.external == ["https://org-demo.hf.space/"] and watch.problems == []
    finally:
        context.close()


def test_colab_menu_opens_from_the_keyboard_without_javascript(browser: Any, demo_url: str) -> None:
    context, page, watch = open_demo(browser, demo_url, java_script_enabled=False)
    try:
        colab = page.locator("details.perfdocs-notebook-menu", has_text="Open in Colab")
        links = colab.locator("ul a")
        assert not links.first.is_visible()
        colab.locator("summary").focus()
        page.keyboard.press("Enter")
        assert colab.get_attribute("open") is not None
        assert [links.nth(i).inner_text() for i in range(3)] == ["Mixed", "PyTorch", "TensorFlow"]
        assert links.first.is_visible()
        assert links.nth(1).get_attribute("href") == COLAB + "pytorch/doc-builder-demo.ipynb"
        page.keyboard.press("Tab")  # into the open menu, to its first link
        assert page.locator(":focus").inner_text() == "Mixed"
        colab.locator("summary").focus()
        page.keyboard.press("Space")
        assert colab.get_attribute("open") is None
        studio = page.locator("details.perfdocs-notebook-menu", has_text="Open in Studio Lab")
        assert (
            studio.locator("ul a")
            .first.get_attribute("href")
            .startswith("https://studiolab.sagemaker.aws/import/github/huggingface/notebooks/")
        )
        heading = page.locator("article h1").bounding_box()
        menu = page.locator("article .perfdocs-notebooks").bounding_box()
        assert heading["y"] < menu["y"] < heading["y"] + heading["height"] + 80, "under the H1"
        assert watch.problems == []
    finally:
        context.close()


def test_details_show_markdown_a_tip_and_math_once_opened(browser: Any, demo_url: str, screenshots: Path) -> None:
    context, page, watch = open_demo(browser, demo_url)
    try:
        details = page.locator("article details", has_text="Show the derivation")
        tip = details.locator(".admonition.tip")
        assert not tip.is_visible()
        details.locator("summary").click()
        assert tip.is_visible() and tip.inner_text().endswith("More micro-batches, smaller bubble.")
        assert details.locator("strong").inner_text() == "stages"
        assert details.locator("p math").count() == 2 and details.locator("p math").first.is_visible()
        assert "!!!" not in details.inner_text() and "<Tip" not in details.inner_text()
        badge = page.locator("article .perfdocs-pipeline-tag")
        assert badge.inner_text() == "Text Generation" and badge.is_visible()
        page.screenshot(path=str(screenshots / "doc-builder-demo-desktop.png"), full_page=True, animations="disabled")
        assert watch.problems == []
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violations_with_menu_open(
    browser: Any, demo_url: str, axe_script: str, scheme: str
) -> None:
    context = browser.new_context(viewport=DESKTOP, base_url=demo_url, color_scheme=scheme)
    try:
        page = context.new_page()
        page.goto(URL)
        settle(page)
        page.locator("details.perfdocs-notebook-menu summary").first.click()
        page.locator("article details", has_text="Show the derivation").locator("summary").click()
        blocking = [v for v in run_axe(page, axe_script) if v["impact"] in BLOCKING]
        assert blocking == [], f"{URL} ({scheme}):\n{describe(blocking)}"
    finally:
        context.close()
