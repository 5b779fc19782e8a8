"""The three readers' questions of issue 13, walked from the home page at 1280 x 900 as a reader does: each
is answered within two clicks and three screens. A "screen" is the viewport height; a position is where an
element starts in the document (its top plus the scroll offset), or where it sits in the viewport after a click.

(a) "my Llama-3-8B QLoRA fine-tune OOMs on a 24 GB GPU"  -> Training on one GPU, its decision table
(b) "make a 7B model's CPU inference faster on a Xeon"    -> Inference on CPU, its recommended order
(c) "8 x 80 GB GPUs and a 70B model: FSDP or DeepSpeed?"  -> Training on several GPUs, the 70B step and the table
"""

from __future__ import annotations

import re
from typing import Any

from .conftest import Watch, settle
from .support import DESKTOP

SCREEN = DESKTOP["height"]
SCREENS = 3
DOC_TOP = "(el) => el.getBoundingClientRect().top + window.scrollY"
DOC_BOTTOM = "(el) => el.getBoundingClientRect().bottom + window.scrollY"
VIEW_TOP = "(el) => el.getBoundingClientRect().top"
VIEW_BOTTOM = "(el) => el.getBoundingClientRect().bottom"
HEADER_BOTTOM = "() => document.querySelector('.md-header').getBoundingClientRect().bottom"


def open_home(context: Any, watch: Watch) -> Any:
    page = watch.attach(context.new_page())
    page.goto("")
    settle(page)
    return page


def click_scenario(page: Any, title: str, path: str) -> None:
    """Click 1: the scenario's link in the home page's table, which must sit on the first screen."""
    link = page.locator(".md-content a", has_text=re.compile(f"^{re.escape(title)}$")).first
    assert link.evaluate(DOC_BOTTOM) <= SCREEN, f"{title!r} is below the first screen of the home page"
    link.click()
    page.wait_for_url(re.compile(re.escape(path) + "$"))
    settle(page)


def within_screens(element: Any, what: str) -> None:
    bottom = element.evaluate(DOC_BOTTOM)
    assert bottom <= SCREENS * SCREEN, f"{what} ends {bottom / SCREEN:.2f} screens down"


def click_in_page(page: Any, link: Any, anchor: str) -> Any:
    """Click 2: an in-page link; the target heading must then sit just below the sticky header."""
    link.scroll_into_view_if_needed()
    link.click()
    page.wait_for_function("(id) => location.hash === '#' + id", arg=anchor)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    heading = page.locator(f"[id='{anchor}']")
    top, header = heading.evaluate(VIEW_TOP), page.evaluate(HEADER_BOTTOM)
    assert -2 <= top <= header + 60, f"#{anchor} is {top:.0f}px from the top (header ends at {header:.0f}px)"
    return heading


def test_a_qlora_oom_on_24_gb(context: Any, watch: Watch) -> None:
    page = open_home(context, watch)
    click_scenario(page, "Training on one GPU", "/performance/train/gpu_one/")

    # The recommended order and its decision table both point there; the first link must be within reach.
    still = page.locator("a[href='#qlora-still-oom']").first
    within_screens(still, "the first link to the 'still out of memory' checklist")
    heading = click_in_page(page, still, "qlora-still-oom")
    assert heading.inner_text().startswith("Already on QLoRA and still out of memory")
    first = page.locator("#qlora-still-oom ~ ol > li").first
    assert "logits" in first.inner_text() and first.evaluate(VIEW_BOTTOM) <= SCREEN, "the first check is on screen"
    assert "use_liger_kernel=True" in first.inner_text(), "with its knob"

    within_screens(page.locator("a[href='#qlora-recipe']").first, "the first link to the QLoRA recipe")
    # The decision table's "recipe" lands on the recipe itself, with its code on that screen.
    page.evaluate("() => window.scrollTo(0, 0)")
    rules = page.locator("#recommended-order ~ div table, #recommended-order ~ table").first
    recipe_row = rules.locator("tr", has_text="7B–13B on 16–24 GB")
    heading = click_in_page(page, recipe_row.locator("a[href='#qlora-recipe']"), "qlora-recipe")
    assert heading.inner_text().startswith("Recipe: QLoRA fine-tune")
    code = page.locator("#qlora-recipe ~ .highlight, #qlora-recipe ~ div .highlight").first
    assert code.evaluate(VIEW_TOP) <= SCREEN, "the recipe's code starts on the screen it lands on"
    assert watch.problems == [] and watch.external == []


def test_b_cpu_inference_on_a_xeon(context: Any, watch: Watch) -> None:
    page = open_home(context, watch)
    click_scenario(page, "Inference on CPU", "/performance/infer/cpu/")
    steps = page.locator("#recommended-order ~ ol").first
    first_steps = steps.locator(":scope > li").nth(1)  # the first two steps are the answer's start
    within_screens(first_steps, "the first two recommended steps")
    assert watch.problems == [] and watch.external == []


def test_c_fsdp_or_deepspeed_for_70b_on_8_gpus(context: Any, watch: Watch) -> None:
    page = open_home(context, watch)
    click_scenario(page, "Training on several GPUs", "/performance/train/gpu_many/")

    step = page.locator("#recommended-order ~ ol > li", has_text="70B model on one node").first
    within_screens(step, "the 70B step of the recommended order")
    assert step.locator("a[href='#lora-fsdp-70b']").count() == 1, "it links the LoRA + FSDP recipe"

    entry = page.locator(".md-sidebar--secondary a.md-nav__link[href='#fsdp-or-deepspeed']")
    assert entry.is_visible() and entry.evaluate(VIEW_BOTTOM) <= SCREEN, "the contents name the question"
    click_in_page(page, entry, "fsdp-or-deepspeed")
    table = page.locator("#fsdp-or-deepspeed ~ div table, #fsdp-or-deepspeed ~ table").first
    assert table.evaluate(VIEW_TOP) < SCREEN, "the criteria table starts on the screen the click lands on"
    assert table.locator("tr", has_text="Offload needs").count() == 1

    page.evaluate("() => window.scrollTo(0, 0)")
    heading = click_in_page(page, step.locator("a[href='#lora-fsdp-70b']"), "lora-fsdp-70b")
    assert heading.inner_text().startswith("Recipe: LoRA on a 70B model with FSDP")
    config = page.locator("#lora-fsdp-70b ~ .highlight", has_text="distributed_type: FSDP").first
    assert config.evaluate(VIEW_TOP) < 2 * SCREEN, "the config follows within a screen of the heading"
    assert watch.problems == [] and watch.external == []


def test_the_diagrams_render_in_both_colour_schemes(browser: Any, base_url: str) -> None:
    """Each diagram loads from the site itself and its lines follow Material's scheme: dark strokes on the light
    page, light strokes on the slate one (the SVG's own prefers-color-scheme follows the page's color-scheme)."""
    ink: dict[str, list[float]] = {}
    for scheme in ("light", "dark"):
        ctx = browser.new_context(viewport=DESKTOP, base_url=base_url, color_scheme=scheme)
        watch = Watch(base_url)
        page = watch.attach(ctx.new_page())
        page.goto("performance/scalability/")
        settle(page)
        images = page.locator("img[src*='assets/diagrams/']")
        assert images.count() >= 3
        for i in range(images.count()):
            image = images.nth(i)
            image.scroll_into_view_if_needed()
            assert image.evaluate("(img) => img.decode().then(() => img.naturalWidth)") > 0
            ink.setdefault(image.get_attribute("src") or "", []).append(image.evaluate(INK))
        assert watch.problems == [] and watch.external == [], (watch.problems, watch.external)
        ctx.close()
    for src, (light, dark) in ink.items():
        assert light < 0.35 and dark > 0.65, f"{src}: ink lightness {light:.2f} on light, {dark:.2f} on dark"


# The median lightness (0..1) of the image's opaque pixels: the text and lines drawn in currentColor (the fills
# are translucent), dark on a light page and light on a dark one.
INK = """async (img) => {
  const c = document.createElement('canvas');
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  const values = [];
  for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 200) values.push((d[i] + d[i + 1] + d[i + 2]) / 765);
  values.sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)];
}"""
