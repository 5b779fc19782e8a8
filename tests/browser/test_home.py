"""The home page is the overview, breadcrumbs lead back to it, "Copy page" puts the page's Markdown on the
clipboard (mouse and keyboard), and "Report a problem" names the section being read."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..sitetools import DEPLOYMENT
from .conftest import Watch, settle

COPY = "button[data-perfdocs-copy-page]"
CLIPBOARD = "() => navigator.clipboard.readText()"
# wait_for_function does not await a promise (a Promise counts as true at once), so a wait on the clipboard reads
# it into the page over and over and waits on what it read. Each wait starts a new reader and stops the last, so
# no read begun before the wait answers it.
READ_CLIPBOARD = """() => { const run = (window.__clipboardRun || 0) + 1;
  window.__clipboardRun = run; window.__clipboard = undefined;
  (function read() { if (window.__clipboardRun !== run) return;
    navigator.clipboard.readText().then(t => { if (window.__clipboardRun === run) window.__clipboard = t; }, () => {})
      .finally(() => setTimeout(read, 25)); })(); }"""


def wait_for_clipboard(page: Any, text: str) -> None:
    page.evaluate(READ_CLIPBOARD)
    page.wait_for_function("text => window.__clipboard === text", arg=text)


def test_the_site_root_is_the_overview_without_a_redirect(context: Any, watch: Watch, base_url: str) -> None:
    page = watch.attach(context.new_page())
    response = page.goto("")
    settle(page)
    assert response.status == 200 and response.url == base_url
    assert page.url == base_url, "no redirect on the first visit"
    assert page.locator("h1").inner_text().strip().removesuffix("¶") == "Performance and scalability"
    assert page.locator(".md-path").count() == 0, "no trail above the home page itself"
    assert watch.problems == [] and watch.external == []


def test_breadcrumbs_lead_home_from_a_scenario_page(context: Any, watch: Watch, base_url: str) -> None:
    page = watch.attach(context.new_page())
    page.goto("performance/train/gpu_one/")
    settle(page)
    crumbs = page.locator(".md-path .md-path__link")
    assert [t.strip() for t in crumbs.all_inner_texts()] == ["Overview", "Training"]
    assert crumbs.first.is_visible()
    crumbs.first.click()
    page.wait_for_url(base_url)
    settle(page)
    assert page.locator("h1").inner_text().strip().removesuffix("¶") == "Performance and scalability"
    assert watch.problems == [] and watch.external == []


def test_copy_page_puts_the_pages_markdown_on_the_clipboard(context: Any, watch: Watch, base_url: str) -> None:
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url.rstrip("/"))
    page = watch.attach(context.new_page())
    page.goto("performance/infer/cpu/")
    settle(page)
    markdown = context.request.get("performance/infer/cpu/index.html.md")
    assert markdown.status == 200
    expected = markdown.text()
    assert expected.startswith("# Inference on CPU\n")

    page.evaluate("() => navigator.clipboard.writeText('before')")
    button = page.locator(COPY)
    assert button.inner_text().strip() == "Copy page"
    button.click()
    page.wait_for_function(f"() => document.querySelector('{COPY}').innerText.trim() === 'Copied'")
    assert page.evaluate(CLIPBOARD) == expected
    assert page.locator("[data-perfdocs-copy-status]").inner_text() == "Page copied as Markdown"

    # The keyboard way: focus the button, press Enter (and Space), as a reader without a mouse does.
    page.goto("performance/train/gpu_one/")
    settle(page)
    expected = context.request.get("performance/train/gpu_one/index.html.md").text()
    assert expected.startswith("# Training on one GPU\n")
    page.evaluate("() => navigator.clipboard.writeText('before')")
    page.locator(COPY).focus()
    page.keyboard.press("Enter")
    wait_for_clipboard(page, expected)
    page.evaluate("() => navigator.clipboard.writeText('before')")
    page.keyboard.press("Space")
    wait_for_clipboard(page, expected)
    assert watch.problems == [] and watch.external == []


def test_the_markdown_link_opens_the_file_beside_the_page(context: Any, watch: Watch, base_url: str) -> None:
    page = watch.attach(context.new_page())
    page.goto("")
    settle(page)
    href = page.locator("a.perfdocs-page-actions__markdown").evaluate("a => a.href")  # resolved, as followed
    assert href == base_url + "index.html.md"
    text = context.request.get(href).text()
    assert text.startswith("# Performance and scalability\n")
    assert "](performance/infer/cpu/index.html.md)" in text
    assert watch.problems == []


def test_report_a_problem_names_the_section_being_read(context: Any, watch: Watch, base_url: str) -> None:
    page = watch.attach(context.new_page())
    page.goto("performance/infer/cpu/")
    settle(page)
    heading = page.locator("h2#quantization")
    page.evaluate("() => document.getElementById('quantization').scrollIntoView({block: 'start'})")
    link = page.locator(".md-sidebar--secondary a[data-perfdocs-report]")
    box = link.bounding_box()
    assert link.is_visible() and box and box["y"] + box["height"] <= 900, "in the sidebar, in view while reading"
    link.focus()  # the keyboard way in; the href is prefilled before the reader follows it
    parts = urlsplit(link.get_attribute("href") or "")
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == DEPLOYMENT["REPO_URL"] + "/issues/new"
    query = parse_qs(parts.query)
    section = "Quantization"
    assert heading.inner_text().strip().startswith(section)
    assert query["title"] == [f"Docs: Inference on CPU > {section}"]
    assert query["body"][0].startswith(
        f"Page: {base_url}performance/infer/cpu/#quantization\nSection: {section}\n\nWhat is wrong"
    )
    assert watch.problems == [] and watch.external == [], "nothing leaves the site until the reader follows it"
