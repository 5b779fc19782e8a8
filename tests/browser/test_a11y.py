"""axe-core on every page, in the light and the dark scheme: no serious or critical violations; on the scenario
pages (the overview, everything under infer/ and train/, Scalability) at 390 px and at 1280 px, nothing above
minor either (landmark-unique, scrollable-region-focusable on a phone). No rule is disabled and nothing is
excluded; a failure lists the rule, its help and the elements."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import MISSING_URL, PAGE_URLS, Watch, settle, slug
from .support import DESKTOP, PHONE
from .test_phone import SCENARIO_URLS

BLOCKING = ("serious", "critical")
ANY = ("minor", "moderate", "serious", "critical")
OTHER_URLS = [url for url in [*PAGE_URLS, MISSING_URL] if url not in SCENARIO_URLS]

# docs/assets/layout.js has done its part: every table box and code block that scrolls sideways takes focus.
LAID_OUT = """() => [...document.querySelectorAll('.md-typeset .md-typeset__scrollwrap, .md-typeset pre > code')]
  .every(box => box.scrollWidth <= box.clientWidth + 1 || box.tabIndex === 0)"""


def run_axe(page: Any, axe_script: str) -> list[dict[str, Any]]:
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(content=axe_script)
    return page.evaluate("""async () => {
      const result = await axe.run(document, {resultTypes: ['violations']});
      return result.violations.map(v => ({
        id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
        nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 160),
                                  summary: n.failureSummary}))
      }));
    }""")


def describe(violations: list[dict[str, Any]]) -> str:
    lines = []
    for v in violations:
        lines.append(f"[{v['impact']}] {v['id']}: {v['help']} ({len(v['nodes'])} elements) {v['helpUrl']}")
        for node in v["nodes"][:5]:
            lines.append(f"    {node['target']}  {node['html']}")
            lines.append("      " + (node["summary"] or "").replace("\n", "\n      "))
    return "\n".join(lines)


def check(browser: Any, base_url: str, axe_script: str, url: str, size: str, impacts: tuple[str, ...]) -> None:
    """axe in the light scheme, then in the dark one on the same page: the reader's preference turns dark (as a
    reader whose system is dark opens the page) and Material's toggle switches its palette, which is all that a
    dark load does differently (no style of the site asks for prefers-color-scheme itself). Both schemes are
    checked and a failure lists both."""
    phone = size == "phone"
    context = browser.new_context(viewport=PHONE if phone else DESKTOP, base_url=base_url, color_scheme="light",
                                  is_mobile=phone, has_touch=phone)
    try:
        watch = Watch(base_url, expected_404={base_url + MISSING_URL})
        page = watch.attach(context.new_page())
        page.goto(url)
        settle(page)
        page.wait_for_function(LAID_OUT)
        failed = []
        for scheme, expected in (("light", "default"), ("dark", "slate")):
            if scheme == "dark":
                page.emulate_media(color_scheme="dark")
                page.locator("form[data-md-component=palette] label:visible").click()
                page.wait_for_function(SWITCHED)
            assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == expected, scheme
            blocking = [v for v in run_axe(page, axe_script) if v["impact"] in impacts]
            if blocking:
                failed.append(f"{url} ({scheme}, {size}):\n{describe(blocking)}")
        assert failed == [], "\n\n".join(failed)
        assert watch.problems == []
    finally:
        context.close()


# The dark palette is in place and no colour is still on its way there.
SWITCHED = """() => document.body.getAttribute('data-md-color-scheme') === 'slate'
  && document.getAnimations().every(a => a.playState !== 'running')"""


@pytest.mark.parametrize("url", OTHER_URLS, ids=slug)
def test_no_serious_accessibility_violations(browser: Any, base_url: str, axe_script: str, url: str) -> None:
    check(browser, base_url, axe_script, url, "desktop", BLOCKING)


@pytest.mark.parametrize("size", ["phone", "desktop"])
@pytest.mark.parametrize("url", SCENARIO_URLS, ids=slug)
def test_scenario_pages_have_no_violation(browser: Any, base_url: str, axe_script: str, url: str, size: str) -> None:
    check(browser, base_url, axe_script, url, size, ANY)
