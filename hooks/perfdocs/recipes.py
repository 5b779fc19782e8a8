"""The guide's code blocks and their recipe markers, read with markdown-it-py: the one parser of the convention.

The recipe tests (``tests/recipes/``), ``bench/recipes_gpu.py`` and the "Tested with" badge (``badges.py``, which
says per page what runs where) all read blocks through this module.

A marker is an HTML comment on the line directly above a block's opening fence:

- no marker: the block runs on CPU in CI (the default);
- ``<!-- recipe: gpu: <reason> -->``: needs a GPU; bench/recipes_gpu.py runs it, the test suite defers it;
- ``<!-- recipe: fragment -->``: a line or two inside prose; it must compile and its names must resolve;
- ``<!-- recipe: script: tests/test_x.py -->``: a program with its own entry point and command line (it runs
  against a server, with arguments); it must compile and its names must resolve here, and the named test, which
  must exist and name the page, runs it;
- ``<!-- recipe: continues -->``: runs after the previous Python block of the same file, in its namespace
  (a setup block, then one block per tab: each tab continues from the setup, not from the other tabs);
  ``<!-- recipe: continues, gpu: <reason> -->`` continues and needs a GPU;
- ``<!-- recipe: separate-env: <reason> -->``: needs packages that cannot be installed beside the pinned
  ``recipes`` extra (they pin another Transformers, or build a C++ project); it must compile and its names
  must resolve, and the suite reports it deferred with the reason, never passed.

Blocks are found with the dialect's CommonMark parser (perfdocs.markdown), which reads a component tag
on a line of its own as a block of its own, so fences inside tabs, tips and list items come with their
real line numbers. Nothing here imports torch.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .diagnostics import Diagnostic, Location
from .markdown import parse
from .text import parse_heading, split_front_matter

KINDS = ("run", "gpu", "fragment", "script", "continues", "separate-env")
WITH_REASON = ("gpu", "script", "separate-env")
PYTHON = frozenset({"python", "py"})
SHELL = frozenset({"bash", "sh", "shell", "console"})
CONFIG = frozenset({"json", "yaml", "yml"})
MARKER_PREFIX = "<!-- recipe:"
MARKERS_HELP = "README, 'Recipes: every code block runs'"


@dataclass(frozen=True)
class Block:
    """One fenced code block: where it is, its language, its recipe kind and its code."""

    path: str  # relative to docs/performance, e.g. "train/gpu_one.md"
    line: int  # 1-based line of the opening fence
    lang: str
    kind: str
    reason: str  # why it needs a GPU ("gpu", "continues, gpu"), its environment, or the test that runs it
    code: str
    tab: str  # the hfoption the block sits in ("" outside tabs)
    section: str = ""  # the text of the ``##`` heading the block is under ("" before the first)
    section_id: str = ""  # that heading's id

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}"


class MarkerError(ValueError):
    """A recipe marker that does not follow the convention, with its location in the message."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.message = message


def parse_marker(comment: str, where: str) -> tuple[str, str]:
    """(kind, gpu reason) of a ``<!-- recipe: ... -->`` comment; ``continues, gpu: <reason>`` gives
    ("continues", reason): a block that continues and needs a GPU."""
    body = comment.strip().removeprefix(MARKER_PREFIX).removesuffix("-->").strip()
    head, comma, tail = body.partition(",")
    if comma and head.strip() == "continues":
        if not tail.strip().startswith("gpu"):
            raise MarkerError(where, f"only a gpu marker can follow 'continues,': {comment.strip()!r}")
        _, reason = parse_marker(f"{MARKER_PREFIX} {tail.strip()} -->", where)
        return "continues", reason
    kind, _, reason = body.partition(":")
    kind, reason = kind.strip(), reason.strip()
    if kind not in KINDS or kind == "run":
        raise MarkerError(
            where,
            f"unknown recipe marker {comment.strip()!r}: use gpu: <reason>, fragment, script: <test file>,"
            " continues or separate-env: <reason>",
        )
    if kind in WITH_REASON and not reason:
        raise MarkerError(where, f"a {kind} marker needs a reason: <!-- recipe: {kind}: <why> -->")
    if kind not in WITH_REASON and reason:
        raise MarkerError(where, f"the {kind} marker takes no reason: {comment.strip()!r}")
    return kind, reason


def marker_problems(body: str, first_line: int, display: str) -> list[Diagnostic]:
    """What the build reports of the recipe markers of a page or snippet whose ``body`` starts at line
    ``first_line`` of the file ``display``: each marker that does not follow the convention, and each comment
    directly above a fence that names a recipe kind without the ``recipe:`` that makes it a marker (the block
    would run on CPU, or not at all, where the author meant otherwise)."""
    tokens = parse(body)
    fences = {token.map[0] for token in tokens if token.type == "fence" and token.map}
    problems = []
    for token in tokens:
        if token.type != "html_block" or token.map is None or not token.content.lstrip().startswith("<!--"):
            continue
        comment, line = token.content.strip(), first_line + token.map[0]
        where = Location(display, line)
        if comment.startswith(MARKER_PREFIX):
            try:
                parse_marker(comment, str(where))
            except MarkerError as exc:
                problems.append(Diagnostic(where, exc.message, "bad-recipe-marker", hint=MARKERS_HELP))
            continue
        said = comment.removeprefix("<!--").removesuffix("-->").strip()
        word = said.split(":", 1)[0].split(",", 1)[0].strip()
        if token.map[1] in fences and word in KINDS[1:]:
            problems.append(
                Diagnostic(
                    where,
                    f"{comment!r} is not a recipe marker: without 'recipe:' the block below runs on CPU in CI",
                    "bad-recipe-marker",
                    hint=f"write <!-- recipe: {said} -->",
                )
            )
    return problems


def needs_gpu(blocks: list[Block]) -> str:
    """The GPU reason of the last block in ``blocks`` that needs one ("" when none does)."""
    return next((b.reason for b in reversed(blocks) if b.reason and b.kind not in ("separate-env", "script")), "")


def needs_own_environment(blocks: list[Block]) -> str:
    """The reason of a block in ``blocks`` that needs packages the recipes extra cannot hold ("" if none)."""
    return next((b.reason for b in reversed(blocks) if b.kind == "separate-env"), "")


@dataclass
class _Tabs:
    """The ``<hfoption>`` the walk is in, updated from the tag that opens each HTML block, in document order."""

    current: str = ""

    def see(self, tag_line: str) -> None:
        tag = tag_line.strip()
        if tag.startswith("<hfoption ") and 'id="' in tag:
            self.current = tag.split('id="', 1)[1].split('"', 1)[0]
        elif tag.startswith(("</hfoption>", "</hfoptions>")):
            self.current = ""


def _walk(text: str, first_line: int, path: str, tabs: _Tabs) -> Iterator[Block]:
    """Blocks of ``text`` whose first line is ``first_line`` of the file, at any depth (lists, quotes,
    component bodies), read with the dialect's own CommonMark parser (component tag lines are blocks)."""
    pending: tuple[str, str, int] | None = None  # (kind, reason, line after the marker)
    section: tuple[str, str] = ("", "")  # (text, id) of the last ## heading
    tokens = parse(text)
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h2" and token.level == 0:
            heading = parse_heading("## " + tokens[index + 1].content)
            section = (heading.text, heading.id) if heading else ("", "")
        if token.map is None or token.nesting == 1:
            continue  # closing tokens, and containers: the marker's line decides, not what wraps the fence
        start, end = token.map
        if token.type == "html_block" and token.content.lstrip().startswith(MARKER_PREFIX):
            pending = (*parse_marker(token.content, f"{path}:{first_line + start}"), first_line + end)
            continue
        if token.type == "mdx_line":
            tabs.see(token.content)
        elif token.type == "fence":
            line = first_line + start
            kind, reason = pending[:2] if pending is not None and pending[2] == line else ("run", "")
            lang = token.info.split()[0].lower() if token.info.strip() else ""
            yield Block(path, line, lang, kind, reason, token.content, tabs.current, *section)
        pending = None


def blocks_of(source: str, path: str) -> list[Block]:
    """Every fenced block of a page or snippet (front matter skipped, line numbers those of the file)."""
    front = split_front_matter(source.replace("\r\n", "\n"))
    return list(_walk(front.body, front.body_first_line, path, _Tabs()))


def guide_blocks(docs: Path) -> list[Block]:
    """Every block of every Markdown file under ``docs`` (theory snippets once, not once per including page)."""
    found: list[Block] = []
    for file in sorted(docs.rglob("*.md")):
        found += blocks_of(file.read_text(encoding="utf-8"), file.relative_to(docs).as_posix())
    return found


def chain(block: Block, blocks: list[Block]) -> list[Block]:
    """The blocks to run, in order, for ``block``: the Python blocks it continues from, then itself."""
    if block.kind != "continues":
        return [block]
    same_file = [b for b in blocks if b.path == block.path and b.lang in PYTHON and b.line < block.line]
    if not same_file:
        raise MarkerError(block.id, f"'continues' but no Python block comes before it in {block.path}")
    # Skip the sibling tabs of the same tab group: each tab continues from the block before the group.
    previous = same_file[-1]
    while block.tab and previous.tab and previous.tab != block.tab and previous.kind == "continues":
        same_file.pop()
        if not same_file:
            break
        previous = same_file[-1]
    return [*chain(previous, blocks), block]
