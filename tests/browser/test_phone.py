"""The site on a 390 x 844 phone (docs/assets/perfdocs.css, docs/assets/layout.js, docs/assets/diagrams/narrow/):
no page pans sideways, a table is as tall as its rows and shows that it has more columns, a diagram's text is
at least 11 CSS px, code in a table cell never breaks inside a word (also at 1280 px, in test_pages.py), and
painting a whole page is not the layerization cliff it was (4-6 s of CPU per paint on four scenario pages)."""

from __future__ import annotations

import json
import re
import struct
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .accessibility import ANY, violations_in_both_schemes
from .conftest import MISSING_URL, NAV_SOURCES, PAGE_URLS, Watch, settle, slug
from .support import DESKTOP, PHONE, page_url
from .test_layout import SCENARIO_URLS as WITH_SUMMARY
from .test_layout import assert_table_links_clickable

ALL_URLS = [*PAGE_URLS, MISSING_URL]
# The overview and every page under performance/infer/ and performance/train/, and Scalability.
SCENARIO_URLS = [
    page_url(src)
    for src in NAV_SOURCES
    if re.fullmatch(r"index\.md|performance/(infer|train)/[^/]+\.md|performance/scalability\.md", src)
]
SIZES = {"phone": PHONE, "desktop": DESKTOP}
MIN_DIAGRAM_TEXT_PX = 11


def new_context(browser: Any, base_url: str, size: str = "phone", scheme: str = "light") -> Any:
    phone = size == "phone"
    return browser.new_context(
        viewport=SIZES[size], base_url=base_url, is_mobile=phone, has_touch=phone, color_scheme=scheme
    )


@pytest.fixture
def phone(browser: Any, base_url: str) -> Iterator[Any]:
    context = new_context(browser, base_url)
    yield context
    context.close()


def open_page(context: Any, base_url: str, url: str) -> tuple[Any, Watch]:
    watch = Watch(base_url, expected_404={base_url + MISSING_URL})
    page = watch.attach(context.new_page())
    page.goto(url)
    settle(page)
    return page, watch


# ---- the page stays put ----------------------------------------------------------------------------------------

# A phone browser widens its layout viewport to whatever the page's content reaches (innerWidth became 614 on the
# overview), so "scrollWidth <= innerWidth" holds on a page that pans: measure against the screen's 390 px.
SIDEWAYS = """async (screen) => {
  const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const root = document.scrollingElement;
  // What reaches past the screen and is not inside a box that scrolls it (or clips it) away. An absolutely
  // positioned element is clipped only by its containing block and what holds that (the matrix's screen-reader
  // text sat in a box that scrolls, but its containing block was outside it); a fixed one widens nothing.
  const escapes = el => {
    const r = el.getBoundingClientRect();
    if (!r.width || r.right <= screen + 1) return false;
    let up = el.parentElement;
    if (getComputedStyle(el).position === 'absolute') up = el.offsetParent;
    for (let at = el; at; at = at.parentElement) if (getComputedStyle(at).position === 'fixed') return false;
    for (; up && up !== document.body && up !== document.documentElement; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== 'visible' && up.getBoundingClientRect().right <= screen + 1) return false;
    }
    return true;
  };
  const escaping = [...document.querySelectorAll('body *')].filter(escapes).slice(0, 8).map(el =>
    `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} (right edge ${Math.round(el.getBoundingClientRect().right)} px)`);
  window.scrollTo(600, window.scrollY);  // a swipe to the left
  await frame();
  const header = document.querySelector('.md-header').getBoundingClientRect();
  const search = document.querySelector('.md-header label[for="__search"]');
  return {innerWidth: window.innerWidth, clientWidth: document.documentElement.clientWidth,
          scrollWidth: root.scrollWidth, panned: window.scrollX, escaping,
          header: [Math.round(header.left), Math.round(header.right)],
          search: search ? Math.round(search.getBoundingClientRect().right) : null};
}"""


# Whatever in the article reaches past the screen sits in a box that scrolls; no table or code box is cut off.
IN_BOXES = """() => {
  const width = window.innerWidth, report = [];
  const scrollsX = el => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const describe = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
      (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  if (document.scrollingElement.scrollWidth > width)
    report.push(`page scrolls sideways: scrollWidth ${document.scrollingElement.scrollWidth} > ${width}`);
  // Anything in the article that reaches past the right edge must sit in a box that scrolls.
  for (const el of document.querySelectorAll('.md-content *')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 1) continue;
    let up = el.parentElement, held = false;
    while (up && up !== document.body && !held) {
      held = scrollsX(up) && up.getBoundingClientRect().right <= width + 1;
      up = up.parentElement;
    }
    if (!held) report.push(`${describe(el)} overflows the screen (right edge ${Math.round(box.right)}px)`);
  }
  // Tables and code blocks: their own box fits and scrolls.
  for (const el of document.querySelectorAll('.md-typeset__scrollwrap, .md-typeset pre > code')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0) continue;
    if (box.right > width + 1) report.push(`${describe(el)} is wider than the screen`);
    if (el.scrollWidth > el.clientWidth + 1 && !scrollsX(el) && !scrollsX(el.parentElement))
      report.push(`${describe(el)} is cut off instead of scrolling`);
  }
  return [...new Set(report)].slice(0, 20);
}"""


@pytest.mark.parametrize("url", ALL_URLS, ids=slug)
def test_each_page_on_a_phone(
    phone: Any, base_url: str, screenshots: Path, axe_script: str, url: str, browser: Any, tmp_path: Path
) -> None:
    """One load of each page at 390 px for what a phone reader meets; every check runs, and a failure lists all that
    failed. It leaves the phone screenshot in test-artifacts/. These were six tests loading the same pages (no
    page scrolls sideways; tables are as tall as their rows; code in a table cell never breaks inside a word;
    test_layout.py's every table link is clickable; painting a scenario page whole is no layerization cliff; no
    accessibility violation on a scenario page, accessibility.py), and before them test_pages.py had a phone
    check of its own."""
    page, watch = open_page(phone, base_url, url)
    path = screenshots / f"{slug(url)}-phone.png"
    painted: list[float] = []  # the layerization CPU of the full-page screenshot of a scenario page

    def screenshot() -> None:
        if url not in SCENARIO_URLS:
            page.screenshot(path=str(path), full_page=True, animations="disabled")
            return
        painted.append(layerization_cpu_s(browser, page, tmp_path / "trace.json", path))

    checks: list[Callable[[], None]] = []
    if url in SCENARIO_URLS:  # first: it reads the page as loaded, and leaves it in the light scheme
        checks.append(lambda: assert_accessible(page, axe_script, url))
    if url in PAGE_URLS:
        checks.append(lambda: assert_code_never_breaks_inside_a_word(page, url))
    if url in SCENARIO_URLS:
        checks.append(lambda: assert_tables_as_tall_as_their_rows(page, url))
    checks.append(lambda: assert_stays_put(page, url, screenshot))  # after those: it swipes the page
    if url in SCENARIO_URLS:
        checks.append(lambda: assert_no_layerization_cliff(url, painted))
    if url in WITH_SUMMARY:
        checks.append(lambda: assert_table_links_clickable(page, url))  # last: it scrolls the tables
    failed = []
    for check in checks:
        try:
            check()
        except AssertionError as err:
            failed.append(str(err))
    assert failed == [], "\n\n".join(failed)
    assert watch.problems == []


def assert_accessible(page: Any, axe_script: str, url: str) -> None:
    failed = violations_in_both_schemes(page, axe_script, f"{url or '/'} at {PHONE['width']} px", ANY)
    assert failed == [], "\n\n".join(failed)


def assert_stays_put(page: Any, url: str, screenshot: Callable[[], None]) -> None:
    """A swipe does not pan into blank space, the header with search and the menu stays on the screen, and what is
    wider than the screen scrolls in its own box. ``screenshot`` takes the full-page screenshot, before the swipe."""
    where = f"{url or '/'} at {PHONE['width']} px"
    boxed = page.evaluate(IN_BOXES)
    screenshot()
    assert boxed == [], f"{where}:\n" + "\n".join(boxed)
    got = page.evaluate(SIDEWAYS, PHONE["width"])  # after the screenshot: it swipes
    assert got["escaping"] == [], f"{where}: reaches past the screen outside any box that scrolls: {got['escaping']}"
    assert got["scrollWidth"] <= PHONE["width"], f"{where}: the page is {got['scrollWidth']} px wide"
    assert got["innerWidth"] == got["clientWidth"] == PHONE["width"], f"{where}: the layout viewport widened: {got}"
    assert got["panned"] == 0, f"{where}: a sideways swipe panned the page by {got['panned']} px"
    assert got["header"] == [0, PHONE["width"]], f"{where}: the header moved: {got['header']}"
    assert got["search"] is not None and got["search"] <= PHONE["width"], f"{where}: the search button is off screen"


# ---- tables ----------------------------------------------------------------------------------------------------

# layout.js has looked at every table box once it has marked each one that scrolls sideways.
SEEN = """() => [...document.querySelectorAll('.md-typeset .md-typeset__scrollwrap')]
  .every(w => w.scrollWidth <= w.clientWidth + 1 || w.getAttribute('role') === 'region')"""

TABLES = """() => [...document.querySelectorAll('.md-typeset .md-typeset__scrollwrap')].filter(w => w.offsetParent)
  .map(w => {
    const table = w.querySelector('table'), rows = table.querySelectorAll('tr');
    return {
      header: [...table.querySelectorAll('thead th')].map(th => th.textContent.trim()).join(' | '),
      sideways: w.scrollWidth > w.clientWidth + 1, down: w.scrollHeight > w.clientHeight + 1,
      maxHeight: getComputedStyle(w).maxHeight,
      lastRowInside: rows[rows.length - 1].getBoundingClientRect().bottom <= w.getBoundingClientRect().bottom + 1,
      more: w.getAttribute('data-perfdocs-more'),
    };
  })"""


def assert_tables_as_tall_as_their_rows(page: Any, url: str) -> None:
    """No table box scrolls down inside the page: the Summary table of Training on one GPU was cut mid-row."""
    page.wait_for_function(SEEN)
    tables = page.evaluate(TABLES)
    assert tables, f"{url or '/'} has tables"
    for table in tables:
        where = f"{url or '/'} [{table['header']}]"
        assert not table["down"] and table["lastRowInside"], f"{where}: the box cuts the table off at its height"
        assert table["maxHeight"] == "none", where
        assert table["more"] == ("right" if table["sideways"] else None), f"{where}: {table}"


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of RGB bytes of an 8-bit, non-interlaced RGB or RGBA PNG (as Chromium writes them)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks, header = 8, [], b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
    step = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(b"".join(chunks)), width * step
    rows: list[bytes] = []
    previous = bytes(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up, corner = previous[i], previous[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                guess = left + up - corner
                pa, pb, pc = abs(guess - left), abs(guess - up), abs(guess - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        previous = bytes(line)
        rows.append(previous if step == 3 else bytes(b for j, b in enumerate(previous) if j % 4 != 3))
    return width, height, rows


def mean_brightness(png: bytes) -> float:
    width, height, rows = png_pixels(png)
    return sum(sum(row) for row in rows) / (width * height * 3)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_table_with_more_columns_shows_a_shade_at_its_edge(browser: Any, base_url: str, scheme: str) -> None:
    """The Summary table of Training on one GPU: its Section column lay wholly off the screen with nothing to say
    so. Its right edge is shaded while columns lie beyond it, and plain once scrolled to them."""
    context = new_context(browser, base_url, scheme=scheme)
    try:
        page, watch = open_page(context, base_url, "performance/train/gpu_one/")
        wrap = page.locator(".md-typeset__scrollwrap", has=page.locator("th", has_text=re.compile(r"^Section$"))).first
        wrap.evaluate("w => { w.scrollIntoView({block: 'center'}); w.scrollLeft = 0; }")
        page.wait_for_function("w => w.getAttribute('data-perfdocs-more') === 'right'", arg=wrap.element_handle())
        box = wrap.bounding_box()
        assert box is not None and box["x"] + box["width"] <= PHONE["width"] + 1
        top, height = max(box["y"], 60), min(box["height"], 300, PHONE["height"] - max(box["y"], 60))
        edge = {"x": box["x"] + box["width"] - 8, "y": top, "width": 6, "height": height}
        inside = {"x": box["x"] + box["width"] - 60, "y": top, "width": 6, "height": height}
        shaded = mean_brightness(page.screenshot(clip=edge, animations="disabled"))
        plain_inside = mean_brightness(page.screenshot(clip=inside, animations="disabled"))
        wrap.evaluate("w => { w.scrollLeft = w.scrollWidth; }")
        page.wait_for_function("w => w.getAttribute('data-perfdocs-more') === 'left'", arg=wrap.element_handle())
        plain = mean_brightness(page.screenshot(clip=edge, animations="disabled"))
        darker = scheme == "light"
        shade = (plain - shaded) if darker else (shaded - plain)
        # The shade: at least 15 of 255 levels at the edge; the column 60 px in is not shaded.
        assert shade >= 15, f"{scheme}: edge {shaded:.1f} with more columns, {plain:.1f} at the end"
        assert abs(plain_inside - plain) < abs(shaded - plain), f"{scheme}: the shade is at the edge only"
        assert watch.problems == []
    finally:
        context.close()


# ---- diagrams --------------------------------------------------------------------------------------------------

# Each diagram as drawn: its file (the narrow one on a phone) read into a shadow root at the width the page shows
# it, every <text> measured in CSS px of the page and checked to lie inside the drawing.
DIAGRAMS = """async () => {
  const out = [];
  for (const img of document.querySelectorAll('.md-typeset img[src*="assets/diagrams/"]')) {
    img.scrollIntoView({block: 'center'});
    if (!img.complete || !img.naturalWidth) await new Promise(r => img.addEventListener('load', r, {once: true}));
    const shown = img.getBoundingClientRect().width;
    const svg = new DOMParser().parseFromString(await (await fetch(img.currentSrc)).text(), 'image/svg+xml')
      .documentElement;
    const host = document.createElement('div');
    host.style.cssText = 'position:absolute;left:0;top:0;visibility:hidden;width:' + shown + 'px';
    document.body.append(host);
    const root = host.attachShadow({mode: 'open'});
    root.append(document.importNode(svg, true));
    const drawn = root.querySelector('svg');
    drawn.style.width = shown + 'px'; drawn.style.height = 'auto';
    const view = drawn.viewBox.baseVal, scale = shown / view.width;
    const direct = el => [...el.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.data.trim());
    const texts = [...drawn.querySelectorAll('text, tspan')].filter(direct).map(t => {
      const b = (t.closest('text') || t).getBBox();
      return {text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * scale,
              inside: b.x >= view.x - 0.5 && b.y >= view.y - 0.5 && b.x + b.width <= view.x + view.width + 0.5
                      && b.y + b.height <= view.y + view.height + 0.5};
    });
    host.remove();
    out.push({src: img.currentSrc.replace(/^.*assets\\//, ''), shown: Math.round(shown), texts});
  }
  return out;
}"""

DIAGRAM_PAGES = ["performance/train/gpu_one/", "performance/train/gpu_many/", "performance/scalability/"]


@pytest.mark.parametrize("url", DIAGRAM_PAGES, ids=slug)
def test_diagrams_are_readable_on_a_phone(phone: Any, base_url: str, url: str) -> None:
    """Every diagram is shown from its narrow drawing, whose smallest text is 11 CSS px or more where the page
    puts it (the wide one scaled to 358 px had 5 px legends), and no text runs off the drawing."""
    page, watch = open_page(phone, base_url, url)
    diagrams = page.evaluate(DIAGRAMS)
    assert diagrams, f"{url} shows diagrams"
    for diagram in diagrams:
        assert diagram["src"].startswith("diagrams/narrow/"), diagram["src"]
        smallest = min(diagram["texts"], key=lambda t: t["px"])
        assert smallest["px"] >= MIN_DIAGRAM_TEXT_PX, (
            f"{url}: {diagram['src']} at {diagram['shown']} px: '{smallest['text']}' is {smallest['px']:.1f} px"
        )
        outside = [t["text"] for t in diagram["texts"] if not t["inside"]]
        assert outside == [], f"{diagram['src']}: text outside the drawing: {outside}"
    assert watch.problems == []


def test_a_desktop_reader_gets_the_wide_diagrams(context: Any, base_url: str) -> None:
    page, watch = open_page(context, base_url, "performance/scalability/")
    diagrams = page.evaluate(DIAGRAMS)
    assert len(diagrams) >= 3
    for diagram in diagrams:
        assert not diagram["src"].startswith("diagrams/narrow/"), diagram["src"]
        assert min(t["px"] for t in diagram["texts"]) >= MIN_DIAGRAM_TEXT_PX, diagram["src"]
        assert all(t["inside"] for t in diagram["texts"]), diagram["src"]
    assert watch.problems == []


def test_every_wide_diagram_has_a_narrow_drawing_that_is_just_as_accessible() -> None:
    from ..test_journeys import DIAGRAMS as WIDE
    from ..test_journeys import test_a_diagram_is_small_accessible_svg_that_follows_the_colour_scheme as check

    wide = sorted(p.name for p in WIDE.glob("*.svg"))
    narrow = sorted(p.name for p in (WIDE / "narrow").glob("*.svg"))
    assert wide and narrow == wide, "one narrow drawing per diagram, of the same name"
    for name in narrow:
        check(WIDE / "narrow" / name)
        title = re.compile(r"<title[^>]*>(.*?)</title>", re.S)
        assert title.findall((WIDE / "narrow" / name).read_text()) == title.findall((WIDE / name).read_text()), name


# ---- code in table cells ---------------------------------------------------------------------------------------

# Where a line of inline code in a table cell wraps, the characters either side must not both be word characters
# ("torchru|n", "LOCAL_WORLD_SIZ|E"). Each character's box is read from a Range; a new line starts where a
# character's box starts below the previous one's middle.
CODE_BREAKS = """() => {
  const bad = [], word = /[A-Za-z0-9_]/, range = document.createRange();
  let checked = 0;
  for (const code of document.querySelectorAll('.md-typeset :is(td, th) code')) {
    if (!code.getClientRects().length) continue;
    checked++;
    let prev = null;
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.data.length; i++) {
        const ch = node.data[i];
        if (/\\s/.test(ch)) { if (prev) prev.ch = ' '; continue; }  // a space: a line may end there
        range.setStart(node, i); range.setEnd(node, i + 1);
        const r = range.getClientRects()[0];
        if (!r || !r.width) continue;
        if (prev && r.top > (prev.top + prev.bottom) / 2 && word.test(prev.ch) && word.test(ch))
          bad.push(code.textContent.slice(0, 60) + '  (breaks after "' + prev.ch + '")');
        prev = {ch, top: r.top, bottom: r.bottom};
      }
    }
  }
  return {checked, bad: [...new Set(bad)]};
}"""


def assert_code_never_breaks_inside_a_word(page: Any, url: str) -> None:
    """Run at 390 px here and at 1280 px by test_pages.py, on the page each has loaded."""
    got = page.evaluate(CODE_BREAKS)
    width = page.viewport_size["width"]
    assert got["bad"] == [], f"{url or '/'} ({width} px): {len(got['bad'])} code spans break inside a word:\n" + (
        "\n".join(got["bad"][:20])
    )


# ---- painting a whole page -------------------------------------------------------------------------------------

LAYERIZE = "PaintArtifactCompositor::Update"
# A generous bound on CPU time, not on the clock: each page took 3.9-5.9 s before the table boxes were positioned,
# 0.01-0.06 s after, on a loaded 2-core machine.
LAYERIZE_CPU_S = 1.0


def layerization_cpu_s(browser: Any, page: Any, trace: Path, path: Path) -> float:
    """A full-page screenshot at 390 px (to ``path``), which repaints the whole page at once, and the renderer's CPU
    time in layer decisions (PaintArtifactCompositor::Update) for it, from a trace: a busy machine does not change
    it. With table boxes that scroll and are not positioned next to code blocks in positioned <pre>s, Chromium spent
    4-6 s of CPU there per such paint on infer/cpu, infer/gpu_one, infer/gpu_many, train/gpu_many."""
    browser.start_tracing(page=page, path=str(trace), categories=["devtools.timeline", "blink", "cc"])
    try:
        page.screenshot(path=str(path), full_page=True, animations="disabled")
    finally:
        browser.stop_tracing()
    loaded = json.loads(trace.read_text(encoding="utf-8"))
    events = loaded["traceEvents"] if isinstance(loaded, dict) else loaded
    layerize = [e for e in events if e.get("name") == LAYERIZE and e.get("ph") == "X" and "tdur" in e]
    assert layerize, f"the trace has no {LAYERIZE} events: Chromium renamed the probe; update this test"
    return sum(e["tdur"] for e in layerize) / 1e6


def assert_no_layerization_cliff(url: str, painted: list[float]) -> None:
    assert painted, f"{url or '/'}: the full-page screenshot was not taken"
    cpu_s = painted[0]
    assert cpu_s < LAYERIZE_CPU_S, f"{url or '/'}: {cpu_s:.2f} s of CPU in {LAYERIZE} for one full-page paint"
