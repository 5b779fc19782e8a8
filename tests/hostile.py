"""A site written by an attacker: every route to script or to the theme found against the build, one page a
family, with what the strict build must say about each, and a scan of everything the build writes for
anything a browser could run (tests/test_hostile_site.py; in Chromium, tests/browser/test_hostile.py)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from .conftest import ROOT
from .sitetools import minimal_config

NAV = ["index", "meta", "autoref", "theme", "divergent", "fence", "bounds", "nesting", "quotes", "fanout"]
CONFIG = minimal_config(
    "hostile",
    "site_url: https://example.org/\n"
    "plugins:\n  - search\n  - autorefs\n" + "nav:\n" + "".join(f"  - {page}.md\n" for page in NAV),
).replace(
    "  name: material\n",
    "  name: material\n"
    "  font: false  # no request to a font host: the browser test fails on any request off the site\n"
    "  features: [search.suggest, search.highlight, navigation.footer]\n",
)
SNIPPET = "---\ntitle: {name}\nhelps: [speed]\nsummary: s\n---\n{body}\n"
CONFIG_JSON = '{"base": ".", "features": [], "search": "data:text/javascript,alert(\'config\')"}'

PAGES = {
    # 1. front matter printed raw by the theme (head, header, nav, footer of the neighbours, search results)
    "index.md": (
        "---\n"
        "title: \"</title><script>alert('title')</script><img src=x onerror=alert('title img')>\"\n"
        'description: \'"><meta http-equiv="refresh" content="0;url=https://evil.example/">\'\n'
        "template: 404.html\n"
        "---\n# Home\n\nWelcome.\n"
    ),
    # front matter of the wrong kind crashed the build (a list as the title)
    "meta.md": "---\ntitle: [1, 2]\nhide: everything\n---\n# Listed title\n\ntext\n",
    # 2. markup re-created after the sanitiser: mkdocs-autorefs re-reads <autoref> attributes, entities decoded
    "autoref.md": (
        "# Autoref\n\n"
        "Text <!-- a --!> <autoref identifier=\"x&quot; onfocus=&quot;alert('autoref')&quot; autofocus "
        'x=&quot;" optional>t</autoref> --> more.\n\n'
        "<!-- b --!> <autoref identifier=\"y&quot; onmouseover=&quot;alert('autoref2')&quot; x=&quot;\" "
        "optional>u</autoref> -->\n"
    ),
    # 3. the theme's own ids, classes and data attributes
    "theme.md": (
        "# Theme\n\n"
        f'<div id="__config" hidden>{CONFIG_JSON}</div>\n\n'
        '<div class="md-dialog md-dialog--active">Your session expired: sign in again</div>\n\n'
        'Search <span data-md-component="search-query">here</span>.\n\n'
        "A paragraph\n{: #__search .md-overlay }\n"
    ),
    # 4. where markdown-it and Python-Markdown read HTML structure differently (a comment or a fence never
    # closed runs to the end of the page for markdown-it: each gets a page of its own)
    "divergent.md": (
        "# Divergent\n\n"
        "<?x <img src=x onerror=alert('pi')> ?>\n\n"
        "- <!DOCTYPE x <img src=y onerror=alert('doctype')>\n\n"
        "<!-- never closed <img src=z onerror=alert('comment')>\n\n"
        "Text after the comment.\n"
    ),
    "fence.md": "# Fence\n\n```py\nnever closed\n\n<img src=w onerror=alert('fence')>\n",
    # 5. input that stalled or crashed the build (lists nested past markdown-it's limit swallow the rest of their
    # page, so they get a page of their own)
    "bounds.md": (
        "# Bounds\n\n"
        + "<Tip>\n" * 500
        + "deep\n"
        + "</Tip>\n" * 500
        + "\nx "
        + "[" * 200_000
        + "\n\n$$\n"
        + "{" * 100_000
        + "}" * 100_000
        + "\n$$\n\nStill here.\n"
    ),
    "nesting.md": "# Nesting\n\n" + "\n".join("    " * i + "- x" for i in range(300)) + "\n",
    "quotes.md": "# Quotes\n\n" + "\n".join(">" * i + " x" for i in range(1, 1000)) + "\n",
    # 6. snippet fan-out: ten includes a level, five levels deep
    "fanout.md": '---\nscenario: infer-cpu\n---\n# Fan-out\n\n<Theory name="fan0"/>\n',
}
SNIPPETS = {
    **{f"fan{i}": "\n\n".join(f'<Theory name="fan{i + 1}"/>' for _ in range(10)) for i in range(5)},
    "fan5": "leaf",
}

# Each vector, as the strict build must report it: file:line:col, the message, the code.
EXPECTED = [
    "docs/index.md:2:1: error: front matter 'title' is plain text, but contains the HTML tag <script> "
    "[markup-in-metadata] (write the characters themselves; the site escapes them)",
    "docs/index.md:3:1: error: front matter 'description' is plain text, but contains the HTML tag <meta> "
    "[markup-in-metadata] (write the characters themselves; the site escapes them)",
    "docs/index.md:4:1: error: unknown front matter key 'template' [bad-front-matter] "
    "(allowed: title, description, scenario, hide, search, toc_depth)",
    "docs/meta.md:2:1: error: front matter 'title' must be a string, got list [bad-front-matter]",
    "docs/meta.md:3:1: error: front matter 'hide' must be a list of names, got str [bad-front-matter]",
    "docs/autoref.md:3:1: error: raw <autoref> is not allowed in pages (mkdocs-autorefs' placeholder; write "
    "[`Name`] for an API link) [forbidden-html]",
    "docs/autoref.md:5:1: error: raw <autoref> is not allowed in pages (mkdocs-autorefs' placeholder; write "
    "[`Name`] for an API link) [forbidden-html] (the HTML block is left out)",
    "docs/theme.md:3:6: error: id '__config' is reserved for the theme (its ids start with two underscores or "
    "'md-') [reserved-name] (removed from the page)",
    "docs/theme.md:5:6: error: class 'md-dialog' is reserved for the theme and the site's scripts [reserved-name] "
    "(removed from the page)",
    "docs/theme.md:7:14: error: attribute 'data-md-component' is reserved for the theme and the site's scripts "
    "[reserved-name] (removed from the page)",
    "docs/theme.md:10:5: error: id '__search' is reserved for the theme (its ids start with two underscores or "
    "'md-') [reserved-name] (removed from the page)",
    "docs/theme.md:10:15: error: class 'md-overlay' is reserved for the theme and the site's scripts "
    "[reserved-name] (removed from the page)",
    "docs/autoref.md:3:47: error: event handler attribute 'onfocus' is not allowed in pages [forbidden-html] "
    "(written by a plugin after the sanitiser; removed from the page)",
    "docs/autoref.md:3:84: error: attribute 'autofocus' is not allowed in pages [forbidden-html] "
    "(written by a plugin after the sanitiser; removed from the page)",
    "docs/divergent.md:3:1: error: processing instructions, declarations and CDATA (<?...>, <!...>, "
    "<![CDATA[...]]>) are not allowed in pages [forbidden-html] (write it as inline code (`<...>`) if it is meant "
    "literally)",
    "docs/divergent.md:5:3: error: processing instructions, declarations and CDATA (<?...>, <!...>, "
    "<![CDATA[...]]>) are not allowed in pages [forbidden-html] (write it as inline code (`<...>`) if it is meant "
    "literally)",
    "docs/divergent.md:7:1: error: <!-- opened here is never closed [unclosed-html] (end it with -->)",
    "docs/fence.md:3:1: error: code block opened with ``` is never closed [unclosed-fence] (end it with ```)",
    "docs/bounds.md:27:1: error: <Tip> is nested more than 24 components deep (the limit) [too-deep] "
    "(its tag is left out; its content is kept)",
    "docs/bounds.md:1005:1: error: this paragraph has 200,000 '[' (the limit is 1,000): Python-Markdown takes "
    "minutes [too-long] (it is left out; put long literal text in a code block)",
    "docs/bounds.md:1007:1: error: bad math: formula is 200,002 characters; the limit is 5,000 [bad-math]",
    "docs/nesting.md:11:1: error: lists and quotes are nested more than 8 deep here (the limit) [too-deep] "
    "(the whole list or quote is left out)",
    "docs/quotes.md:11:1: error: lists and quotes are nested more than 8 deep here (the limit) [too-deep] "
    "(the whole list or quote is left out)",
    "docs/performance/_theory/fan4.md:20:1: error: more than 300 snippet inclusions on one page (the limit); the "
    "rest are left out [include-limit] (include each snippet once, where the page needs it)",
    "docs/outside.md:1:1: error: links to {outside}, outside the project: it is not published [path-outside-root] "
    "(copy the file into the project instead of linking to it)",
]


def make_hostile_project(tmp: Path) -> Path:
    """The hostile site, with a page that is a symlink to a file outside the project."""
    project = tmp / "project"
    (project / "docs/performance/_theory").mkdir(parents=True)
    (project / "hooks").symlink_to(ROOT / "hooks", target_is_directory=True)
    (project / "mkdocs.yml").write_text(CONFIG, encoding="utf-8")
    (project / "redirects.yml").write_text("redirects:\n  old_home: index.md\n", encoding="utf-8")
    for name, text in PAGES.items():
        (project / "docs" / name).write_text(text, encoding="utf-8")
    for name, body in SNIPPETS.items():
        (project / f"docs/performance/_theory/{name}.md").write_text(SNIPPET.format(name=name, body=body))
    secret = tmp / "secret.md"
    secret.write_text("# Secret\n\nthe machine's private notes\n", encoding="utf-8")
    (project / "docs/outside.md").symlink_to(secret)
    return project


def expected(tmp: Path) -> list[str]:
    return [line.format(outside=(tmp / "secret.md").resolve()) for line in EXPECTED]


# -- what a browser could run ----------------------------------------------------------------------------------
URL_ATTRIBUTES = ("href", "src", "srcset", "cite", "poster", "action", "formaction", "data", "xlink:href")
THEME_SHARE_LINK = "javascript:void(0)"  # Material's "share search" button (overrides/partials/search.html)


def _scheme(value: str) -> str | None:
    from perfdocs.sanitize import url_scheme

    return url_scheme(value)


def executable(html: str, fragment: bool, where: str, theme: set[str]) -> list[str]:
    """Everything in ``html`` a browser could run or that could stand in for the theme: handlers, script URLs,
    scripts the theme does not write, frames, plugins, refreshes that leave the site, a second __config."""
    tree = LexborHTMLParser(html, is_fragment=fragment)
    root = tree.root
    found = []
    configs = 0
    for node in root.traverse(include_text=False) if root is not None else []:
        tag = (node.tag or "").lower()
        if node.attributes.get("id") == "__config":
            configs += 1
        found += _node_problems(node, tag, where)
    if configs > 1:
        found.append(f"{where}: {configs} elements with id __config")
    if not fragment:
        scripts = inline_scripts(html)
        if tree.css_first("title") is not None and (tree.css_first("title").text() or "").startswith("Moved:"):
            found += [f"{where}: {problem}" for script in scripts for problem in _redirect_script(script)]
        else:
            found += [f"{where}: inline script {text[:60]!r}" for text in sorted(scripts - theme)]
    return found


REDIRECT_SCRIPT = "(function(){var t="  # redirects.PAGE_TEMPLATE: t is the target, m the fragment remaps


def _redirect_script(script: str) -> list[str]:
    """What is wrong with a redirect page's script: it must be the template's, with URLs that stay on the site."""
    if not script.startswith(REDIRECT_SCRIPT):
        return [f"not the redirect script: {script[:60]!r}"]
    decoder = json.JSONDecoder()
    target, end = decoder.raw_decode(script, len(REDIRECT_SCRIPT))
    if not script.startswith(",m=", end):
        return [f"not the redirect script: {script[:60]!r}"]
    remaps, _ = decoder.raw_decode(script, end + 3)
    urls = [target, *remaps.values()] if isinstance(remaps, dict) else [target]
    return [f"redirect to {url!r}" for url in urls if not isinstance(url, str) or _scheme(url) or url.startswith("//")]


def _node_problems(node: LexborNode, tag: str, where: str) -> list[str]:
    found = []
    if tag == "script":
        src = node.attributes.get("src")
        if src is not None:
            if _scheme(src) or src.startswith("//"):
                found.append(f"{where}: <script src={src}>")
        elif node.attributes.get("type") == "application/json":
            config = json.loads(node.text() or "{}")
            worker = str(config.get("search", ""))
            if _scheme(worker) or worker.startswith("//"):
                found.append(f"{where}: search worker {worker}")
    elif tag in ("iframe", "frame", "object", "embed", "applet", "base", "portal", "set", "animate"):
        found.append(f"{where}: <{tag}>")
    elif tag == "meta" and (node.attributes.get("http-equiv") or "").lower() == "refresh":
        content = node.attributes.get("content") or ""
        target = content.partition("url=")[2].strip()
        if _scheme(target) or target.startswith("//"):
            found.append(f"{where}: refresh to {target}")
    for name, value in node.attributes.items():
        name = name.lower()
        if name.startswith("on") or name == "srcdoc":
            found.append(f"{where}: {tag} {name}={value}")
        elif name in URL_ATTRIBUTES and value and value != THEME_SHARE_LINK:
            scheme = _scheme(value)
            if scheme not in (None, "http", "https", "mailto"):
                found.append(f"{where}: {tag} {name}={value}")
    return found


def inline_scripts(html: str) -> set[str]:
    """A page's inline scripts (its __config aside), with the base path the theme writes into one replaced."""
    tree = LexborHTMLParser(html)
    config = tree.css_first("script#__config")
    base = json.loads(config.text() or "{}").get("base") if config is not None else None
    texts = {(s.text() or "").strip() for s in tree.css("script") if s.attributes.get("src") is None}
    if config is not None:
        texts.discard((config.text() or "").strip())
    scope = f"new URL({json.dumps(base)},location)"  # Material's __md_scope: the one place the base goes
    return {t.replace(scope, "new URL(BASE,location)") for t in texts} if base else texts


def theme_scripts(site: Path) -> set[str]:
    """The inline scripts the theme writes, as on the page with nothing hostile in its content (the same on
    every page but for the base path)."""
    return inline_scripts((site / "fanout/index.html").read_text(encoding="utf-8"))


def executable_anywhere(site: Path) -> list[str]:
    """Every file of the built site a browser or a Markdown viewer may render, scanned whole: each HTML page
    (head, header, nav, footer, content), the redirect pages, the search index's titles and texts, each page's
    Markdown and llms.txt (rendered as Markdown with HTML on), and the _redirects rules."""
    from markdown_it import MarkdownIt

    inline = theme_scripts(site)
    markdown = MarkdownIt("commonmark")
    found = []
    for path in sorted(site.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(site).as_posix()
        if path.suffix == ".html":
            found += executable(path.read_text(encoding="utf-8"), False, rel, inline)
        elif path.suffix == ".md" or path.name == "llms.txt":
            found += executable(markdown.render(path.read_text(encoding="utf-8")), True, rel, inline)
        elif rel.startswith("search/") and path.suffix == ".json":
            for doc in json.loads(path.read_text(encoding="utf-8")).get("docs", []):
                for key in ("title", "text"):
                    found += executable(doc.get(key, ""), True, f"{rel} {doc.get('location')} {key}", inline)
        elif path.name == "_redirects":
            found += _redirect_rules(path.read_text(encoding="utf-8"), rel)
    return found


def _redirect_rules(text: str, rel: str) -> list[str]:
    found = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line or line.startswith("#"):
            continue
        fields = line.split(" ")
        if len(fields) != 3 or fields[2] != "301" or any(not f or not f.isprintable() for f in fields):
            found.append(f"{rel}:{number}: not a 'from to 301' rule: {line!r}")
        elif urlsplit(fields[1]).netloc or not fields[0].startswith("/"):
            found.append(f"{rel}:{number}: leaves the site: {line!r}")
    return found
