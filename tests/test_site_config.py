"""What a deployer sets (SITE_URL, REPO_URL...) and what the site makes of it; the home page; breadcrumbs.

Nothing in the built site may point somewhere made up: unset, the site has no canonical links, no sitemap
entries, no repository link, no edit links and no "Report a problem" link. Set, each of them is right.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from perfdocs.html import parse_page
from perfdocs.mkdocs_adapter import load_project
from selectolax.lexbor import LexborHTMLParser

from .conftest import ROOT
from .sitetools import DEPLOY_VARS, build, copy_project

pytestmark = pytest.mark.slow

SITE_URL = "https://docs.perfdocs.test/"
REPO_URL = "https://git.perfdocs.test/team/perfdocs"
DEPLOYED = {"SITE_URL": SITE_URL, "REPO_URL": REPO_URL, "GITHUB_REPOSITORY": "team/perfdocs"}
LICENSE = "Text under CC BY 4.0 (a test value)"
PROJECT_LICENSE = "Code and text licensed under the Apache License 2.0"  # mkdocs.yml's copyright: line
PLACEHOLDERS = (b"example.org", b"perfdocs/perfdocs")  # the placeholders mkdocs.yml used to hold


def scenario_pages() -> list[str]:
    """Docs paths of every page whose front matter names a scenario other than the overview."""
    pages = []
    for path in sorted((ROOT / "docs").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        if "_theory" in path.parts or not text.startswith("---\n"):
            continue
        meta = yaml.safe_load(text[4 : text.index("\n---", 4)]) or {}
        if meta.get("scenario") not in (None, "overview"):
            pages.append(path.relative_to(ROOT / "docs").as_posix())
    return pages


def built(src: str) -> str:
    stem = src.removesuffix(".md")
    return stem.removesuffix("index") + "index.html" if stem.endswith("index") else stem + "/index.html"


@pytest.fixture(scope="module")
def bare(site_bare: Path) -> Path:
    """The site as a fresh clone builds it: nothing deployed."""
    return site_bare


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built as a deployment would: site and repository set, and a license line in mkdocs.yml."""
    project = copy_project(tmp_path_factory.mktemp("project"))
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    assert text.count(f"\ncopyright: {PROJECT_LICENSE}\n") == 1
    config.write_text(text.replace(f"\ncopyright: {PROJECT_LICENSE}\n", f"\ncopyright: {LICENSE}\n"), encoding="utf-8")
    out = tmp_path_factory.mktemp("deployed")
    result = build(project, out, deploy=DEPLOYED)
    assert result.returncode == 0, result.stderr
    return out


def test_nothing_made_up_in_a_bare_build(bare: Path) -> None:
    found = [
        f"{path.relative_to(bare)}: {word.decode()}"
        for path in sorted(bare.rglob("*"))
        if path.is_file()
        for word in PLACEHOLDERS
        if word in path.read_bytes()
    ]
    assert found == []
    html = (bare / "performance/infer/cpu/index.html").read_text(encoding="utf-8")
    for absent in (
        'rel="canonical"',
        'class="md-source"',
        'rel="edit"',
        "Edit this explanation",
        "data-perfdocs-report",
    ):
        assert absent not in html, absent
    assert "<url>" not in (bare / "sitemap.xml").read_text(encoding="utf-8")
    assert "](https://" not in (bare / "llms.txt").read_text(encoding="utf-8")


def test_mkdocs_yml_holds_no_address_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in DEPLOY_VARS:
        monkeypatch.delenv(name, raising=False)
    assert not any(word.decode() in (ROOT / "mkdocs.yml").read_text(encoding="utf-8") for word in PLACEHOLDERS)
    project = load_project(ROOT)
    assert (project.site_url, project.repo_url, project.edit_base) == (None, None, None)
    monkeypatch.setenv("REPO_URL", REPO_URL)
    monkeypatch.setenv("EDIT_URI", "edit/trunk/docs/")
    assert load_project(ROOT).edit_base == REPO_URL + "/edit/trunk/docs/"


def test_a_deployed_build_links_where_the_deployer_said(deployed: Path) -> None:
    html = (deployed / "performance/infer/cpu/index.html").read_text(encoding="utf-8")
    links = {link.url for link in parse_page(html).links}
    assert SITE_URL + "performance/infer/cpu/" in links  # the canonical link
    assert REPO_URL in links
    assert REPO_URL + "/edit/main/docs/performance/infer/cpu.md" in links
    assert REPO_URL + "/edit/main/docs/performance/_theory/cpu_inference.md" in links  # "Edit this explanation"
    assert re.search(r'<div class="md-source__repository">\s*team/perfdocs\s*</div>', html), "GITHUB_REPOSITORY"
    locs = re.findall(r"<loc>([^<]+)</loc>", (deployed / "sitemap.xml").read_text(encoding="utf-8"))
    assert SITE_URL in locs and SITE_URL + "performance/infer/cpu/" in locs
    assert all(loc.startswith(SITE_URL) for loc in locs)
    assert f"- [Inference on CPU]({SITE_URL}performance/infer/cpu/index.html.md)" in (deployed / "llms.txt").read_text(
        encoding="utf-8"
    )


def test_report_a_problem_is_a_prefilled_issue_for_the_page(deployed: Path) -> None:
    html = (deployed / "performance/infer/cpu/index.html").read_text(encoding="utf-8")
    assert html.count("data-perfdocs-report") >= 2, "under the table of contents and at the end of the page"
    reports = [link.url for link in parse_page(html).links if "/issues/new?" in link.url]
    assert len(reports) == 1, "one issue link, wherever it shows"
    parts = urlsplit(reports[0])
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == REPO_URL + "/issues/new"
    query = parse_qs(parts.query)
    assert query["title"] == ["Docs: Inference on CPU"]
    assert query["body"] == [f"Page: {SITE_URL}performance/infer/cpu/\n\nWhat is wrong, missing or unclear:\n\n"]
    assert 'class="perfdocs-feedback"' in html


def test_the_footer_shows_the_license_line_from_mkdocs_yml(deployed: Path, bare: Path) -> None:
    assert re.search(
        r'<div class="md-copyright__highlight">\s*' + re.escape(LICENSE),
        (deployed / "index.html").read_text(encoding="utf-8"),
    )
    footer = LexborHTMLParser((bare / "index.html").read_text(encoding="utf-8")).css_first(".md-copyright__highlight")
    assert footer is not None and footer.text(strip=True) == PROJECT_LICENSE


def test_the_project_is_apache_2_0_code_and_text_alike() -> None:
    import tomllib

    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.lstrip().startswith("Apache License\n                           Version 2.0, January 2004")
    assert "END OF TERMS AND CONDITIONS" in text
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]


def test_the_overview_is_the_home_page_and_its_old_address_redirects(bare: Path) -> None:
    home = (bare / "index.html").read_text(encoding="utf-8")
    assert "<title>Moved:" not in home
    assert re.search(r"<h1[^>]*>Performance and scalability", home)
    old = (bare / "performance/index.html").read_text(encoding="utf-8")
    assert '<meta http-equiv="refresh" content="0; url=../">' in old
    for form in ("index/index.html", "index.md/index.html", "performance.html", "performance.md/index.html"):
        assert "<title>Moved:" in (bare / form).read_text(encoding="utf-8"), form
    assert (bare / "404.html").read_text(encoding="utf-8").count('href="/">Go to the overview') == 1


@pytest.mark.parametrize("src", scenario_pages())
def test_breadcrumbs_on_every_scenario_page(bare: Path, src: str) -> None:
    """Above the title, a trail whose first step is the home page (Material draws none without a home page)."""
    page = bare / built(src)
    html = page.read_text(encoding="utf-8")
    assert html.count('<nav class="md-path"') == 1
    start = html.index('<nav class="md-path"')
    crumbs = [link.url for link in parse_page(html[start : html.index("</nav>", start)]).links]
    assert crumbs, "no step in the trail"
    assert (page.parent / crumbs[0] / "index.html").resolve() == (bare / "index.html").resolve(), crumbs[0]
