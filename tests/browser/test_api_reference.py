"""A reader follows an API link from a scenario page and lands on the object's entry, parameters in view."""

from __future__ import annotations

import re
from typing import Any

from .conftest import Watch, settle

ENTRY_TOP = """(id) => {
  const heading = document.getElementById(id);
  if (!heading) return null;
  const entry = heading.closest('.doc-object');
  const table = entry ? entry.querySelector('.doc-contents table') : null;
  const rows = table ? [...table.querySelectorAll('tbody tr')].map(tr => tr.innerText) : [];
  return {top: heading.getBoundingClientRect().top, rows: rows, tableShown: !!table && table.offsetParent !== null};
}"""


def test_an_api_link_leads_to_the_entry_and_its_parameters(context: Any, watch: Watch) -> None:
    page = watch.attach(context.new_page())
    page.goto("performance/train/gpu_one/")
    settle(page)
    link = page.locator("article a.autorefs", has_text=re.compile(r"^TrainingArguments$")).first
    assert link.evaluate("a => a.firstElementChild && a.firstElementChild.tagName") == "CODE"  # the name in code font
    assert re.search(r"(^|/)api/transformers/#transformers\.TrainingArguments$", link.get_attribute("href") or "")
    assert "[`" not in page.locator("article").inner_text(), "a doc-builder API link left as text"

    link.scroll_into_view_if_needed()
    link.click()
    page.wait_for_url(re.compile(r"/performance/api/transformers/#transformers\.TrainingArguments$"))
    settle(page)
    entry = page.evaluate(ENTRY_TOP, "transformers.TrainingArguments")
    assert entry is not None, "no entry with the id the link targets"
    viewport = page.viewport_size
    assert 0 <= entry["top"] < viewport["height"], f"the entry is not in view (top {entry['top']})"
    assert entry["tableShown"], "the parameter table is not shown"
    names = {row.split()[0] for row in entry["rows"] if row.strip()}
    assert {"output_dir", "per_device_train_batch_size", "gradient_accumulation_steps", "bf16"} <= names, names
    assert not watch.problems, watch.problems
    assert not watch.external, watch.external
