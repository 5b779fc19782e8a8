"""The technique x scenario matrix of the overview, generated from theory front matter and includes."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from .text import split_front_matter
from .theory import Inclusion, Snippet, SnippetLibrary, expand

SCENARIO_COLUMNS = (
    ("infer-cpu", "Inference, CPU"),
    ("infer-gpu-one", "Inference, 1 GPU"),
    ("infer-gpu-many", "Inference, many GPUs"),
    ("train-gpu-one", "Training, 1 GPU"),
    ("train-gpu-many", "Training, many GPUs"),
    ("scalability", "Scalability"),
)
HELPS_LABELS = {"speed": "speed", "memory": "memory", "scale": "scale"}


def technique_matrix(snippets: Sequence[Snippet], pages: Mapping[str, tuple[str, list[Inclusion]]],
                     from_page: str) -> list[str]:
    """Markdown table lines: one row per snippet, a linked cell per scenario page that expands it.

    ``pages`` maps a page's docs-relative path to (its scenario, the snippets it expands);
    ``from_page`` is the docs-relative path of the page the table goes on (for relative links).
    """
    by_scenario = {scenario: path for path, (scenario, _) in sorted(pages.items())}
    columns = [(s, label) for s, label in SCENARIO_COLUMNS if s in by_scenario]
    header = ["Technique", "Helps", *[label for _, label in columns]]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join([":--", ":--", *[":-:"] * len(columns)]) + "|"]
    base = posixpath.dirname(from_page)
    for snippet in sorted(snippets, key=lambda s: s.title.lower()):
        cells = [f"**{escape(snippet.title)}**<br>{escape(snippet.summary)}",
                 ", ".join(HELPS_LABELS[h] for h in snippet.helps) or "-"]
        for scenario, label in columns:
            path = by_scenario[scenario]
            first = next((i for i in pages[path][1] if i.name == snippet.name), None)
            if first is None:
                cells.append("")
                continue
            href = posixpath.relpath(path, base) + (f"#{first.section_id}" if first.section_id else "")
            cells.append(f'[yes]({href} "{escape(snippet.title)} on the {label} page")')
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def escape(text: str) -> str:
    return text.replace("|", "\\|").replace('"', "&quot;").replace("\n", " ")


def scan_scenario_pages(pages: Sequence[tuple[str, str, str]],
                        library: SnippetLibrary) -> dict[str, tuple[str, list[Inclusion]]]:
    """Which snippets each scenario page expands, and under which heading.

    ``pages`` holds (docs-relative path, display path, source) for every page of the site.
    """
    found = {}
    for docs_path, display, source in pages:
        source = source.replace("\r\n", "\n")
        if "<Theory" not in source:
            continue
        front = split_front_matter(source)
        scenario = front.data.get("scenario")
        if isinstance(scenario, str) and scenario != "overview":
            expansion = expand(front.body, display, library, scenario, front.body_first_line)
            found[docs_path] = (scenario, expansion.inclusions)
    return found


def generated_components(text: str, library: SnippetLibrary, scenario_pages: Mapping[str, tuple[str, list[Inclusion]]],
                         docs_path: str) -> dict[str, list[str]]:
    """Lines for the build-generated components that ``text`` uses."""
    if "<TechniqueMatrix" not in text:
        return {}
    snippets = [s for s in (library.get(n)[0] for n in library.names()) if s is not None]
    return {"TechniqueMatrix": technique_matrix(snippets, scenario_pages, docs_path)}
