from __future__ import annotations

import pytest
from perfdocs.redirects import (
    RedirectMap,
    Target,
    load_redirects,
    missing_anchor_problems,
    netlify_redirects,
    normalise_old,
    redirect_pages,
    relative_url,
)

PAGES = {"performance/index.md", "performance/train/gpu_one.md", "performance/scalability.md"}
URLS = {
    "performance/index.md": "performance/",
    "performance/train/gpu_one.md": "performance/train/gpu_one/",
    "performance/scalability.md": "performance/scalability/",
}


def load(body: str, hosts: str = "") -> tuple[RedirectMap, list[str]]:
    text = "redirects:\n" + body + (f"allowed_external_hosts: [{hosts}]\n" if hosts else "")
    rmap, problems = load_redirects(text, "redirects.yml", PAGES)
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
            "the site for evil.example, which is not in allowed_external_hosts [unlisted-host]",
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
    ],
)
def test_bad_redirects_are_located_errors(body: str, message: str) -> None:
    rmap, problems = load(body)
    assert problems == [message]
    assert ("a" in rmap.pages) == ("listed twice" in message)


def test_allowed_external_host() -> None:
    rmap, problems = load("  a: https://docs.example.org/x\n", hosts="docs.example.org")
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
