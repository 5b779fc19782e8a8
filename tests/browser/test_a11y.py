"""axe-core on every page, in the light and the dark scheme: no serious or critical violations.
No rule is disabled and nothing is excluded; a failure lists the rule, its help and the elements."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import MISSING_URL, PAGE_URLS, Watch, settle, slug

BLOCKING = ("serious", "critical")


def run_axe(page: Any, axe_script: str) -> list[dict[str, Any]]:
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


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("url", [*PAGE_URLS, MISSING_URL], ids=slug)
def test_no_serious_accessibility_violations(browser: Any, base_url: str, axe_script: str,
                                             url: str, scheme: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=base_url, color_scheme=scheme)
    try:
        watch = Watch(base_url, expected_404={base_url + MISSING_URL})
        page = watch.attach(context.new_page())
        page.goto(url)
        settle(page)
        expected = "slate" if scheme == "dark" else "default"
        assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == expected
        blocking = [v for v in run_axe(page, axe_script) if v["impact"] in BLOCKING]
        assert blocking == [], f"{url} ({scheme}):\n{describe(blocking)}"
    finally:
        context.close()
