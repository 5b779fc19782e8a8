"""perfdocs: the toolchain of the performance & scalability guide (dialect, theory, redirects)."""

from .diagnostics import Diagnostic, Location, SourceMap
from .dialect import convert
from .pipeline import Rendered, render_body, render_source
from .redirects import RedirectMap, load_redirects
from .theory import SCENARIOS, SnippetLibrary, expand

__all__ = [
    "SCENARIOS",
    "Diagnostic",
    "Location",
    "RedirectMap",
    "Rendered",
    "SnippetLibrary",
    "SourceMap",
    "convert",
    "expand",
    "load_redirects",
    "render_body",
    "render_source",
]
