"""axe-core on a page a test has open, in the light and the dark scheme: test_page_loads_cleanly runs it on every page
at 1280 px and test_each_page_on_a_phone on the scenario pages at 390 px, on the load they make for all their checks.
Nothing above minor on the scenario pages (the overview, everything under infer/ and train/, Scalability; at 390 px
landmark-unique and scrollable-region-focusable count too), nothing serious or critical elsewhere. No rule is
disabled and nothing is excluded; a failure lists the rule, its help and the elements."""

from __future__ import annotations

from typing import Any

BLOCKING = ("serious", "critical")
ANY = ("minor", "moderate", "serious", "critical")

# docs/assets/layout.js has done its part: every table box and code block that scrolls sideways takes focus.
LAID_OUT = """() => [...document.querySelectorAll('.md-typeset .md-typeset__scrollwrap, .md-typeset pre > code')]
  .every(box => box.scrollWidth <= box.clientWidth + 1 || box.tabIndex === 0)"""

# The palette is in place and no colour is still on its way there.
SWITCHED = """palette => document.body.getAttribute('data-md-color-scheme') === palette
  && document.getAnimations().every(a => a.playState !== 'running')"""


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


def violations_in_both_schemes(page: Any, axe_script: str, where: str, impacts: tuple[str, ...]) -> list[str]:
    """axe in the light scheme, then in the dark one, on the page as loaded: the reader's preference turns dark (as a
    reader whose system is dark opens the page) and Material's toggle switches its palette, which is all that a dark
    load does differently (no style of the site asks for prefers-color-scheme itself). The page is then back in the
    light scheme for the checks that follow. Each failure is '<where> (<scheme>):' and the violations."""
    page.wait_for_function(LAID_OUT)
    failed = []
    for scheme, palette in (("light", "default"), ("dark", "slate")):
        if scheme == "dark":
            switch(page, scheme, palette)
        assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == palette, scheme
        found = [v for v in run_axe(page, axe_script) if v["impact"] in impacts]
        if found:
            failed.append(f"{where} ({scheme}):\n{describe(found)}")
    switch(page, "light", "default")
    return failed


def switch(page: Any, scheme: str, palette: str) -> None:
    page.emulate_media(color_scheme=scheme)
    page.locator("form[data-md-component=palette] label:visible").click()
    page.wait_for_function(SWITCHED, arg=palette)
