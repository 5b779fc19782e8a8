"""Raw HTML in a page: what the sanitiser's allowlist refuses is reported at its line and removed from the text
(so neither the page nor its Markdown copy holds it), and its links and ids are recorded for the link check."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from . import markdown as md
from .document import Conversion, Line, Out, Pos, error_lines, line_starts, row_of
from .embeds import EmbedHosts
from .html import locate, parse_page
from .sanitize import CLEAN_CONTENT_TAGS, EMBED, REMOVED_HINT, REMOVED_HTML, set_attribute_findings, unsafe_constructs

# the hint of a construct removed from the text, by whether it is an element whose content is kept
_REMOVED = {False: REMOVED_HINT, True: "its tags are removed from the page, its content kept"}


class RawHtml:
    def __init__(self, conv: Conversion):
        self.conv = conv
        self.left_out: set[tuple[int, int]] = set()  # (src, col0) of the HTML blocks left out

    def block(self, lines: list[Line], start: int, end: int) -> None:
        """An HTML block: checked, its links and ids recorded; left out when what it refuses cannot be removed."""
        fragment = "\n".join(line.text for line in lines[start:end])
        for line in lines[start:end]:
            self.conv.record_markup(line, 0, len(line.text))
        if md.is_markup_declaration(fragment):
            self.declaration(lines[start], md.indent_of(fragment))
        if not self.check(lines, (start, 0), fragment, block=True):
            self.left_out.add((lines[start].src, lines[start].col0))
        self.record(lines, (start, 0), fragment)

    def is_left_out(self, region: list[Line]) -> bool:
        return (region[0].src, region[0].col0) in self.left_out

    def left_out_box(self, region: list[Line]) -> list[Out]:
        """The box shown where an HTML block was left out: what was refused in it."""
        first, last = self.conv.location(region[0]).line, self.conv.location(region[-1]).line
        messages = [
            f"{d.location}: {d.message}"
            for d in self.conv.diagnostics
            if d.code in REMOVED_HTML and first <= d.location.line <= last
        ]
        return error_lines("\n".join(dict.fromkeys(messages)), region[0].src)

    def declaration(self, line: Line, col: int) -> None:
        self.conv.error(
            line,
            col,
            "processing instructions, declarations and CDATA (<?...>, <!...>, <![CDATA[...]]>) are not allowed "
            "in pages",
            "forbidden-html",
            hint="write it as inline code (`<...>`) if it is meant literally",
        )

    def record(self, lines: list[Line], at: Pos, fragment: str) -> None:
        """The links and ids of a fragment, at their places."""
        page = parse_page(fragment)
        for anchor in sorted(page.ids):
            self.conv.ids[(anchor, self.conv.location(lines[at[0]], at[1]))] = None
        for url in page.urls:
            row, col = locate(fragment, url)
            self.conv.link(url, lines[at[0] + row - 1], col - 1 + (at[1] if row == 1 else 0))

    def reference_links(self, region: list[Line]) -> None:
        """The destinations of link reference definitions, recorded; what the allowlist refuses of one reported."""
        env: dict = {}
        md.MD.parse("\n".join(line.text for line in region), env)
        for ref in env.get("references", {}).values():
            href = str(ref.get("href", ""))
            line = next((x for x in region if href in x.text), region[0])
            self.conv.link(href, line, max(line.text.find(href), 0))
            self.set_attributes({"href": href}, line.text, line, 0)

    def set_attributes(self, attributes: Mapping[str, str], text: str, line: Line, col: int) -> None:
        """Reports what the allowlist refuses of ``attributes``, which Markdown sets from ``text`` (on ``line``, from
        column ``col``: an attribute list, a reference definition), each at its construct (set_attribute_findings)."""
        for finding in set_attribute_findings(attributes, text):
            self.conv.error(line, col + finding.offset, finding.message, finding.code, REMOVED_HINT)

    def check(self, lines: list[Line], at: Pos, fragment: str, block: bool = False) -> bool:
        """Reports what the allowlist refuses in a raw-HTML fragment and removes it from the page's text (an
        attribute, or an element's tags with its content kept), so neither the page nor its Markdown copy holds
        it. False when a construct could not be removed that way (an element holding another refused one, an
        attribute over three lines or more, text the start-tag reader cannot find): the caller leaves it out."""
        starts = line_starts(fragment)

        def place(offset: int) -> tuple[Line, int]:
            row = row_of(starts, offset)
            return lines[at[0] + row], offset - starts[row] + (at[1] if row == 0 else 0)

        removed = True
        site = self.conv.site
        for finding in unsafe_constructs(fragment, site.embeds if site else EmbedHosts()):
            if finding.construct == "markdown":
                continue  # md_in_html's switch: Python-Markdown consumes it, it never reaches the page
            element = finding.construct.startswith("<")
            # an attribute over three lines or more would leave a blank line inside its tag: not removed here
            removable = bool(finding.spans) and (element or fragment.count("\n", *finding.spans[0]) <= 1)
            if removable:  # its text goes; an iframe from an allowed host leaves its placeholder there
                for i, span in enumerate(finding.spans):
                    self.delete(place, starts, span, finding.replacement if i == 0 else "")
            if finding.code == EMBED:
                continue
            removed = removed and removable
            hint: str | None = "the HTML block is left out" if block else None
            if removable:
                hint = _REMOVED[element and finding.construct[1:] not in CLEAN_CONTENT_TAGS]
            line, col = place(finding.offset)
            self.conv.error(line, col, finding.message, finding.code, hint)
        return removed

    def delete(
        self, place: Callable[[int], tuple[Line, int]], starts: list[int], span: tuple[int, int], new: str
    ) -> None:
        """Replaces the text of a fragment between two offsets (``starts``: its line starts) with ``new``, each line
        of the span edited where it is rendered."""
        a, b = span
        while a < b:
            row = row_of(starts, a)
            row_end = starts[row + 1] - 1 if row + 1 < len(starts) else b
            line, col = place(a)
            end = min(b, row_end)
            self.conv.edit(line, col, col + end - a, new)
            new = ""
            a = row_end + 1
