"""``redirects.yml``: validation, chain collapsing, redirect pages and a ``_redirects`` file.

Every old URL form a reader may hold (``/x``, ``/x/``, ``/x.html``, ``/x.md``, ``/x.mdx``) is
served by the same redirect page, whose script reads the fragment (which never reaches a server): an
``old#frag`` entry remaps it (matched as written, then in lower case: doc-builder's ids are lower case);
any other fragment is kept, and where the old page itself leads to a section (``old: page.md#id``), it
is kept only when the new page has that id, the reader landing on the section otherwise.

redirects.yml comes from contributors, mkdocs.yml from maintainers: the hosts an external target
may lead to are listed in mkdocs.yml (``extra.perfdocs.redirect_hosts``), and an external target
is read as a browser reads it (the WHATWG URL parser, ada): a target whose host is not plainly the
host it names, or that holds whitespace, a control character, a backslash or a user name, is
refused. What is written (redirect pages, ``_redirects``) comes from the parser's serialisation
and from paths checked here, never from the text as written.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import yaml
from ada_url import URL

from .diagnostics import Diagnostic, Location, did_you_mean

OLD_KEY_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]*")
FRAGMENT_RE = re.compile(r"[A-Za-z0-9_.:-]+")
SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # a URL scheme, as the WHATWG parser (and urlsplit) finds one
HOST_RE = re.compile(r"(?=.{1,253}\Z)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*")
SUFFIXES = (".mdx", ".md", ".html")
TOP_KEYS = {"redirects"}
HOSTS_SETTING = "extra.perfdocs.redirect_hosts"
MOVED_KEYS = {"allowed_external_hosts": f"allowed_external_hosts moved to mkdocs.yml: {HOSTS_SETTING}"}
NETLIFY_FILE = "_redirects"
# Characters no old path or target may hold: they end a `_redirects` field or line, hide what a reviewer reads, or
# are dropped by browsers in a URL (tab, CR, LF). Categories: controls, format characters (bidi, zero-width),
# lone surrogates, spaces, line and paragraph separators.
UNSAFE_CATEGORIES = {"Cc", "Cf", "Cs", "Zs", "Zl", "Zp"}
_CHAR_NAMES = {"\t": "a tab", "\n": "a line feed", "\r": "a carriage return", " ": "a space", "\x7f": "a DEL"}
_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


class UnsafeRedirectError(RuntimeError):
    """A value about to be written holds whitespace or a control character: validation let it through (a bug)."""


@dataclass(frozen=True)
class Target:
    page: str | None = None  # a docs-relative source path, e.g. performance/train/gpu_one.md
    anchor: str | None = None
    url: str | None = None  # an allowed external https URL, as the WHATWG parser serialises it

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

    def targets(self) -> list[Target]:
        """Every target an entry leads to: each old path's, then each old fragment's."""
        return [*self.pages.values()] + [t for remaps in self.anchors.values() for t in remaps.values()]

    def drop(self, old: str) -> None:
        """Leaves ``old`` out: no redirect page and no ``_redirects`` rule is written for it."""
        self.pages.pop(old, None)
        self.anchors.pop(old, None)
        self.live.discard(old)


@dataclass(frozen=True)
class RedirectHosts:
    """The hosts an external redirect target may lead to (extra.perfdocs.redirect_hosts of mkdocs.yml), as
    browsers write them (lower case, punycode), and what is wrong with the setting."""

    names: frozenset[str] = frozenset()
    problems: tuple[Diagnostic, ...] = ()


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


# -- characters ------------------------------------------------------------------------------------------------
def unsafe_char(text: str) -> str | None:
    """The first character of ``text`` that no redirect value may hold (see UNSAFE_CATEGORIES), if any."""
    return next((c for c in text if unicodedata.category(c) in UNSAFE_CATEGORIES), None)


def _char(c: str) -> str:
    """How a message names a character: 'a tab (U+0009)', 'U+200B (zero width space)'."""
    if c in _CHAR_NAMES:
        return f"{_CHAR_NAMES[c]} (U+{ord(c):04X})"
    name = unicodedata.name(c, "").lower() or ("a lone surrogate" if unicodedata.category(c) == "Cs" else "")
    return f"U+{ord(c):04X} ({name or 'a control character'})"


def shown(text: str) -> str:
    """``text`` for a one-line message: each character unsafe_char refuses written as an escape (\\t, \\x01)."""
    out = []
    for c in text:
        if unicodedata.category(c) not in UNSAFE_CATEGORIES or c == " ":
            out.append(c)
        elif c in _ESCAPES:
            out.append(_ESCAPES[c])
        else:
            out.append(f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")
    return "".join(out)


# -- hosts -----------------------------------------------------------------------------------------------------
def canonical_host(name: object) -> str | None:
    """``name`` as browsers write a host (lower case, punycode) when it is a plain host name, else None.

    A name in ASCII must already be that form up to case (no percent-escapes, no 0x7f.1 for 127.0.0.1)."""
    if not isinstance(name, str) or not name or unsafe_char(name) or any(c in name for c in "/\\@:?#[]%"):
        return None
    try:
        host = URL(f"https://{name}/").hostname
    except ValueError:
        return None
    if name.isascii() and host != name.lower():
        return None
    return host if HOST_RE.fullmatch(host) else None


def redirect_hosts(value: Any, config_file: Path | str | None = None, display: str = "mkdocs.yml") -> RedirectHosts:
    """extra.perfdocs.redirect_hosts as mkdocs.yml sets it (``value``; None when unset), checked; each problem
    at its line of ``config_file`` (shown as ``display``) when the file says where."""
    if value is None:
        return RedirectHosts()
    entries = value if isinstance(value, list | tuple) else None
    bad = [entry for entry in entries or () if canonical_host(entry) is None]
    if entries is not None and not bad:
        return RedirectHosts(frozenset(h for h in map(canonical_host, entries) if h))
    lines = setting_lines(config_file)
    if entries is None:
        message = f"{HOSTS_SETTING} must be a list of host names (got {shown(repr(value))})"
        problem = Diagnostic(Location(display, lines.get(None, 1)), message, "bad-redirects")
        return RedirectHosts(problems=(problem,))
    problems = tuple(
        Diagnostic(
            Location(display, lines.get(index, lines.get(None, 1))),
            f"{HOSTS_SETTING}: {shown(repr(entry))} is not a host name",
            "bad-redirects",
            hint="write the bare name, as in huggingface.co: no scheme, port, path or wildcard",
        )
        for index, entry in enumerate(entries)
        if canonical_host(entry) is None
    )
    return RedirectHosts(frozenset(h for h in map(canonical_host, entries) if h), problems)


def setting_lines(config_file: Path | str | None, setting: str = HOSTS_SETTING) -> dict[int | None, int]:
    """Lines of a list ``setting`` (dotted) in ``config_file``: None -> the key, i -> entry i; {} if not there."""
    if config_file is None:
        return {}
    try:
        root = yaml.compose(Path(config_file).read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return {}
    node: Any = root
    key: yaml.Node | None = None
    for name in setting.split("."):
        if not isinstance(node, yaml.MappingNode):
            return {}
        key, node = next(
            ((k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == name), (None, None)
        )
        if key is None:
            return {}
    assert key is not None
    lines: dict[int | None, int] = {None: _node_line(key)}
    if isinstance(node, yaml.SequenceNode):
        lines.update({i: _node_line(item) for i, item in enumerate(node.value)})
    return lines


# -- loading ---------------------------------------------------------------------------------------------------
def load_redirects(
    text: str | bytes,
    path: str,
    pages: set[str],
    hosts: RedirectHosts | Iterable[str] = (),
    renames: Mapping[str, str] | None = None,
) -> tuple[RedirectMap, list[Diagnostic]]:
    """Parses and validates redirects.yml against the set of live page source paths.

    ``hosts``: where external targets may lead (Project.redirect_hosts: mkdocs.yml's setting, with its problems,
    which are returned first); bytes are decoded here, so a file that is not UTF-8 is a located error too.
    ``renames``: the pages git saw renamed (docs path -> new path), the hint for a target that is gone."""
    if not isinstance(hosts, RedirectHosts):
        hosts = RedirectHosts(frozenset(canonical_host(h) or h.lower() for h in hosts))
    problems: list[Diagnostic] = list(hosts.problems)

    def error(line: int, message: str, code: str, hint: str | None = None) -> None:
        problems.append(Diagnostic(Location(path, line), message, code, hint=hint))

    root = _compose(text, error)
    rules_node = None if root is None else _rules_node(root, error)
    if rules_node is None:
        return RedirectMap(), problems
    raw = _raw_rules(rules_node, error)
    rmap = _redirect_map(raw, pages, hosts.names, error, renames)
    return rmap, list(dict.fromkeys(problems))  # a chain shares its root cause's diagnostic


def _compose(text: str | bytes, error: Callable[..., None]) -> yaml.Node | None:
    """The YAML node tree of redirects.yml (bytes decoded as UTF-8), or None when it is empty or unreadable."""
    if isinstance(text, bytes):
        data = text
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            error(line, f"not UTF-8 text ({exc.reason} at byte {exc.start})", "bad-encoding", "save the file as UTF-8")
            return None
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        error(mark.line + 1 if mark else 1, f"not valid YAML: {getattr(exc, 'problem', None) or exc}", "bad-redirects")
        return None
    except RecursionError:
        error(1, "not valid YAML here: nested too deeply", "bad-redirects")
        return None


def _rules_node(root: yaml.Node, error: Callable[..., None]) -> yaml.MappingNode | None:
    """The mapping under the top-level 'redirects' key, or None; reports the other top-level keys."""
    if not isinstance(root, yaml.MappingNode):
        error(_node_line(root), "redirects.yml must be a mapping with a 'redirects' key", "bad-redirects")
        return None
    rules_node: yaml.MappingNode | None = None
    for key, value in root.value:
        name = key.value if isinstance(key, yaml.ScalarNode) else None
        if name in MOVED_KEYS:
            error(_node_line(key), MOVED_KEYS[name], "bad-redirects", "only maintainers allow a host: ask one")
        elif name not in TOP_KEYS:
            error(
                _node_line(key),
                f"unknown key '{shown(name)}'" if name is not None else "a top-level key must be a name",
                "bad-redirects",
                (did_you_mean(name, TOP_KEYS) if name is not None else None)
                or f"allowed: {', '.join(sorted(TOP_KEYS))}",
            )
        elif isinstance(value, yaml.MappingNode):
            rules_node = value
        elif not (isinstance(value, yaml.ScalarNode) and value.tag.endswith(":null")):
            error(_node_line(value), "'redirects' must map old paths to targets", "bad-redirects")
    return rules_node


def _raw_rules(rules_node: yaml.MappingNode, error: Callable[..., None]) -> dict[str, tuple[str, int]]:
    """The well-formed entries: rule ("old" or "old#frag", normalised) -> (target as written, line)."""
    raw: dict[str, tuple[str, int]] = {}
    for key, value in rules_node.value:
        line = _node_line(key)
        if not isinstance(key, yaml.ScalarNode) or not isinstance(value, yaml.ScalarNode) or not value.value:
            error(line, "each redirect maps one old path to one target string", "bad-redirects")
            continue
        bad = unsafe_char(key.value)
        if bad:
            error(
                line,
                f"'{shown(key.value)}' contains {_char(bad)}; old paths hold no spaces or control characters",
                "bad-redirects",
            )
            continue
        old_path, _, frag = key.value.partition("#")
        old = normalise_old(old_path)
        if (old or frag or old_path != "index") and (
            not OLD_KEY_RE.fullmatch(old) or any(part in ("", ".", "..") for part in old.split("/"))
        ):
            error(line, f"'{key.value}' is not a site-relative path", "bad-redirects")
            continue
        if frag and not FRAGMENT_RE.fullmatch(frag):
            error(line, f"'#{frag}' is not a valid fragment", "bad-redirects")
            continue
        rule = f"{old}#{frag}" if frag else old
        if rule in raw:
            error(line, f"'{key.value}' is listed twice (first on line {raw[rule][1]})", "duplicate-redirect")
            continue
        raw[rule] = (value.value, line)
    return raw


def _redirect_map(
    raw: Mapping[str, tuple[str, int]],
    pages: set[str],
    hosts: frozenset[str],
    error: Callable[..., None],
    renames: Mapping[str, str] | None,
) -> RedirectMap:
    """The RedirectMap of the entries in ``raw`` that resolve and shadow no live page."""
    rmap = RedirectMap(lines={k: line for k, (_, line) in raw.items()})
    live_urls = {normalise_old(p) for p in pages}
    for rule, (_target, line) in raw.items():
        old = rule.partition("#")[0]
        if "#" in rule and old not in raw:
            error(line, f"anchor redirect '{rule}' needs a redirect for '{old}' itself", "bad-redirects")
            continue
        resolved = _resolve(rule, raw, pages, hosts, error, {} if renames is None else renames)
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
    return rmap


def _resolve(
    rule: str,
    raw: Mapping[str, tuple[str, int]],
    pages: set[str],
    hosts: frozenset[str],
    error: Callable[..., None],
    renames: Mapping[str, str],
) -> Target | None:
    """Follows ``rule`` through other entries to a live page or allowed URL (one hop in the output).

    A problem with a target is reported at the line of the entry that wrote it (which a chain shares)."""
    seen = [rule]
    target, line = raw[rule]
    carried_anchor: str | None = None
    while True:
        if not _plain_target(target, line, error):
            return None
        scheme = SCHEME_RE.match(target)
        if scheme:
            return _external(target, scheme.group()[:-1].lower(), hosts, line, error)
        path, _, written_anchor = target.partition("#")
        anchor = written_anchor or carried_anchor
        page = _page_for(path, pages)
        if page:
            return Target(page=page, anchor=anchor or None)
        old = normalise_old(path)
        nxt = f"{old}#{anchor}" if anchor and f"{old}#{anchor}" in raw else old
        if nxt not in raw:
            renamed = renames.get(path)
            suggestion = (
                f"did you mean '{renamed}'? git saw {path} renamed to it"
                if renamed in pages
                else did_you_mean(path, sorted(pages) + [k for k in raw if "#" not in k])
            )
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


def _plain_target(target: str, line: int, error: Callable[..., None]) -> bool:
    """Whether ``target`` holds nothing a browser reads differently from a reviewer; else reports why."""
    bad = unsafe_char(target)
    if bad:
        error(
            line,
            f"redirect target '{shown(target)}' contains {_char(bad)}; targets hold no spaces or control characters",
            "unsafe-target",
        )
        return False
    if "\\" in target:
        host = _browser_host(target)
        error(
            line,
            f"redirect target '{target}' contains a backslash, which browsers read as '/'",
            "unsafe-target",
            f"browsers go to {host}" if host else None,
        )
        return False
    if target.startswith("//"):
        host = _browser_host(target)
        error(
            line,
            f"redirect target '{target}' is a scheme-relative URL, which leaves the site"
            + (f" for {host}" if host else ""),
            "unsafe-target",
            "write an https:// URL, or a page under docs/",
        )
        return False
    return True


def _browser_host(target: str) -> str | None:
    """The host a browser goes to for ``target`` on an https page, if it goes to another one."""
    try:
        host = URL(target, "https://site.invalid/").hostname
    except ValueError:
        return None
    return host if host and host != "site.invalid" else None


def _written_host(target: str) -> tuple[str | None, bool]:
    """The host ``target`` names to a reader (urlsplit's, in the form canonical_host gives), and whether a
    user name or password comes before it; (None, False) when it names none."""
    try:
        parts = urlsplit(target)
        host = parts.hostname
    except ValueError:
        return None, False
    if not host:
        return None, "@" in parts.netloc
    canonical = host if host.isascii() else canonical_host(host)
    return canonical, "@" in parts.netloc


def _external(target: str, scheme: str, hosts: frozenset[str], line: int, error: Callable[..., None]) -> Target | None:
    if scheme != "https":
        error(
            line,
            f"redirect target '{target}' uses the {scheme}: scheme; only https:// URLs may leave the site",
            "unsafe-target",
        )
        return None
    try:
        url = URL(target)
    except ValueError:
        error(line, f"redirect target '{target}' is not a valid URL", "unsafe-target")
        return None
    host = url.hostname
    written, userinfo = _written_host(target)
    if userinfo or url.username or url.password:
        error(
            line,
            f"redirect target '{target}' has a user name or password before '@', which hides where it goes",
            "unsafe-target",
            f"browsers go to {host}",
        )
        return None
    if written != host:
        as_written = f"names the host {written}" if written else "names no host"
        error(
            line,
            f"redirect target '{target}' {as_written} as written, but browsers go to {host}",
            "unsafe-target",
            f"write it as {url.href}",
        )
        return None
    if host not in hosts:
        error(
            line,
            f"redirect target '{target}' leaves the site for {host}, which is not listed in {HOSTS_SETTING} "
            "(mkdocs.yml)",
            "unlisted-host",
        )
        return None
    return Target(url=url.href)


def _page_for(path: str, pages: set[str]) -> str | None:
    path = path.strip("/")
    if path in pages and path.endswith(".md"):
        return path
    return None


# -- what else the site holds ------------------------------------------------------------------------------------
def _parents(rel: str) -> list[str]:
    """The folders ``rel`` is written under: a/b/c.html -> ['a', 'a/b']."""
    parts = rel.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def site_file_clashes(rmap: RedirectMap, site_files: Iterable[str], path: str) -> list[Diagnostic]:
    """Entries a URL form of which would write over, or under, a file the build writes (``site_files``: pages,
    assets, theme files, the files the build generates, site-relative) or over an earlier entry's redirect page.

    Each is reported at its line of redirects.yml (``path``) and dropped from ``rmap``: nothing is written for it.
    """
    files = set(site_files)
    folders = {parent for rel in files for parent in _parents(rel)}
    claimed: dict[str, str] = {}  # redirect page -> the entry that writes it
    claimed_folders: dict[str, str] = {}  # folder of redirect pages -> the first entry that writes under it
    problems = []
    for old in sorted(rmap.pages, key=lambda o: (rmap.lines.get(o, 0), o)):
        clash = _clash(old, url_forms(old, old in rmap.live), files, folders, claimed, claimed_folders, rmap.lines)
        if clash:
            problems.append(Diagnostic(Location(path, rmap.lines.get(old, 1)), *clash))
            rmap.drop(old)
            continue
        for form in url_forms(old, old in rmap.live):
            claimed[form] = old
            for parent in _parents(form):
                claimed_folders.setdefault(parent, old)
    return problems


def _clash(
    old: str,
    forms: list[str],
    files: set[str],
    folders: set[str],
    claimed: Mapping[str, str],
    claimed_folders: Mapping[str, str],
    lines: Mapping[str, int],
) -> tuple[str, str] | None:
    """(message, code) for the first form of ``old`` that collides with a site file or another entry's page."""

    def other(entry: str) -> str:
        return f"the redirect page of '{entry}' (line {lines.get(entry, 1)})"

    for form in forms:
        parent = next((p for p in _parents(form) if p in files or p in claimed), None)
        if form in files:
            return f"redirect '{old}' would overwrite the site file {form}", "redirect-shadows-page"
        if parent in files:
            return (
                f"redirect '{old}' would turn the site file {parent} into a folder (for {form})",
                "redirect-shadows-page",
            )
        if form in folders:
            return f"redirect '{old}' would write {form} where the site has a folder", "redirect-shadows-page"
        if form in claimed:
            return f"redirect '{old}' would overwrite {form}, {other(claimed[form])}", "duplicate-redirect"
        if parent is not None:
            return (
                f"redirect '{old}' would turn {parent}, {other(claimed[parent])}, into a folder (for {form})",
                "duplicate-redirect",
            )
        if form in claimed_folders:
            return (
                f"redirect '{old}' would write {form} where {other(claimed_folders[form])} needs a folder",
                "duplicate-redirect",
            )
    return None


def write_redirect_pages(site: Path, pages: Mapping[str, str], rmap: RedirectMap, path: str) -> list[Diagnostic]:
    """Writes ``pages`` (redirect_pages) under ``site``; an entry a form of which meets a file already there that is
    not a redirect page (a plugin's, written after site_file_clashes looked) is left out whole (dropped from
    ``rmap``, so no ``_redirects`` rule either) and reported at its line of redirects.yml (``path``)."""
    owner = {form: old for old in rmap.pages for form in url_forms(old, old in rmap.live)}
    problems = []
    for rel in sorted(pages):
        old = owner.get(rel)
        if old is None or old not in rmap.pages:
            continue
        blocker = _blocker(site, rel)
        if blocker:
            problems.append(
                Diagnostic(
                    Location(path, rmap.lines.get(old, 1)),
                    f"redirect '{old}' would overwrite {blocker} in the built site",
                    "redirect-shadows-page",
                )
            )
            rmap.drop(old)
    for rel, content in pages.items():
        if owner.get(rel) in rmap.pages:
            dest = site / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(content, encoding="utf-8")
    return problems


def _blocker(site: Path, rel: str) -> str | None:
    """What in ``site`` keeps redirect page ``rel`` from being written: a file where a folder of it goes, a
    folder in its place, or a file there that is not a redirect page (one from an earlier build may go)."""
    for parent in _parents(rel):
        if (site / parent).exists() and not (site / parent).is_dir():
            return parent
    dest = site / rel
    if dest.is_dir():
        return rel + "/"
    if dest.exists() and not _is_redirect_page(dest):
        return rel
    return None


def _is_redirect_page(path: Path) -> bool:
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:400]
    except OSError:
        return False
    return "<title>Moved:" in head


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
<script>(function(){{var t={target},m={anchors},k={kept},
r=location.hash.slice(1),h=r,l;try{{h=decodeURIComponent(r)}}catch(e){{}}l=h.toLowerCase();
location.replace(m.hasOwnProperty(h)?m[h]:m.hasOwnProperty(l)?m[l]:t.indexOf("#")<0?t+(h?"#"+r:""):
h&&k.indexOf(h)>=0?t.slice(0,t.indexOf("#"))+"#"+r:t)}})()</script>
</head>
<body>
<p>This page has moved to <a href="{href}">{title}</a>.</p>
</body>
</html>
"""


def _js(value: object) -> str:
    return json.dumps(value, sort_keys=True).replace("</", "<\\/")


def _kept(target: Target, remapped: Mapping[str, Target], ids: Mapping[str, set[str]] | None) -> list[str]:
    """The fragments a redirect page to a section (``target`` has an anchor) keeps as they are: the target
    page's own ids, but the theme's (``__``: code lines, tabs, navigation) and those an entry remaps."""
    if not (target.page and target.anchor and ids):
        return []
    return sorted(
        i for i in ids.get(target.page, ()) if FRAGMENT_RE.fullmatch(i) and not i.startswith("__") and i not in remapped
    )


def redirect_pages(
    rmap: RedirectMap,
    page_url: Callable[[str], str],
    page_title: Callable[[str], str],
    ids: Mapping[str, set[str]] | None = None,
) -> dict[str, str]:
    """Redirect HTML for every URL form of every old path, keyed by site-relative file path.

    ``ids``: the ids of the pages that redirects lead to a section of (the build's page_ids); a fragment no
    entry remaps is kept on the way to such a section when the page has it. Without them, it is dropped."""
    files: dict[str, str] = {}
    for old, target in sorted(rmap.pages.items()):
        kept = _kept(target, rmap.anchors.get(old, {}), ids)
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
            for value in (dest, href, *anchors.values()):
                _checked(value)
            files[dest] = PAGE_TEMPLATE.format(
                title=html.escape(title),
                href=html.escape(href, quote=True),
                target=_js(href),
                anchors=_js(anchors),
                kept=_js(kept),
            )
    return files


def netlify_redirects(rmap: RedirectMap, page_url: Callable[[str], str], base_path: str = "/") -> str:
    """A ``_redirects`` file (one ``from to 301`` rule per URL form) for hosts that serve real 301s; each field
    is checked to be one field (UnsafeRedirectError otherwise: a bug in the validation)."""
    base = "/" + base_path.strip("/") + "/" if base_path.strip("/") else "/"
    base = quote(base, safe="/%!$&'()*+,;=:@~")  # a site_url path with a space stays one field
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
            lines.append(" ".join(_checked(value) for value in (f"{base}{form}", to, "301")))
    return "\n".join(lines) + "\n"


def _checked(value: str) -> str:
    """``value``, which goes into a written file as one field; never holds whitespace or a control character,
    since load_redirects refuses them (the last guard against a ``_redirects`` line made from a target)."""
    if not value or unsafe_char(value):
        raise UnsafeRedirectError(f"perfdocs internal error: unchecked redirect value {value!r}")
    return value
