"""The one module that reaches into mkdocstrings and mkdocstrings-python beyond their public API.

perfdocs hands mkdocstrings a folder of module copies (apirefs.write_subset) and collects every entry with
mkdocstrings' own Python handler before any page renders (apirefs.check_entries). Two things have no public way
in: putting that folder on the search path of a handler mkdocstrings already made, and making the handler forget
what it loaded. Both are written here only, for the versions in ``SUPPORTED`` (pyproject.toml pins the same
ranges; tests/test_mkdocstrings_adapter.py checks both, and that the attributes are there on a real handler).
"""

from __future__ import annotations

import dataclasses
from typing import Any
from xml.etree import ElementTree

import griffe

from .apicache import RenderCache, captured_logs, replay_logs

HANDLER = "python"
# the distributions whose internals this module uses, and the versions it was written against
SUPPORTED = {"mkdocstrings": ">=1.0.8,<2", "mkdocstrings-python": ">=2.0.11,<3"}


def python_handler(plugin: Any) -> Any:
    """mkdocstrings' Python handler of this build (made now if mkdocstrings has not yet); None outside a build."""
    try:
        handler = plugin.handlers.get_handler(HANDLER) if plugin is not None else None
    except (AttributeError, RuntimeError, KeyError):  # the plugin is not set up for a build (load_config only)
        return None
    return handler if hasattr(handler, "collect") and hasattr(handler, "get_options") else None


def made_handler(plugin: Any) -> Any:
    """The Python handler mkdocstrings has already made, without making one (None if there is none yet)."""
    handlers = getattr(plugin, "_handlers", None)  # mkdocstrings: Handlers, made in its on_config
    return getattr(handlers, "_handlers", {}).get(HANDLER) if handlers is not None else None


def search_path(handler: Any) -> list[str] | None:
    """The list of folders a made handler loads modules from (mkdocstrings-python 2.x reads only this one)."""
    paths = getattr(handler, "_paths", None)
    return paths if isinstance(paths, list) else None


def forget_loaded(handler: Any) -> None:
    """Makes the handler read every module again on its next collect (its collections are private)."""
    handler._modules_collection = griffe.ModulesCollection()
    handler._lines_collection = griffe.LinesCollection()


def options_key(identifier: str, options: Any) -> str:
    """An entry's key in the render cache: its identifier and the handler's options for it, but the griffe
    extensions (objects whose repr changes from run to run; the handler's config is in the generation)."""
    if dataclasses.is_dataclass(options):
        fields = dataclasses.fields(options)
        shown = sorted((f.name, repr(getattr(options, f.name))) for f in fields if f.name != "extensions")
    else:
        shown = [("options", repr(options))]
    return repr((identifier, shown))


class _Reused:
    """What ``collect`` hands ``render`` for an entry the cache has: its record."""

    def __init__(self, record: dict[str, Any]):
        self.record = record


class CachedRenders:
    """The Python handler's collect and render, answered from a ``RenderCache`` where it has the entry, and
    recorded into it where it has not. mkdocstrings calls them, then ``get_headings`` (the headings the render
    made, for the page's table of contents) and ``get_aliases`` (for autorefs and objects.inv), which the
    record keeps too. Installed once per handler; ``cache`` is the build's (a rebuild under serve sets it)."""

    def __init__(self, handler: Any, cache: RenderCache):
        self.cache = cache
        self._collect, self._render = handler.collect, handler.render
        self._headings, self._aliases = handler.get_headings, handler.get_aliases
        self._collected: tuple[int, str, list[list[Any]]] | None = None  # (id of data, key, logs) to record
        self._next: list[Any] | None = None  # the headings of the entry rendered last
        self._known: dict[str, tuple[str, ...]] = {}  # heading id -> aliases, from the records used

    def collect(self, identifier: str, options: Any) -> Any:
        key = options_key(identifier, options)
        record = self.cache.get("rendered", key)
        if record is not None:
            return _Reused(record)
        with captured_logs() as logs:
            data = self._collect(identifier, options)
        self._collected = (id(data), key, logs)
        return data

    def render(self, data: Any, options: Any, *args: Any, **kwargs: Any) -> str:
        if isinstance(data, _Reused):
            record = data.record
            replay_logs(record["logs"])
            self._next = [ElementTree.fromstring(h) for h in record["headings"]]
            self._known.update({k: tuple(v) for k, v in record["aliases"].items()})
            return str(record["html"])
        collected, self._collected = self._collected, None
        with captured_logs() as logs:
            html = self._render(data, options, *args, **kwargs)
        headings = list(self._headings())
        self._next = headings
        if collected is not None and collected[0] == id(data):  # collected through this wrapper: recorded
            key, collect_logs = collected[1], collected[2]
            aliases = {h.get("id"): list(self._aliases(h.get("id"))) for h in headings if h.get("id")}
            record = {
                "html": str(html),
                "headings": [ElementTree.tostring(h, encoding="unicode") for h in headings],
                "aliases": aliases,
                "logs": collect_logs + logs,
            }
            self.cache.put("rendered", key, record)
        return html

    def get_headings(self) -> list[Any]:
        headings, self._next = self._next, None
        return headings if headings is not None else list(self._headings())

    def get_aliases(self, identifier: str) -> tuple[str, ...]:
        known = self._known.get(identifier)
        return known if known is not None else tuple(self._aliases(identifier))


def cache_renders(handler: Any, cache: RenderCache) -> CachedRenders:
    """Puts ``cache`` between mkdocstrings and the handler (their public methods, on this instance only)."""
    wrapped = handler.__dict__.get("_perfdocs_renders")
    if isinstance(wrapped, CachedRenders):
        wrapped.cache = cache
        return wrapped
    wrapped = CachedRenders(handler, cache)
    handler._perfdocs_renders = wrapped
    handler.collect, handler.render = wrapped.collect, wrapped.render
    handler.get_headings, handler.get_aliases = wrapped.get_headings, wrapped.get_aliases
    return wrapped
