"""Layout a reader meets (docs/assets/perfdocs.css, docs/assets/layout.js): code that fits its column at
1280 px with the copy button beside the text, wide tables that keep their row labels on a 390 px phone
with every link in them clickable, and linked tabs that say when a set lacks the reader's
chosen tab, with the framework tabs named apart from the API tabs. The code and table-link checks run on the
pages test_pages.py (1280 px) and test_phone.py (390 px) load anyway, one load per page and size."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from ..sitetools import build, copy_project
from .conftest import NAV_SOURCES, Watch, settle
from .support import DESKTOP, PHONE, front_matter, page_url, serve

SCENARIO_URLS = [page_url(src) for src in NAV_SOURCES if front_matter(src).get("scenario")]

# Every code block as a reader can bring it up: all tabs shown at once and every <details> open, so a
# block in a hidden tab (0 px wide while hidden) is measured at the width it has when its tab is picked.
CODE_BLOCKS = """() => {
  const style = document.createElement('style');
  style.textContent = '.md-typeset .tabbed-set > .tabbed-content > .tabbed-block { display: block !important; }';
  document.head.append(style);
  document.querySelectorAll('.md-typeset details').forEach(d => { d.open = true; });
  return [...document.querySelectorAll('.md-typeset pre > code')].map(code => {
    const box = code.getBoundingClientRect();
    const pad = parseFloat(getComputedStyle(code).paddingRight);
    const nav = code.parentElement.querySelector(':scope > .md-code__nav');
    const longest = code.innerText.split('\\n').reduce((a, l) => l.length > a.length ? l : a, '');
    return {
      scroll: code.scrollWidth, client: code.clientWidth,
      textRight: box.left + code.clientLeft + code.clientWidth - pad,
      button: nav ? nav.getBoundingClientRect().left : null,
      line: longest.slice(0, 100), chars: longest.length,
    };
  });
}"""


def assert_code_fits_its_column(page: Any, url: str) -> None:
    """No code block scrolls sideways on a 1280 px screen, and the copy button sits beside the text, not on it. Run
    by test_pages.py on each scenario page it has loaded at 1280 px, last: it shows every tab and opens every
    <details>."""
    assert page.viewport_size == DESKTOP
    blocks = page.evaluate(CODE_BLOCKS)
    wide = [f"{b['scroll']} > {b['client']} px, {b['chars']} characters: {b['line']}" for b in blocks
            if b["scroll"] > b["client"]]
    assert wide == [], f"{len(wide)} of {len(blocks)} code blocks on {url} scroll sideways:\n" + "\n".join(wide)
    with_button = [b for b in blocks if b["button"] is not None]
    assert with_button, "Material's copy button is on every code block (content.code.copy)"
    covered = [b["line"] for b in with_button if b["textRight"] > b["button"] + 0.5]
    assert covered == [], f"the copy button overlaps the text column of {len(covered)} blocks: {covered[:3]}"


@pytest.fixture
def phone(browser: Any, base_url: str) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE, base_url=base_url, is_mobile=True, has_touch=True,
                                  color_scheme="light")
    yield context
    context.close()


# For each table that scrolls sideways: bring its top under the site's header, scroll it to its right end, then
# hit-test the header row and the first cell of every row in sight. A cell counts as visible when the element at a
# point of its visible part is the cell or inside it (nothing scrolled over it, nothing covering it). The box has no
# height of its own (the page scrolls a long table), so its header row scrolls away with the page, as in any table.
# The first column stays put where it leaves room (layout.js: at most 40 % of the box, every other column fits
# beside it); the measures of that rule are returned with the outcome.
WIDE_TABLES = """async () => {
  const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  document.querySelectorAll('.md-typeset details').forEach(d => { d.open = true; });  // as a reader opens them
  await frame();
  await frame();
  const siteHeader = document.querySelector('.md-header').getBoundingClientRect().height;
  const out = [];
  for (const wrap of document.querySelectorAll('.md-typeset__scrollwrap')) {
    const table = wrap.querySelector('table');
    if (!table || wrap.scrollWidth <= wrap.clientWidth + 1) continue;
    wrap.scrollIntoView({block: 'start'});
    window.scrollBy(0, -(siteHeader + 8));
    wrap.scrollLeft = wrap.scrollWidth;
    await frame();
    const head = [...table.querySelectorAll('thead th')];
    const rows = [...table.querySelectorAll('tbody tr')];
    const box = wrap.getBoundingClientRect();
    const stick = wrap.hasAttribute('data-perfdocs-stick');
    const firstRight = head[0].getBoundingClientRect().right;
    const from = stick ? firstRight : box.left;  // where the scrolled columns become visible
    const hit = (el, left = el === head[0] || el.cellIndex === 0 ? box.left : from) => {
      const r = el.getBoundingClientRect();
      const x = Math.max(r.left, left) + 6, y = r.top + Math.min(r.height / 2, 10);
      if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;
      const at = document.elementFromPoint(x, y);
      return !!at && (at === el || el.contains(at));
    };
    const last = head[head.length - 1].getBoundingClientRect();
    const inSight = rows.map(r => r.cells[0]).filter(c => {
      const r = c.getBoundingClientRect();
      return r.top >= head[0].getBoundingClientRect().bottom && r.bottom <= Math.min(box.bottom, innerHeight);
    });
    const pad = parseFloat(getComputedStyle(wrap.querySelector('.md-typeset__table')).paddingRight);
    out.push({
      header: head.map(th => th.textContent.trim()).join(' | '),
      scrolledBy: wrap.scrollLeft,
      stick, firstShare: head[0].getBoundingClientRect().width / wrap.clientWidth,
      widest: Math.max(...head.slice(1).map(th => th.getBoundingClientRect().width)),
      room: wrap.clientWidth - head[0].getBoundingClientRect().width - pad,
      firstHeader: hit(head[0]), lastHeader: hit(head[head.length - 1]),
      lastWhole: last.left >= from - 1 && last.right <= box.right + 1,  // the last column wholly in sight
      labels: inSight.length, hidden: inSight.filter(c => !hit(c)).map(c => c.textContent.trim()),
      stuck: head[0].getBoundingClientRect().left >= box.left - 1,  // not scrolled out on the left
      tall: wrap.scrollHeight <= wrap.clientHeight + 1,  // no box of its own height to scroll inside the page
      focusable: wrap.tabIndex === 0 && wrap.getAttribute('role') === 'region' && !!wrap.getAttribute('aria-label'),
    });
  }
  return out;
}"""


def test_wide_tables_keep_their_row_labels_on_a_phone(phone: Any, base_url: str) -> None:
    """The technique matrix and every other table too wide for a phone, scrolled to its right end: the row labels
    stay put where they leave room, and the last column is then wholly in sight, never partly under them."""
    seen, stuck = 0, []
    for url in SCENARIO_URLS:
        watch = Watch(base_url)
        page = watch.attach(phone.new_page())
        page.goto(url)
        settle(page)
        for table in page.evaluate(WIDE_TABLES):
            seen += 1
            where = f"{url or '/'} [{table['header']}]"
            assert table["scrolledBy"] > 0, where
            assert table["tall"], f"{where}: the table scrolls inside a box shorter than itself"
            assert table["focusable"], f"{where}: a table that scrolls takes keyboard focus, as a code block does"
            assert table["lastHeader"] and table["lastWhole"], f"{where}: the last column is not wholly in sight"
            leaves_room = table["firstShare"] <= 0.4 and table["widest"] <= table["room"] + 0.5
            assert table["stick"] == leaves_room, f"{where}: {table}"
            if table["stick"]:
                stuck.append(table["header"])
                assert table["stuck"] and table["firstHeader"], f"{where}: the first column scrolled away"
                assert table["labels"] > 0 and table["hidden"] == [], f"{where}: row labels hidden: {table['hidden']}"
        assert watch.problems == []
        page.close()
    assert seen >= 3, "the matrix and the summary tables are wider than a phone: they must have been checked"
    assert any(header.startswith("Technique | Helps") for header in stuck), "the matrix keeps its row labels"
    assert sum(header.startswith("Technique | Speed") for header in stuck) >= 3, "and so do the Summary tables"


# Every link in a table, every collapsed explanation opened: brought into view the way a browser does for a focused
# link, then hit-tested.
TABLE_LINKS = """async () => {
  const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  document.querySelectorAll('.md-typeset details').forEach(d => { d.open = true; });  // as a reader opens them
  await frame();
  const out = [];
  for (const link of document.querySelectorAll('.md-typeset__table table a[href]')) {
    link.scrollIntoView({block: 'center', inline: 'center'});
    await frame();
    const r = link.getClientRects()[0];  // its first line: a wrapped link's box has a hole in the middle
    const at = r && document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    out.push({href: link.getAttribute('href'), text: link.textContent.trim().slice(0, 40),
              ok: !!r && r.width > 0 && !!at && (at === link || link.contains(at))});
  }
  return out;
}"""


def assert_table_links_clickable(page: Any, url: str) -> None:
    """Summary tables' Section links and the matrix's check marks: none sits under a sticky cell or off the box.
    Run by test_phone.py on each scenario page it has loaded at 390 px (it scrolls the tables)."""
    links = page.evaluate(TABLE_LINKS)
    summary = page.locator("table", has=page.locator("th", has_text=re.compile(r"^Section$")))
    if url:  # every scenario page but the overview opens with a summary table
        assert summary.count() >= 1, f"{url} has a summary table with a Section column"
        assert summary.first.locator("a[href]").count() >= 3
    blocked = [f"{link['text']} -> {link['href']}" for link in links if not link["ok"]]
    assert blocked == [], f"{len(blocked)} of {len(links)} table links on {url or '/'} cannot be clicked: {blocked}"


HINTS = """() => [...document.querySelectorAll('.tabbed-set')].map(set => {
  const hint = set.querySelector(':scope > .perfdocs-tab-hint');
  return {
    labels: [...set.querySelectorAll(':scope > .tabbed-labels > label')].map(l => l.textContent.trim()),
    shown: set.querySelector(`:scope > .tabbed-labels > label[for="${set.querySelector(':scope > input:checked').id}"]`)
      .textContent.trim(),
    hint: hint ? hint.textContent : null,
    role: hint ? hint.getAttribute('role') : null,
    visible: hint ? hint.offsetParent !== null : null,
  };
})"""


def choose_tab(page: Any, label: str) -> None:
    tab = page.locator(".tabbed-set > .tabbed-labels > label", has_text=re.compile(f"^{re.escape(label)}$")).first
    tab.scroll_into_view_if_needed()
    tab.click()
    page.evaluate("() => new Promise(r => setTimeout(r, 0))")  # after layout.js's refresh, queued by the click


def test_a_tab_set_without_the_readers_choice_says_what_it_shows(context: Any, watch: Watch) -> None:
    page = watch.attach(context.new_page())
    page.goto("performance/train/gpu_one/")
    settle(page)
    sets = page.evaluate(HINTS)
    assert all(s["hint"] is None for s in sets), "a fresh reader has chosen nothing: no hint"
    assert any("Accelerate" not in s["labels"] and "Trainer" in s["labels"] for s in sets), "the page has such a set"

    choose_tab(page, "Accelerate")
    for s in page.evaluate(HINTS):
        if "Accelerate" in s["labels"]:
            assert s["shown"] == "Accelerate" and s["hint"] is None, s
        else:
            assert s["hint"] == f"No Accelerate version of this step; showing {s['shown']}.", s
            assert s["role"] == "status" and s["visible"], s

    # On a page with no Accelerate tab at all, reached the way a reader goes there (with instant navigation
    # when the site has a sitemap), each Trainer / PyTorch set says so.
    page.locator(".md-tabs__link", has_text="Inference").click()
    page.wait_for_url(re.compile(r"/performance/infer/$"))
    page.locator(".md-nav--primary a.md-nav__link[href='cpu/']:visible").click()
    page.wait_for_url(re.compile(r"/performance/infer/cpu/$"))
    settle(page)
    page.locator(".perfdocs-tab-hint").first.wait_for(state="attached")
    sets = page.evaluate(HINTS)
    assert sets, "infer/cpu has Trainer / PyTorch tabs"
    for s in sets:
        assert "Accelerate" not in s["labels"], s
        assert s["hint"] == f"No Accelerate version of this step; showing {s['shown']}.", s
    hint = page.locator(".perfdocs-tab-hint").first
    assert hint.get_attribute("role") == "status"

    # Picking a tab these sets have is the new choice: their hints go, and a set without it says so.
    choose_tab(page, "PyTorch")
    assert [(s["shown"], s["hint"]) for s in page.evaluate(HINTS)] == [("PyTorch", None)] * len(sets)
    page.goto("performance/train/gpu_one/")
    settle(page)
    for s in page.evaluate(HINTS):
        if "PyTorch" in s["labels"]:
            assert s["shown"] == "PyTorch" and s["hint"] is None, s
        else:  # Trainer / Accelerate: Material falls back to the reader's previous pick
            assert s["shown"] == "Accelerate", s
            assert s["hint"] == "No PyTorch version of this step; showing Accelerate.", s
    assert watch.problems == []


TAB_PAGE = """# Tabs

## Train

<hfoptions id="api">
<hfoption id="Trainer">
Trainer way.
</hfoption>
<hfoption id="PyTorch">
Plain PyTorch loop.
</hfoption>
</hfoptions>

## Load

<frameworkcontent>
<pt>
A PyTorch model class.
</pt>
<tf>
A TensorFlow model class.
</tf>
</frameworkcontent>
"""


@pytest.fixture(scope="module")
def tabs_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A one-page copy of the site (same theme, hooks and assets) with an API tab set and a framework one."""
    project = copy_project(tmp_path_factory.mktemp("tabs-project"))
    docs = project / "docs"
    for child in docs.iterdir():
        if child.name != "assets":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    (docs / "index.md").write_text(TAB_PAGE, encoding="utf-8")
    (project / "redirects.yml").write_text(yaml.safe_dump({"redirects": {}}))
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    assert text.count("\nnav:\n") == 1
    config.write_text(text[: text.index("\nnav:\n")] + "\nnav:\n  - Tabs: index.md\n", encoding="utf-8")
    site = tmp_path_factory.mktemp("tabs-site")
    result = build(project, site)
    assert result.returncode == 0, result.stderr
    with serve(site) as url:
        yield url


def test_framework_tabs_are_named_apart_from_api_tabs(browser: Any, tabs_url: str) -> None:
    """<pt> is "PyTorch (framework)", the API tab "PyTorch": picking one never switches the other kind of set."""
    context = browser.new_context(viewport=DESKTOP, base_url=tabs_url, color_scheme="light")
    watch = Watch(tabs_url)
    page = watch.attach(context.new_page())
    page.goto("")
    settle(page)
    sets = page.evaluate(HINTS)
    assert [s["labels"] for s in sets] == [["Trainer", "PyTorch"], ["PyTorch (framework)", "TensorFlow"]]

    choose_tab(page, "TensorFlow")
    choose_tab(page, "PyTorch")
    sets = page.evaluate(HINTS)
    assert [s["shown"] for s in sets] == ["PyTorch", "TensorFlow"], "each kind of set keeps its own choice"
    assert [s["hint"] for s in sets] == [None, None], "a framework set is not missing an API tab, nor the reverse"

    choose_tab(page, "PyTorch (framework)")
    assert [s["shown"] for s in page.evaluate(HINTS)] == ["PyTorch", "PyTorch (framework)"]
    assert watch.problems == []
    context.close()
