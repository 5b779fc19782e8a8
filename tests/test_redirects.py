from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from ada_url import URL
from hypothesis import given, settings
from hypothesis import strategies as st
from perfdocs.cli import main
from perfdocs.html import PageHTML
from perfdocs.mkdocs_adapter import load_project
from perfdocs.redirects import (
    RedirectHosts,
    RedirectMap,
    Target,
    UnsafeRedirectError,
    load_redirects,
    missing_anchor_problems,
    netlify_redirects,
    normalise_old,
    redirect_hosts,
    redirect_pages,
    relative_url,
    site_file_clashes,
    write_redirect_pages,
)
from perfdocs.siteredirects import SiteRedirects

PAGES = {"performance/index.md", "performance/train/gpu_one.md", "performance/scalability.md"}
URLS = {
    "performance/index.md": "performance/",
    "performance/train/gpu_one.md": "performance/train/gpu_one/",
    "performance/scalability.md": "performance/scalability/",
}


def load(body: str, hosts: Iterable[str] | RedirectHosts = ()) -> tuple[RedirectMap, list[str]]:
    rmap, problems = load_redirects("redirects:\n" + body, "redirects.yml", PAGES, hosts)
    return rmap, [str(p) for p in problems]


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("perf_train_gpu_one.mdx", "perf_train_gpu_one"),
        ("/perf_train_gpu_one/", "perf_train_gpu_one"),
        ("perf_train_gpu_one.html", "perf_train_gpu_one"),
        ("perf_train_gpu_one.md", "perf_train_gpu_one"),
        ("main/en/perf_train_gpu_one", "main/en/perf_train_gpu_one"),
        ("old/index.html", "old"),
        ("index", ""),
    ],
)
def test_normalise_old(raw: str, expected: str) -> None:
    assert normalise_old(raw) == expected


def test_chains_collapse_to_one_hop_and_fragments_carry() -> None:
    rmap, problems = load(
        "  a: b\n  b: c.mdx\n  c: performance/train/gpu_one.md\n  d: b#fp16\n"
        "  b#fp16: performance/train/gpu_one.md#mixed-precision\n"
    )
    assert problems == []
    target = Target(page="performance/train/gpu_one.md")
    assert rmap.pages == {
        "a": target,
        "b": target,
        "c": target,
        "d": Target(page="performance/train/gpu_one.md", anchor="mixed-precision"),
    }
    assert rmap.anchors == {"b": {"fp16": Target(page="performance/train/gpu_one.md", anchor="mixed-precision")}}


@pytest.mark.parametrize(
    "body, message",
    [
        ("  a: b\n  b: a\n", "redirects.yml:2:1: error: redirect loop: a -> b -> a [redirect-loop]"),
        (
            "  a: performance/train/gpu_on.md\n",
            "redirects.yml:2:1: error: redirect target 'performance/train/gpu_on.md' is neither a page under docs/ nor "
            "another redirect [missing-target] (did you mean 'performance/train/gpu_one.md'?)",
        ),
        (
            "  a: b\n  b: nowhere.md\n",
            "redirects.yml:3:1: error: redirect target 'nowhere.md' is neither a page under docs/ "
            "nor another redirect [missing-target]",
        ),
        (
            "  performance/scalability: performance/index.md\n",
            "redirects.yml:2:1: error: 'performance/scalability' is a live page; a redirect to performance/index.md "
            "would shadow it [redirect-shadows-page] (remove this entry or rename the page)",
        ),
        (
            "  a: javascript:alert(1)\n",
            "redirects.yml:2:1: error: redirect target 'javascript:alert(1)' uses the "
            "javascript: scheme; only https:// URLs may leave the site [unsafe-target]",
        ),
        (
            "  a: data:text/html,hi\n",
            "redirects.yml:2:1: error: redirect target 'data:text/html,hi' uses the data: "
            "scheme; only https:// URLs may leave the site [unsafe-target]",
        ),
        (
            "  a: http://example.com/x\n",
            "redirects.yml:2:1: error: redirect target 'http://example.com/x' uses the "
            "http: scheme; only https:// URLs may leave the site [unsafe-target]",
        ),
        (
            "  a: https://evil.example/x\n",
            "redirects.yml:2:1: error: redirect target 'https://evil.example/x' leaves "
            "the site for evil.example, which is not listed in extra.perfdocs.redirect_hosts (mkdocs.yml) "
            "[unlisted-host]",
        ),
        (
            "  a: performance/index.md\n  a.mdx: performance/index.md\n",
            "redirects.yml:3:1: error: 'a.mdx' is listed twice (first on line 2) [duplicate-redirect]",
        ),
        (
            "  a#x: performance/index.md\n",
            "redirects.yml:2:1: error: anchor redirect 'a#x' needs a redirect for 'a' itself [bad-redirects]",
        ),
        (
            "  ../etc: performance/index.md\n",
            "redirects.yml:2:1: error: '../etc' is not a site-relative path [bad-redirects]",
        ),
        (  # the same file as assets/estimator.js: it would crash the build as that key did
            "  assets/./estimator.js: performance/index.md\n",
            "redirects.yml:2:1: error: 'assets/./estimator.js' is not a site-relative path [bad-redirects]",
        ),
        (
            "  a//b: performance/index.md\n",
            "redirects.yml:2:1: error: 'a//b' is not a site-relative path [bad-redirects]",
        ),
    ],
)
def test_bad_redirects_are_located_errors(body: str, message: str) -> None:
    rmap, problems = load(body)
    assert problems == [message]
    assert ("a" in rmap.pages) == ("listed twice" in message)


def test_a_target_git_saw_renamed_is_named_as_the_hint() -> None:
    """After a rename, name similarity points at the wrong page ('train/gpu_one.md' for a renamed
    'infer/gpu_one.md'); the rename git saw names the right one, as check-redirects and the link hints do."""
    body = "redirects:\n  a: performance/infer/gpu_one.md\n"
    renames = {"performance/infer/gpu_one.md": "performance/scalability.md"}
    _, guessed = load_redirects(body, "redirects.yml", PAGES)
    _, problems = load_redirects(body, "redirects.yml", PAGES, renames=renames)
    assert [p.hint for p in guessed] == ["did you mean 'performance/train/gpu_one.md'?"]
    assert [str(p) for p in problems] == [
        "redirects.yml:2:1: error: redirect target 'performance/infer/gpu_one.md' is neither a page under docs/ nor "
        "another redirect [missing-target] (did you mean 'performance/scalability.md'? git saw "
        "performance/infer/gpu_one.md renamed to it)"
    ]


def test_allowed_external_host() -> None:
    rmap, problems = load("  a: https://docs.example.org/x\n", hosts=["docs.example.org"])
    assert problems == [] and rmap.pages["a"] == Target(url="https://docs.example.org/x")


@pytest.mark.parametrize(
    "text, message",
    [
        ("redirects: [a, b]\n", "redirects.yml:1:1: error: 'redirects' must map old paths to targets [bad-redirects]"),
        (
            "redirect:\n  a: b\n",
            "redirects.yml:1:1: error: unknown key 'redirect' [bad-redirects] (did you mean 'redirects'?)",
        ),
        (
            "redirects:\n  a: [b\n",
            "redirects.yml:3:1: error: not valid YAML: expected ',' or ']', but got '<stream end>' [bad-redirects]",
        ),
    ],
)
def test_bad_yaml_shapes(text: str, message: str) -> None:
    rmap, problems = load_redirects(text, "redirects.yml", PAGES)
    assert [str(p) for p in problems] == [message]
    assert not rmap


def test_directory_form_of_a_live_page_is_left_alone() -> None:
    rmap, problems = load("  performance: performance/index.md\n")
    assert problems == [] and rmap.live == {"performance"}
    files = redirect_pages(rmap, URLS.__getitem__, lambda p: "Overview")
    assert sorted(files) == ["performance.html", "performance.md/index.html", "performance.mdx/index.html"]


@pytest.mark.parametrize(
    "from_file, to_url, expected",
    [
        ("perf_train_gpu_one/index.html", "performance/train/gpu_one/", "../performance/train/gpu_one/"),
        ("perf_train_gpu_one.html", "performance/train/gpu_one/#x", "performance/train/gpu_one/#x"),
        ("a.mdx/index.html", "performance/", "../performance/"),
        ("index.html", "performance/", "performance/"),
        ("deep/er/x/index.html", "", "../../../"),
    ],
)
def test_relative_url(from_file: str, to_url: str, expected: str) -> None:
    assert relative_url(from_file, to_url) == expected


def test_redirect_pages_cover_every_form_and_remap_fragments() -> None:
    rmap, _ = load(
        "  perf_train_gpu_one: performance/train/gpu_one.md\n"
        "  perf_train_gpu_one#fp16: performance/train/gpu_one.md#mixed-precision\n"
    )
    files = redirect_pages(rmap, URLS.__getitem__, lambda p: "Training on one GPU")
    assert sorted(files) == [
        "perf_train_gpu_one.html",
        "perf_train_gpu_one.md/index.html",
        "perf_train_gpu_one.mdx/index.html",
        "perf_train_gpu_one/index.html",
    ]
    page = files["perf_train_gpu_one/index.html"]
    assert '<meta http-equiv="refresh" content="0; url=../performance/train/gpu_one/">' in page
    assert 'var t="../performance/train/gpu_one/",m={"fp16": "../performance/train/gpu_one/#mixed-precision"}' in page
    assert '<link rel="canonical" href="../performance/train/gpu_one/">' in page


def test_a_fragment_on_the_way_to_a_section_is_kept_when_the_page_has_it() -> None:
    """k: the ids of the section's page (not the theme's, not those an entry remaps) the script keeps as they are;
    none when the target is a page, which keeps every fragment, or when the build gives no ids."""
    rmap, _ = load(
        "  old: performance/train/gpu_one.md#mixed-precision\n"
        "  old#fp16: performance/train/gpu_one.md#mixed-precision\n"
        "  other: performance/scalability.md\n"
    )
    ids = {
        "performance/train/gpu_one.md": {"mixed-precision", "batch-size", "fp16", "__codelineno-0-1", "__tabbed_1_1"}
    }
    files = redirect_pages(rmap, URLS.__getitem__, lambda p: "Training on one GPU", ids)
    assert (
        'var t="../performance/train/gpu_one/#mixed-precision",'
        'm={"fp16": "../performance/train/gpu_one/#mixed-precision"},k=["batch-size", "mixed-precision"],'
    ) in files["old/index.html"]
    assert 'var t="../performance/scalability/",m={},k=[],' in files["other/index.html"]
    bare = redirect_pages(rmap, URLS.__getitem__, lambda p: "Training on one GPU")
    assert ",k=[]," in bare["old.mdx/index.html"]


def test_netlify_file_lists_every_form_with_base_path() -> None:
    rmap, _ = load("  parallelism: performance/scalability.md\n")
    text = netlify_redirects(rmap, URLS.__getitem__, "/docs/")
    assert text.splitlines()[1:] == [
        f"/docs/{form} /docs/performance/scalability/ 301"
        for form in (
            "parallelism",
            "parallelism/",
            "parallelism.html",
            "parallelism.md",
            "parallelism.mdx",
            "parallelism/index.html",
        )
    ]


def test_missing_anchor_in_target_is_reported_with_line() -> None:
    rmap, _ = load("  a: performance/index.md\n  a#old: performance/index.md#gone\n")
    problems = missing_anchor_problems(rmap, {"performance/index.md": {"going"}}, "redirects.yml")
    assert [str(p) for p in problems] == [
        "redirects.yml:3:1: error: redirect target 'performance/index.md#gone' has no id 'gone' [missing-anchor] "
        "(did you mean 'going'?)"
    ]


def test_a_rebuild_writes_the_redirect_pages_again_only_when_what_they_show_changed(tmp_path: Path) -> None:
    """SiteRedirects.write under mkdocs serve: the same targets, titles and ids write nothing again (a snippet save);
    a target's new title, an id an old deep link names gone, or redirects.yml read again write the pages again, and
    the problems are reported on every call."""
    config = tmp_path / "redirects.yml"
    config.write_text("redirects:\n  a: performance/index.md\n  a#old: performance/index.md#sec\n", encoding="utf-8")
    site = tmp_path / "site"
    site.mkdir()
    redirects = SiteRedirects()
    assert redirects.load(config, "redirects.yml", PAGES, set(), RedirectHosts(), {}) == []
    dest = {"performance/index.md": "performance/index.html"}
    titles = {"performance/index.md": "Overview"}
    page = site / "a" / "index.html"

    def write(ids: set[str]) -> tuple[bool, list[str]]:
        """Whether the redirect page was written, and the problems."""
        if page.exists():
            os.utime(page, ns=(0, 0))
        content = {"performance/index.html": PageHTML({}, ids)}
        files, problems = redirects.write(
            site, "redirects.yml", URLS.__getitem__, titles.__getitem__, dest, content, "/"
        )
        assert "a/index.html" in files
        return page.stat().st_mtime_ns != 0, [str(p).partition(" (")[0] for p in problems]

    assert write({"sec"}) == (True, [])
    assert "Overview" in page.read_text(encoding="utf-8")
    assert write({"sec"}) == (False, [])
    titles["performance/index.md"] = "Start here"
    assert write({"sec"}) == (True, [])
    assert "Start here" in page.read_text(encoding="utf-8")
    gone = "redirects.yml:3:1: error: redirect target 'performance/index.md#sec' has no id 'sec' [missing-anchor]"
    assert write({"other"}) == (True, [gone])
    assert write({"other"}) == (False, [gone])  # reported again, written once
    assert redirects.load(config, "redirects.yml", PAGES, set(), RedirectHosts(), {}) == []
    assert write({"other"}) == (True, [gone])


def test_the_old_landing_page_answers_every_form() -> None:
    rmap, problems = load("  index: performance/index.md\n")
    assert problems == []
    files = redirect_pages(rmap, URLS.__getitem__, lambda p: "Overview")
    assert sorted(files) == ["index.html", "index.md/index.html", "index.mdx/index.html", "index/index.html"]
    assert 'url=../performance/"' in files["index/index.html"] and 'url=performance/"' in files["index.html"]
    rules = netlify_redirects(rmap, URLS.__getitem__).splitlines()[1:]
    assert rules == [
        f"/{form} /performance/ 301" for form in ("", "index.html", "index", "index/", "index.md", "index.mdx")
    ]


# -- external targets as a browser reads them (WHATWG URL parsing, ada) ------------------------------------------
# The allowlist holds the host the trick names, so only the reading of the URL stands between it and a redirect.
HOSTS = ["huggingface.co", "docs.example.org", "bücher.example"]
BROWSER = "targets hold no spaces or control characters [unsafe-target]"


@pytest.mark.parametrize(
    "target, message",
    [
        # urlsplit sees huggingface.co; a browser reads '\' as '/' and goes to evil.example
        (
            r"https://evil.example\@huggingface.co/docs",
            r"redirect target 'https://evil.example\@huggingface.co/docs' contains a backslash, which browsers read "
            "as '/' [unsafe-target] (browsers go to evil.example)",
        ),
        (
            r"https:/\evil.example",
            r"redirect target 'https:/\evil.example' contains a backslash, which browsers read as '/' [unsafe-target] "
            "(browsers go to evil.example)",
        ),
        (
            "https://a@b",
            "redirect target 'https://a@b' has a user name or password before '@', which hides where it goes "
            "[unsafe-target] (browsers go to b)",
        ),
        (
            "https://evil.example@huggingface.co/",
            "redirect target 'https://evil.example@huggingface.co/' has a user name or password before '@', which "
            "hides where it goes [unsafe-target] (browsers go to huggingface.co)",
        ),
        (  # urlsplit refuses the netloc (NFKC); the browser takes all before '@' as a user name
            '"https://evil.example\\uff03@huggingface.co/"',
            "redirect target 'https://evil.example\uff03@huggingface.co/' has a user name or password before '@', "
            "which hides where it goes [unsafe-target] (browsers go to huggingface.co)",
        ),
        # browsers drop tab, CR and LF inside a URL; in _redirects a newline starts a rule of its own
        (
            '"https://huggingface.co/a\\tb"',
            f"redirect target 'https://huggingface.co/a\\tb' contains a tab (U+0009); {BROWSER}",
        ),
        (
            '"https://huggingface.co/x\\n/* https://evil.example/ 301!"',
            "redirect target 'https://huggingface.co/x\\n/* https://evil.example/ 301!' contains a line feed (U+000A); "
            + BROWSER,
        ),
        (
            '"https://huggingface.co/x\\r/* https://evil.example/ 301!"',
            "redirect target 'https://huggingface.co/x\\r/* https://evil.example/ 301!' contains a carriage return "
            f"(U+000D); {BROWSER}",
        ),
        (
            '"\\thttps://huggingface.co/"',
            f"redirect target '\\thttps://huggingface.co/' contains a tab (U+0009); {BROWSER}",
        ),
        (
            '"https://huggingface.co/\\t"',
            f"redirect target 'https://huggingface.co/\\t' contains a tab (U+0009); {BROWSER}",
        ),
        (
            '"https://huggingface.co/a b"',
            f"redirect target 'https://huggingface.co/a b' contains a space (U+0020); {BROWSER}",
        ),
        (
            '"https://huggingface.co/\\x01"',
            f"redirect target 'https://huggingface.co/\\x01' contains U+0001 (a control character); {BROWSER}",
        ),
        (
            '"https://huggingface.co/\\x7f"',
            f"redirect target 'https://huggingface.co/\\x7f' contains a DEL (U+007F); {BROWSER}",
        ),
        (
            '"https://huggingface.co/\\u202ex"',
            "redirect target 'https://huggingface.co/\\u202ex' contains U+202E (right-to-left override); " + BROWSER,
        ),
        ('"index.md#\\ud800"', f"redirect target 'index.md#\\ud800' contains U+D800 (a lone surrogate); {BROWSER}"),
        (
            '"performance/index.md#a b"',
            f"redirect target 'performance/index.md#a b' contains a space (U+0020); {BROWSER}",
        ),
        (
            "https://huggingface.co.evil.example/",
            "redirect target 'https://huggingface.co.evil.example/' leaves the site for huggingface.co.evil.example, "
            "which is not listed in extra.perfdocs.redirect_hosts (mkdocs.yml) [unlisted-host]",
        ),
        (
            "//evil.example/x",
            "redirect target '//evil.example/x' is a scheme-relative URL, which leaves the site for evil.example "
            "[unsafe-target] (write an https:// URL, or a page under docs/)",
        ),
        (
            "https:evil.example",
            "redirect target 'https:evil.example' names no host as written, but browsers go to evil.example "
            "[unsafe-target] (write it as https://evil.example/)",
        ),
        (
            "https:///huggingface.co/x",
            "redirect target 'https:///huggingface.co/x' names no host as written, but browsers go to huggingface.co "
            "[unsafe-target] (write it as https://huggingface.co/x)",
        ),
        (
            "https://huggingface%2eco/x",
            "redirect target 'https://huggingface%2eco/x' names the host huggingface%2eco as written, but browsers go "
            "to huggingface.co [unsafe-target] (write it as https://huggingface.co/x)",
        ),
        (
            "https://0x7f.1/",
            "redirect target 'https://0x7f.1/' names the host 0x7f.1 as written, but browsers go to 127.0.0.1 "
            "[unsafe-target] (write it as https://127.0.0.1/)",
        ),
        ('"https://[x/"', "redirect target 'https://[x/' is not a valid URL [unsafe-target]"),
        (
            "https://huggingface%0a.co/",
            "redirect target 'https://huggingface%0a.co/' is not a valid URL [unsafe-target]",
        ),
        (
            "http://huggingface.co/",
            "redirect target 'http://huggingface.co/' uses the http: scheme; only https:// URLs may leave the site "
            "[unsafe-target]",
        ),
    ],
)
def test_external_targets_are_read_as_a_browser_reads_them(target: str, message: str) -> None:
    rmap, problems = load(f"  a: {target}\n", hosts=HOSTS)
    assert problems == [f"redirects.yml:2:1: error: {message}"]
    assert not rmap
    assert netlify_redirects(rmap, URLS.__getitem__).splitlines()[1:] == []


@pytest.mark.parametrize(
    "target, href",
    [
        # %0A is three characters of the path to a browser (and to _redirects): no line break, so it may stay
        ("https://huggingface.co/a%0Ab", "https://huggingface.co/a%0Ab"),
        ("https://bücher.example/x", "https://xn--bcher-kva.example/x"),  # IDN: the punycode host is compared
        ("https://HuggingFace.CO/Docs", "https://huggingface.co/Docs"),  # hosts have no case; paths keep theirs
        ("HTTPS://huggingface.co", "https://huggingface.co/"),
        ("https://huggingface.co:443/x#y", "https://huggingface.co/x#y"),
    ],
)
def test_what_is_written_is_the_parsers_serialisation(target: str, href: str) -> None:
    rmap, problems = load(f"  a: {target}\n", hosts=HOSTS)
    assert problems == [] and rmap.pages == {"a": Target(url=href)}
    rules = netlify_redirects(rmap, URLS.__getitem__).splitlines()[1:]
    assert rules == [f"/{form} {href} 301" for form in ("a", "a/", "a.html", "a.md", "a.mdx", "a/index.html")]
    page = redirect_pages(rmap, URLS.__getitem__, str)["a/index.html"]
    assert f'<meta http-equiv="refresh" content="0; url={href}">' in page


def test_a_chain_to_a_refused_target_is_one_error_at_the_target() -> None:
    rmap, problems = load("  a: b\n  b: https://evil.example\\@huggingface.co/\n", hosts=HOSTS)
    assert problems == [
        "redirects.yml:3:1: error: redirect target 'https://evil.example\\@huggingface.co/' contains a backslash, "
        "which browsers read as '/' [unsafe-target] (browsers go to evil.example)"
    ]
    assert not rmap


@pytest.mark.parametrize(
    "key, shown, char",
    [
        ('"a\\tb"', "a\\tb", "a tab (U+0009)"),
        ('"\\ta"', "\\ta", "a tab (U+0009)"),  # normalise_old would strip it: refused before that
        ('"a\\t"', "a\\t", "a tab (U+0009)"),
        ('"a\\n/* https://evil.example/ 301!"', "a\\n/* https://evil.example/ 301!", "a line feed (U+000A)"),
        ('"a\\r"', "a\\r", "a carriage return (U+000D)"),
        ('"a#x\\n"', "a#x\\n", "a line feed (U+000A)"),  # the fragment of an anchor remap
        ('"a b"', "a b", "a space (U+0020)"),
        ('"a\\x00"', "a\\x00", "U+0000 (a control character)"),
    ],
)
def test_old_paths_with_whitespace_or_controls_are_refused(key: str, shown: str, char: str) -> None:
    rmap, problems = load(f"  a: performance/index.md\n  {key}: performance/index.md\n")
    assert problems == [
        f"redirects.yml:3:1: error: '{shown}' contains {char}; old paths hold no spaces or control characters "
        "[bad-redirects]"
    ]
    assert list(rmap.pages) == ["a"] and rmap.anchors == {}


def test_allowed_external_hosts_in_redirects_yml_is_refused_and_ignored() -> None:
    text = "redirects:\n  a: https://evil.example/x\nallowed_external_hosts: [evil.example]\n"
    rmap, problems = load_redirects(text, "redirects.yml", PAGES)
    assert [str(p) for p in problems] == [
        "redirects.yml:3:1: error: allowed_external_hosts moved to mkdocs.yml: extra.perfdocs.redirect_hosts "
        "[bad-redirects] (only maintainers allow a host: ask one)",
        "redirects.yml:2:1: error: redirect target 'https://evil.example/x' leaves the site for evil.example, which "
        "is not listed in extra.perfdocs.redirect_hosts (mkdocs.yml) [unlisted-host]",
    ]
    assert not rmap


def test_the_repositorys_redirects_load_with_the_hosts_of_its_mkdocs_yml() -> None:
    root = Path(__file__).parent.parent
    project = load_project(root / "mkdocs.yml")
    assert project.redirect_hosts == RedirectHosts()  # extra.perfdocs.redirect_hosts: [] (no external target yet)
    pages = {project.docs_path(p) for p in project.pages()}
    rmap, problems = load_redirects(project.redirects_file.read_bytes(), "redirects.yml", pages, project.redirect_hosts)
    assert problems == [] and rmap.pages["perf_train_gpu_one"] == Target(page="performance/train/gpu_one.md")


# -- extra.perfdocs.redirect_hosts (mkdocs.yml) -------------------------------------------------------------------
HOSTS_CONFIG = """site_name: x
extra:
  perfdocs:
    notebooks: https://github.com/o/r/blob/main/{{page}}.ipynb
    redirect_hosts:
{entries}
"""


@pytest.mark.parametrize(
    "value, names",
    [(None, set()), ([], set()), (["HuggingFace.co", "bücher.example"], {"huggingface.co", "xn--bcher-kva.example"})],
)
def test_redirect_hosts_are_names_as_browsers_write_them(value: object, names: set[str]) -> None:
    assert redirect_hosts(value) == RedirectHosts(frozenset(names))


def test_bad_redirect_hosts_are_errors_at_their_line_of_mkdocs_yml(tmp_path: Path) -> None:
    entries = ["hf.co", "https://evil.example", "*.hf.co", "hf.co:443", "0x7f.1", "a b", 5]
    config = tmp_path / "mkdocs.yml"
    config.write_text(HOSTS_CONFIG.format(entries="\n".join(f"      - {e!r}" for e in entries)), encoding="utf-8")
    hosts = redirect_hosts(entries, config, "mkdocs.yml")
    hint = "(write the bare name, as in huggingface.co: no scheme, port, path or wildcard)"
    assert [str(p) for p in hosts.problems] == [
        f"mkdocs.yml:{line}:1: error: extra.perfdocs.redirect_hosts: {shown} is not a host name [bad-redirects] {hint}"
        for line, shown in [
            (7, "'https://evil.example'"),
            (8, "'*.hf.co'"),
            (9, "'hf.co:443'"),
            (10, "'0x7f.1'"),
            (11, "'a b'"),
            (12, "5"),
        ]
    ]
    assert hosts.names == {"hf.co"}
    rmap, problems = load("  a: https://hf.co/x\n", hosts)
    assert problems == [str(p) for p in hosts.problems] and rmap.pages == {"a": Target(url="https://hf.co/x")}


def test_redirect_hosts_must_be_a_list(tmp_path: Path) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: x\nextra:\n  perfdocs:\n    redirect_hosts: hf.co\n", encoding="utf-8")
    assert [str(p) for p in redirect_hosts("hf.co", config, "mkdocs.yml").problems] == [
        "mkdocs.yml:4:1: error: extra.perfdocs.redirect_hosts must be a list of host names (got 'hf.co') [bad-redirects]"
    ]


def test_the_hosts_come_from_mkdocs_yml_for_the_build_and_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/index.md").write_text("# Home\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(HOSTS_CONFIG.format(entries="      - HF.co\n      - 'hf.co/x'"))
    (tmp_path / "redirects.yml").write_text("redirects:\n  a: https://hf.co/docs\n  b: https://evil.example/\n")
    project = load_project(tmp_path / "mkdocs.yml")
    bad_entry = (
        "mkdocs.yml:7:1: error: extra.perfdocs.redirect_hosts: 'hf.co/x' is not a host name [bad-redirects] "
        "(write the bare name, as in huggingface.co: no scheme, port, path or wildcard)"
    )
    assert project.redirect_hosts.names == {"hf.co"}
    assert [str(p) for p in project.redirect_hosts.problems] == [bad_entry]
    assert main(["-f", str(tmp_path / "mkdocs.yml"), "redirects"]) == 2
    out, err = capsys.readouterr()
    assert out.splitlines() == ["/a -> https://hf.co/docs"]
    assert err.splitlines() == [
        bad_entry,
        "redirects.yml:3:1: error: redirect target 'https://evil.example/' leaves the site for evil.example, which is "
        "not listed in extra.perfdocs.redirect_hosts (mkdocs.yml) [unlisted-host]",
    ]


# -- what is written -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "target",
    [
        Target(url="https://huggingface.co/x\n/* https://evil.example/ 301!"),
        Target(url="https://huggingface.co/x /* https://evil.example/"),
        Target(page="performance/index.md", anchor="x\r/* https://evil.example/ 301!"),
    ],
)
def test_an_unchecked_value_never_becomes_a_line(target: Target) -> None:
    rmap = RedirectMap(pages={"a": target}, lines={"a": 2})
    with pytest.raises(UnsafeRedirectError, match="perfdocs internal error: unchecked redirect value"):
        netlify_redirects(rmap, URLS.__getitem__)
    with pytest.raises(UnsafeRedirectError):
        redirect_pages(rmap, URLS.__getitem__, str)


def test_a_site_url_path_with_a_space_stays_one_field() -> None:
    rmap, _ = load("  a: performance/index.md\n")
    assert (
        netlify_redirects(rmap, URLS.__getitem__, "/my docs/").splitlines()[1]
        == "/my%20docs/a /my%20docs/performance/ 301"
    )


@pytest.mark.parametrize(
    "text, message",
    [
        (
            b'redirects:\n  a: b\n  c: "\xff"\n',
            "redirects.yml:3:1: error: not UTF-8 text (invalid start byte at byte 24) "
            "[bad-encoding] (save the file as UTF-8)",
        ),
        (
            "redirects: " + "[" * 5000 + "]" * 5000 + "\n",
            "redirects.yml:1:1: error: not valid YAML here: nested too deeply [bad-redirects]",
        ),
        (
            "? [a]\n: b\n",
            "redirects.yml:1:1: error: a top-level key must be a name [bad-redirects] (allowed: redirects)",
        ),
        (
            '"redirect\\n:": {}\n',
            "redirects.yml:1:1: error: unknown key 'redirect\\n:' [bad-redirects] (did you mean 'redirects'?)",
        ),
    ],
)
def test_inputs_that_crashed_the_loader(text: str | bytes, message: str) -> None:
    rmap, problems = load_redirects(text, "redirects.yml", PAGES)
    assert [str(p) for p in problems] == [message] and not rmap


# -- old paths over files the build writes -------------------------------------------------------------------------
SITE_FILES = {
    "index.html",
    "404.html",
    "sitemap.xml",
    "sitemap.xml.gz",
    "_redirects",
    "llms.txt",
    "assets/estimator.js",
    "search/search_index.json",
    "performance/index.html",
    "performance/index.html.md",
}


@pytest.mark.parametrize(
    "key, message",
    [
        ("_redirects", "would turn the site file _redirects into a folder (for _redirects/index.html)"),
        ("llms.txt", "would turn the site file llms.txt into a folder (for llms.txt/index.html)"),
        (
            "assets/estimator.js",
            "would turn the site file assets/estimator.js into a folder (for assets/estimator.js/index.html)",
        ),
        (
            "search/search_index.json",
            "would turn the site file search/search_index.json into a folder (for search/search_index.json/index.html)",
        ),
        ("sitemap.xml", "would turn the site file sitemap.xml into a folder (for sitemap.xml/index.html)"),
        ("404", "would overwrite the site file 404.html"),
        ("assets", "would write assets.html where the site has a folder"),
    ],
)
def test_old_paths_over_site_files_are_located_and_dropped(key: str, message: str) -> None:
    rmap, problems = load(f"  keep: performance/index.md\n  {key}: performance/index.md\n")
    assert problems == []
    files = SITE_FILES | ({"assets.html/x.png"} if key == "assets" else set())
    assert [str(p) for p in site_file_clashes(rmap, files, "redirects.yml")] == [
        f"redirects.yml:3:1: error: redirect '{normalise_old(key)}' {message} [redirect-shadows-page]"
    ]
    assert list(rmap.pages) == ["keep"]
    assert [line.split()[0] for line in netlify_redirects(rmap, URLS.__getitem__).splitlines()[1:]] == [
        f"/{form}" for form in ("keep", "keep/", "keep.html", "keep.md", "keep.mdx", "keep/index.html")
    ]
    assert sorted(redirect_pages(rmap, URLS.__getitem__, str)) == [
        "keep.html",
        "keep.md/index.html",
        "keep.mdx/index.html",
        "keep/index.html",
    ]


@pytest.mark.parametrize(
    "body, message",
    [
        (
            "  x: performance/index.md\n  x.md/index: performance/index.md\n",
            "redirects.yml:3:1: error: redirect 'x.md' would overwrite x.md/index.html, the redirect page of 'x' (line 2) "
            "[duplicate-redirect]",
        ),
        (
            "  x: performance/index.md\n  x.html/y: performance/index.md\n",
            "redirects.yml:3:1: error: redirect 'x.html/y' would turn x.html, the redirect page of 'x' (line 2), into a "
            "folder (for x.html/y/index.html) [duplicate-redirect]",
        ),
        (
            "  x.html/y: performance/index.md\n  x: performance/index.md\n",
            "redirects.yml:3:1: error: redirect 'x' would write x.html where the redirect page of 'x.html/y' (line 2) "
            "needs a folder [duplicate-redirect]",
        ),
    ],
)
def test_two_entries_writing_one_file(body: str, message: str) -> None:
    rmap, problems = load(body)
    assert problems == []
    assert [str(p) for p in site_file_clashes(rmap, SITE_FILES, "redirects.yml")] == [message]
    assert len(rmap.pages) == 1


def test_a_file_a_plugin_wrote_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "objects.inv").write_bytes(b"inventory")
    (tmp_path / "stale.html").write_text("<title>Moved: old</title>", encoding="utf-8")  # an earlier build's
    rmap, _ = load("  objects.inv: performance/index.md\n  stale: performance/index.md\n")
    pages = redirect_pages(rmap, URLS.__getitem__, str)
    problems = write_redirect_pages(tmp_path, pages, rmap, "redirects.yml")
    assert [str(p) for p in problems] == [
        "redirects.yml:2:1: error: redirect 'objects.inv' would overwrite objects.inv in the built site "
        "[redirect-shadows-page]"
    ]
    assert (tmp_path / "objects.inv").read_bytes() == b"inventory"
    assert not (tmp_path / "objects.inv.html").exists() and (tmp_path / "stale/index.html").is_file()
    assert "performance/" in (tmp_path / "stale.html").read_text(encoding="utf-8")
    assert list(rmap.pages) == ["stale"]


# -- any input -------------------------------------------------------------------------------------------------------
SCHEMES = st.sampled_from(["https://", "HTTPS://", "https:", "https:/", "https:///", "//", "http://", ""])
AUTHORITIES = st.sampled_from(
    [
        "huggingface.co",
        "HuggingFace.CO",
        "bücher.example",
        "evil.example",
        "a@huggingface.co",
        "huggingface.co:8443",
        "evil.example\\@huggingface.co",
        "huggingface.co.evil.example",
        "huggingface%2eco",
        "[x",
        "performance",
    ]
)
SAFE = ["/", "x", "%0A", "#y", "?q=1", "/index.md", "evil.example"]  # %0A: three characters of a path, no line break
REST = st.lists(
    st.sampled_from(SAFE * 4 + ["\t", "\n", "\r", " ", "\\", "@", "\x00", "\u2028", "\u202e"]), max_size=4
).map("".join)
KEYS = st.sampled_from(["j"] * 6 + ["k#f", "j b", "j\t", "\tj", "j\n/* https://evil.example/ 301!", "_redirects"])


@settings(max_examples=400, deadline=None)
@given(key=KEYS, target=st.tuples(SCHEMES, AUTHORITIES, REST).map("".join))
def test_no_input_crashes_and_whatever_loads_can_be_written(key: str, target: str) -> None:
    text = f"redirects:\n  k: performance/index.md\n  {json.dumps(key)}: {json.dumps(target)}\n"
    rmap, problems = load_redirects(text, "redirects.yml", PAGES, HOSTS)
    assert all("\n" not in str(p) and "\r" not in str(p) for p in problems)  # one line each, printed as it is
    rules = netlify_redirects(rmap, URLS.__getitem__).split("\n")  # raises UnsafeRedirectError if a value slipped
    assert all(len(rule.split(" ")) == 3 for rule in rules[1:-1]) and rules[-1] == ""
    redirect_pages(rmap, URLS.__getitem__, str)  # as do the pages
    for t in rmap.pages.values():
        assert t.url is None or urlsplit(t.url).hostname in {
            "huggingface.co",
            "docs.example.org",
            "xn--bcher-kva.example",
        }
        assert t.url is None or t.url == URL(t.url).href  # written as the parser serialises it
