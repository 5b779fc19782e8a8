"""The names the guide assumes a reader already has, built on CPU from the tiny stand-ins.

Blocks that run, and fragments, may use these without defining them; anything else must be defined or
imported in the block (or in the blocks it continues from). Keep this list short and explicit.
"""

from __future__ import annotations

from typing import Any

from .tiny import SENTENCES, tiny_dataset, tiny_tokenizer

PRELUDE_MODEL = "meta-llama/Llama-3.1-8B"
PRELUDE_NAMES = (
    "model_id",  # a hub id ("meta-llama/Llama-3.1-8B", a tiny Llama here)
    "model",  # AutoModelForCausalLM.from_pretrained(model_id), fp32, on CPU
    "tokenizer",  # its tokenizer, pad_token = eos_token
    "train_ds",  # a tokenized dataset: input_ids, attention_mask, labels (EOS appended)
    "collator",  # DataCollatorForSeq2Seq(tokenizer): pads labels with -100, keeps the EOS labels
    "dataloader",  # DataLoader(train_ds, batch_size=4, shuffle=True, collate_fn=collator)
    "loader",  # the same DataLoader under the name the distributed recipes use
    "optimizer",  # torch.optim.AdamW(model.parameters(), lr=2e-5)
    "scheduler",  # a constant learning-rate scheduler on that optimizer
    "train_step",  # train_step(batch): forward, backward, optimizer step
)


def tokenized(tokenizer: Any) -> Any:
    def encode(batch: dict[str, list[str]]) -> dict[str, Any]:
        out = tokenizer([t + tokenizer.eos_token for t in batch["text"]], truncation=True, max_length=64)
        out["labels"] = [list(ids) for ids in out["input_ids"]]
        return out

    raw = tiny_dataset("train")
    return raw.map(encode, batched=True, remove_columns=raw.column_names)


def build_prelude() -> dict[str, Any]:
    """A fresh namespace with every name of ``PRELUDE_NAMES`` (call inside ``patched_hub``)."""
    import torch
    from torch.utils.data import DataLoader
    from transformers import AutoModelForCausalLM, DataCollatorForSeq2Seq

    tokenizer = tiny_tokenizer("decoder")
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(PRELUDE_MODEL, dtype=torch.float32)
    model.train()
    train_ds = tokenized(tokenizer)
    collator = DataCollatorForSeq2Seq(tokenizer)
    torch.manual_seed(0)
    dataloader = DataLoader(train_ds, batch_size=4, shuffle=True, collate_fn=collator)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda _: 1.0)

    def train_step(batch: dict[str, Any]) -> Any:
        loss = model(**batch).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss

    names = {
        "model_id": PRELUDE_MODEL,
        "model": model,
        "tokenizer": tokenizer,
        "train_ds": train_ds,
        "collator": collator,
        "dataloader": dataloader,
        "loader": dataloader,
        "optimizer": optimizer,
        "scheduler": scheduler,
        "train_step": train_step,
    }
    assert tuple(names) == PRELUDE_NAMES
    return names


__all__ = ["PRELUDE_NAMES", "SENTENCES", "build_prelude", "tokenized"]
