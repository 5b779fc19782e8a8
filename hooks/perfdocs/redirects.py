"""``redirects.yml``: validation, chain collapsing, redirect pages and a ``_redirects`` file.

Every old URL form a reader may hold (``/x``, ``/x/``, ``/x.html``, ``/x.md``, ``/x.mdx``) is
served; fragments are kept, or remapped by ``old#frag`` entries. Pure functions: the hook writes.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import yaml

from .diagnostics import Diagnostic, Location, did_you_mean

OLD_KEY_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./-]*$")
FRAGMENT_RE = re.compile(r"^[A-Za-z0-9_.:-]+$")
SUFFIXES = (".mdx", ".md", ".html")
TOP_KEYS = {"redirects", "allowed_external_hosts"}


@dataclass(frozen=True)
class Target:
    page: str | None = None  # a docs-relative source path, e.g. performance/train/gpu_one.md
    anchor: str | None = None
    url: str | None = None  # an allowed external https URL

    def describe(self) -> str:
        return self.url or f"{self.page}{'#' + self.anchor if self.anchor else ''}"


@dataclass
class RedirectMap:
    pages: dict[str, Target] = field(default_factory=dict)  # old path -> final target
    anchors: dict[str, dict[str, Target]] = field(default_factory=dict)  # old path -> {old fragment: target}
    lines: dict[str, int] = field(default_factory=dict)  # "old" or "old#frag" -> line in redirects.yml
    live: set[str] = field(default_factory=set)  # old paths whose directory URL is the target page itself

    def __bool__(self) -> bool:
        return bool(self.pages)


def normalise_old(path: str) -> str:
    """The canonical form of an old URL path: no slashes at the ends, no extension, no index."""
    path = path.strip().strip("/")
    for suffix in SUFFIXES:
        if path.endswith(suffix):
            path = path[: -len(suffix)]
            break
    if path == "index":
        return ""
    return path.removesuffix("/index")


def url_forms(old: str, live: bool = False) -> list[str]:
    """The site-relative files that answer every form of ``old`` ("" is the site root).

    ``live``: the directory URL of ``old`` is a live page, so only the other forms are written.
    """
    if not old:  # the old landing page: /, /index, /index/, /index.html, /index.md, /index.mdx
        forms = ["index/index.html", "index.md/index.html", "index.mdx/index.html"]
        return forms if live else ["index.html", *forms]
    forms = [f"{old}.html", f"{old}.md/index.html", f"{old}.mdx/index.html"]
    return forms if live else [f"{old}/index.html", *forms]


def _node_line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def load_redirects(text: str, path: str, pages: set[str]) -> tuple[RedirectMap, list[Diagnostic]]:
    """Parses and validates redirects.yml against the set of live page source paths."""
    problems: list[Diagnostic] = []

    def error(line: int, message: str, code: str, hint: str | None = None) -> None:
        problems.append(Diagnostic(Location(path, line), message, code, hint=hint))

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        error(mark.line + 1 if mark else 1, f"not valid YAML: {getattr(exc, 'problem', None) or exc}", "bad-redirects")
        return RedirectMap(), problems
    if root is None:
        return RedirectMap(), problems
    if not isinstance(root, yaml.MappingNode):
        error(_node_line(root), "redirects.yml must be a mapping with a 'redirects' key", "bad-redirects")
        return RedirectMap(), problems
    rules_node: yaml.MappingNode | None = None
    hosts: set[str] = set()
    for key, value in root.value:
        if key.value not in TOP_KEYS:
            error(
                _node_line(key),
                f"unknown key '{key.value}'",
                "bad-redirects",
                did_you_mean(key.value, TOP_KEYS) or f"allowed: {', '.join(sorted(TOP_KEYS))}",
            )
        elif key.value == "redirects":
            if isinstance(value, yaml.MappingNode):
                rules_node = value
            elif not (isinstance(value, yaml.ScalarNode) and value.tag.endswith(":null")):
                error(_node_line(value), "'redirects' must map old paths to targets", "bad-redirects")
        elif isinstance(value, yaml.SequenceNode) and all(isinstance(v, yaml.ScalarNode) for v in value.value):
            hosts = {v.value.lower() for v in value.value}
        else:
            error(_node_line(value), "'allowed_external_hosts' must be a list of host names", "bad-redirects")
    if rules_node is None:
        return RedirectMap(), problems

    raw: dict[str, tuple[str, int]] = {}
    for key, value in rules_node.value:
        line = _node_line(key)
        if not isinstance(key, yaml.ScalarNode) or not isinstance(value, yaml.ScalarNode) or not value.value:
            error(line, "each redirect maps one old path to one target string", "bad-redirects")
            continue
        old_path, _, frag = key.value.partition("#")
        old = normalise_old(old_path)
        if (old or frag or old_path.strip() != "index") and (not OLD_KEY_RE.match(old) or ".." in old.split("/")):
            error(line, f"'{key.value}' is not a site-relative path", "bad-redirects")
            continue
        if frag and not FRAGMENT_RE.match(frag):
            error(line, f"'#{frag}' is not a valid fragment", "bad-redirects")
            continue
        rule = f"{old}#{frag}" if frag else old
        if rule in raw:
            error(line, f"'{key.value}' is listed twice (first on line {raw[rule][1]})", "duplicate-redirect")
            continue
        raw[rule] = (value.value.strip(), line)

    rmap = RedirectMap(lines={k: line for k, (_, line) in raw.items()})
    live_urls = {normalise_old(p) for p in pages}
    for rule, (_target, line) in raw.items():
        old = rule.partition("#")[0]
        if "#" in rule and old not in raw:
            error(line, f"anchor redirect '{rule}' needs a redirect for '{old}' itself", "bad-redirects")
            continue
        resolved = _resolve(rule, raw, pages, hosts, error)
        if resolved is None:
            continue
        if "#" in rule:
            rmap.anchors.setdefault(old, {})[rule.partition("#")[2]] = resolved
            continue
        if old in live_urls:
            if resolved.page is None or normalise_old(resolved.page) != old:
                error(
                    line,
                    f"'{old}' is a live page; a redirect to {resolved.describe()} would shadow it",
                    "redirect-shadows-page",
                    "remove this entry or rename the page",
                )
                continue
            rmap.live.add(old)
        rmap.pages[old] = resolved
    for old in list(rmap.anchors):
        if old not in rmap.pages:
            del rmap.anchors[old]
    return rmap, list(dict.fromkeys(problems))  # a chain shares its root cause's diagnostic


def _resolve(
    rule: str, raw: Mapping[str, tuple[str, int]], pages: set[str], hosts: set[str], error: Callable[..., None]
) -> Target | None:
    """Follows ``rule`` through other entries to a live page or allowed URL (one hop in the output)."""
    seen = [rule]
    target, line = raw[rule]
    carried_anchor: str | None = None
    while True:
        scheme = urlsplit(target).scheme.lower()
        if scheme:
            return _external(target, scheme, hosts, raw[rule][1], error)
        path, _, written_anchor = target.partition("#")
        anchor = written_anchor or carried_anchor
        page = _page_for(path, pages)
        if page:
            return Target(page=page, anchor=anchor or None)
        old = normalise_old(path)
        nxt = f"{old}#{anchor}" if anchor and f"{old}#{anchor}" in raw else old
        if nxt not in raw:
            suggestion = did_you_mean(path, sorted(pages) + [k for k in raw if "#" not in k])
            error(
                raw[seen[-1]][1],
                f"redirect target '{target}' is neither a page under docs/ nor another redirect",
                "missing-target",
                suggestion,
            )
            return None
        if nxt in seen:
            cycle = seen[seen.index(nxt) :]
            start = cycle.index(min(cycle, key=lambda k: raw[k][1]))
            cycle = cycle[start:] + cycle[:start]
            error(raw[cycle[0]][1], f"redirect loop: {' -> '.join([*cycle, cycle[0]])}", "redirect-loop")
            return None
        seen.append(nxt)
        carried_anchor = anchor or None if nxt == old else None
        target, line = raw[nxt]


def _page_for(path: str, pages: set[str]) -> str | None:
    path = path.strip("/")
    if path in pages and path.endswith(".md"):
        return path
    return None


def _external(target: str, scheme: str, hosts: set[str], line: int, error: Callable[..., None]) -> Target | None:
    if scheme != "https":
        error(
            line,
            f"redirect target '{target}' uses the {scheme}: scheme; only https:// URLs may leave the site",
            "unsafe-target",
        )
        return None
    host = (urlsplit(target).hostname or "").lower()
    if host not in hosts:
        error(
            line,
            f"redirect target '{target}' leaves the site for {host}, which is not in allowed_external_hosts",
            "unlisted-host",
        )
        return None
    return Target(url=target)


def missing_anchor_problems(rmap: RedirectMap, ids: Mapping[str, set[str]], path: str) -> list[Diagnostic]:
    """Targets whose #anchor is not an id in the target page's final HTML."""
    problems = []
    for old, targets in [(o, {"": t}) for o, t in rmap.pages.items()] + list(rmap.anchors.items()):
        for frag, target in targets.items():
            if target.page and target.anchor and target.anchor not in ids.get(target.page, set()):
                rule = f"{old}#{frag}" if frag else old
                problems.append(
                    Diagnostic(
                        Location(path, rmap.lines.get(rule, 1)),
                        f"redirect target '{target.describe()}' has no id '{target.anchor}'",
                        "missing-anchor",
                        hint=did_you_mean(target.anchor, ids.get(target.page, set())),
                    )
                )
    return problems


def relative_url(from_file: str, to_url: str) -> str:
    """The link from site-relative file ``from_file`` to site-relative URL ``to_url``."""
    path, _, frag = to_url.partition("#")
    start = posixpath.dirname(from_file) or "."
    rel = posixpath.relpath(path or ".", start)
    if path.endswith("/") or not path:
        rel = rel.rstrip("/") + "/" if rel != "." else "./"
    return rel + (f"#{frag}" if frag else "")


def _target_url(target: Target, page_url: Callable[[str], str]) -> str:
    if target.url:
        return target.url
    assert target.page is not None
    return page_url(target.page) + (f"#{target.anchor}" if target.anchor else "")


PAGE_TEMPLATE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Moved: {title}</title>
<meta name="robots" content="noindex">
<link rel="canonical" href="{href}">
<meta http-equiv="refresh" content="0; url={href}">
<script>(function(){{var t={target},m={anchors},h=location.hash.slice(1);try{{h=decodeURIComponent(h)}}catch(e){{}}
location.replace(m.hasOwnProperty(h)?m[h]:t+(h&&t.indexOf("#")<0?"#"+location.hash.slice(1):""))}})()</script>
</head>
<body>
<p>This page has moved to <a href="{href}">{title}</a>.</p>
</body>
</html>
"""


def _js(value: object) -> str:
    return json.dumps(value, sort_keys=True).replace("</", "<\\/")


def redirect_pages(
    rmap: RedirectMap, page_url: Callable[[str], str], page_title: Callable[[str], str]
) -> dict[str, str]:
    """Redirect HTML for every URL form of every old path, keyed by site-relative file path."""
    files: dict[str, str] = {}
    for old, target in sorted(rmap.pages.items()):
        for dest in url_forms(old, old in rmap.live):
            if target.url:
                href = target.url
            else:
                href = relative_url(dest, _target_url(target, page_url))
            anchors = {
                frag: (t.url or relative_url(dest, _target_url(t, page_url)))
                for frag, t in sorted(rmap.anchors.get(old, {}).items())
            }
            title = target.url or page_title(target.page or "")
            files[dest] = PAGE_TEMPLATE.format(
                title=html.escape(title), href=html.escape(href, quote=True), target=_js(href), anchors=_js(anchors)
            )
    return files


def netlify_redirects(rmap: RedirectMap, page_url: Callable[[str], str], base_path: str = "/") -> str:
    """A ``_redirects`` file (one ``from to 301`` rule per URL form) for hosts that serve real 301s."""
    base = "/" + base_path.strip("/") + "/" if base_path.strip("/") else "/"
    lines = ["# Generated from redirects.yml by perfdocs. Fragment remaps need the HTML redirect pages."]
    for old, target in sorted(rmap.pages.items()):
        to = target.url or base + _target_url(target, page_url)
        if not old:
            forms: tuple[str, ...] = ("index", "index/", "index.md", "index.mdx")
            forms = forms if old in rmap.live else ("", "index.html", *forms)
        elif old in rmap.live:
            forms = (f"{old}.html", f"{old}.md", f"{old}.mdx")
        else:
            forms = (old, f"{old}/", f"{old}.html", f"{old}.md", f"{old}.mdx", f"{old}/index.html")
        for form in forms:
            lines.append(f"{base}{form} {to} 301")
    return "\n".join(lines) + "\n"
