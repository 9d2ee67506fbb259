"""Training speed of notebook 10's tiny language model, and a ratio against a baseline timed in
the same process.

    python benchmarks/training_speed.py

The notebook's own code is used: its code cells are run here, up to the one that defines
``train_model`` (the exercises' stubs and checks, and text generation, are left out; what they
print is hidden). Then:

* ``training_s``, ``tokens_per_s``: ``train_model(new_model())``, the notebook's training (600
  steps of 32 windows of 16 words, on one thread with deterministic algorithms, attention
  snapshots included), timed once, as the notebook times it; the process's CPU time beside it.
* ``attnlib_over_torch``: the cost of the course's ``MultiHeadAttention`` in training. The same
  model is trained twice from the same start, step by step on the same batches: once as the
  notebook builds it, once with each attention layer computed by
  ``torch.nn.functional.scaled_dot_product_attention(is_causal=True)`` from the same weights.
  Chunks of 20 steps alternate between the two; the ratio is the median over chunk pairs of
  candidate / baseline time (above 1: attnlib's layer is slower). The two give the same losses
  first (checked), so the baseline does the same arithmetic.

Prints one line per measurement, then ``training_s=<x> tokens_per_s=<x> attnlib_over_torch=<x>``.
Target (issue 20): ``training_s`` <= 30 on 2 cores.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import platform
import statistics
import time
from pathlib import Path

import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "10_attention_that_learns.ipynb"
CHUNK, NUM_CHUNKS = 20, 10


def notebook_namespace() -> dict:
    """The notebook's names, from its code cells up to the definition of ``train_model``."""
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    namespace: dict = {}
    cwd = Path.cwd()
    os.chdir(NOTEBOOK.parent)  # the notebook reads data/ from its folder
    try:
        for cell in cells:
            source = "".join(cell["source"])
            skipped = "exercise" in cell["metadata"].get("tags", []) or "check(" in source
            if cell["cell_type"] != "code" or skipped or "generate(model" in source:
                continue
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(source, str(NOTEBOOK.name), "exec"), namespace)
            if "def train_model" in source:
                return namespace
    finally:
        os.chdir(cwd)
    raise RuntimeError(f"{NOTEBOOK.name} defines no train_model")


class TorchCausalAttention(nn.Module):
    """``layer``'s weights (an attnlib MultiHeadAttention), attention by torch's fused function."""

    def __init__(self, layer: nn.Module) -> None:
        super().__init__()
        self.layer, self.num_heads = layer, layer.num_heads

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, num_tokens, d_out = x.shape
        layer = self.layer

        def heads(t: torch.Tensor) -> torch.Tensor:
            return t.view(b, num_tokens, self.num_heads, d_out // self.num_heads).transpose(1, 2)

        q, k, v = heads(layer.W_query(x)), heads(layer.W_key(x)), heads(layer.W_value(x))
        context = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return layer.out_proj(context.transpose(1, 2).reshape(b, num_tokens, d_out))


def with_torch_attention(model: nn.Module) -> nn.Module:
    for block in model.blocks:
        block.attn = TorchCausalAttention(block.attn)
    return model


def main() -> None:
    ns = notebook_namespace()
    training, batches = ns["training"], ns["batches"]
    tokens = len(batches) * batches[0][0].numel()
    print(f"machine: {platform.machine()} {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f};"
          f" torch {torch.__version__}")  # fmt: skip

    start, cpu_start = time.perf_counter(), time.process_time()
    run = ns["train_model"](ns["new_model"]())
    training_s, cpu_s = time.perf_counter() - start, time.process_time() - cpu_start
    print(
        f"notebook training: {len(batches)} steps, {tokens:,} tokens in {training_s:.2f} s"
        f" = {tokens / training_s:,.0f} tokens/s (CPU time {cpu_s:.2f} s: a busy machine"
        f" stretches the first, not the second); final loss {sum(run.losses[-20:]) / 20:.3f}"
    )

    models = {"attnlib": ns["new_model"](), "torch": with_torch_attention(ns["new_model"]())}
    step = ns["take_one_step"]
    ratios = []
    with training.repeatable(seed=0):
        optimizers = {k: training.AdamW(m.parameters(), lr=0.003) for k, m in models.items()}
        first = {k: step(m, optimizers[k], *batches[0]) for k, m in models.items()}
        if abs(first["attnlib"] - first["torch"]) > 1e-4:
            raise RuntimeError(f"the two models differ: {first}")
        for chunk in range(NUM_CHUNKS):
            seconds = {}
            for name, model in models.items():
                begin = time.perf_counter()
                for inputs, targets in batches[1 + chunk * CHUNK : 1 + (chunk + 1) * CHUNK]:
                    step(model, optimizers[name], inputs, targets)
                seconds[name] = time.perf_counter() - begin
            ratios.append(seconds["attnlib"] / seconds["torch"])
    ratio = statistics.median(ratios)
    print(
        f"attnlib MultiHeadAttention over torch's sdpa in training: {ratio:.2f}"
        f" (median of {NUM_CHUNKS} pairs of {CHUNK} steps, one thread)"
    )
    print(
        f"training_s={training_s:.2f} tokens_per_s={tokens / training_s:.0f}"
        f" attnlib_over_torch={ratio:.2f}"
    )


if __name__ == "__main__":
    main()
