"""``<literalinclude>{"path": ..., "language": ..., "start-after": ..., "end-before": ..., "dedent": ...}
</literalinclude>``: a file of the repository (or the part of it between two markers), shown as code."""

from __future__ import annotations

import json
import re

from ..diagnostics import did_you_mean
from ..document import Line, Node, Out, block_lines
from . import Component, Engine

KEYS = {"path", "language", "start-after", "end-before", "dedent"}
LANGUAGE_RE = re.compile(r"[\w+#.-]*")


class LiteralInclude(Component):
    name = "literalinclude"

    def render(self, node: Node, lines: list[Line], engine: Engine) -> list[Out]:
        line = lines[node.line]
        raw = "\n".join(b.text for b in engine.body(node, lines))
        code = self.read(raw, line, self.offset(node, line), engine)
        if code is None:
            return []
        body, language = code
        longest = max((len(run) for run in re.findall(r"`{3,}", body)), default=2)
        fence = "`" * max(3, longest + 1)
        code_lines = [f"{fence}{language}", *body.split("\n"), fence]
        return block_lines([Out(text, line.src, True) for text in code_lines], line.src)

    @staticmethod
    def read(raw: str, line: Line, col: int, engine: Engine) -> tuple[str, str] | None:
        """The included text and its language, from the tag's JSON body; None (reported) when it cannot be read."""

        def fail(message: str, code: str = "bad-literalinclude", hint: str | None = None) -> None:
            engine.error(line, col, message, code, hint)

        try:
            spec = json.loads(raw)
        except json.JSONDecodeError as exc:
            fail(f"<literalinclude> body is not JSON: {exc.msg}")
            return None
        if not isinstance(spec, dict):
            fail("<literalinclude> body must be a JSON object")
            return None
        unknown = sorted(set(spec) - KEYS)
        if unknown:
            fail(
                f"<literalinclude> has unknown key '{unknown[0]}'",
                hint=did_you_mean(unknown[0], KEYS) or f"allowed: {', '.join(sorted(KEYS))}",
            )
            return None
        path = spec.get("path")
        dedent = spec.get("dedent", 0)
        if not isinstance(path, str) or not path:
            fail('<literalinclude> needs a "path"')
            return None
        if not isinstance(dedent, int) or isinstance(dedent, bool) or dedent < 0:
            fail('<literalinclude> "dedent" must be a non-negative integer')
            return None
        if engine.root is None:
            fail("<literalinclude> needs a repository root")
            return None
        root = engine.root.resolve()
        target = (root / engine.location(line).path).parent / path
        try:
            resolved = target.resolve()
        except OSError as exc:
            fail(f"<literalinclude> cannot resolve {path!r}: {exc}")
            return None
        if not resolved.is_relative_to(root):
            fail(f"<literalinclude> path {path!r} points outside the repository", "path-outside-root")
            return None
        if not resolved.is_file():
            fail(
                f"<literalinclude> file {path!r} not found (looked for {resolved.relative_to(root).as_posix()})",
                "missing-file",
            )
            return None
        try:
            text_lines = resolved.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            fail(f"<literalinclude> cannot read {path!r}: {exc}")
            return None
        for key in ("start-after", "end-before"):
            marker = spec.get(key)
            if marker is None:
                continue
            hits = [i for i, text in enumerate(text_lines) if isinstance(marker, str) and marker in text]
            if not hits:
                fail(f"<literalinclude> marker {key}={marker!r} not found in {path}", "missing-marker")
                return None
            text_lines = text_lines[hits[0] + 1 :] if key == "start-after" else text_lines[: hits[0]]
        if dedent:
            text_lines = [t[dedent:] if not t[:dedent].strip() else t.lstrip() for t in text_lines]
        language = spec.get("language", "")
        if not isinstance(language, str) or not LANGUAGE_RE.fullmatch(language):
            fail('<literalinclude> "language" must be a plain language name')
            language = ""
        return "\n".join(text_lines), language
