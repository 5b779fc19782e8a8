"""The inline constructs doc-builder renders and Python-Markdown would not, rewritten in place (through
``Conversion.edit``): API links (``[`Name`]``), math, relative links without an extension, and brackets Python-Markdown
would misread as reference links."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from urllib.parse import unquote, urlsplit

from . import markdown as md
from . import mathtex
from .apilinks import ApiLink, api_link, api_link_text, misread_brackets
from .apirefs import ApiIndex
from .diagnostics import closest
from .document import Conversion, Line, Out, Pos, Ready

PAGE_SUFFIXES = (".md", ".mdx")


class InlineRewrites:
    """The rewrites of one conversion; ``raw`` is a block's text, ``found`` its inline parse (``found.literal``:
    code spans, autolinks and escapes; ``found.opaque``: code spans and raw HTML), ``pos`` maps an offset of
    ``raw`` to (line index in ``lines``, column)."""

    def __init__(self, conv: Conversion):
        self.conv = conv

    def rewrite(self, raw: str, found: md.Inline, lines: list[Line], pos: Callable[[int], Pos]) -> None:
        spans = self.api_links(raw, found, lines, pos)
        self.inline_math(raw, found, lines, pos)
        self.literal_brackets(raw, found, spans, lines, pos)

    # -- API links ---------------------------------------------------------------------
    def api_links(
        self, raw: str, found: md.Inline, lines: list[Line], pos: Callable[[int], Pos]
    ) -> list[tuple[int, int]]:
        """``[`Name`]`` and ``[`~module.Name.method`]``: links to the API reference; the spans rewritten.

        doc-builder's form (``apirefs.api_link``): a one-backtick code span in brackets, not followed by ``(``
        (a link) or a label the page defines (a reference link). The link text is the name in code font
        (``~``: its last part; a function gets ``()``, as doc-builder writes it); it links through
        mkdocs-autorefs to the object's entry, is plain code when no page documents the object, when the
        code is not a name, or when the name is another library's, and is an error when it names nothing in
        the site's libraries."""
        api = self.conv.site.api if self.conv.site is not None else None
        if api is None:
            return []
        spans = []
        for start, end in found.literal:
            link = api_link(raw, start, end, self.conv.references)
            if link is None:
                continue
            (row, col), (row_end, col_end) = pos(start - 1), pos(end + 1)
            if row != row_end:
                continue
            line = lines[row]
            shown = f"`{link.code}`" if link.name is None else self.api_link(api, link, line, col + 1)
            self.conv.edit(line, col, col_end, shown)
            spans.append((start - 1, end + 1))
        return spans

    def api_link(self, api: ApiIndex, link: ApiLink, line: Line, col: int) -> str:
        """What ``[`name`]`` becomes; an error at ``col`` (its backtick) when no library has the object."""
        name = link.name or link.code
        called = link.code != name  # written with "()": shown with it, whatever the object is
        bare = name.removeprefix("~").partition("#")[0]
        found = api.resolve(bare)
        if found is None:
            if api.foreign(bare):
                return f"`{api_link_text(name, 'function' if called else 'unknown')}`"
            close = api.suggest(bare)
            self.conv.error(
                line,
                col,
                f"API link [`{link.code}`]: '{bare}' is not an object of {api.where()}",
                "unknown-api-name",
                f"did you mean '{close}'?" if close else "write it as `code` if it is not an API name",
            )
            return f"`{api_link_text(name, 'function' if called else 'unknown')}`"
        shown = api_link_text(name, "function" if called else found.kind)
        return f"[`{shown}`][{found.anchor}]" if found.anchor else f"`{shown}`"

    def literal_brackets(
        self, raw: str, found: md.Inline, spans: list[tuple[int, int]], lines: list[Line], pos: Callable[[int], Pos]
    ) -> None:
        """Escapes each ``[`` that Python-Markdown would read as a reference link the page does not define
        (``apirefs.misread_brackets``): CommonMark shows that text as written, mkdocs-autorefs would warn about
        it with no line. A cross-reference to an API entry (``[text][transformers.Trainer]``) stays one."""
        if "[" not in raw:
            return
        api = self.conv.site.api if self.conv.site is not None else None
        identifiers = api.public if api is not None else frozenset()
        skip = [*found.literal, *found.opaque, *spans]
        for offset in misread_brackets(raw, skip, self.conv.references, identifiers):
            row, col = pos(offset)
            line = lines[row]
            edits = self.conv.edits.get(line.src, {})
            at = line.col0 + col
            if any(a <= at < b for a, b in edits):
                continue  # inside text another rewrite replaced (math)
            self.conv.edit(line, col, col + 1, "\\[")

    # -- math --------------------------------------------------------------------------
    def inline_math(self, raw: str, found: md.Inline, lines: list[Line], pos: Callable[[int], Pos]) -> None:
        """``\\( ... \\)`` and ``$...$`` in text (and ``$$ ... $$`` that shares its paragraph with text):
        math, rendered at build time. A formula over several lines gives each of its lines a part of the
        HTML, so the paragraph stays one paragraph; one KaTeX cannot render stays as written, marked."""
        formulas = mathtex.find_formulas(raw, found)
        for formula in formulas:
            rendering = mathtex.render(raw[formula.start : formula.end], formula.tex, formula.display)
            (first, start), (last, end) = pos(formula.start), pos(formula.end)
            if rendering.error:
                self.conv.error(lines[first], start, f"bad math: {rendering.error}", "bad-math")
            for part, row in zip(rendering.lines, range(first, last + 1)):
                cut = (start if row == first else 0, end if row == last else len(lines[row].text))
                self.conv.edit(lines[row], *cut, part)
        for offset in mathtex.unclosed_display(raw, formulas, found):
            row, col = pos(offset)
            if not raw[offset + 2 :].strip() and mathtex.closes_earlier_display([line.text for line in lines[:row]]):
                continue  # the close of a formula a blank line cut: reported where it opened
            self.conv.error(
                lines[row],
                col,
                "display math opened with $$ is not closed in this paragraph",
                "bad-math",
                "close it with $$; a formula cannot contain a blank line",
            )

    def math_block(self, block: md.Block, lines: list[Line]) -> Ready | None:
        """A paragraph that is display math (``$$ ... $$``): the rendered math, else None."""
        region = lines[block.start : block.end]
        raw = "\n".join(line.text for line in region)
        if not raw.startswith("$$"):
            return None
        formulas = mathtex.find_formulas(raw, md.scan_inline(raw))
        if len(formulas) != 1 or formulas[0].start != 0 or raw[formulas[0].end :].strip():
            return None  # text shares the paragraph: inline_math renders the formula in it
        formula = formulas[0]
        rendering = mathtex.render(raw[: formula.end], formula.tex, True)
        if rendering.error:
            self.conv.error(region[0], 0, f"bad math: {rendering.error}", "bad-math")
        node = Ready("#math", {}, block.start, region[0].col0 + 1, (block.start, 0))
        node.rendered = [
            Out("", region[0].src),
            *(Out(part, line.src) for part, line in zip(rendering.lines, region)),
            Out("", region[-1].src),
        ]
        return node

    # -- links to pages ----------------------------------------------------------------
    def page_link(self, href: str, raw: str, offset: int, line: Line, col: int) -> str:
        """A relative link without an extension, resolved as doc-builder resolves it, and rewritten to the
        page's Markdown file so MkDocs, the link map and the checker agree; the href to record.

        doc-builder serves every page at a URL without a trailing slash (``.../perf_train_gpu_one``), so
        ``./trainer`` is the sibling page ``trainer.md`` and ``../usage_guides/fsdp#y`` the page
        ``usage_guides/fsdp.md`` one directory up from the page's own directory."""
        site = self.conv.site
        if site is None:
            return href
        parts = urlsplit(href)
        path = unquote(parts.path)
        if parts.scheme or parts.netloc or not path or path.startswith("/") or path.endswith("/"):
            return href
        if posixpath.splitext(posixpath.basename(path))[1]:
            return href  # a file name with its extension: MkDocs resolves it as written
        base = posixpath.dirname(site.page)
        target = posixpath.normpath(posixpath.join(base, path))
        candidates = [target + suffix for suffix in PAGE_SUFFIXES] + [f"{target}/index{s}" for s in PAGE_SUFFIXES]
        found = next((name for name in candidates if name in site.files), None)
        if found is None:
            self.missing_page(href, target, base, line, col)
            return href
        written = raw[offset:].split(None, 1)[0] if raw[offset:].strip() else ""
        dest = written.split(")", 1)[0] if not written.startswith("<") else ""
        if not dest or urlsplit(dest).path != parts.path:
            return href  # written in a form we do not rewrite in place (<...>, escapes): left to the checker
        new_path = posixpath.relpath(found, base or ".")
        new = new_path + (f"?{parts.query}" if parts.query else "") + (f"#{parts.fragment}" if parts.fragment else "")
        self.conv.edit(line, col, col + len(dest), new)
        return new

    def missing_page(self, href: str, target: str, base: str, line: Line, col: int) -> None:
        """Reports a link to a page the site does not have, with the page of the closest name."""
        assert self.conv.site is not None
        files = self.conv.site.files
        pages = sorted(f[: -len(sfx)] for f in files for sfx in PAGE_SUFFIXES if f.endswith(sfx))
        name = closest(posixpath.basename(target), sorted({posixpath.basename(p) for p in pages}))
        nearest = sorted(
            (posixpath.relpath(p, base or ".") for p in pages if posixpath.basename(p) == name),
            key=lambda rel: (rel.count("/"), rel),
        )
        shown = [f"./{rel}" if not rel.startswith(".") else rel for rel in nearest[:1]]
        self.conv.error(
            line,
            col,
            f"broken link '{href}': no page {target}.md",
            "missing-file",
            f"did you mean '{shown[0]}'?" if shown else None,
        )
