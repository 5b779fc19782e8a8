"""doc-builder's page furniture: the "Open in Colab / Studio Lab" notebook menu and the pipeline task badge.

Both are plain HTML that works without JavaScript: the menu is a ``<details>`` disclosure (keyboard and
screen readers know it), the badge a ``<span>``. The dialect places them and reports what is wrong with them.
"""

from __future__ import annotations

import html
import string
from urllib.parse import quote, urlsplit

__all__ = [
    "NOTEBOOK_FRAMEWORKS",
    "PIPELINE_TASKS",
    "notebook_links",
    "notebook_menu",
    "notebook_problem",
    "pipeline_badge",
]

# The task names a <PipelineTag pipeline="..."/> may carry, with the label the badge shows.
# doc-builder's own list (kit/src/lib/pipeline.ts, PIPELINE_DATA: name -> .name), which is what it can render ...
_DOC_BUILDER_TASKS = {
    "text-classification": "Text Classification",
    "token-classification": "Token Classification",
    "table-question-answering": "Table Question Answering",
    "question-answering": "Question Answering",
    "zero-shot-classification": "Zero-Shot Classification",
    "translation": "Translation",
    "summarization": "Summarization",
    "conversational": "Conversational",
    "feature-extraction": "Feature Extraction",
    "text-generation": "Text Generation",
    "text2text-generation": "Text2Text Generation",
    "fill-mask": "Fill-Mask",
    "sentence-similarity": "Sentence Similarity",
    "text-to-speech": "Text-to-Speech",
    "automatic-speech-recognition": "Automatic Speech Recognition",
    "audio-to-audio": "Audio-to-Audio",
    "audio-classification": "Audio Classification",
    "voice-activity-detection": "Voice Activity Detection",
    "image-classification": "Image Classification",
    "object-detection": "Object Detection",
    "image-segmentation": "Image Segmentation",
    "text-to-image": "Text-to-Image",
    "image-to-text": "Image-to-Text",
    "image-to-image": "Image-to-Image",
    "unconditional-image-generation": "Unconditional Image Generation",
    "reinforcement-learning": "Reinforcement Learning",
    "robotics": "Robotics",
    "tabular-classification": "Tabular Classification",
    "tabular-regression": "Tabular Regression",
    "tabular-to-text": "Tabular to Text",
    "table-to-text": "Table to Text",
    "multiple-choice": "Multiple Choice",
    "text-retrieval": "Text Retrieval",
    "time-series-forecasting": "Time Series Forecasting",
    "visual-question-answering": "Visual Question Answering",
    "document-question-answering": "Document Question Answering",
    "zero-shot-image-classification": "Zero-Shot Image Classification",
    "other": "Other",
}
# ... and the transformers 5.24 pipeline tasks it lacks (transformers.pipelines.SUPPORTED_TASKS and TASK_ALIASES;
# tests/test_mathtex.py checks the installed transformers against this table).
_TRANSFORMERS_TASKS = {
    "any-to-any": "Any-to-Any",
    "decision": "Decision",
    "depth-estimation": "Depth Estimation",
    "image-feature-extraction": "Image Feature Extraction",
    "image-text-to-text": "Image-Text-to-Text",
    "keypoint-matching": "Keypoint Matching",
    "mask-generation": "Mask Generation",
    "text-to-audio": "Text-to-Audio",
    "video-classification": "Video Classification",
    "zero-shot-audio-classification": "Zero-Shot Audio Classification",
    "zero-shot-object-detection": "Zero-Shot Object Detection",
    "sentiment-analysis": "Text Classification",  # aliases: the task they run
    "ner": "Token Classification",
}
PIPELINE_TASKS: dict[str, str] = {**_DOC_BUILDER_TASKS, **_TRANSFORMERS_TASKS}


def pipeline_badge(task: str) -> str:
    """The badge for a known task name."""
    label = html.escape(PIPELINE_TASKS[task], quote=False)
    return f'<span class="perfdocs-pipeline-tag" data-pipeline="{html.escape(task, quote=True)}">{label}</span>'


# -- notebooks ---------------------------------------------------------------------------------------
# doc-builder's notebooks repository keeps one notebook per page and framework: <page>.ipynb (mixed),
# pytorch/<page>.ipynb, tensorflow/<page>.ipynb. The pattern's {framework} becomes those directories.
NOTEBOOK_FRAMEWORKS = (("Mixed", ""), ("PyTorch", "pytorch/"), ("TensorFlow", "tensorflow/"))
_HOSTS = (
    ("Open in Colab", "https://colab.research.google.com/github/"),
    ("Open in Studio Lab", "https://studiolab.sagemaker.aws/import/github/"),
)
_FIELDS = {"page", "framework"}
EXAMPLE = "https://github.com/OWNER/REPO/blob/main/notebooks/{framework}{page}.ipynb"


def notebook_problem(pattern: str | None) -> str | None:
    """What is wrong with the notebook URL pattern from mkdocs.yml, or None when it can build links."""
    setting = "extra.perfdocs.notebooks in mkdocs.yml"
    if pattern is None:
        return f"[[open-in-colab]] needs a notebook URL pattern: set {setting}"
    try:
        fields = {name for _, name, _, _ in string.Formatter().parse(pattern) if name is not None}
    except ValueError as exc:
        return f"{setting} is not a valid pattern ({exc}): {pattern!r}"
    if "page" not in fields or not fields <= _FIELDS:
        unknown = sorted(fields - _FIELDS)
        return f"{setting} must contain {{page}} " + (
            f"(and no field but {{framework}}; found {{{unknown[0]}}})" if unknown else f"(got {pattern!r})"
        )
    parts = urlsplit(pattern)
    segments = parts.path.split("/")
    if parts.scheme != "https" or parts.netloc != "github.com" or len(segments) < 6 or segments[3] != "blob":
        return f"{setting} must be a notebook on GitHub, https://github.com/OWNER/REPO/blob/BRANCH/...: {pattern!r}"
    if parts.query or parts.fragment:
        return f"{setting} must not have a query or fragment: {pattern!r}"
    return None


def notebook_links(pattern: str, page: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """(menu label, [(entry label, URL)]) for each host, as doc-builder builds them for ``page`` (a file name)."""
    stem = quote(page.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    path = pattern.removeprefix("https://github.com/")
    frameworks = NOTEBOOK_FRAMEWORKS if "{framework}" in pattern else (("Notebook", ""),)
    return [
        (menu, [(label, prefix + path.format(page=stem, framework=directory)) for label, directory in frameworks])
        for menu, prefix in _HOSTS
    ]


def notebook_menu(pattern: str, page: str) -> list[str]:
    """The menu's HTML lines: one disclosure per host with a link per notebook, or one link per host when
    the pattern names one notebook per page."""
    out = ['<div class="perfdocs-notebooks">']
    for menu, entries in notebook_links(pattern, page):
        if len(entries) == 1:
            out.append(f'<a class="perfdocs-notebook-link" href="{html.escape(entries[0][1], quote=True)}">{menu}</a>')
            continue
        out += ['<details class="perfdocs-notebook-menu">', f"<summary>{menu}</summary>", "<ul>"]
        out += [f'<li><a href="{html.escape(url, quote=True)}">{label}</a></li>' for label, url in entries]
        out += ["</ul>", "</details>"]
    out.append("</div>")
    return out
