"""``<Youtube id="..."/>``: a video, shown as a link until the reader asks to load it (perfdocs.embeds)."""

from __future__ import annotations

from ..document import Line, Node, Out, block_lines
from ..embeds import is_youtube_id, placeholder, youtube_address
from . import Component, Engine


class Youtube(Component):
    name = "Youtube"
    attributes = {"id": "req", "title": "str"}
    void = True

    def render(self, node: Node, lines: list[Line], engine: Engine) -> list[Out]:
        line = lines[node.line]
        offset = self.offset(node, line)
        self.refuse_content(node, lines, engine)
        video = node.attrs.get("id", ("str", ""))[1]
        if video and not is_youtube_id(video):
            engine.error(
                line,
                offset,
                f"<Youtube id=\"{video}\"> is not a YouTube video id (11 characters of letters, digits, '-' and '_')",
                "bad-attribute",
            )
            return []
        if not video:
            return []
        title = node.attrs.get("title", ("str", "YouTube video"))[1]
        return block_lines([Out(placeholder(youtube_address(video), title), line.src)], line.src)
