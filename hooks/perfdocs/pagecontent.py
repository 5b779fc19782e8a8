"""Each page's content through the allowlist (sanitize.py), from what Python-Markdown made of it to what the theme
prints: the first pass when the page is converted, and again on what plugins write into the content after it.

mkdocs-autorefs turns each ``<autoref>`` placeholder into a link in its on_env, re-reading the placeholder's
attributes with their entities decoded: markup the first pass could not see. The engine gets the cleaned content
with each placeholder between two marks (sanitize.marked), so that what a plugin put in a placeholder's place is
known exactly and goes through the allowlist on its own; the rest was cleaned already. Where a plugin changed
anything else, the whole content goes through it again, and so does a content a plugin changed later still (the
last look before the template prints it). What the allowlist removes is returned: the build reports it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from .contentcache import ContentCache
from .sanitize import SPAN_MARK, Finding, clean_page, marked, replaced

# ContentCache kinds: the first pass, and the pass on what plugins wrote
CLEAN, LATE = "clean", "clean after plugins"
Cleaned = tuple[str, list[Finding]]  # the sanitiser's output and its findings


def clean_late(html: str) -> Cleaned:
    """The allowlist on content as plugins left it (no ``<autoref>`` placeholder is kept any more)."""
    return clean_page(html, after_plugins=True)


@dataclass
class PageContents:
    """Each page's content through the allowlist, kept by docs path. ``placeholders``: what a plugin replaces in the
    content after the sanitiser (mkdocs-autorefs' pattern), None when no plugin does."""

    cache: ContentCache
    placeholders: re.Pattern[str] | None = None
    cleaned: dict[str, str] = field(default_factory=dict)  # docs path -> content as the sanitiser left it
    # docs path -> (its cleaned content, and that content as the engine gets it: marked), until after_plugins
    handed: dict[str, tuple[str, str]] = field(default_factory=dict)

    def clean(self, src: str, html: str) -> tuple[str, str, list[Finding]]:
        """The first pass on the page's HTML: the cleaned content, the same content as the engine gets it (marked)
        and what the allowlist removed."""
        cleaned, findings = self.cache.get(CLEAN, html, functools.partial(clean_page, html))
        self.cleaned[src] = cleaned
        self.handed[src] = (cleaned, marked(cleaned, self.placeholders))
        return cleaned, self.handed[src][1], findings

    def after_plugins(self, src: str, content: str) -> Cleaned | None:
        """The content of a page converted in this build as the plugins' on_env left it, through the allowlist where
        they changed it: each placeholder's replacement on its own, or the whole content where they changed
        anything else. None for a page not converted in this build (an incremental rebuild): it is as it was."""
        handed = self.handed.pop(src, None)
        if handed is None:
            return None
        cleaned, given = handed
        findings: list[Finding] = []
        if content != given:
            fragments = replaced(given, content)
            if fragments is None:
                cleaned, findings = self.late(content.replace(SPAN_MARK, ""))
            else:
                parts = given.split(SPAN_MARK)
                for index, fragment in enumerate(fragments):
                    parts[2 * index + 1], found = self.late(fragment)
                    findings += found
                cleaned = "".join(parts)
        self.cleaned[src] = cleaned
        return cleaned, findings

    def last_look(self, src: str, content: str) -> Cleaned | None:
        """The content the template is about to print, through the allowlist if a plugin changed it after
        after_plugins; None: it is as after_plugins left it."""
        cleaned = self.cleaned.get(src)
        if cleaned is None or content == cleaned:
            return None
        return self.late(content)

    def late(self, html: str) -> Cleaned:
        return self.cache.get(LATE, html, functools.partial(clean_late, html))

    def forget(self, src: str) -> None:
        self.cleaned.pop(src, None)
        self.handed.pop(src, None)


__all__ = ["CLEAN", "LATE", "Cleaned", "PageContents", "clean_late"]
