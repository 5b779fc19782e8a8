"""Each page's Markdown, served beside its HTML for assistants, and the ``/llms.txt`` index of them.

Engineers paste documentation into assistants, and agents fetch it. What helps them is the text the
site renders from: the page after theory expansion and the dialect conversion (what MkDocs reads),
not the source with components no assistant knows. The files follow the llms.txt proposal
(llmstxt.org): a page's Markdown is at its URL with ``.md`` appended, ``index.html.md`` for a
directory URL, so ``performance/infer/cpu/`` has ``performance/infer/cpu/index.html.md``; that
name can never be one of the redirect forms (``x.html``, ``x/``, ``x.md/``, ``x.mdx/``).

The Markdown moves (from ``docs/performance/infer/cpu.md`` to ``.../cpu/index.html.md``), so each
relative link is rewritten for the new address: to the linked page's Markdown, or to the linked
file as the site serves it. Only links the dialect found (outside code) are touched, at the lines
it found them, and each is read with markdown-it's own link parsers.
"""

from __future__ import annotations

import html
import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote, urljoin, urlsplit

from markdown_it.helpers import parseLinkDestination, parseLinkLabel
from markdown_it.rules_inline.state_inline import StateInline

from .diagnostics import Diagnostic, Location, SourceMap
from .markdown import MD

LLMS_TXT = "llms.txt"


def markdown_url(page_url: str) -> str:
    """Where a page's Markdown is served, site-relative, for the page's URL as MkDocs writes it ('./': the home)."""
    page_url = page_url.removeprefix("./")
    if not page_url or page_url.endswith("/"):
        return page_url + "index.html.md"
    return page_url + ".md"


@dataclass(frozen=True)
class Destination:
    start: int  # offsets of the destination as written (without <>), in the text it was read from
    end: int
    href: str  # as markdown-it parsed it


def destinations(text: str) -> list[Destination]:
    """Inline links and images of ``text`` (read as inline Markdown), each with its destination's span."""
    tokens = MD.parseInline(text)
    found = []
    state = StateInline(text, MD, {}, [])
    for token in (t for top in tokens for t in (top.children or [])):
        if token.type not in ("link_open", "image") or token.markup == "autolink":
            continue
        start, end = token.meta.get("start"), token.meta.get("end")
        if start is None or end is None:
            continue
        bracket = start + 1 if token.type == "image" else start
        label_end = parseLinkLabel(state, bracket, token.type != "image") if text[bracket : bracket + 1] == "[" else -1
        pos = label_end + 1
        if label_end < 0 or text[pos : pos + 1] != "(":  # a reference link: its destination is elsewhere
            continue
        pos += 1
        while pos < end and text[pos] in " \t\n":
            pos += 1
        result = parseLinkDestination(text, pos, end)
        if not result.ok:
            continue
        href = str(token.attrGet("href") or token.attrGet("src") or "")
        if text[pos] == "<":
            found.append(Destination(pos + 1, result.pos - 1, href))
        else:
            found.append(Destination(pos, result.pos, href))
    return found


def retarget(href: str, page: str, here: str, served: Mapping[str, str]) -> str | None:
    """``href`` written on docs page ``page``, for a copy served in site directory ``here``; None to keep it.

    ``served`` maps docs paths to the site path that serves them to assistants (a page: its Markdown)."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path or parts.path.startswith("/"):
        return None
    target = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(parts.path)))
    if target not in served:
        return None
    new = quote(posixpath.relpath(served[target], here or "."), safe="/")
    return new + (f"?{parts.query}" if parts.query else "") + (f"#{parts.fragment}" if parts.fragment else "")


def page_markdown(
    text: str,
    source_map: SourceMap,
    links: Iterable[tuple[str, Location]],
    page: str,
    served: Mapping[str, str],
) -> str:
    """The Markdown of docs page ``page`` with its relative links rewritten for where it is served.

    ``links`` are the links the dialect found, where the source wrote them; ``source_map`` maps the lines of
    ``text`` to the source, so a link is only looked for on the lines that wrote it (never in code)."""
    wanted: dict[tuple[str, int], set[str]] = {}
    for href, where in links:
        wanted.setdefault((where.path, where.line), set()).add(href)
    here = posixpath.dirname(served[page])
    lines = text.split("\n")
    linked = {index: hrefs for index in range(len(lines)) if (hrefs := wanted.get(_origin(source_map, index)))}
    found = _destinations_by_line(lines, set(linked))
    for index, hrefs in linked.items():
        for d in sorted(found.get(index, ()), key=lambda d: d.start, reverse=True):
            new = retarget(d.href, page, here, served) if d.href in hrefs else None
            if new is not None:
                lines[index] = lines[index][: d.start] + new + lines[index][d.end :]
    return "\n".join(lines)


def _origin(source_map: SourceMap, index: int) -> tuple[str, int]:
    origin = source_map.at(index)
    return origin.path, origin.line


def _destinations_by_line(lines: list[str], wanted: set[int]) -> dict[int, list[Destination]]:
    """The link destinations of the ``wanted`` lines and of the lines around them (columns in each line), read a
    run of non-blank lines at a time: a link's text may start on an earlier line, and a code span over several
    lines holds no link. A destination never holds a line break. Runs without a wanted line are not read."""
    by_line: dict[int, list[Destination]] = {}
    first = 0
    while first < len(lines):
        if not lines[first].strip():
            first += 1
            continue
        last = first
        while last + 1 < len(lines) and lines[last + 1].strip():
            last += 1
        if not any(index in wanted for index in range(first, last + 1)):
            first = last + 1
            continue
        starts = [0]
        for line in lines[first:last]:
            starts.append(starts[-1] + len(line) + 1)
        at = 0
        for d in destinations("\n".join(lines[first : last + 1])):  # in document order
            while at + 1 < len(starts) and starts[at + 1] <= d.start:
                at += 1
            by_line.setdefault(first + at, []).append(Destination(d.start - starts[at], d.end - starts[at], d.href))
        first = last + 1
    return by_line


@dataclass(frozen=True)
class PageEntry:
    title: str
    url: str  # of the Markdown, as llms.txt links it
    description: str | None


def llms_txt(name: str, summary: str | None, sections: list[tuple[str, list[PageEntry]]]) -> str:
    """The /llms.txt index: H1 site name, a blockquote summary, one H2 per nav section listing its pages."""
    out = [f"# {_text(name)}", ""]
    if summary:
        out += [f"> {_text(summary)}", ""]
    out += [
        "Each link is one page of the guide as Markdown, with its shared explanations expanded in place. "
        "The same page as HTML is at the link's address without the final `.md`.",
        "",
    ]
    for title, entries in sections:
        out += [f"## {_text(title)}", ""]
        for entry in entries:
            item = f"- [{_link_text(entry.title)}]({entry.url})"
            out.append(item + (f": {_text(' '.join(entry.description.split()))}" if entry.description else ""))
        out.append("")
    return "\n".join(out)


def _text(text: str) -> str:
    """Text as Markdown shows it as written: no tag, entity or raw HTML (titles and descriptions are text)."""
    return html.escape(text, quote=False)


def _link_text(title: str) -> str:
    return _text(title).replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def write_files(
    site: Path,
    pages: Mapping[str, tuple[str, SourceMap, list[tuple[str, Location]]]],
    page_urls: Mapping[str, str],
    dest_of: Mapping[str, str],
    taken: set[str],
    config_path: str,
    copies: dict[str, tuple[tuple[str, str], str]] | None = None,
) -> tuple[dict[str, str], list[Diagnostic]]:
    """Writes each page's Markdown into ``site``; the site path written for each docs page, and the problems.

    ``pages``: docs path -> (Markdown, its source map, its links); ``taken``: site paths written by someone
    else (MkDocs' files, redirect pages), never overwritten. ``copies`` keeps each page's result by its Markdown
    and where it is served, for the next call with the same site's pages (an incremental rebuild)."""
    served = served_paths(page_urls, dest_of)
    written: dict[str, str] = {}
    problems = []
    for src, (text, source_map, links) in sorted(pages.items()):
        rel = served[src]
        if rel in taken:
            problems.append(
                Diagnostic(
                    Location(config_path, 1),
                    f"the Markdown of {src} would overwrite {rel} in the built site",
                    "assistant-file-clash",
                )
            )
            continue
        known = kept_copy(copies, src, text, rel)
        if known is not None:
            copy = known
        else:
            copy = page_markdown(text, source_map, links, src, served)
            if copies is not None:
                copies[src] = ((text, rel), copy)
        dest = site / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(copy, encoding="utf-8")
        written[src] = rel
    return written, problems


def kept_copy(copies: Mapping[str, tuple[tuple[str, str], str]] | None, src: str, text: str, rel: str) -> str | None:
    """The copy ``copies`` keeps of the page ``src`` (write_files), if it was made from ``text`` for ``rel``."""
    known = copies.get(src) if copies is not None else None
    return known[1] if known is not None and known[0] == (text, rel) else None


def served_paths(page_urls: Mapping[str, str], dest_of: Mapping[str, str]) -> dict[str, str]:
    """Docs path -> the site path that serves it to assistants: a page's Markdown copy, any other file itself."""
    return {**dest_of, **{src: markdown_url(url) for src, url in page_urls.items()}}


def write_llms_txt(
    site: Path,
    about: tuple[str, str | None, str | None],
    nav: Sequence[tuple[str, Sequence[tuple[str, str]]]],
    written: Mapping[str, str],
    titles: Mapping[str, str],
    descriptions: Mapping[str, str | None],
) -> None:
    """``site/llms.txt`` from the nav, as (section title, [(docs path, title)]): links absolute under the site's
    URL when there is one, else site-relative. ``about``: the site's name, description and URL. ``titles`` and
    ``descriptions`` are the pages' as text (the theme's copies are escaped)."""
    name, description, base = about
    sections = []
    for title, pages in nav:
        entries = [
            PageEntry(
                titles.get(src) or nav_title,
                urljoin(base, written[src]) if base else written[src],
                descriptions.get(src),
            )
            for src, nav_title in pages
            if src in written
        ]
        if entries:
            sections.append((title, entries))
    (site / LLMS_TXT).write_text(llms_txt(name, description, sections), encoding="utf-8")
