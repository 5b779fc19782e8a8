"""The technique x scenario matrix of the overview, generated from theory front matter and includes."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence

from .badges import recipes_on_page, tested_with_badge
from .budgets import estimator_html
from .text import split_front_matter
from .theory import Expansion, Inclusion, Snippet, SnippetLibrary, expand

SCENARIO_COLUMNS = (  # (scenario, column header, page name for link titles)
    ("infer-cpu", "Infer CPU", "Inference on CPU"),
    ("infer-gpu-one", "Infer 1 GPU", "Inference on one GPU"),
    ("infer-gpu-many", "Infer N GPUs", "Inference on several GPUs"),
    ("train-gpu-one", "Train 1 GPU", "Training on one GPU"),
    ("train-gpu-many", "Train N GPUs", "Training on several GPUs"),
    ("scalability", "Scalability", "Scalability"),
)


def technique_matrix(
    snippets: Sequence[Snippet], pages: Mapping[str, tuple[str, list[Inclusion]]], from_page: str
) -> list[str]:
    """A Markdown table (one row per published snippet, a linked cell per scenario page that expands it),
    then a list of those snippets' one-line summaries.

    ``pages`` maps a page's docs-relative path to (its scenario, the snippets it expands);
    ``from_page`` is the docs-relative path of the page the table goes on (for relative links).
    A snippet no scenario page expands is a draft and gets no row.
    """
    snippets = published(snippets, pages)
    by_scenario = {scenario: path for path, (scenario, _) in sorted(pages.items())}
    columns = [(s, label, name) for s, label, name in SCENARIO_COLUMNS if s in by_scenario]
    header = ["Technique", "Helps", *[label for _, label, _ in columns]]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join([":--", ":--", *[":-:"] * len(columns)]) + "|"]
    base = posixpath.dirname(from_page)
    for snippet in sorted(snippets, key=lambda s: s.title.lower()):
        cells = [f"**{escape(snippet.title)}**", ", ".join(snippet.helps) or "-"]
        for scenario, _, name in columns:
            path = by_scenario[scenario]
            first = next((i for i in pages[path][1] if i.name == snippet.name), None)
            if first is None:
                cells.append("")
                continue
            href = posixpath.relpath(path, base) + (f"#{first.section_id}" if first.section_id else "")
            label = f"{escape(snippet.title)}: {name}"
            cells.append(f'[✓<span class="perfdocs-sr-only"> {label}</span>]({href} "{label}")')
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines += [
        f"- **{snippet.title}**: {snippet.summary}" for snippet in sorted(snippets, key=lambda s: s.title.lower())
    ]
    return lines


def matrix_row(snippet: Snippet | None) -> tuple[str, tuple[str, ...], str] | None:
    """What the technique matrix shows of a snippet (its title, what it helps with, its summary)."""
    return None if snippet is None else (snippet.title, tuple(snippet.helps), snippet.summary)


def shown_differently(before: Mapping[str, Snippet | None], library: SnippetLibrary, names: Iterable[str]) -> bool:
    """Whether the matrix shows any of the snippets ``names`` differently from ``before`` (as they were read; a
    snippet not there was never read) now that ``library`` reads them again."""
    return any(name not in before or matrix_row(before[name]) != matrix_row(library.get(name)[0]) for name in names)


def published(snippets: Sequence[Snippet], pages: Mapping[str, tuple[str, list[Inclusion]]]) -> list[Snippet]:
    """The snippets some scenario page expands (directly or nested); the others are drafts."""
    included = {inclusion.name for _, inclusions in pages.values() for inclusion in inclusions}
    return [snippet for snippet in snippets if snippet.name in included]


def escape(text: str) -> str:
    return text.replace("|", "\\|").replace('"', "&quot;").replace("\n", " ")


def generated_components(
    text: str,
    library: SnippetLibrary,
    scenario_pages: Mapping[str, tuple[str, list[Inclusion]]],
    docs_path: str,
    expansion: Expansion | None = None,
) -> dict[str, list[str]]:
    """Lines for the build-generated components that ``text`` uses; ``expansion``: the page's own theory
    expansion, when the caller has it (the build), else ``text`` is expanded here.

    A badge whose pins cannot be read is left out, so the page reports ``<TestedWith/>`` as not generated
    (``badges.recipe_pins`` names the bad entry); so is one for a page with a malformed recipe marker (the recipe
    tests name it). The badge counts the page's blocks, those of its theory snippets included.
    """
    generated: dict[str, list[str]] = {}
    if "<TechniqueMatrix" in text:
        snippets = [s for s in (library.get(n)[0] for n in library.names()) if s is not None]
        generated["TechniqueMatrix"] = technique_matrix(snippets, scenario_pages, docs_path)
    if "<TestedWith" in text:
        if expansion is None:
            front = split_front_matter(text.replace("\r\n", "\n"))  # the CLI passes the file
            scenario = front.data.get("scenario", scenario_pages.get(docs_path, (None, []))[0])
            expansion = expand(front.body, docs_path, library, scenario if isinstance(scenario, str) else None)
        recipes = recipes_on_page(expansion.text, docs_path)
        badge, problems = tested_with_badge(library.root, recipes)
        if badge and not problems and recipes is not None:
            generated["TestedWith"] = badge
    if "<MemoryEstimator" in text:  # the calculator, with the memory model's presets (budgets.py)
        generated["MemoryEstimator"] = estimator_html()
    return generated
