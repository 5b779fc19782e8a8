"""Every old URL in redirects.yml, in every form a reader may hold (/X, /X/, /X.html, /X.md, /X.mdx),
lands on the right page in a real browser, and a fragment (kept or remapped) ends at its heading.

Old pages: every entry, in every form. Old section links (``old#id`` entries, some 240): a sample, two of each old
page, the five forms in turn (each form some seven times); tests/test_old_deep_links.py checks every one of them,
in every form, against the built redirect pages without a browser.

Where the reader ends up on the page is a matter of the URL they land on, not of the stub that sent them there: the
first case of each landing URL (page and fragment) waits for the layout and checks the heading is at the top; the
others check the URL they land on, which is what their own stub decides. The landing URLs are known once a case has
landed (a "last-h2" case finds its heading on the built page), so the module keeps the ones checked."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import pytest
import yaml

from .conftest import Watch, settle
from .support import DESKTOP, ROOT, page_url
from .test_reader import assert_at_top

FORMS = ("{}", "{}/", "{}.html", "{}.md", "{}.mdx")
LAST_H2 = "last-h2"  # stands for the id of the target page's last h2: landing there needs a scroll


class Case(NamedTuple):
    old: str       # what the reader types, site-relative, maybe with #fragment
    path: str      # the page it must land on, site-relative ("performance/train/gpu_one/")
    fragment: str  # the fragment it must end with ("" for none)


def load_spec() -> dict[str, str]:
    return yaml.safe_load((ROOT / "redirects.yml").read_text(encoding="utf-8"))["redirects"]


def resolve(spec: dict[str, str], key: str) -> tuple[str, str]:
    """Follow a chain of old names to (page URL, fragment)."""
    target = spec[key]
    for _ in range(len(spec)):
        page, _, fragment = target.partition("#")
        if page.endswith(".md"):
            return page_url(page), fragment
        target = spec[page.strip("/")]
    raise AssertionError(f"redirect chain from {key} does not end on a page")


SECTION_LINKS = 2  # old section links opened per old page, each in the next URL form


def cases() -> list[Any]:
    spec = load_spec()
    out: list[Any] = []
    sections: dict[str, list[str]] = {}
    for key in spec:
        old, _, old_fragment = key.partition("#")
        if old_fragment:
            sections.setdefault(old, []).append(old_fragment)
            continue
        path, fragment = resolve(spec, key)
        forms = FORMS
        if old == "index":  # the site root; /index.html is the home page's own file when the home is that page
            out += [Case("", path, fragment)]
            forms = tuple(f for f in FORMS if f != "{}.html" or path)
        out += [Case(form.format(old), path, fragment) for form in forms]
        # a fragment no entry remaps is kept, also on the way to a section, when the page has that id
        out.append(Case(f"{old}.mdx#{LAST_H2}", path, LAST_H2))
    turn = 0
    for old, fragments in sections.items():  # a remapped anchor: a sample, the forms in turn
        for i in range(min(SECTION_LINKS, len(fragments))):
            old_fragment = fragments[i * len(fragments) // SECTION_LINKS]
            path, fragment = resolve(spec, f"{old}#{old_fragment}")
            out.append(Case(FORMS[turn % len(FORMS)].format(old) + "#" + old_fragment, path, fragment))
            turn += 1
    gpu_one, mixed_precision = resolve(spec, "perf_train_gpu_one#fp16")
    out += [Case(form.format("perf_train_gpu_one") + "#fp16", gpu_one, mixed_precision) for form in FORMS]
    # as transformers' own pages linked it (doc-builder's ids are lower case): matched in lower case
    flash, flash_section = resolve(spec, "perf_infer_gpu_one#flash-attention-2")
    out += [Case(form.format("perf_infer_gpu_one") + "#Flash-Attention-2", flash, flash_section) for form in FORMS[:2]]
    # on the way to a section, a fragment the page does not have ends at the section, not at the top
    hardware, communication = resolve(spec, "perf_hardware")
    out.append(Case("perf_hardware.html#no-such-section", hardware, communication))
    return out


SCROLLED: set[tuple[str, str]] = set()  # the landing URLs (page, fragment) where a case checked the reader's place


def case_id(case: Any) -> str:
    case = case.values[0] if hasattr(case, "values") else case
    return "/" + case.old


@pytest.fixture(scope="module")
def tab(browser: Any, base_url: str) -> Iterator[Any]:
    """One tab for every case, left on a blank page between them: a redirect stub keeps nothing, and a new
    profile per case cost more than the case itself."""
    context = browser.new_context(viewport=DESKTOP, base_url=base_url, color_scheme="light")
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("case", cases(), ids=case_id)
def test_old_url_lands_on_its_page(tab: Any, watch: Watch, site: Path, case: Case,
                                   request: pytest.FixtureRequest) -> None:
    if case.fragment == LAST_H2:  # an h2 from the middle of the page on, that no entry of the old page remaps
        ids = re.findall(r'<h2 id="([^"]+)"', (site / case.path / "index.html").read_text(encoding="utf-8"))
        prefix = case.old.partition(".mdx#")[0] + "#"
        remapped = {key.removeprefix(prefix) for key in load_spec() if key.startswith(prefix)}
        middle = next(i for i in ids[len(ids) // 2 :] if i not in remapped)
        case = case._replace(old=case.old.replace(LAST_H2, middle), fragment=middle)
    watch.superseded_navigations = True  # the stub's own load is cut short by its location.replace()
    page = watch.attach(tab)
    landed: list[Any] = []

    def on_response(response: Any) -> None:
        if response.request.is_navigation_request():
            landed.append(response)

    def leave() -> None:  # the tab goes on to the next case: this case's listeners off, its page unloaded
        page.remove_listener("response", on_response)
        watch.detach(page)
        page.goto("about:blank")

    page.on("response", on_response)
    request.addfinalizer(leave)
    first = page.goto(case.old, wait_until="commit")
    assert first is not None and first.status != 404, f"/{case.old} is not found"
    # Without a fragment, the page is reached once its response commits; with one, the first case of its landing
    # URL waits for the layout and checks where the reader ends up.
    scroll = bool(case.fragment) and (case.path, case.fragment) not in SCROLLED
    page.wait_for_url(lambda url: urlsplit(url).path == "/" + case.path, wait_until="load" if scroll else "commit")
    assert urlsplit(page.url).path == "/" + case.path, page.url
    assert urlsplit(page.url).fragment == case.fragment, page.url
    final = [r for r in landed if urlsplit(r.url).path == "/" + case.path]
    assert final and final[-1].status == 200, [(r.url, r.status) for r in landed]
    if scroll:
        settle(page)
        assert_at_top(page, case.fragment)
        SCROLLED.add((case.path, case.fragment))
    assert watch.problems == [], "\n".join(watch.problems)
