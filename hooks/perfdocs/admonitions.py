"""doc-builder's notes as Material admonitions, one table for pages (perfdocs.dialect, the <Tip> component) and the
libraries' docstrings (perfdocs.docstrings) alike."""

from __future__ import annotations

# GitHub-style alerts ("> [!NOTE]") as Material admonitions, on pages and in docstrings alike: kind -> (type, the
# title when it is not the type's own)
ALERTS = {
    "NOTE": ("note", None),
    "TIP": ("tip", None),
    "IMPORTANT": ("info", "Important"),
    "WARNING": ("warning", None),
    "CAUTION": ("danger", "Caution"),
}


def alert_head(kind: str) -> str:
    """The admonition line of an alert of ``kind`` (upper case; an unknown one is a note)."""
    style, title = ALERTS.get(kind, ("note", None))
    return f"!!! {style}" + (f' "{title}"' if title else "")


def tip_head(warning: bool) -> str:
    """The admonition line of doc-builder's ``<Tip>`` (``warning``: ``<Tip warning={true}>``)."""
    return "!!! warning" if warning else "!!! tip"
