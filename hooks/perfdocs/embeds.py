"""Embedded players and demos (doc-builder pages write ``<iframe>`` for Spaces demos and videos, and
``<Youtube id=.../>``), shown as a placeholder that loads nothing from another host until the reader asks.

Which hosts may be embedded is the maintainers' decision: ``extra.perfdocs.embed_hosts`` in mkdocs.yml, a
list of host names, ``*.hf.space`` for every host under one domain. A page's iframe from another host, or
not over https, is refused where the page writes it (sanitize.py), its fallback text kept.

The placeholder is a ``div.perfdocs-embed`` with the embed's address in ``data-perfdocs-embed``: names an
author's raw HTML may not use (sanitize.AUTHOR_RESERVED_*), so the only ones on a page are the dialect's.
It says what it would load and from where, with a link to the address that works without JavaScript;
``docs/assets/layout.js`` puts the iframe in its place when the reader clicks it.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ada_url import URL

from .diagnostics import Diagnostic, Location
from .redirects import canonical_host, setting_lines, shown

EMBED_CLASS = "perfdocs-embed"
SETTING = "extra.perfdocs.embed_hosts"
YOUTUBE = "www.youtube-nocookie.com"
# youtube.com's player sets cookies before the reader plays anything; its privacy-enhanced host does not
YOUTUBE_HOSTS = frozenset({"www.youtube.com", "youtube.com", "m.youtube.com", YOUTUBE})
YOUTUBE_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


@dataclass(frozen=True)
class EmbedHosts:
    """The hosts iframes may load from (extra.perfdocs.embed_hosts), and what is wrong with the setting."""

    names: frozenset[str] = frozenset()
    domains: frozenset[str] = frozenset()  # '*.hf.space' -> 'hf.space': any host under it
    problems: tuple[Diagnostic, ...] = ()

    def allows(self, host: str) -> bool:
        return host in self.names or any(host.endswith("." + domain) for domain in self.domains)

    def describe(self) -> str:
        listed = sorted(self.names) + sorted(f"*.{d}" for d in self.domains)
        return ", ".join(listed) or "none"


def embed_hosts(value: Any, config_file: Path | str | None = None, display: str = "mkdocs.yml") -> EmbedHosts:
    """extra.perfdocs.embed_hosts as mkdocs.yml sets it (``value``; None when unset: nothing may be embedded),
    checked; each problem at its line of ``config_file`` (shown as ``display``) when the file says where."""
    if value is None:
        return EmbedHosts()
    lines = setting_lines(config_file, SETTING) if config_file is not None else {}
    if not isinstance(value, list | tuple):
        message = f"{SETTING} must be a list of host names (got {shown(repr(value))})"
        return EmbedHosts(problems=(Diagnostic(Location(display, lines.get(None, 1)), message, "bad-config"),))
    names: set[str] = set()
    domains: set[str] = set()
    problems: list[Diagnostic] = []
    for index, entry in enumerate(value):
        wildcard = isinstance(entry, str) and entry.startswith("*.")
        host = canonical_host(entry[2:] if wildcard else entry)
        if host is None:
            problems.append(
                Diagnostic(
                    Location(display, lines.get(index, lines.get(None, 1))),
                    f"{SETTING}: {shown(repr(entry))} is not a host name",
                    "bad-config",
                    hint="write the bare name, as in huggingface.co, or *.hf.space for every host under a domain",
                )
            )
        else:
            (domains if wildcard else names).add(host)
    return EmbedHosts(frozenset(names), frozenset(domains), tuple(problems))


def embed_address(src: str, hosts: EmbedHosts) -> tuple[str | None, str]:
    """The address an iframe's ``src`` is embedded from (YouTube: its privacy-enhanced host), or None and why not."""
    try:
        url = URL(src.strip())
    except ValueError:
        return None, f"'{shown(src)}' is not a URL"
    host = url.hostname
    if url.protocol != "https:":
        return None, f"'{shown(src)}' is not an https:// address"
    if url.username or url.password or url.port:
        return None, f"'{shown(src)}' names a user or a port"
    if not hosts.allows(host):
        return None, f"{host} is not a host pages may embed from ({SETTING}: {hosts.describe()})"
    if host in YOUTUBE_HOSTS:
        url.host = YOUTUBE
    return url.href, ""


def placeholder(address: str, title: str) -> str:
    """What a page shows for an embed: one line of HTML that loads nothing (see the module's docstring)."""
    host = URL(address).hostname
    what = html.escape(title.strip() or f"Embedded content from {host}")
    link, named = html.escape(address, quote=True), html.escape(title, quote=True)
    return (
        f'<div class="{EMBED_CLASS}" data-perfdocs-embed="{link}" data-perfdocs-title="{named}">'
        f"<p><strong>{what}</strong><br>Embedded from <code>{html.escape(host)}</code>: nothing is loaded from there "
        f'until you ask. <a class="{EMBED_CLASS}-load" href="{link}">Load it here</a></p></div>'
    )


def is_youtube_id(video_id: str) -> bool:
    return len(video_id) == 11 and all(c in YOUTUBE_ID_CHARS for c in video_id)


def youtube_address(video_id: str) -> str:
    """The privacy-enhanced player of a video (``<Youtube id=.../>``), for a valid id (is_youtube_id)."""
    return f"https://{YOUTUBE}/embed/{video_id}"
