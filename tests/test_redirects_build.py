"""redirects.yml from a contributor, through a real build (strict and not): every unsafe entry is one located
error, and nothing built from it reaches site/_redirects, a redirect page or a file the build generates."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import ROOT
from .sitetools import build, minimal_config

pytestmark = pytest.mark.slow

CONFIG = minimal_config(
    "redirects",
    "site_url: https://example.org/\nnav:\n  - index.md\nextra:\n  perfdocs:\n    redirect_hosts: [huggingface.co]\n",
)
PAGE = "---\nscenario: train-gpu-one\n---\n# Page\n\nx\n"
ESTIMATOR = "// the memory calculator\n"
REDIRECTS = r"""redirects:
  good: https://huggingface.co/docs
  tab: "https://huggingface.co/a\tb"
  newline: "https://huggingface.co/x\n/* https://evil.example/ 301!"
  crlf: "https://huggingface.co/x\r\n/* https://evil.example/ 301!"
  trick: https://evil.example\@huggingface.co/docs
  user: https://evil.example@huggingface.co/
  relative: //evil.example/x
  opaque: https:evil.example
  "key\n/* https://evil.example/ 301!": index.md
  _redirects: index.md
  llms.txt: index.md
  assets/estimator.js: index.md
  sitemap.xml: index.md
  "404": index.md
"""
EXPECTED = [  # the old paths first: they are checked as they are read
    "redirects.yml:10:1: error: 'key\\n/* https://evil.example/ 301!' contains a line feed (U+000A); old paths hold "
    "no spaces or control characters [bad-redirects]",
    "redirects.yml:3:1: error: redirect target 'https://huggingface.co/a\\tb' contains a tab (U+0009); targets hold "
    "no spaces or control characters [unsafe-target]",
    "redirects.yml:4:1: error: redirect target 'https://huggingface.co/x\\n/* https://evil.example/ 301!' contains a "
    "line feed (U+000A); targets hold no spaces or control characters [unsafe-target]",
    "redirects.yml:5:1: error: redirect target 'https://huggingface.co/x\\r\\n/* https://evil.example/ 301!' contains "
    "a carriage return (U+000D); targets hold no spaces or control characters [unsafe-target]",
    "redirects.yml:6:1: error: redirect target 'https://evil.example\\@huggingface.co/docs' contains a backslash, "
    "which browsers read as '/' [unsafe-target] (browsers go to evil.example)",
    "redirects.yml:7:1: error: redirect target 'https://evil.example@huggingface.co/' has a user name or password "
    "before '@', which hides where it goes [unsafe-target] (browsers go to huggingface.co)",
    "redirects.yml:8:1: error: redirect target '//evil.example/x' is a scheme-relative URL, which leaves the site "
    "for evil.example [unsafe-target] (write an https:// URL, or a page under docs/)",
    "redirects.yml:9:1: error: redirect target 'https:evil.example' names no host as written, but browsers go to "
    "evil.example [unsafe-target] (write it as https://evil.example/)",
    "redirects.yml:11:1: error: redirect '_redirects' would turn the site file _redirects into a folder (for "
    "_redirects/index.html) [redirect-shadows-page]",
    "redirects.yml:12:1: error: redirect 'llms.txt' would turn the site file llms.txt into a folder (for "
    "llms.txt/index.html) [redirect-shadows-page]",
    "redirects.yml:13:1: error: redirect 'assets/estimator.js' would turn the site file assets/estimator.js into a "
    "folder (for assets/estimator.js/index.html) [redirect-shadows-page]",
    "redirects.yml:14:1: error: redirect 'sitemap.xml' would turn the site file sitemap.xml into a folder (for "
    "sitemap.xml/index.html) [redirect-shadows-page]",
    "redirects.yml:15:1: error: redirect '404' would overwrite the site file 404.html [redirect-shadows-page]",
]
GOOD_RULES = [
    f"/{form} https://huggingface.co/docs 301"
    for form in ("good", "good/", "good.html", "good.md", "good.mdx", "good/index.html")
]


def make_project(tmp: Path) -> Path:
    project = tmp / "project"
    (project / "docs/assets").mkdir(parents=True)
    (project / "hooks").symlink_to(ROOT / "hooks", target_is_directory=True)
    (project / "mkdocs.yml").write_text(CONFIG, encoding="utf-8")
    (project / "docs/index.md").write_text(PAGE, encoding="utf-8")
    (project / "docs/assets/estimator.js").write_text(ESTIMATOR, encoding="utf-8")
    (project / "redirects.yml").write_text(REDIRECTS, encoding="utf-8")
    return project


@pytest.mark.parametrize("strict", [True, False], ids=["strict", "not-strict"])
def test_unsafe_redirects_are_located_errors_and_write_nothing(tmp_path: Path, strict: bool) -> None:
    project = make_project(tmp_path)
    site = project / "site"
    result = build(project, site, strict=strict)
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    assert (result.returncode != 0) == strict, output
    errors = [line.removeprefix("ERROR   -  ") for line in output.split("\n") if line.startswith("ERROR   -  ")]
    assert [e for e in errors if e.startswith("redirects.yml")] == EXPECTED, "\n".join(errors)

    rules = (site / "_redirects").read_text(encoding="utf-8").split("\n")
    assert rules[0].startswith("# Generated from redirects.yml") and rules[-1] == ""
    assert rules[1:-1] == GOOD_RULES  # every other entry is refused whole: no rule, no page
    for path in site.rglob("*"):
        if path.is_file() and path.suffix != ".gz":
            assert "evil.example" not in path.read_text(encoding="utf-8", errors="replace"), path
    assert sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if "Moved:" in _head(p)) == [
        "good.html",
        "good.md/index.html",
        "good.mdx/index.html",
        "good/index.html",
    ]
    page = (site / "good/index.html").read_text(encoding="utf-8")
    assert '<meta http-equiv="refresh" content="0; url=https://huggingface.co/docs">' in page
    # the generated files are where they were, as the build made them
    assert (site / "llms.txt").read_text(encoding="utf-8").startswith("# redirects\n")
    assert (site / "assets/estimator.js").read_text(encoding="utf-8") == ESTIMATOR
    assert (site / "sitemap.xml").read_text(encoding="utf-8").startswith("<?xml")
    assert "Moved:" not in _head(site / "404.html")


def _head(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")[:400] if path.is_file() else ""
