"""The search's vocabulary: readers' spellings of one term, and the words that name a reader's situation.

hooks/perfdocs/search.py writes both into the search index; the site's search worker
(docs/assets/search-worker.js) applies them to what readers type. tests/test_search_index.py checks every entry.
"""

from __future__ import annotations

# Each entry is one term as readers and the guide spell it. A section that holds any of the spellings is found by
# every other one: "zero3" finds "ZeRO-3", "oom" finds "out of memory", and the reverse. Spellings are split into
# words the way the index splits text (on spaces, "-", "/", "." ...; never on "_"), so "zero-3" and "zero 3" are
# one spelling; case does not matter; words longer than two letters also match as prefixes ("tensor parallel"
# finds "tensor parallelism"). The first spelling, its words run together, is the word the index stores for the
# term: keep it a word no other entry uses. List readers' abbreviations and the guide's names of the same thing
# only: a related topic ("bf16" and "mixed precision") is not a synonym.
SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("oom", "out of memory", "out-of-memory", "OutOfMemoryError"),
    # "stage 3" alone: what DeepSpeed users say (its config's "stage": 3); the guide numbers no other stages
    ("zero3", "ZeRO-3", "ZeRO stage 3", "stage 3"),
    ("zero2", "ZeRO-2", "ZeRO stage 2", "stage 2"),
    ("zero1", "ZeRO-1", "ZeRO stage 1", "stage 1"),
    ("bf16", "bfloat16"),
    ("fp16", "float16"),
    ("fp32", "float32"),
    ("fp8", "float8"),
    ("tf32", "TensorFloat-32"),
    ("fa2", "FlashAttention-2", "FlashAttention2", "flash attention 2", "flash_attention_2"),
    ("fa3", "FlashAttention-3", "FlashAttention3", "flash attention 3", "flash_attention_3"),
    ("tp", "tensor parallel", "tensor-parallel", "tensor parallelism"),
    ("pp", "pipeline parallel", "pipeline-parallel", "pipeline parallelism"),
    ("ddp", "DistributedDataParallel", "distributed data parallel"),
    ("fsdp", "FullyShardedDataParallel", "fully sharded data parallel"),
    ("kvcache", "kv cache", "key-value cache", "key/value cache"),
    ("8bit", "8-bit"),
    ("4bit", "4-bit"),
    ("sdpa", "scaled_dot_product_attention", "scaled dot product attention", "scaled dot-product attention"),
    ("mfu", "model flops utilization"),
    ("moe", "mixture of experts", "mixture-of-experts"),
    ("gqa", "grouped-query attention", "grouped query attention"),
    ("gradientcheckpointing", "gradient checkpointing", "activation checkpointing", "gradient_checkpointing"),
)

# The reader's situation, as each page's `scenario` states it and as a query may name it ("... on cpu", "... for
# training"). Sections on pages of the situation a query names rank first; when a query names none, the reader's
# own page decides (of a shared explanation's copies, the one on that page or the nearest comes first).
# Each dimension maps its values to the words, or runs of words, that name them in a query.
FACETS: dict[str, dict[str, tuple[str, ...]]] = {
    "mode": {
        "train": (
            "training",
            "train",
            "fine-tune",
            "fine-tuning",
            "finetune",
            "finetuning",
            "fine tune",
            "fine tuning",
            "pretraining",
        ),
        "infer": ("inference", "infer", "serving", "serve"),
    },
    "hardware": {
        "cpu": ("cpu", "cpus"),
        "gpu-one": ("one gpu", "single gpu", "1 gpu", "single-gpu"),
        "gpu-many": (
            "multi gpu",
            "multi-gpu",
            "multigpu",
            "multiple gpus",
            "several gpus",
            "many gpus",
            "multi node",
            "multi-node",
            "multinode",
            "distributed",
        ),
    },
}

# Each page scenario (front matter `scenario:`, hooks/perfdocs/theory.py SCENARIOS) as facet values. A page
# without a scenario takes the values that every scenario page under its folder shares (performance/train/ is
# about training).
SCENARIO_FACETS: dict[str, dict[str, str]] = {
    "infer-cpu": {"mode": "infer", "hardware": "cpu"},
    "infer-gpu-one": {"mode": "infer", "hardware": "gpu-one"},
    "infer-gpu-many": {"mode": "infer", "hardware": "gpu-many"},
    "train-gpu-one": {"mode": "train", "hardware": "gpu-one"},
    "train-gpu-many": {"mode": "train", "hardware": "gpu-many"},
    "scalability": {"hardware": "gpu-many"},
    "overview": {},
}

__all__ = ["FACETS", "SCENARIO_FACETS", "SYNONYMS"]
