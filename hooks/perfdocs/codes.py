"""The registry of diagnostic codes: every code a perfdocs message can end with, its level, what it means, and the fix.

``Diagnostic`` refuses a code that is not here; tests/test_codes.py finds every code the package emits (literals and
the codes that flow through helpers, link checker verdicts and redirect clashes) and checks both ways, and checks
that the README's "Diagnostic codes" table is ``render_table()``. This module imports nothing from the package.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["error", "warning"]
LEVELS: tuple[Level, ...] = ("error", "warning")


@dataclass(frozen=True)
class Code:
    """One diagnostic code: ``level`` is the level it is emitted at (``also``: other levels some path uses)."""

    name: str
    level: Level
    meaning: str  # what went wrong, for the author of a page
    fix: str  # what to do about it
    also: tuple[Level, ...] = ()

    @property
    def levels(self) -> tuple[Level, ...]:
        return (self.level, *self.also)


def _error(name: str, meaning: str, fix: str) -> Code:
    return Code(name, "error", meaning, fix)


def _warning(name: str, meaning: str, fix: str) -> Code:
    return Code(name, "warning", meaning, fix)


_ALL = [
    _error(
        "api-signatures",
        "API signatures cannot be laid out: neither Ruff nor Black is installed where the site is built.",
        "`pip install -e .` (it installs Ruff).",
    ),
    _error(
        "api-sources",
        "The API reference lacks a library's source: not installed, not pinned, or it could not be fetched or cached.",
        "Pin the library in the `recipes` extra of pyproject.toml or pip install it; the hint says which.",
    ),
    _error(
        "assistant-file-clash",
        "A page's Markdown copy for AI assistants (`page.md`) would overwrite another file of the built site.",
        "Rename the page or the other file so their paths differ.",
    ),
    _error(
        "bad-attribute",
        "A component's attribute is unknown, of the wrong kind or has a bad value: `<Tip warning=yes>`.",
        "Write it as the component takes it: the hint names the allowed attributes or values.",
    ),
    _error(
        "bad-config",
        "An `extra.perfdocs` setting in mkdocs.yml (`embed_hosts`, `gated_models`) has the wrong shape or a bad entry.",
        "Correct the setting in mkdocs.yml as the message says: host names, page paths, Hub model ids.",
    ),
    _error(
        "bad-encoding",
        "A page, theory snippet or redirects.yml is not UTF-8 text.",
        "Save the file as UTF-8.",
    ),
    _error(
        "bad-front-matter",
        "A page's or snippet's front matter is not valid YAML, has an unknown key, or a missing or wrong value.",
        "Fix the YAML between the `---` lines; the hint names the allowed keys.",
    ),
    _error(
        "bad-heading-id",
        "An explicit heading id `[[...]]` holds characters an id cannot: `## Setup[[1 step]]`.",
        "Start the id with a letter and use only letters, digits, `-`, `_`, `.` and `:`.",
    ),
    _error(
        "bad-literalinclude",
        "A `<literalinclude>` body is not a JSON object with the right keys: bad JSON, a missing path, a bad value.",
        'Write a JSON object with "path" and optionally "language", "start-after", "end-before", "dedent".',
    ),
    _error(
        "bad-marker",
        "A `[[...]]` marker line is unknown or misused: `[[autodocs]]`, text right under it, no notebook URL set.",
        "Use `[[autodoc]] Name` or `[[open-in-colab]]` alone on its line, followed by a blank line.",
    ),
    _error(
        "bad-math",
        "A formula KaTeX cannot render, or display math opened with `$$` that is not closed in its paragraph.",
        "Fix the LaTeX the message quotes; close `$$` in the same paragraph (no blank line inside a formula).",
    ),
    _error(
        "bad-only",
        "In a theory snippet, `<Only ...>` or `</Only>` shares its line with other text.",
        "Put each `<Only ...>` and `</Only>` on a line of its own.",
    ),
    _error(
        "bad-recipe-marker",
        "A `<!-- recipe: ... -->` comment above a code block is malformed, or names a recipe kind without `recipe:`.",
        "Write the marker as README's Recipes section shows, such as `<!-- recipe: gpu: <reason> -->`.",
    ),
    _error(
        "bad-redirects",
        "redirects.yml (or `extra.perfdocs.redirect_hosts`) is not valid: bad YAML, an unknown key, a bad entry.",
        "Fix the file as the message says: one `old/path.md: target` line per redirect under `redirects:`.",
    ),
    _error(
        "bad-theory",
        'A `<Theory>` tag is malformed: not alone and self-closing on its line, or without a valid `name="..."`.',
        'Write `<Theory name="snippet_name"/>` alone on its line (lowercase letters, digits and `_`).',
    ),
    _error(
        "duplicate-api-entry",
        "An `[[autodoc]]` documents an object that another `[[autodoc]]` line already documents.",
        "Keep one entry: delete this one and link to the other with [`Name`], or move the entry here.",
    ),
    _error(
        "duplicate-id",
        "Two elements of one page have the same explicit id, so a link to it finds only the first.",
        "Give one of them another id.",
    ),
    _error(
        "duplicate-redirect",
        "redirects.yml lists an old path twice, or two redirect pages would be written to the same place.",
        "Keep one entry per old path; remove or change the other one.",
    ),
    _error(
        "duplicate-tab",
        "A tab label is used twice in one tab group (`<hfoptions>`, `<frameworkcontent>`).",
        "Give each tab of the group a different label, or merge the two tabs.",
    ),
    _error(
        "empty-component",
        "A component that needs content is empty or self-closing: `<Tip/>`, or a tab group with no tabs.",
        "Put content between its opening and closing tags, or remove it.",
    ),
    _error(
        "empty-page",
        "A page has nothing but front matter.",
        "Write the page's content, or delete the file.",
    ),
    _error(
        "empty-snippet",
        "A theory snippet has nothing but front matter.",
        "Write the snippet's content, or delete it and the `<Theory>` tags that include it.",
    ),
    _error(
        "external-broken",
        "An external link's server answers with an HTTP error (4xx or 5xx), for example 404 Not Found.",
        "Update the URL to where the page now lives, or remove the link.",
    ),
    _error(
        "external-error",
        "An external link cannot be checked: invalid URL, DNS or TLS failure, or an HTTP answer that makes no sense.",
        "Check the URL in a browser and correct it; if the host is down for good, remove the link.",
    ),
    _error(
        "external-rate-limited",
        "An external link's server kept answering 429 Too Many Requests, or asked for too long a wait.",
        "Run `perfdocs check-links --external` again later, or ignore the URL in [tool.perfdocs.check-links].",
    ),
    _error(
        "external-redirect-loop",
        "An external link redirects in a circle and never reaches a page.",
        "Link to the final page's URL, or remove the link.",
    ),
    _error(
        "external-timeout",
        "An external link's server did not answer in time.",
        "Check the URL in a browser; retry later, or link to a host that answers.",
    ),
    _error(
        "external-too-many-redirects",
        "An external link goes through more redirects than the checker follows.",
        "Link to the URL the redirects end at.",
    ),
    _error(
        "external-unsupported-scheme",
        "An external link uses a scheme the checker does not request (only http and https are checked).",
        "Link over https://, or remove the link.",
    ),
    _error(
        "forbidden-html",
        "Raw HTML the site does not allow: `<script>`, an `onclick=`, a refused style, an iframe from another host.",
        "Remove it or use a component; for literal text write it as inline code (`<...>`).",
    ),
    _warning(
        "heading-too-deep",
        "A snippet's heading would be deeper than level 6 once shifted under the heading that includes it.",
        "Include the snippet under a higher heading, or use fewer heading levels in it.",
    ),
    _error(
        "include-cycle",
        "Theory snippets include each other in a circle.",
        "Remove one of the `<Theory>` tags the message lists, so no snippet includes itself.",
    ),
    _error(
        "include-depth",
        "Theory snippets are nested deeper than the limit.",
        "Include fewer levels of snippets: have the page include them one after another.",
    ),
    _error(
        "include-limit",
        "A page includes more theory snippets than the limit; the rest of the page's snippets are left out.",
        "Include each snippet once, where the page needs it.",
    ),
    _error(
        "markup-in-metadata",
        "A plain-text front matter value (a title, a summary) contains Markdown or HTML, which is shown as written.",
        "Write plain text there; the hint says how.",
    ),
    _error(
        "mismatched-close",
        "A closing tag closes a component while another one opened inside it is still open.",
        "Close the inner component first: add the closing tag the hint names.",
    ),
    _error(
        "misplaced-component",
        "A component is where it cannot be: a tab outside its group, a component in a heading or a table row.",
        "Move it: a tab directly inside its group, a block component on a line of its own.",
    ),
    _error(
        "missing-anchor",
        "A redirect target in redirects.yml names a section id (`page.md#id`) the page does not have.",
        "Correct the `#id` to one the page has (the hint suggests one), or drop it.",
    ),
    _error(
        "missing-attribute",
        'A component lacks an attribute it needs: `<Youtube/>` without `id="..."`.',
        "Add the attribute with a non-empty value.",
    ),
    _error(
        "missing-file",
        "A link or `<literalinclude>` names a page or file that does not exist: `[setup](instal.md)`.",
        "Correct the path (the hint may suggest one), or add a redirect when the page was moved.",
    ),
    _error(
        "missing-fragment",
        "A link's `#section` is not an id on the page it points to: `[see](train.md#setup-step)`.",
        "Link to an id the page has (the hint may suggest one), or add that id to the heading.",
    ),
    _error(
        "missing-marker",
        'A `<literalinclude>` "start-after" or "end-before" marker is not in the included file.',
        "Add the marker comment to the file, or correct the marker text.",
    ),
    _error(
        "missing-redirect",
        "A page URL that existed at the base git ref no longer resolves in the build (`perfdocs check-redirects`).",
        "Add the redirect the message prints under `redirects:` in redirects.yml.",
    ),
    _error(
        "missing-snippet",
        "A `<Theory name=...>` names a snippet that is not in `docs/theory/`.",
        "Correct the name (the hint may suggest one), or write the snippet.",
    ),
    _error(
        "missing-target",
        "A redirect target is neither a page under docs/ nor another redirect.",
        "Point the redirect at an existing page (the hint may suggest one).",
    ),
    _error(
        "not-expanded",
        "`<Theory>` or `<Only>` reached the dialect conversion: the page was not expanded first.",
        "Render the page through perfdocs.pipeline.render_page, which expands them.",
    ),
    _error(
        "not-generated",
        "A component the site build generates (`<TestedWith/>` and the like) has no content outside the build.",
        "Build the site (`mkdocs build`) to see it; nothing to fix in the page.",
    ),
    _error(
        "nav-missing-page",
        "A nav entry of mkdocs.yml names a page (`x.md`) that is not in the docs: every page's menu links nowhere.",
        "Point the entry at the page's new path, or remove it; the hint names the closest page.",
    ),
    _error(
        "not-in-nav",
        "A page is not listed in the `nav:` of mkdocs.yml, so readers cannot find it.",
        "Add the page to `nav:` in mkdocs.yml.",
    ),
    _error(
        "outside-site",
        "A link in the built site points outside the site (above its root, or through a `<base href>` elsewhere).",
        "Link to a page of the docs, or write the full https:// URL of the other site.",
    ),
    _error(
        "page-too-large",
        "A page is larger than the size limit for one page.",
        "Split it into several pages.",
    ),
    _error(
        "path-outside-root",
        "A docs file, snippet or `<literalinclude>` path leads outside the project (a symlink, `../`): not published.",
        "Copy the file into the project instead of linking to it.",
    ),
    _error(
        "recipes-pins",
        "The `recipes` extra of pyproject.toml is missing or unreadable, or has an entry that is not `name==version`.",
        "Pin every entry of the `recipes` extra exactly, as `torch==2.14.1`.",
    ),
    _error(
        "redirect-loop",
        "Redirects lead in a circle (in redirects.yml, or between redirect pages of the built site).",
        "Point one of the redirects in the loop at a live page.",
    ),
    _error(
        "redirect-shadows-page",
        "A redirect would replace a live page or a site file, or turn a file into a folder.",
        "Remove the redirect entry, or rename the page or file it collides with.",
    ),
    _error(
        "reserved-name",
        "An id, class or attribute that the theme and the site's scripts reserve for themselves.",
        "Use another name for your id, class or attribute.",
    ),
    _warning(
        "tab-label-case",
        "A tab label differs from one of the guide's shared labels (`Trainer`, `PyTorch`, ...) only in case.",
        "Spell the label as the shared one (the hint shows it), so a reader's pick carries over between pages.",
    ),
    _error(
        "text-outside-tab",
        "Text inside a tab group is outside every tab.",
        "Move the text into a tab, or after the group's closing tag.",
    ),
    _error(
        "too-deep",
        "Components, lists or quotes are nested deeper than the limit; the part over the limit is left out.",
        "Nest less: split the content into sections or separate blocks.",
    ),
    _error(
        "too-long",
        "A paragraph or block holds so many `[` that rendering it would take minutes; it is left out.",
        "Put long literal text in a code block.",
    ),
    _error(
        "unclosed-component",
        "A component (or a theory snippet's `<Only>`) opened here is never closed.",
        "Add the closing tag the hint names, where the component should end.",
    ),
    _error(
        "unclosed-fence",
        "A code block opened with a fence (```) is never closed: the rest of the page would be code.",
        "Close it with the same fence.",
    ),
    _error(
        "unclosed-html",
        "An HTML comment `<!--` or block is never closed: the rest of the page would be swallowed.",
        "Close it (`-->` for a comment) where it should end.",
    ),
    _error(
        "unknown-alert",
        "A `> [!KIND]` alert names a kind that does not exist: `> [!WARN]`.",
        "Use one of the kinds the hint lists (NOTE, TIP, IMPORTANT, WARNING, CAUTION).",
    ),
    _error(
        "unknown-api-member",
        "A member listed under `[[autodoc]] Name` is not a member of that object.",
        "Correct the member's name (the hint may suggest one), or remove it.",
    ),
    _error(
        "unknown-api-name",
        "An API link [`Name`] names no object of the documented libraries.",
        "Correct the name (the hint may suggest one), or write it as `code` if it is not an API name.",
    ),
    _error(
        "unknown-api-object",
        "An `[[autodoc]] Name` names an object that is not in the library's source or that mkdocstrings cannot read.",
        "Correct the name (the hint may suggest one), or link to the object instead of documenting it here.",
    ),
    _error(
        "unknown-component",
        "A tag that looks like a component is not one: `<Tipp>`, `<Foo/>`.",
        "Correct the name (the hint may suggest one), or write it as inline code (`<...>`) if meant literally.",
    ),
    _error(
        "unknown-scenario",
        '`<Only scenario="...">` names a scenario that does not exist, or none.',
        "Use the scenario names the hint lists, such as `train-gpu-one`.",
    ),
    _error(
        "wrong-scenario",
        "A snippet shows what does not hold for the page's scenario: CUDA code on the CPU page, a training loop on "
        "inference.",
        'Wrap that text in `<Only scenario="...">` with the scenarios it holds for.',
    ),
    _error(
        "unlisted-host",
        "A redirect leaves the site for a host that `extra.perfdocs.redirect_hosts` in mkdocs.yml does not list.",
        "Point the redirect at a page of the docs, or ask a maintainer to allow the host.",
    ),
    _error(
        "unmatched-close",
        "A closing tag closes nothing: `</Tip>` with no `<Tip>` open.",
        "Remove it, or correct its name (the hint may suggest one).",
    ),
    _warning(
        "unreadable-page",
        "A page was moved or deleted while the site was being built, so it could not be read.",
        "Nothing, usually: the next build picks up the change.",
    ),
    _error(
        "unsafe-target",
        "A redirect target could mislead: spaces or control characters, a backslash, `//host`, a user name, not https.",
        "Write the target as a page under docs/ or a plain https:// URL (the hint shows how).",
    ),
    _error(
        "unsafe-url",
        "A link or attribute uses a URL scheme the site refuses: `javascript:`, `data:`, `vbscript:`.",
        "Link to a page, a file in the repository or an https:// URL.",
    ),
]

CODES: dict[str, Code] = {code.name: code for code in sorted(_ALL, key=lambda code: code.name)}


def render_table() -> str:
    """The README's table of codes: one row per code, in name order."""
    rows = ["| code | level | meaning | fix |", "|---|---|---|---|"]
    for code in CODES.values():
        level = " or ".join(code.levels)
        rows.append(f"| `{code.name}` | {level} | {code.meaning} | {code.fix} |")
    return "\n".join(rows) + "\n"


__all__ = ["CODES", "LEVELS", "Code", "Level", "render_table"]
