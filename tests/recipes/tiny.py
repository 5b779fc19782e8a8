"""Tiny random-weight stand-ins for the hub models the guide names, and a small tokenizer made here.

The hub is unreachable in CI: ``patched_hub()`` replaces ``from_pretrained`` of the Auto classes, of every
model, config and tokenizer class, and ``datasets.load_dataset``, so that a recipe naming a hub id gets a model
of the same architecture built from a small config (seeded, so every run trains the same weights), the
tokenizer below and a small in-memory dataset. Local directories (a checkpoint the recipe saved itself) load
for real. An id missing from ``MODELS`` fails with the line to add here.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

SENTENCES = [
    "the model learns to stop at the end of every answer",
    "gradient checkpointing trades compute for memory",
    "mixed precision halves the size of activations",
    "a larger batch keeps the tensor cores busy",
    "the optimizer state lives next to the weights",
    "sharding splits the model states across devices",
    "the data loader must never starve the device",
    "low rank adapters train a small fraction of the weights",
]
VOCAB_SIZE = 256
DECODER = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4}
ENCODER = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4}


def _llama(**kw: Any) -> Any:
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=VOCAB_SIZE, num_key_value_heads=2, bos_token_id=1, eos_token_id=2, **DECODER, **kw)


def _mistral(**kw: Any) -> Any:
    from transformers import MistralConfig

    return MistralConfig(vocab_size=VOCAB_SIZE, num_key_value_heads=2, bos_token_id=1, eos_token_id=2, **DECODER, **kw)


def _qwen2(**kw: Any) -> Any:
    from transformers import Qwen2Config

    return Qwen2Config(vocab_size=VOCAB_SIZE, num_key_value_heads=2, bos_token_id=1, eos_token_id=2, **DECODER, **kw)


def _gpt2(**kw: Any) -> Any:
    from transformers import GPT2Config

    return GPT2Config(vocab_size=VOCAB_SIZE, n_embd=64, n_layer=2, n_head=4, bos_token_id=1, eos_token_id=2, **kw)


def _bert(**kw: Any) -> Any:
    from transformers import BertConfig

    return BertConfig(vocab_size=VOCAB_SIZE, pad_token_id=0, **ENCODER, **kw)


def _distilbert(**kw: Any) -> Any:
    from transformers import DistilBertConfig

    return DistilBertConfig(vocab_size=VOCAB_SIZE, dim=64, hidden_dim=128, n_layers=2, n_heads=4, pad_token_id=0, **kw)


# hub id -> (config factory, tokenizer style). Architectures as on the hub; sizes tiny.
MODELS: dict[str, tuple[Callable[..., Any], str]] = {
    "meta-llama/Llama-3.1-8B": (_llama, "decoder"),
    "meta-llama/Llama-3.1-8B-Instruct": (_llama, "decoder"),
    "meta-llama/Llama-3.1-70B": (_llama, "decoder"),
    "meta-llama/Llama-3.1-70B-Instruct": (_llama, "decoder"),
    "mistralai/Mistral-7B-v0.3": (_mistral, "decoder"),
    "Qwen/Qwen2.5-0.5B": (_qwen2, "decoder"),
    "Qwen/Qwen2.5-1.5B": (_qwen2, "decoder"),
    "Qwen/Qwen2.5-1.5B-Instruct": (_qwen2, "decoder"),
    "Qwen/Qwen2.5-0.5B-Instruct": (_qwen2, "decoder"),
    # the open models the guide offers for its gated ones (extra.perfdocs.gated_models in mkdocs.yml)
    "Qwen/Qwen2.5-7B": (_qwen2, "decoder"),
    "Qwen/Qwen2.5-7B-Instruct": (_qwen2, "decoder"),
    "Qwen/Qwen2.5-72B": (_qwen2, "decoder"),
    "Qwen/Qwen2.5-72B-Instruct": (_qwen2, "decoder"),
    "meta-llama/Llama-3.2-1B-Instruct": (_llama, "decoder"),
    "openai-community/gpt2": (_gpt2, "decoder"),
    "google-bert/bert-base-uncased": (_bert, "encoder"),
    "BAAI/bge-base-en-v1.5": (_bert, "encoder"),
    "distilbert/distilbert-base-uncased-finetuned-sst-2-english": (_distilbert, "encoder"),
}
CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}{{ eos_token }}{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def unknown_model(model_id: str) -> KeyError:
    return KeyError(
        f"recipe names hub model {model_id!r}, which has no tiny stand-in: add it to MODELS in tests/recipes/tiny.py"
    )


def tiny_config(model_id: str, **overrides: Any) -> Any:
    if model_id not in MODELS:
        raise unknown_model(model_id)
    return MODELS[model_id][0](**overrides)


@cache
def _trained_tokenizer(style: str) -> Any:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers

    if style == "decoder":  # Llama / Mistral style: BOS prepended, no EOS appended, no pad token
        specials = ["<unk>", "<s>", "</s>", "<|user|>", "<|assistant|>", "<|system|>"]
        unk = "<unk>"
    else:  # BERT style: [CLS] text [SEP], a real pad token
        specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        unk = "[UNK]"
    tok = Tokenizer(models.WordPiece(unk_token=unk) if style == "encoder" else models.BPE(unk_token=unk))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer_cls = trainers.WordPieceTrainer if style == "encoder" else trainers.BpeTrainer
    tok.train_from_iterator(SENTENCES * 4, trainer_cls(vocab_size=VOCAB_SIZE, special_tokens=specials))
    if style == "decoder":
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", tok.token_to_id("<s>"))]
        )
    else:
        cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
        )
    return tok


# from_pretrained keyword arguments that configure the tokenizer a recipe gets (left padding for batched generation)
TOKENIZER_SETTINGS = frozenset({"padding_side", "truncation_side", "model_max_length", "pad_token", "eos_token"})


def tiny_tokenizer(style: str = "decoder") -> Any:
    """A fresh PreTrainedTokenizerFast over the trained vocabulary (fresh: recipes set pad_token on it)."""
    from transformers import PreTrainedTokenizerFast

    tok = _trained_tokenizer(style)
    if style == "decoder":
        return PreTrainedTokenizerFast(
            tokenizer_object=tok.__class__.from_str(tok.to_str()),
            bos_token="<s>",
            eos_token="</s>",
            unk_token="<unk>",
            chat_template=CHAT_TEMPLATE,
        )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok.__class__.from_str(tok.to_str()),
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )


def tiny_dataset(split: str | None = "train", n: int = 32) -> Any:
    """``load_dataset(...)``'s stand-in: a text column (and labels, for classification recipes)."""
    from datasets import Dataset, DatasetDict

    rows = [SENTENCES[i % len(SENTENCES)] for i in range(n)]
    data = Dataset.from_dict({"text": rows, "label": [i % 2 for i in range(n)]})
    return data if split else DatasetDict({"train": data, "test": data.select(range(8))})


def _is_local(name: Any) -> bool:
    return isinstance(name, (str, os.PathLike)) and os.path.isdir(name)


_CHECKPOINTS: dict[tuple[str, str], str] = {}
_CHECKPOINT_ROOT = tempfile.TemporaryDirectory(prefix="perfdocs-tiny-")


def tiny_checkpoint(model_id: str, cls: Any) -> str:
    """A directory holding a seeded tiny model of ``cls`` for ``model_id`` (saved once per session), so that
    the real ``from_pretrained`` loads it with all of the recipe's arguments: dtype, attention
    implementation, quantization config, device map."""
    import torch

    key = (model_id, cls.__name__)
    if key not in _CHECKPOINTS:
        torch.manual_seed(0)
        config = tiny_config(model_id)
        model = cls.from_config(config) if hasattr(cls, "from_config") and "Auto" in cls.__name__ else cls(config)
        path = os.path.join(_CHECKPOINT_ROOT.name, f"{len(_CHECKPOINTS)}-{cls.__name__}")
        model.save_pretrained(path)
        tiny_tokenizer(MODELS[model_id][1]).save_pretrained(path)
        _CHECKPOINTS[key] = path
    return _CHECKPOINTS[key]


@contextlib.contextmanager
def patched_hub(on_model: Callable[[Any], None] | None = None) -> Iterator[None]:
    """Hub ids -> tiny models, tokenizer and dataset, for the duration of the block; ``on_model`` sees each model."""
    import datasets
    from transformers import AutoConfig, PretrainedConfig, PreTrainedModel
    from transformers.models.auto.auto_factory import _BaseAutoModelClass
    from transformers.tokenization_utils_base import PreTrainedTokenizerBase

    real = {
        "auto_model": _BaseAutoModelClass.from_pretrained.__func__,  # type: ignore[attr-defined]  # same code in every Auto class
        "model": PreTrainedModel.from_pretrained.__func__,  # type: ignore[attr-defined]
        "config": PretrainedConfig.from_pretrained.__func__,  # type: ignore[attr-defined]
        "auto_config": AutoConfig.from_pretrained,
        "tokenizer": PreTrainedTokenizerBase.from_pretrained.__func__,  # type: ignore[attr-defined]
        "load_dataset": datasets.load_dataset,
    }
    from transformers import AutoTokenizer

    real["auto_tokenizer"] = AutoTokenizer.from_pretrained

    def build(cls: Any, name: Any, args: tuple[Any, ...], kwargs: dict[str, Any], auto: bool) -> Any:
        if not _is_local(name):
            if str(name) not in MODELS:
                raise unknown_model(str(name))
            name = tiny_checkpoint(str(name), cls)
        model = real["auto_model" if auto else "model"](cls, name, *args, **kwargs)
        if on_model is not None:  # an Auto class calls the concrete class's from_pretrained too: the recorder dedupes
            on_model(model)
        return model

    def auto_model(cls: Any, name: Any, *args: Any, **kwargs: Any) -> Any:
        return build(cls, name, args, kwargs, auto=True)

    def model(cls: Any, name: Any, *args: Any, **kwargs: Any) -> Any:
        return build(cls, name, args, kwargs, auto=False)

    def config(cls: Any, name: Any, *args: Any, **kwargs: Any) -> Any:
        if _is_local(name):
            return real["config"](cls, name, *args, **kwargs)
        return tiny_config(str(name))

    def auto_config(name: Any, *args: Any, **kwargs: Any) -> Any:
        if _is_local(name):
            return real["auto_config"](name, *args, **kwargs)
        return (tiny_config(str(name)), {}) if kwargs.get("return_unused_kwargs") else tiny_config(str(name))

    def tokenizer(name: Any, *args: Any, **kwargs: Any) -> Any:
        if _is_local(name):
            return real["auto_tokenizer"](name, *args, **kwargs)
        if name not in MODELS:
            raise unknown_model(str(name))
        made = tiny_tokenizer(MODELS[name][1])
        for key in TOKENIZER_SETTINGS & kwargs.keys():  # as the real loader hands them to the tokenizer
            setattr(made, key, kwargs[key])
        return made

    def tokenizer_cls(cls: Any, name: Any, *args: Any, **kwargs: Any) -> Any:
        if _is_local(name):
            return real["tokenizer"](cls, name, *args, **kwargs)
        return tokenizer(name)

    def load_dataset(path: Any, *args: Any, split: str | None = None, **kwargs: Any) -> Any:
        return tiny_dataset(split)

    from transformers.models.auto import modeling_auto

    auto_classes = [
        cls
        for cls in vars(modeling_auto).values()
        if isinstance(cls, type) and issubclass(cls, _BaseAutoModelClass) and "from_pretrained" in cls.__dict__
    ]
    patches = [
        *[(cls, "from_pretrained", classmethod(auto_model)) for cls in auto_classes],
        (PreTrainedModel, "from_pretrained", classmethod(model)),
        (PretrainedConfig, "from_pretrained", classmethod(config)),
        (AutoConfig, "from_pretrained", staticmethod(auto_config)),
        (AutoTokenizer, "from_pretrained", staticmethod(tokenizer)),
        (PreTrainedTokenizerBase, "from_pretrained", classmethod(tokenizer_cls)),
        (datasets, "load_dataset", load_dataset),
    ]
    saved = [(owner, name, owner.__dict__[name]) for owner, name, _ in patches]
    try:
        for owner, name, value in patches:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)
