"""One small broken project per failure mode: the exact located diagnostic, a failing
``mkdocs build --strict``, no traceback, and the sources left exactly as they were."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
import yaml
from mkdocs.utils.yaml import yaml_load

from .conftest import ROOT
from .sitetools import build, build_in_process, minimal_config

pytestmark = pytest.mark.slow

CONFIG = minimal_config("corpus", "site_url: https://example.org/\nnav:\n  - index.md\n")
SNIPPET = "---\ntitle: {name}\nhelps: [speed]\nsummary: s\n---\n{body}\n"
PAGE = "---\nscenario: train-gpu-one\n---\n# Page\n\n{body}\n"


# a snippet with a part the train-gpu-one page shows, and a broken part only inference pages would show
ONLY_PARTS = (
    'Shared text.\n\n<Only scenario="train-gpu-one">\nShown part.\n</Only>\n\n<Only scenario="infer-gpu-many">\n'
    "<Tipp>x</Tipp>\n<MemoryBudget/>\n</Only>"
)


def snippet(name: str, body: str) -> tuple[str, str]:
    return f"docs/performance/_theory/{name}.md", SNIPPET.format(name=name, body=body)


def nested(depth: int) -> dict[str, str]:
    files = dict(snippet(f"n{i}", f'<Theory name="n{i + 1}"/>') for i in range(depth))
    files.update([snippet(f"n{depth}", "bottom")])
    return files


# raw HTML: what the allowlist refuses is removed from the page's text, the element's content kept
REMOVED = " (removed from the page)"
UNWRAPPED = " (its tags are removed from the page, its content kept)"
CASES: dict[str, tuple[dict[str, str | bytes], list[str]]] = {
    "unclosed component": (
        {"docs/index.md": PAGE.format(body="<Tip>\nnever closed")},
        ["docs/index.md:6:1: error: <Tip> opened here is never closed [unclosed-component] (add </Tip>)"],
    ),
    "recipe markers: without recipe:, with a typo, and in a snippet no page shows": (
        {
            "docs/index.md": PAGE.format(
                body="<!-- gpu: needs a GPU -->\n```py\nx = 1\n```\n\n<!-- recipe: gpuu: fast -->\n```py\ny = 2\n```"
            ),
            **dict([snippet("orphan", "<!-- recipe: fragment: why -->\n```py\nz = 3\n```")]),
        },
        [
            "docs/index.md:6:1: error: '<!-- gpu: needs a GPU -->' is not a recipe marker: without 'recipe:' the "
            "block below runs on CPU in CI [bad-recipe-marker] (write <!-- recipe: gpu: needs a GPU -->)",
            "docs/index.md:11:1: error: unknown recipe marker '<!-- recipe: gpuu: fast -->': use gpu: <reason>, "
            "fragment, script: <test file>, continues or separate-env: <reason> [bad-recipe-marker] "
            "(README, 'Recipes: every code block runs')",
            "docs/performance/_theory/orphan.md:6:1: error: the fragment marker takes no reason: "
            "'<!-- recipe: fragment: why -->' [bad-recipe-marker] (README, 'Recipes: every code block runs')",
        ],
    ),
    "an error in an <Only> part no page shows, and in a snippet no page includes": (
        {
            "docs/index.md": PAGE.format(body='## Why\n\n<Theory name="parts"/>'),
            **dict([snippet("parts", ONLY_PARTS), snippet("draft", "Draft with <Tipp>y</Tipp>.")]),
        },
        [
            "docs/performance/_theory/parts.md:13:1: error: unknown component <Tipp> [unknown-component] "
            "(did you mean 'Tip'?)",
            "docs/performance/_theory/parts.md:14:1: error: <MemoryBudget> needs a non-empty model=\"...\" attribute "
            "[missing-attribute]",
            "docs/performance/_theory/draft.md:6:12: error: unknown component <Tipp> [unknown-component] "
            "(did you mean 'Tip'?)",
        ],
    ),
    "a missing page linked with and without a fragment: each link reported": (
        {"docs/index.md": PAGE.format(body="[a](gone.md) and [b](gone.md#part)")},
        [
            "docs/index.md:6:5: error: broken link 'gone.md': no page gone.md in the docs [missing-file]",
            "docs/index.md:6:22: error: broken link 'gone.md#part': no page gone.md in the docs [missing-file]",
        ],
    ),
    "a nav entry that names a page not in the docs": (
        {
            "mkdocs.yml": minimal_config("corpus", "nav:\n  - index.md\n  - Setup: performance/setpu.md\n"),
            "docs/index.md": PAGE.format(body="Text."),
            "docs/performance/setup.md": "# Setup\n",
        },
        [
            "mkdocs.yml:16:12: error: the nav names performance/setpu.md, which is not a page in the docs "
            "[nav-missing-page] (did you mean 'performance/setup.md'?)",
            "docs/performance/setup.md:1:1: error: page is not in the nav of mkdocs.yml [not-in-nav] "
            "(add it to nav: so readers can find it)",
        ],
    ),
    "mismatched component": (
        {"docs/index.md": PAGE.format(body='<hfoptions id="a">\n<hfoption id="x">\ntext\n</hfoptions>')},
        [
            "docs/index.md:9:1: error: </hfoptions> closes <hfoptions> but <hfoption> opened at line 7 is still open "
            "[mismatched-close] (add </hfoption> before it)"
        ],
    ),
    "broken links on a page that also has a dialect error": (
        {
            "docs/index.md": PAGE.format(
                body="[gone](gonne.md#x) and [theory](performance/_theory/t.md)\n\n<Tipp>x</Tipp>"
            ),
            "docs/gone.md": "# Gone\n",
            "docs/performance/_theory/t.md": "---\ntitle: T\nhelps: [speed]\nsummary: s\n---\nbody\n",
        },
        [
            "docs/index.md:8:1: error: unknown component <Tipp> [unknown-component] (did you mean 'Tip'?)",
            "docs/index.md:6:8: error: broken link 'gonne.md#x': no page gonne.md in the docs [missing-file] "
            "(did you mean 'gone.md'?)",
            "docs/index.md:6:33: error: broken link 'performance/_theory/t.md': no page performance/_theory/t.md in "
            "the docs [missing-file] (snippets are not pages: link to the section of the page that shows it)",
        ],
    ),
    "unknown component": (
        {"docs/index.md": PAGE.format(body="<Tipp>\nx\n</Tipp>")},
        ["docs/index.md:6:1: error: unknown component <Tipp> [unknown-component] (did you mean 'Tip'?)"],
    ),
    "bad attribute value": (
        {"docs/index.md": PAGE.format(body="<Tip warning={yes}>\nx\n</Tip>")},
        ["docs/index.md:6:1: error: attribute warning={yes} on <Tip> must be {true} or {false} [bad-attribute]"],
    ),
    "script injection through a Youtube id": (
        {"docs/index.md": PAGE.format(body="<Youtube id='\"><script>alert(1)</script>'/>")},
        [
            'docs/index.md:6:1: error: <Youtube id=""><script>alert(1)</script>"> is not a YouTube video id '
            "(11 characters of letters, digits, '-' and '_') [bad-attribute]"
        ],
    ),
    "event handler and javascript link": (
        {"docs/index.md": PAGE.format(body='<img src="x.png" onerror="alert(1)">\n\n[click](javascript:alert(1))')},
        [
            "docs/index.md:6:18: error: event handler attribute 'onerror' is not allowed in pages [forbidden-html]"
            + REMOVED,
            "docs/index.md:8:9: error: link with the javascript: scheme is not allowed [unsafe-url] (link to a page, a "
            "file in the repository or an https:// URL)",
        ],
    ),
    "missing theory snippet": (
        {
            "docs/index.md": PAGE.format(body='## S\n\n<Theory name="batch_sise"/>'),
            **dict([snippet("batch_size", "text")]),
        },
        [
            "docs/index.md:8:1: error: theory snippet 'batch_size' not found".replace("batch_size'", "batch_sise'")
            + " in docs/performance/_theory [missing-snippet] (did you mean 'batch_size'?)"
        ],
    ),
    "theory include cycle": (
        {
            "docs/index.md": PAGE.format(body='<Theory name="a"/>'),
            **dict([snippet("a", '<Theory name="b"/>'), snippet("b", '<Theory name="a"/>')]),
        },
        [
            "docs/performance/_theory/b.md:6:1: error: include cycle: a -> b -> a [include-cycle]\n"
            "    included from docs/performance/_theory/a.md:6\n    included from docs/index.md:6"
        ],
    ),
    "unknown scenario in <Only>": (
        {
            "docs/index.md": PAGE.format(body='<Theory name="a"/>'),
            **dict([snippet("a", '<Only scenario="train-gpu-uno">\nx\n</Only>')]),
        },
        [
            "docs/performance/_theory/a.md:6:1: error: unknown scenario 'train-gpu-uno' in <Only> [unknown-scenario] "
            "(did you mean 'train-gpu-one'?)\n    included from docs/index.md:6"
        ],
    ),
    "unknown scenario in front matter": (
        {"docs/index.md": "---\nscenario: training\n---\n# Page\n"},
        [
            "docs/index.md:2:1: error: unknown scenario 'training' in front matter [unknown-scenario] (known: overview, "
            "infer-cpu, infer-gpu-one, infer-gpu-many, train-gpu-one, train-gpu-many, scalability)"
        ],
    ),
    "front matter is not YAML": (
        {"docs/index.md": "---\ntitle: [oops\n---\n# Page\n"},
        [
            "docs/index.md:2:1: error: front matter is not valid YAML: expected ',' or ']', but got '<stream end>' "
            "[bad-front-matter]"
        ],
    ),
    "front matter with a wrong type": (
        {"docs/index.md": "---\nscenario: [a, b]\n---\n# Page\n"},
        ["docs/index.md:2:1: error: front matter 'scenario' must be a string, got list [bad-front-matter]"],
    ),
    "snippet front matter with wrong types": (
        {
            "docs/index.md": PAGE.format(body='<Theory name="a"/>'),
            "docs/performance/_theory/a.md": "---\ntitle: 3\nhelps: fast\nsummary: s\n---\nx\n",
        },
        [
            "docs/performance/_theory/a.md:3:1: error: snippet front matter 'helps' must be a list drawn from speed, "
            "memory, scale; got 'fast' [bad-front-matter]",
            "docs/performance/_theory/a.md:2:1: error: snippet front matter needs 'title' (a string) [bad-front-matter]",
        ],
    ),
    "literalinclude of a missing file": (
        {"docs/index.md": PAGE.format(body='<literalinclude>\n{"path": "../examples/nope.py"}\n</literalinclude>')},
        [
            "docs/index.md:6:1: error: <literalinclude> file '../examples/nope.py' not found (looked for "
            "examples/nope.py) [missing-file]"
        ],
    ),
    "literalinclude with a missing marker": (
        {
            "docs/index.md": PAGE.format(
                body='<literalinclude>\n{"path": "../examples/a.py", "start-after": "START x"}\n</literalinclude>'
            ),
            "examples/a.py": "print(1)\n",
        },
        [
            "docs/index.md:6:1: error: <literalinclude> marker start-after='START x' not found in ../examples/a.py "
            "[missing-marker]"
        ],
    ),
    "literalinclude outside the repository": (
        {"docs/index.md": PAGE.format(body='<literalinclude>\n{"path": "../../outside.py"}\n</literalinclude>')},
        [
            "docs/index.md:6:1: error: <literalinclude> path '../../outside.py' points outside the repository "
            "[path-outside-root]"
        ],
    ),
    "duplicate ids from two snippets": (
        {
            "docs/index.md": PAGE.format(body='## A\n\n<Theory name="a"/>\n\n## B\n\n<Theory name="b"/>'),
            **dict([snippet("a", "### Setup[[setup]]\n\nx"), snippet("b", "### Setup[[setup]]\n\ny")]),
        },
        [
            "docs/performance/_theory/b.md:6:1: error: duplicate id 'setup' on this page (first at "
            "docs/performance/_theory/a.md:6) [duplicate-id] (give one of them another id)\n"
            "    included from docs/index.md:12"
        ],
    ),
    "page missing from the nav": (
        {"docs/index.md": PAGE.format(body="x"), "docs/orphan.md": "# Orphan\n"},
        [
            "docs/orphan.md:1:1: error: page is not in the nav of mkdocs.yml [not-in-nav] (add it to nav: so readers "
            "can find it)"
        ],
    ),
    "non-UTF-8 page": (
        {"docs/index.md": PAGE.format(body="x"), "docs/latin1.md": b"# Caf\xe9\n"},
        [
            "docs/latin1.md:1:1: error: page is not UTF-8 text (invalid continuation byte at byte 5) [bad-encoding] "
            "(save the file as UTF-8)"
        ],
    ),
    "empty page": ({"docs/index.md": ""}, ["docs/index.md:1:1: error: page has no content [empty-page]"]),
    "10 MB page": (
        {"docs/index.md": "# Big\n\n" + ("A sentence that repeats. " * 40 + "\n\n") * 10_000},
        [
            "docs/index.md:1:1: error: page is 10.0 MB; pages are limited to 2 MB [page-too-large] (split it into "
            "several pages)"
        ],
    ),
    "snippets nested 50 deep": (
        {"docs/index.md": PAGE.format(body='<Theory name="n0"/>'), **nested(50)},
        ["docs/performance/_theory/n9.md:6:1: error: snippets nested deeper than 10 levels [include-depth]"],
    ),
    "redirects.yml is not YAML": (
        {"docs/index.md": PAGE.format(body="x"), "redirects.yml": "redirects:\n  a: [b\n"},
        ["redirects.yml:3:1: error: not valid YAML: expected ',' or ']', but got '<stream end>' [bad-redirects]"],
    ),
    "redirect over a live page": (
        {
            "docs/index.md": PAGE.format(body="x"),
            "docs/other.md": "# Other\n",
            "redirects.yml": "redirects:\n  other: index.md\n",
        },
        [
            "redirects.yml:2:1: error: 'other' is a live page; a redirect to index.md would shadow it "
            "[redirect-shadows-page] (remove this entry or rename the page)"
        ],
    ),
    "redirect loop": (
        {"docs/index.md": PAGE.format(body="x"), "redirects.yml": "redirects:\n  a: b\n  b: a\n"},
        ["redirects.yml:2:1: error: redirect loop: a -> b -> a [redirect-loop]"],
    ),
    "redirect chain to a missing page": (
        {"docs/index.md": PAGE.format(body="x"), "redirects.yml": "redirects:\n  a: b\n  b: gone.md\n"},
        [
            "redirects.yml:3:1: error: redirect target 'gone.md' is neither a page under docs/ nor another redirect "
            "[missing-target] (did you mean 'index.md'?)"
        ],
    ),
    "redirect to a missing anchor": (
        {"docs/index.md": PAGE.format(body="## Real section"), "redirects.yml": "redirects:\n  a: index.md#rea\n"},
        ["redirects.yml:2:1: error: redirect target 'index.md#rea' has no id 'rea' [missing-anchor]"],
    ),
    "redirect to javascript:": (
        {"docs/index.md": PAGE.format(body="x"), "redirects.yml": "redirects:\n  a: javascript:alert(1)\n"},
        [
            "redirects.yml:2:1: error: redirect target 'javascript:alert(1)' uses the javascript: scheme; only https:// "
            "URLs may leave the site [unsafe-target]"
        ],
    ),
    "redirect to data:": (
        {"docs/index.md": PAGE.format(body="x"), "redirects.yml": "redirects:\n  a: data:text/html,x\n"},
        [
            "redirects.yml:2:1: error: redirect target 'data:text/html,x' uses the data: scheme; only https:// URLs may "
            "leave the site [unsafe-target]"
        ],
    ),
    "redirect to an unlisted host": (
        {"docs/index.md": PAGE.format(body="x"), "redirects.yml": "redirects:\n  a: https://evil.example/\n"},
        [
            "redirects.yml:2:1: error: redirect target 'https://evil.example/' leaves the site for evil.example, which "
            "is not listed in extra.perfdocs.redirect_hosts (mkdocs.yml) [unlisted-host]"
        ],
    ),
}


def tree_digest(root: Path) -> dict[str, str]:
    """The project's sources: not the site, nor what a build keeps in .cache/ for the next (gitignored)."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "site" not in p.relative_to(root).parts and p.relative_to(root).parts[0] != ".cache"
    }


def make_project(tmp: Path, files: dict[str, str | bytes]) -> Path:
    project = tmp / "project"
    (project / "docs").mkdir(parents=True)
    (project / "hooks").symlink_to(ROOT / "hooks", target_is_directory=True)
    (project / "mkdocs.yml").write_text(CONFIG)
    for rel, content in files.items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return project


@pytest.mark.parametrize("case", list(CASES))
def test_error_case(case: str, tmp_path: Path) -> None:
    files, expected = CASES[case]
    project = make_project(tmp_path, files)
    before = tree_digest(project)
    result = build_in_process(project, project / "site")
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "Traceback" not in output
    errors = [line for line in output.split("\n") if line.startswith(("ERROR   -  ", "WARNING -  "))]
    for diagnostic in expected:
        first, *rest = diagnostic.split("\n")
        assert f"ERROR   -  {first}" in errors, "\n".join(errors)
        if rest:
            assert "\n".join(rest) in output
    assert tree_digest(project) == before, "the build changed the sources"


def test_every_problem_is_reported_before_the_build_stops(tmp_path: Path) -> None:
    project = make_project(
        tmp_path,
        {
            "docs/index.md": PAGE.format(body="<Tipp>\nx\n</Tipp>\n\n<Tip warning={no}>\ny\n</Tip>"),
            "docs/other.md": "# Other\n\n<Foo/>\n",
            "redirects.yml": "redirects:\n  a: missing.md\n",
        },
    )
    (project / "mkdocs.yml").write_text(CONFIG.replace("  - index.md\n", "  - index.md\n  - other.md\n"))
    result = build(project, project / "site")
    output = result.stdout + result.stderr
    for line in [
        "docs/index.md:6:1: error: unknown component <Tipp>",
        "docs/index.md:10:1: error: attribute warning={no} on <Tip> must be {true} or {false}",
        "docs/other.md:3:1: error: unknown component <Foo>",
        "redirects.yml:2:1: error: redirect target 'missing.md' is neither a page",
    ]:
        assert line in output
    assert "Aborted with 4 errors in strict mode!" in output


def test_symlinked_snippet_pointing_out_of_docs_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(SNIPPET.format(name="secret", body="secret text"))
    project = make_project(tmp_path, {"docs/index.md": PAGE.format(body='<Theory name="leak"/>')})
    (project / "docs/performance/_theory").mkdir(parents=True)
    os.symlink(outside, project / "docs/performance/_theory/leak.md")
    result = build(project, project / "site")
    assert result.returncode != 0
    assert (
        "ERROR   -  docs/performance/_theory/leak.md:1:1: error: snippet 'leak' resolves outside "
        "docs/performance/_theory [path-outside-root]"
    ) in result.stderr
    assert "secret text" not in (project / "site/index.html").read_text(encoding="utf-8")


def test_symlinked_literalinclude_out_of_the_repository_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "secret.py"
    outside.write_text("TOKEN = 'x'\n")
    project = make_project(
        tmp_path,
        {"docs/index.md": PAGE.format(body='<literalinclude>\n{"path": "../examples/link.py"}\n</literalinclude>')},
    )
    (project / "examples").mkdir()
    os.symlink(outside, project / "examples/link.py")
    result = build(project, project / "site")
    assert result.returncode != 0
    assert (
        "docs/index.md:6:1: error: <literalinclude> path '../examples/link.py' points outside the repository "
        "[path-outside-root]"
    ) in result.stderr
    assert "TOKEN" not in (project / "site/index.html").read_text(encoding="utf-8")


# -- hostile HTML -------------------------------------------------------------------------------
# Each page fails --strict at the Markdown line:col of the construct, and a non-strict build (what
# mkdocs serve and preview builds write) leaves nothing executable in the page content. Where a
# construct is raw HTML the location comes from the dialect (sanitize.unsafe_constructs on each
# raw-HTML token); where Markdown wrote the HTML (attr_list, reference links) it comes from the
# build's sanitiser pass. Either way it is removed and the hint says so.
HOSTILE: dict[str, tuple[str, list[str]]] = {
    "event handler after a slash": (
        "<img/onerror=alert(1) src=x>",
        [
            "docs/index.md:6:6: error: event handler attribute 'onerror' is not allowed in pages [forbidden-html]"
            + REMOVED
        ],
    ),
    "svg onload": (
        "<svg/onload=alert(1)>",
        ["docs/index.md:6:1: error: raw <svg> is not allowed in pages [forbidden-html]" + UNWRAPPED],
    ),
    "entity-encoded javascript: scheme": (
        '<a href="&#106;avascript:alert(1)">x</a>',
        ["docs/index.md:6:4: error: URL with the javascript: scheme is not allowed [unsafe-url]" + REMOVED],
    ),
    "tab inside the scheme": (
        '<a href="java&#x09;script:alert(1)">x</a>',
        ["docs/index.md:6:4: error: URL with the javascript: scheme is not allowed [unsafe-url]" + REMOVED],
    ),
    "spaces before the scheme": (
        '<a href="  javascript:alert(1)">x</a>',
        ["docs/index.md:6:4: error: URL with the javascript: scheme is not allowed [unsafe-url]" + REMOVED],
    ),
    "event handler on the next line": (
        '<img src="x.png"\n     onerror="alert(2)">',
        [
            "docs/index.md:7:6: error: event handler attribute 'onerror' is not allowed in pages [forbidden-html]"
            + REMOVED
        ],
    ),
    "iframe split over lines": (
        '<iframe\n  src="https://evil.example/"></iframe>',
        [
            "docs/index.md:6:1: error: <iframe> not allowed: evil.example is not a host pages may embed from "
            "(extra.perfdocs.embed_hosts: none) [forbidden-html]" + UNWRAPPED
        ],
    ),
    "srcdoc": (
        '<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>',
        ["docs/index.md:6:1: error: raw <iframe> is not allowed in pages [forbidden-html]" + UNWRAPPED],
    ),
    "srcdoc on another element": (
        '<div srcdoc="x">text</div>',
        ["docs/index.md:6:6: error: attribute 'srcdoc' is not allowed in pages [forbidden-html]" + REMOVED],
    ),
    "data: URL": (
        '<img src="data:image/svg+xml;base64,PHN2Zz4=" alt="x">',
        ["docs/index.md:6:6: error: URL with the data: scheme is not allowed [unsafe-url]" + REMOVED],
    ),
    "vbscript: URL": (
        '<a href="vbscript:msgbox(1)">v</a>',
        ["docs/index.md:6:4: error: URL with the vbscript: scheme is not allowed [unsafe-url]" + REMOVED],
    ),
    "event handler through attr_list": (
        'A paragraph.\n{: onclick="alert(1)" }',
        [
            "docs/index.md:7:4: error: event handler attribute 'onclick' is not allowed in pages [forbidden-html] "
            "(removed from the page)"
        ],
    ),
    "javascript: in a reference link definition": (
        "[click][1]\n\n[1]: javascript:alert(1)",
        [
            "docs/index.md:8:6: error: URL with the javascript: scheme is not allowed [unsafe-url] "
            "(removed from the page)"
        ],
    ),
    # the construct named in prose or code before the markup that writes it: found where Python-Markdown reads it
    "attr_list after inline code that shows one": (
        'Never write `{: onclick=x }` in a page.\n\nA paragraph.\n{: onclick="alert(1)" }',
        [
            "docs/index.md:9:4: error: event handler attribute 'onclick' is not allowed in pages [forbidden-html] "
            "(removed from the page)"
        ],
    ),
    "reference definition after prose that names its scheme": (
        "[click][1]\n\nA javascript: URL runs script.\n\n[1]: javascript:alert(1)",
        [
            "docs/index.md:10:6: error: URL with the javascript: scheme is not allowed [unsafe-url] "
            "(removed from the page)"
        ],
    ),
}


def page_content(site: Path) -> str:
    from selectolax.lexbor import LexborHTMLParser

    article = LexborHTMLParser((site / "index.html").read_text(encoding="utf-8")).css_first("article")
    assert article is not None
    return article.html or ""


def executable_markup(html: str) -> list[str]:
    """Everything in ``html`` a browser could run: handlers, script URLs, scripts, frames, plugins."""
    from perfdocs.sanitize import srcset_urls, url_scheme
    from selectolax.lexbor import LexborHTMLParser

    found = []
    root = LexborHTMLParser(html, is_fragment=True).root
    for node in root.traverse(include_text=False) if root is not None else []:
        tag = node.tag or ""
        if tag in {"script", "iframe", "object", "embed", "svg", "style", "form", "base", "meta"}:
            found.append(f"<{tag}>")
        for name, value in node.attributes.items():
            urls = srcset_urls(value or "") if name == "srcset" else [value or ""]
            if name.startswith("on") or name == "srcdoc":
                found.append(f"{tag} {name}")
            elif name in {"href", "src", "srcset", "cite", "poster", "action", "formaction", "data"} and any(
                url_scheme(u) not in {None, "http", "https", "mailto"} for u in urls
            ):
                found.append(f"{tag} {name}={value}")
    return found


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_html(case: str, tmp_path: Path) -> None:
    body, expected = HOSTILE[case]
    project = make_project(tmp_path, {"docs/index.md": PAGE.format(body=body)})
    strict = build_in_process(project, project / "strict")
    output = strict.stdout + strict.stderr
    assert strict.returncode != 0, output
    assert "Traceback" not in output
    errors = [line.removeprefix("ERROR   -  ") for line in output.split("\n") if line.startswith("ERROR   -  ")]
    ours = [e for e in errors if "[forbidden-html]" in e or "[unsafe-url]" in e]
    assert ours == expected, "\n".join(errors)
    lenient = build_in_process(project, project / "site", strict=False)
    assert lenient.returncode == 0, lenient.stderr
    assert executable_markup(page_content(project / "site")) == []


def test_the_hooks_own_youtube_embed_is_kept(tmp_path: Path) -> None:
    body = '<Youtube id="dQw4w9WgXcQ" title="Mixed precision in 5 minutes"/>'
    project = make_project(tmp_path, {"docs/index.md": PAGE.format(body=body)})
    result = build(project, project / "site")
    assert result.returncode == 0, result.stderr
    from selectolax.lexbor import LexborHTMLParser

    boxes = LexborHTMLParser(page_content(project / "site")).css("div.perfdocs-embed")
    assert [(b.attributes.get("data-perfdocs-embed"), b.attributes.get("data-perfdocs-title")) for b in boxes] == [
        ("https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ", "Mixed precision in 5 minutes")
    ]
    assert executable_markup(page_content(project / "site")) == []  # the player loads when the reader asks


# -- the author's view: one located report per problem, on the page too -------------------------------------------
def site_plugins() -> str:
    """The plugins section of the site's own mkdocs.yml (search, git-revision-date-localized), as YAML."""
    plugins = yaml_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["plugins"]  # MkDocs' loader: !ENV
    assert any("git-revision-date-localized" in p for p in plugins if isinstance(p, dict))
    return yaml.safe_dump({"plugins": plugins})


def reported(output: str) -> list[str]:
    return [line for line in output.split("\n") if line.startswith(("ERROR   -  ", "WARNING -  "))]


def article(site: Path, page: str) -> str:
    from selectolax.lexbor import LexborHTMLParser

    node = LexborHTMLParser((site / page).read_text(encoding="utf-8")).css_first("article")
    assert node is not None
    return node.html or ""


def test_broken_front_matter_is_reported_with_the_sites_plugins(tmp_path: Path) -> None:
    # git-revision-date-localized fills page.meta before the hooks run; <TechniqueMatrix/> keeps the page out of
    # the forked pre-render, so the hooks see the page as MkDocs hands it over
    project = make_project(
        tmp_path, {"docs/index.md": "---\ntitle: Page\nscenario: [oops\n---\n# Page\n\n<TechniqueMatrix/>\n"}
    )
    (project / "mkdocs.yml").write_text(CONFIG + site_plugins())
    message = "front matter is not valid YAML: expected ',' or ']', but got '<stream end>'"
    strict = build(project, project / "strict")
    output = strict.stdout + strict.stderr
    assert strict.returncode != 0, output
    assert reported(output) == [f"ERROR   -  docs/index.md:3:1: error: {message} [bad-front-matter]"]
    lenient = build(project, project / "site", strict=False)
    assert lenient.returncode == 0, lenient.stderr
    from selectolax.lexbor import LexborHTMLParser

    boxes = LexborHTMLParser(article(project / "site", "index.html")).css("div.admonition.failure")
    assert [box.text(separator=" ").split() for box in boxes] == [
        f"Build error: this page has 1 problem docs/index.md:3:1 : {message}".split()
    ]


LINKED = {
    "docs/index.md": PAGE.format(body="See [the other page](other.md) and [a missing one](nope.md)."),
    "docs/other.md": "# Other\n\nNo links here.\n",
}
BROKEN_LINK = "docs/index.md:6:52: error: broken link 'nope.md': no page nope.md in the docs [missing-file]"


def linked_project(tmp_path: Path) -> Path:
    project = make_project(tmp_path, LINKED)
    (project / "mkdocs.yml").write_text(CONFIG.replace("  - index.md\n", "  - index.md\n  - other.md\n"))
    return project


def test_a_broken_link_is_reported_once(tmp_path: Path) -> None:
    project = linked_project(tmp_path)
    result = build(project, project / "site")
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    reports = [line for line in output.split("\n") if "nope.md" in line]
    assert len(reports) == 1, reports
    assert reports[0].startswith(f"ERROR   -  {BROKEN_LINK}"), reports  # a "did you mean" hint may follow


@pytest.mark.parametrize("strict", [True, False])
def test_link_errors_are_shown_on_the_page(tmp_path: Path, strict: bool) -> None:
    project = linked_project(tmp_path)
    build(project, project / "site", strict=strict)
    from selectolax.lexbor import LexborHTMLParser

    boxes = LexborHTMLParser(article(project / "site", "index.html")).css("article > div.admonition.failure")
    assert [box.text() for box in boxes] == [
        "Build error: this page has 1 problemdocs/index.md:6:52: broken link 'nope.md': no page nope.md in the docs"
    ]
    assert "Build error" not in article(project / "site", "other/index.html")


def test_one_box_per_page_lists_each_problem_once_escaped_once(tmp_path: Path) -> None:
    # a dialect error, a refused attribute and a broken link (found by the dialect and by the link check)
    body = '<Zebra>x</Zebra>\n\n<p style="margin: 1em">Kept.</p>\n\nSee [a missing one](nope.md).'
    project = make_project(tmp_path, {"docs/index.md": PAGE.format(body=body)})
    build(project, project / "site", strict=False)
    from selectolax.lexbor import LexborHTMLParser

    boxes = LexborHTMLParser(article(project / "site", "index.html")).css("div.admonition.failure")
    assert len(boxes) == 1
    assert boxes[0].css_first(".admonition-title").text() == "Build error: this page has 3 problems"
    assert [li.text() for li in boxes[0].css("li")] == [
        "docs/index.md:6:1: unknown component <Zebra> (write it as inline code (`<...>`) if it is meant literally)",
        "docs/index.md:8:4: style property 'margin' is not allowed in pages (only border, border-radius, float, "
        "font-style, font-weight, height, max-height, max-width, min-width, padding, text-align, text-decoration, "
        "vertical-align, white-space, width) (removed from the page)",
        "docs/index.md:10:21: broken link 'nope.md': no page nope.md in the docs",
    ]


def test_what_the_markdown_side_reported_the_sanitiser_does_not_report_again(tmp_path: Path) -> None:
    """The dialect refuses a javascript: link at its line; the sanitiser then finds the same href in the HTML and
    places it at the same line, in its own words. One report in the log, one entry in the page's box (the
    Reporter's check by line and code, ErrorBoxes' by the same). A second page showing nothing of it is clean."""
    body = "[click](javascript:alert(1))\n\n<a href=\"javascript:x()\">raw</a>"
    files = {"docs/index.md": PAGE.format(body=body), "docs/b.md": PAGE.format(body="Clean.")}
    project = make_project(tmp_path, files)
    (project / "mkdocs.yml").write_text(CONFIG.replace("  - index.md\n", "  - index.md\n  - b.md\n"))
    result = build_in_process(project, project / "site", strict=False)
    output = result.stdout + result.stderr
    urls = [line for line in output.split("\n") if "[unsafe-url]" in line]
    assert urls == [
        "ERROR   -  docs/index.md:6:9: error: link with the javascript: scheme is not allowed [unsafe-url] (link to a "
        "page, a file in the repository or an https:// URL)",
        "ERROR   -  docs/index.md:8:4: error: URL with the javascript: scheme is not allowed [unsafe-url]" + REMOVED,
    ]
    from selectolax.lexbor import LexborHTMLParser

    boxes = LexborHTMLParser(article(project / "site", "index.html")).css("div.admonition.failure")
    assert [li.text().split(": error")[0].split(": ")[0] for li in boxes[0].css("li")] == [
        "docs/index.md:6:9",
        "docs/index.md:8:4",
    ]
    assert LexborHTMLParser(article(project / "site", "b/index.html")).css("div.admonition.failure") == []


REDIRECTED = {
    "docs/guide/index.md": PAGE.format(body="x"),
}
ROOT_REDIRECT = "redirects:\n  index: guide/index.md\n"


@pytest.mark.parametrize(
    ("redirects", "expected"),
    [
        (ROOT_REDIRECT, []),
        (
            "redirects:\n  index: [guide/index.md\n",
            [
                "ERROR   -  redirects.yml:3:1: error: not valid YAML: expected ',' or ']', but got '<stream end>' "
                "[bad-redirects]"
            ],
        ),
    ],
    ids=["valid", "not YAML"],
)
def test_a_redirects_yml_error_is_the_only_report(tmp_path: Path, redirects: str, expected: list[str]) -> None:
    # the theme's 404 page links the site root, which only the redirect makes: unknown while redirects.yml is broken
    project = make_project(tmp_path, {**REDIRECTED, "redirects.yml": redirects})
    (project / "mkdocs.yml").write_text(CONFIG.replace("  - index.md\n", "  - guide/index.md\n"))
    result = build(project, tmp_path / "elsewhere")
    output = result.stdout + result.stderr
    assert reported(output) == expected
    assert str(tmp_path) not in output.replace(f"Building documentation to directory: {tmp_path}/elsewhere", "")
    assert result.returncode == (1 if expected else 0), output


def test_a_built_page_outside_the_project_is_named_by_its_url(tmp_path: Path) -> None:
    project = make_project(tmp_path, REDIRECTED)
    (project / "mkdocs.yml").write_text(CONFIG.replace("  - index.md\n", "  - guide/index.md\n"))
    result = build(project, tmp_path / "elsewhere")
    lines = [line.removeprefix("ERROR   -  ") for line in reported(result.stdout + result.stderr)]
    assert len(lines) == 1, lines
    where, message = lines[0].split(": ", 1)
    assert where.startswith("/404.html:"), where
    assert message == "error: broken link '/.': no file / in the site [missing-file]"


def test_an_error_in_a_part_a_page_shows_is_reported_once(tmp_path: Path) -> None:
    """The check of every snippet part reports only what no page's render reported (that one names the page)."""
    body = 'Shared text with <Tipp>x</Tipp>.\n\n<Only scenario="infer-gpu-many">\nUnshown part.\n</Only>'
    project = make_project(
        tmp_path,
        {"docs/index.md": PAGE.format(body='## Why\n\n<Theory name="shared"/>'), **dict([snippet("shared", body)])},
    )
    result = build_in_process(project, project / "site")
    errors = [line for line in result.stderr.split("\n") if "<Tipp>" in line]
    assert errors == [
        "ERROR   -  docs/performance/_theory/shared.md:6:18: error: unknown component <Tipp> [unknown-component] "
        "(did you mean 'Tip'?)"
    ]
    assert "    included from docs/index.md:8" in result.stderr


def test_a_nav_entry_naming_no_page_is_one_error_not_also_a_broken_link_in_404(tmp_path: Path) -> None:
    """The theme's menu on 404.html links every nav entry; the entry's own error at its line of mkdocs.yml is the
    report (it was also 'site/404.html:...: broken link ... [missing-file]')."""
    files, _ = CASES["a nav entry that names a page not in the docs"]
    project = make_project(tmp_path, files)
    result = build_in_process(project, project / "site")
    errors = [line for line in result.stderr.split("\n") if line.startswith("ERROR")]
    assert [line for line in errors if "setpu" in line] == [
        "ERROR   -  mkdocs.yml:16:12: error: the nav names performance/setpu.md, which is not a page in the docs "
        "[nav-missing-page] (did you mean 'performance/setup.md'?)"
    ]
    assert "/performance/setpu.md" in (project / "site" / "404.html").read_text(encoding="utf-8")  # still linked
