"""API links and [[autodoc]]: how names resolve against the real libraries (the recipes extra), what a page
becomes, the exact errors for bad input, docstrings, where the sources come from, and that the index knows
exactly the ids mkdocstrings writes."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from perfdocs import apirefs, apisources, mkdocs_adapter
from perfdocs import markdown as md
from perfdocs.apiconfig import ApiConfig
from perfdocs.apilinks import ApiLink, api_link, misread_brackets
from perfdocs.apirefs import ApiIndex, autodoc_blocks, build_index
from perfdocs.apisources import library_sources
from perfdocs.dialect import Site
from perfdocs.docstrings import docstring_markdown
from perfdocs.pipeline import render_source
from perfdocs.theory import SnippetLibrary

from .conftest import ROOT

if importlib.util.find_spec("peft") is None:  # found, not imported: the index reads sources, and importing peft
    # at collection cost every pytest-xdist worker 4-5 s of CPU
    pytest.skip("the recipes extra (peft, accelerate) is not installed", allow_module_level=True)

NAMESPACES = ("transformers", "peft", "accelerate")
ENTRIES = """# Entries

[[autodoc]] Trainer
    - train
    - evaluate

[[autodoc]] TrainingArguments

[[autodoc]] LoraConfig

[[autodoc]] accelerate.Accelerator
    - prepare

[[autodoc]] tuners.lora.model.LoraModel
    - add_weighted_adapter

[[autodoc]] Mxfp4Config
"""


@pytest.fixture(scope="module")
def api() -> ApiIndex:
    return build_index(ApiConfig(ROOT, NAMESPACES), [("api/entries.md", "docs/api/entries.md", ENTRIES)])


def render(api: ApiIndex | None, text: str, page: str = "guide.md") -> tuple[str, list[str]]:
    library = SnippetLibrary(ROOT / "docs" / "performance" / "_theory", ROOT)
    site = Site(page, frozenset({page, "api/entries.md"}), api)
    rendered = render_source(text, f"docs/{page}", library, ROOT, site=site)
    return rendered.text, [str(d) for d in rendered.diagnostics]


# -- resolution ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("[`Trainer`]", "[`Trainer`][transformers.Trainer]"),
        ("[`~Trainer.train`]", "[`train()`][transformers.Trainer.train]"),
        ("[`Trainer.train`]", "[`Trainer.train()`][transformers.Trainer.train]"),
        ("[`transformers.Trainer`]", "[`transformers.Trainer`][transformers.Trainer]"),
        ("[`~transformers.trainer.Trainer`]", "[`Trainer`][transformers.Trainer]"),  # module path, same object
        ("[`LoraConfig`]", "[`LoraConfig`][peft.LoraConfig]"),  # not in transformers: the next library has it
        ("[`~accelerate.Accelerator.prepare`]", "[`prepare()`][accelerate.Accelerator.prepare]"),
        ("[`~Trainer.compute_loss`]", "[`compute_loss()`][transformers.Trainer]"),  # not shown: its class
        ("[`TrainingArguments#output_dir`]", "[`output_dir`][transformers.TrainingArguments]"),
        ("[`~TrainingArguments.to_dict`]", "[`to_dict()`][transformers.TrainingArguments.to_dict]"),  # '- all'
        ("[`DataCollatorWithPadding`]", "`DataCollatorWithPadding`"),  # in the library, on no page
        ("[`BertForMaskedLM`]", "`BertForMaskedLM`"),  # reached through transformers' wildcard imports
        ("[`~AutoModelForCausalLM.from_pretrained`]", "`from_pretrained`"),  # made at run time: cannot tell
        (
            "[`~PreTrainedModel.parameters`]",
            "`parameters`",
        ),  # inherited from torch's Module, which griffe does not read
        ("[`peft.get_peft_model`]", "`peft.get_peft_model()`"),
        ("[`TrainingArguments`]:", "[`TrainingArguments`][transformers.TrainingArguments]:"),  # a colon after it
        ("[`Trainer`][nowhere]", "[`Trainer`][transformers.Trainer][nowhere]"),  # a label the page does not define
        # a call links like the name, shown as written; code that is not a name is code (doc-builder: code)
        ("[`Trainer.train()`]", "[`Trainer.train()`][transformers.Trainer.train]"),
        ("[`~Trainer.train()`]", "[`train()`][transformers.Trainer.train]"),
        ("[`TrainingArguments()`]", "[`TrainingArguments()`][transformers.TrainingArguments]"),
        ("[`AutoModel.from_pretrained(..., dtype=dtype)`]", "`AutoModel.from_pretrained(..., dtype=dtype)`"),
        ("[`--per_device_train_batch_size 4`]", "`--per_device_train_batch_size 4`"),
        # other libraries' names: code, no link and no error (doc-builder links Hugging Face ones to hf.co)
        ("[`~datasets.Dataset`]", "`Dataset`"),
        ("[`trl.SFTTrainer`]", "`trl.SFTTrainer`"),
        ("[`~optimum.onnxruntime.ORTModel`]", "`ORTModel`"),
        ("[`torch.nn.Module`]", "`torch.nn.Module`"),
        ("[`torch.compile()`]", "`torch.compile()`"),
        # a module path: the entry's public id (doc-builder's shortest path), and a lazily exported name
        (
            "[`~peft.tuners.lora.model.LoraModel.add_weighted_adapter`]",
            "[`add_weighted_adapter()`][peft.LoraModel.add_weighted_adapter]",
        ),
        ("[`LoraModel`]", "[`LoraModel`][peft.LoraModel]"),
        ("[`Mxfp4Config`]", "[`Mxfp4Config`][transformers.Mxfp4Config]"),
    ],
)
def test_links_resolve_like_doc_builder(api: ApiIndex, written: str, expected: str) -> None:
    text, problems = render(api, f"See {written}.\n")
    assert (text, problems) == (f"See {expected}.\n", [])


def test_a_link_is_code_not_a_link_in_its_other_forms(api: ApiIndex) -> None:
    source = "A [`Trainer`](https://example.org), `[Trainer]`, \\[`Trainer`] and [``Trainer``].\n"
    assert render(api, source) == (source, [])


def test_a_reference_link_with_code_as_its_text_stays_one(api: ApiIndex) -> None:
    source = "See [`Trainer`][guide] and [`Trainer`][ Guide ].\n\n[guide]: https://example.org/g\n"
    assert render(api, source) == (source, [])


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("[`Trainer`]", ApiLink("Trainer", "Trainer")),
        ("[`Trainer`]:", ApiLink("Trainer", "Trainer")),
        ("[`Trainer`] (x)", ApiLink("Trainer", "Trainer")),  # a space before "(": doc-builder converts it too
        ("[`Trainer`](x)", None),
        ("[`Trainer`][ref]", None),  # 'ref' is defined
        ("[`Trainer`][REF ]", None),  # labels match without case and extra spaces
        ("[`Trainer`][other]", ApiLink("Trainer", "Trainer")),
        ("[`Trainer.train()`]", ApiLink("Trainer.train()", "Trainer.train")),
        ("[`f(x)`]", ApiLink("f(x)", None)),
        ("[` a `]", ApiLink(" a ", None)),
        ("[``Trainer``]", None),
        ("\\[`Trainer`]", None),
    ],
)
def test_what_is_an_api_link(raw: str, expected: ApiLink | None) -> None:
    start = raw.index("`")
    end = raw.rindex("`") + 1
    assert api_link(raw, start, end, frozenset({"ref"})) == expected


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("sources[[1](https://a)][[2](https://b)]", [7]),  # two links in brackets: Python-Markdown saw id '[2'
        ("[1][[2](https://b)]", [0]),
        ("[a][b], [a] [b] and [a][]", [0, 8, 20]),
        ("[a]\n[b]", [0]),  # one line break between is one space to Python-Markdown
        ("[a]  [b]", []),  # two spaces are not
        ("[a][ref] and [REF][]", []),  # defined: a reference link
        ("[x][transformers.Trainer]", []),  # an API entry's id: a cross-reference
        ("![a][b]", []),  # an image: no cross-reference
        ("`[a][b]` and \\[a][b]", []),  # code; an escaped bracket: text already
        ("[a][b", []),  # never closed
        ("[link](https://a)[b]", []),
    ],
)
def test_brackets_python_markdown_would_misread(raw: str, escaped: list[int]) -> None:
    found = md.scan_inline(raw)
    skip = [*found.literal, *found.opaque]
    assert misread_brackets(raw, skip, frozenset({"ref"}), {"transformers.Trainer"}) == escaped


def test_bracketed_links_render_as_commonmark_reads_them(api: ApiIndex) -> None:
    source = "As noted in sources[[1](https://example.org/a)][[2](https://example.org/b)], scale it.\n"
    assert render(api, source) == (
        "As noted in sources\\[[1](https://example.org/a)][[2](https://example.org/b)], scale it.\n",
        [],
    )


def test_unknown_name_is_an_error_at_its_backtick_with_did_you_mean(api: ApiIndex) -> None:
    text, problems = render(api, "# Page\n\nTrain with\nthe [`Trainr`] and [`~Trainer.trian`].\n")
    assert problems == [
        "docs/guide.md:4:6: error: API link [`Trainr`]: 'Trainr' is not an object of transformers, peft or "
        "accelerate [unknown-api-name] (did you mean 'Trainer'?)",
        "docs/guide.md:4:21: error: API link [`~Trainer.trian`]: 'Trainer.trian' is not an object of transformers, "
        "peft or accelerate [unknown-api-name] (did you mean 'Trainer.train'?)",
    ]
    assert text == "# Page\n\nTrain with\nthe `Trainr` and `trian`.\n"  # never the brackets


def test_unknown_name_without_a_close_match(api: ApiIndex) -> None:
    assert render(api, "[`Xyzzy`]\n")[1] == [
        "docs/guide.md:1:2: error: API link [`Xyzzy`]: 'Xyzzy' is not an object of transformers, "
        "peft or accelerate [unknown-api-name] (write it as `code` if it is not an API name)"
    ]


def test_a_misspelled_library_is_not_another_library(api: ApiIndex) -> None:
    assert render(api, "[`peftt.LoraConfig`] and [`utils.NoSuchHelper`]\n")[1] == [
        "docs/guide.md:1:2: error: API link [`peftt.LoraConfig`]: 'peftt.LoraConfig' is not an object of "
        "transformers, peft or accelerate [unknown-api-name] (did you mean 'peft.LoraConfig'?)",
        "docs/guide.md:1:27: error: API link [`utils.NoSuchHelper`]: 'utils.NoSuchHelper' is not an object of "
        "transformers, peft or accelerate [unknown-api-name] (write it as `code` if it is not an API name)",
    ]


def test_autodoc_of_an_unknown_object(api: ApiIndex) -> None:
    text, problems = render(api, "# Page\n\n[[autodoc]] Trainr\n")
    assert problems == [
        "docs/guide.md:3:13: error: [[autodoc]] Trainr: no such object in transformers, peft or accelerate "
        "[unknown-api-object] (did you mean 'Trainer'?)"
    ]
    assert ":::" not in text and "Left out here" in text


def test_autodoc_of_an_unknown_member_is_reported_at_its_line(api: ApiIndex) -> None:
    text, problems = render(api, "[[autodoc]] GenerationConfig\n    - to_dict\n    - to_dcit\n")
    assert problems == [
        "docs/guide.md:3:7: error: [[autodoc]] GenerationConfig: transformers.GenerationConfig has no member "
        "'to_dcit' [unknown-api-member] (did you mean 'to_dict'?)"
    ]
    assert ":::" not in text


def test_an_object_documented_twice(api: ApiIndex) -> None:
    """A pasted reference page that documents an object the site's API section has: the hint says where the
    entry is, and that links go there."""
    assert render(api, "[[autodoc]] transformers.trainer.Trainer\n")[1] == [
        "docs/guide.md:1:13: error: transformers.Trainer is already documented at docs/api/entries.md:3 "
        "[duplicate-api-entry] ([`Trainer`] links go to that entry on api/entries.md: delete this [[autodoc]] and "
        "link to it, or move the entry here)"
    ]


def test_entry_ids_are_the_shortest_public_path(api: ApiIndex) -> None:
    """doc-builder's ids: an object named by its module path gets the shortest path it is public at, so a
    link written against hf.co (``#peft.LoraModel.add_weighted_adapter``) finds it."""
    entry = api.entries["peft.tuners.lora.model.LoraModel"]
    assert entry.identifier == "peft.LoraModel"
    assert entry.anchors == {
        "peft.tuners.lora.model.LoraModel": "peft.LoraModel",
        "peft.tuners.lora.model.LoraModel.add_weighted_adapter": "peft.LoraModel.add_weighted_adapter",
    }


@pytest.mark.parametrize(
    ("written", "public"),
    [
        ("tuners.lora.model.LoraModel", "peft.LoraModel"),
        ("transformers.trainer.Trainer", "transformers.Trainer"),
        ("quantizers.base.HfQuantizer", "transformers.quantizers.HfQuantizer"),  # not at the top: its package
        ("BertForMaskedLM", "transformers.BertForMaskedLM"),  # through transformers' wildcard imports
        ("Mxfp4Config", "transformers.Mxfp4Config"),  # exported lazily
    ],
)
def test_public_paths_are_doc_builders(api: ApiIndex, written: str, public: str) -> None:
    found = api._find(written)
    assert found is not None and found[1] is not None
    assert api.public_path(found[1]) == public


def test_a_lazily_exported_name_is_found_and_given_to_mkdocstrings(api: ApiIndex) -> None:
    """transformers exports Mxfp4Config through ``_import_structure`` only (not under TYPE_CHECKING, which griffe
    reads): the index finds it there, and the subset's ``__init__`` imports it, so mkdocstrings finds it too."""
    entry = api.entries["transformers.utils.quantization_config.Mxfp4Config"]
    assert entry.identifier == "transformers.Mxfp4Config"
    assert api.subset is not None
    init = (api.subset / "transformers" / "__init__.py").read_text()
    assert init.endswith(
        "\n\n# perfdocs: names the package exports at run time that a static reader does not see\n"
        "from transformers.utils.quantization_config import Mxfp4Config as Mxfp4Config\n"
    )
    assert not api.refused


def test_an_entry_mkdocstrings_cannot_collect_is_an_error_at_its_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without that import mkdocstrings cannot collect it, and would abort the build on the page: the build
    collects every entry first, and the [[autodoc]] line gets the error instead."""
    monkeypatch.setattr(apirefs, "exported_imports", lambda exported: "")
    page = "# Q\n\n[[autodoc]] Mxfp4Config\n"
    index = build_index(ApiConfig(ROOT, NAMESPACES), [("guide.md", "docs/guide.md", page)])
    assert not index.entries
    text, problems = render(index, page)
    assert problems == [
        "docs/guide.md:3:13: error: [[autodoc]] transformers.Mxfp4Config: mkdocstrings cannot collect it from the "
        "library's source ('Mxfp4Config') [unknown-api-object] (the object exists at run time only; link to it "
        "instead of documenting it here)"
    ]
    assert ":::" not in text and "Left out here" in text
    assert render(index, "See [`Mxfp4Config`].\n") == ("See `Mxfp4Config`.\n", [])


def test_an_entry_the_prescan_did_not_read(api: ApiIndex) -> None:
    """A valid [[autodoc]] that no page had when the build started (a theory snippet): its modules are not in
    the subset mkdocstrings reads, so it is refused instead of failing the whole build later."""
    assert render(api, "[[autodoc]] GenerationConfig\n")[1] == [
        "docs/guide.md:1:13: error: [[autodoc]] GenerationConfig: only the [[autodoc]] lines of pages make entries "
        "(this one is in a theory snippet, or in a page the build did not read first) [bad-marker] (move it to a "
        "page under docs/)"
    ]


def test_autodoc_without_the_mkdocstrings_plugin() -> None:
    assert render(None, "[[autodoc]] Trainer\n")[1] == [
        "docs/guide.md:1:13: error: [[autodoc]] needs the API reference: enable the mkdocstrings plugin in "
        "mkdocs.yml [bad-marker]"
    ]


# -- [[autodoc]] output ----------------------------------------------------------------------------------------
def test_autodoc_renders_the_registered_entry(api: ApiIndex) -> None:
    text, problems = render(api, ENTRIES, "api/entries.md")
    assert problems == []
    assert text == (
        "# Entries\n\n"
        "::: transformers.Trainer\n    options:\n      members:\n        - train\n        - evaluate\n\n"
        "::: transformers.TrainingArguments\n\n"
        "::: peft.LoraConfig\n\n"
        "::: accelerate.Accelerator\n    options:\n      members:\n        - prepare\n\n"
        "::: peft.LoraModel\n    options:\n      members:\n        - add_weighted_adapter\n\n"
        "::: transformers.Mxfp4Config\n"
    )


def test_prescan_reads_member_lines_as_the_dialect_does() -> None:
    text = "# T\n\n[[autodoc]] Trainer\n    - train\n\n[[autodoc]] Accelerator\n\n    - prepare\n    - backward\n\n```\n[[autodoc]] InCode\n```\n"
    assert [(b.line, b.col, b.name, b.members) for b in autodoc_blocks(text)] == [
        (3, 1, "Trainer", ("train",)),
        (6, 1, "Accelerator", ("prepare", "backward")),
    ]


# -- docstrings --------------------------------------------------------------------------------------------------
def test_docstrings_lose_doc_builder_leftovers(api: ApiIndex) -> None:
    docstring = (
        "Runs it.\n\n"
        "Args:\n"
        "    model ([`PreTrainedModel`] or `torch.nn.Module`, *optional*):\n"
        "        The model; see [callbacks](callback) and [the hub](https://huggingface.co).\n"
        "        Calls [`~Trainer.train`], [`Trainr`] and <namespace>/<repo>[@<revision>][:<kernel>].\n"
        "        Also [`Trainer.train()`] and [`from_pretrained(path)`].\n\n"
        "        <Tip>\n\n"
        "          Works with [`Trainer`].\n\n"
        "        </Tip>\n\n"
        "    args (`TrainingArguments`): On the head's line.\n"
        "    name: In the form <namespace>/<kernel>, with <b>HTML</b> kept.\n\n"
        "<Tip warning={true}>\n"
        "Slow.\n"
        "</Tip>\n\n"
        "<Tip>never closed\n\n"
        "```py\n"
        "x = [`Trainer`]  # [not] touched\n"
        "<Tip>\n"
        "```\n"
        "</Tip>\n"
    )
    assert docstring_markdown(docstring, api, "transformers") == (
        "Runs it.\n\n"
        "Args:\n"
        "    model (PreTrainedModel or torch.nn.Module):\n"
        "        The model; see callbacks and [the hub](https://huggingface.co).\n"
        "        Calls [`train()`][transformers.Trainer.train], `Trainr` and &lt;namespace>/&lt;repo>\\[@&lt;revision>]\\[:&lt;kernel>].\n"
        "        Also [`Trainer.train()`][transformers.Trainer.train] and `from_pretrained(path)`.\n\n"
        "        !!! tip\n\n"
        "            Works with [`Trainer`][transformers.Trainer].\n\n"
        "    args (TrainingArguments): On the head's line.\n"
        "    name: In the form &lt;namespace>/&lt;kernel>, with <b>HTML</b> kept.\n\n"
        "!!! warning\n\n"
        "    Slow.\n\n"
        "&lt;Tip>never closed\n\n"
        "```py\n"
        "x = [`Trainer`]  # [not] touched\n"
        "<Tip>\n"
        "```\n"
        "&lt;/Tip>\n"
    )


# -- sources ---------------------------------------------------------------------------------------------------
def test_a_library_neither_installed_nor_pinned(tmp_path: Path) -> None:
    found, problems = library_sources(ApiConfig(tmp_path, ("perfdocs_no_such_library",)))
    assert found == {}
    assert [str(p) for p in problems] == [
        "mkdocs.yml:1:1: error: the API reference needs the sources of perfdocs_no_such_library: it is not installed "
        "and the recipes extra does not pin it [api-sources] (pin it in pyproject.toml (recipes = "
        '["perfdocs_no_such_library==..."]) or pip install it)'
    ]


def test_a_pinned_library_that_cannot_be_fetched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\nversion = "0"\n[project.optional-dependencies]\nrecipes = ["nolib==1.2.3"]\n'
    )
    calls = []

    def pip(command: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        calls.append(command[3:])
        return subprocess.CompletedProcess(command, 1, "", "ERROR: No matching distribution found for nolib==1.2.3\n")

    monkeypatch.setattr(apisources.subprocess, "run", pip)
    found, problems = library_sources(ApiConfig(tmp_path, ("nolib",)))
    assert calls and calls[0][:3] == ["install", "--quiet", "--no-deps"] and calls[0][-1] == "nolib==1.2.3"
    assert (found, [str(p) for p in problems]) == (
        {},
        [
            "mkdocs.yml:1:1: error: cannot fetch the sources of nolib==1.2.3 into the API sources cache "
            ".cache/perfdocs/api-sources/nolib-1.2.3: ERROR: No matching distribution found for nolib==1.2.3 "
            "[api-sources] (pip install --no-deps nolib==1.2.3 (the build reads its files; nothing imports it); "
            "until then the API entries and links of nolib are left out)"
        ],
    )
    assert not (tmp_path / apisources.SOURCES_DIR / "nolib-1.2.3").exists()
    assert list((tmp_path / apisources.SOURCES_DIR).iterdir()) == []  # nor the folder pip was given


def test_the_pinned_installed_sources_are_used_and_nothing_is_imported(api: ApiIndex) -> None:
    import sys

    for name in NAMESPACES:
        assert api.libraries[name].source.root.is_dir()
    # reading three libraries must not have imported them (accelerate and peft import torch)
    probe = "import sys; from perfdocs.apirefs import *; print('torch' in sys.modules, 'peft' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_api_config_reads_the_plugin() -> None:
    handler = {"options": {"preload_modules": ["transformers", "peft"]}}
    plugin = SimpleNamespace(config={"handlers": {"python": handler}})
    config = SimpleNamespace(get=lambda key: {"mkdocstrings": plugin} if key == "plugins" else None)
    config.config_file_path = str(ROOT / "mkdocs.yml")  # type: ignore[attr-defined]
    settings = mkdocs_adapter.api_config(config)
    assert settings is not None and settings.namespaces == ("transformers", "peft") and settings.root == ROOT
    assert settings.handler is handler  # the build sets its paths to the module subset
    empty = SimpleNamespace(get=lambda key: {} if key == "plugins" else None, config_file_path="mkdocs.yml")
    assert mkdocs_adapter.api_config(empty) is None


def test_mkdocstrings_reads_the_module_subset() -> None:
    """mkdocstrings makes its handler in its own on_config, before the hooks: the handler it made must search
    the subset first, or it would read all of transformers (about 50 s) from the installed package."""
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"))
    config = config.plugins.on_config(config)
    settings = mkdocs_adapter.api_config(config)
    assert settings is not None
    index = build_index(settings, [("api/x.md", "docs/api/x.md", "[[autodoc]] Mxfp4Config\n")])
    handler = config.plugins["mkdocstrings"].handlers.get_handler("python")
    assert index.subset is not None and handler._paths[0] == str(index.subset)
    assert sorted(p.name for p in index.subset.iterdir()) == ["accelerate", "peft", "transformers"]
    # the entries were collected by this handler, from the subset: the pages reuse what it loaded
    assert index.entries and not index.refused
    assert handler._modules_collection["transformers.Mxfp4Config"].filepath.is_relative_to(index.subset)


def test_a_refused_entry_leaves_mkdocstrings_nothing_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    """The handler read the docstrings while every entry was in the index; once one is refused, it forgets
    them, so the pages read them again with links to that entry as code (not as unresolved cross-references)."""
    from mkdocs.config import load_config

    monkeypatch.setattr(apirefs, "exported_imports", lambda exported: "")
    config = load_config(str(ROOT / "mkdocs.yml"))
    config = config.plugins.on_config(config)
    settings = mkdocs_adapter.api_config(config)
    assert settings is not None
    pages = [("api/x.md", "docs/api/x.md", "[[autodoc]] Mxfp4Config\n\n[[autodoc]] Trainer\n")]
    index = build_index(settings, pages)
    assert [entry.identifier for entry in index.entries.values()] == ["transformers.Trainer"]
    assert list(index.refused) == [("docs/api/x.md", 1)]
    handler = config.plugins["mkdocstrings"].handlers.get_handler("python")
    assert "transformers" not in handler._modules_collection


# -- the index knows the ids mkdocstrings writes ---------------------------------------------------------------
@pytest.mark.slow
def test_entries_render_with_exactly_the_ids_the_index_links_to(tmp_path: Path) -> None:
    """The module subset is enough for mkdocstrings, and every id a link may target is on the page (and no
    member id is missing from the index), for the API pages of the guide."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from selectolax.lexbor import LexborHTMLParser

    docs = ROOT / "docs"
    pages = [
        (p.relative_to(docs).as_posix(), p.as_posix(), p.read_text("utf-8"))
        for p in (docs / "performance" / "api").glob("*.md")
    ]
    inherited = "[[autodoc]] peft.LoraConfig\n    - save_pretrained\n"  # PeftConfigMixin's method
    # named by its module path (the id is the public path); exported lazily (mkdocstrings needs the subset's import)
    public = (
        "[[autodoc]] tuners.lora.model.LoraModel\n    - add_weighted_adapter\n\n[[autodoc]] Mxfp4Config\n\n"
        "[[autodoc]] quantizers.base.HfQuantizer\n    - validate_environment\n\n"
        "[[autodoc]] BertForMaskedLM\n    - forward\n"
    )
    pages = [p for p in pages if "peft" not in p[0]] + [
        ("api/inherited.md", "docs/api/inherited.md", inherited),
        ("api/public.md", "docs/api/public.md", public),
    ]
    settings = ApiConfig(ROOT, NAMESPACES, {})
    index = build_index(settings, pages)
    assert index.entries and not index.problems
    assert index.entries["peft.tuners.lora.config.LoraConfig"].inherited == ("save_pretrained",)
    public = {"peft.LoraModel", "transformers.Mxfp4Config", "transformers.quantizers.HfQuantizer"}
    assert public | {"transformers.BertForMaskedLM"} <= {e.identifier for e in index.entries.values()}
    (tmp_path / "docs").mkdir()
    body = "\n\n".join("\n".join(index.autodoc_lines(e)) for e in index.entries.values())
    (tmp_path / "docs" / "index.md").write_text(f"# API\n\n{body}\n")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: api\ntheme:\n  name: material\nmarkdown_extensions: [admonition, toc, pymdownx.superfences]"
        + "\nplugins:\n  - mkdocstrings:\n      handlers:\n        python:\n          paths: ["
        + str(index.subset)
        + "]\n"
        + _handler_options()
    )
    config = load_config(str(tmp_path / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    build(config)
    page = LexborHTMLParser((tmp_path / "site" / "index.html").read_text())
    ids = {n.attributes.get("id") for n in page.css("[id]")}
    for entry in index.entries.values():
        linked = set(entry.anchors.values())
        assert linked <= ids, f"{entry.identifier}: no id for {sorted(linked - ids)}"
        depth = entry.identifier.count(".") + 1
        members = {
            i for i in ids if i and i.startswith(entry.identifier + ".") and i.count(".") == depth and "--" not in i
        }
        assert members <= linked, f"{entry.identifier}: the index does not know {sorted(members - linked)}"


def _handler_options() -> str:
    """The Python handler's options of the site's mkdocs.yml, indented for the test site."""
    text = (ROOT / "mkdocs.yml").read_text()
    block = text.split("        python:\n", 1)[1]
    lines = []
    for line in block.split("\n"):
        if line.strip() and not line.startswith("          "):
            break
        lines.append(line)
    return "\n".join(lines) + "\n"


def test_docstring_alerts_become_admonitions() -> None:
    text = "Args:\n    steps (`int`):\n        How many.\n        > [!TIP]\n        > One step is one backward pass.\n        > Really.\n    rate (`float`):\n        > A quote stays a quote."
    assert docstring_markdown(text, None) == (
        "Args:\n    steps (int):\n        How many.\n        !!! tip\n\n            One step is one backward pass.\n"
        "            Really.\n\n    rate (float):\n        > A quote stays a quote."
    )


def test_docstring_lists_indented_under_their_text_stay_lists() -> None:
    text = (
        'Args:\n    strategy (`str`):\n        Possible values are:\n\n            - `"no"`: never.\n'
        '              Really never.\n            - `"steps"`: every steps.\n\n        After.\n'
        "\n    Example:\n\n        ```py\n            - not a list: code\n        ```"
    )
    assert docstring_markdown(text, None) == (
        'Args:\n    strategy (str):\n        Possible values are:\n\n        - `"no"`: never.\n          Really never.\n'
        '        - `"steps"`: every steps.\n\n        After.\n\n    Example:\n\n        ```py\n'
        "            - not a list: code\n        ```"
    )


# -- signatures: formatted the same with the README's install as in CI --------------------------------------------
def test_ruff_is_installed_with_the_readme_install() -> None:
    """mkdocstrings-python lays out long signatures with Ruff or Black, and without either prints each on one line:
    Ruff is a base dependency, so `pip install -e .` (README) renders the signatures as the deploy job does."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(d.split(">")[0].split("=")[0].strip() == "ruff" for d in project["dependencies"])
    assert apirefs.signature_formatter() in ("ruff", "black")


def _no_formatter(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    for module in ("black", "ruff", "ruff.__main__"):
        monkeypatch.setitem(sys.modules, module, None)  # an import of it fails
    monkeypatch.setattr(apirefs.shutil, "which", lambda name: None)


def test_without_a_signature_formatter_mkdocstrings_prints_signatures_unformatted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What signature_formatter mirrors: mkdocstrings' own choice of a formatter, with Ruff and without."""
    from mkdocstrings_handlers.python._internal import rendering

    code = "def x(first_argument=1, second_argument=2, third_argument=3): pass"
    rendering._get_formatter.cache_clear()
    try:
        assert rendering._get_formatter()(code, 40) != code  # formatted over lines
        _no_formatter(monkeypatch)
        rendering._get_formatter.cache_clear()
        assert apirefs.signature_formatter() is None
        assert rendering._get_formatter()(code, 40) == code  # one line: the page would differ from CI's
    finally:
        monkeypatch.undo()
        rendering._get_formatter.cache_clear()


def test_without_a_signature_formatter_the_build_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_formatter(monkeypatch)
    index = build_index(ApiConfig(ROOT, NAMESPACES, {"options": {"separate_signature": True}}), [])
    lines = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\n")
    line = next(i for i, x in enumerate(lines, 1) if x.strip() == "separate_signature: true")
    assert [str(p) for p in index.problems] == [
        f"mkdocs.yml:{line}:13: error: the API signatures cannot be formatted: mkdocstrings-python lays them out with "
        "Ruff (one of perfdocs' dependencies) or Black, and neither is installed, so every signature would be one "
        "line, not what the published site shows [api-signatures] (pip install -e . (it installs ruff; the deploy "
        'job installs ".[test]", which has it too))'
    ]
    assert apirefs.signature_problems(ApiConfig(ROOT, NAMESPACES, {"options": {"separate_signature": False}})) == []


def test_an_entry_replacing_a_heading_takes_its_level(api: ApiIndex) -> None:
    entry = api.entries["transformers.trainer.Trainer"]
    assert api.autodoc_lines(entry, heading_level=2) == [
        "::: transformers.Trainer",
        "    options:",
        "      heading_level: 2",
        "      members:",
        "        - train",
        "        - evaluate",
    ]
    assert api.autodoc_lines(api.entries["peft.tuners.lora.config.LoraConfig"], heading_level=4) == [
        "::: peft.LoraConfig",
        "    options:",
        "      heading_level: 4",
    ]


def test_a_heading_that_names_the_entry_is_replaced_by_the_entrys_own() -> None:
    # doc-builder gives such a heading the object's id and adds none: one heading, one contents entry
    page = (
        "# More entries\n\n### `GenerationConfig`\n\n[[autodoc]] GenerationConfig\n\n"
        "## Models[[models]]\n\n[[autodoc]] PeftModel\n\n### LoraConfig[[own-id]]\n\n"
        "[[autodoc]] LoraConfig\n"
    )
    index = build_index(ApiConfig(ROOT, NAMESPACES), [("api/more.md", "docs/api/more.md", page)])
    text, problems = render(index, page, "api/more.md")
    assert problems == []
    assert text == (
        "# More entries\n\n"
        "::: transformers.GenerationConfig\n    options:\n      heading_level: 3\n\n"
        "## Models { #models }\n\n"  # a section heading stays
        "::: peft.PeftModel\n\n"
        "### LoraConfig { #own-id }\n\n"  # a heading with its own id stays: links may use it
        "::: peft.LoraConfig\n"
    )


def test_two_autodoc_lines_without_a_blank_line_are_two_entries() -> None:
    # doc-builder reads each [[autodoc]] line on its own (a real peft page writes them that way)
    page = "# Two\n\n[[autodoc]] PeftModel\n[[autodoc]] LoraConfig\n    - to_dict\n"
    index = build_index(ApiConfig(ROOT, NAMESPACES), [("api/two.md", "docs/api/two.md", page)])
    assert [(e.line, e.name, e.members) for e in autodoc_blocks(page)] == [
        (3, "PeftModel", ()),
        (4, "LoraConfig", ("to_dict",)),
    ]
    text, problems = render(index, page, "api/two.md")
    assert problems == []
    assert text == "# Two\n\n::: peft.PeftModel\n\n::: peft.LoraConfig\n    options:\n      members:\n        - to_dict\n"
