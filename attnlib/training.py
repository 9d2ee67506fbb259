"""Training a tiny language model on the CPU, repeatably, and reading what its heads learned.
The model is the notebook's: ``model(token_ids)`` ``(b, num_tokens)`` -> logits
``(b, num_tokens, vocab_size)``, with :class:`~attnlib.modules.MultiHeadAttention` layers inside."""

from __future__ import annotations

import ctypes
import gc
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple

import torch
from torch import nn

from attnlib import _validate as validate
from attnlib.modules import MultiHeadAttention


class TrainingRun(NamedTuple):
    """What :func:`train` saw: the loss of every step; the steps at which it took a snapshot;
    ``snapshots`` ``(num_snapshots, num_layers, num_heads, num_tokens, num_tokens)``, every
    head's attention weights over the probe sentence at those steps."""

    losses: list[float]
    snapshot_steps: list[int]
    snapshots: torch.Tensor


class AdamW:
    """``torch.optim.AdamW``'s update (its defaults, one tensor at a time), written out: the first
    use of ``torch.optim`` imports ``torch._dynamo``, 72 MB, more than a course kernel can spare.
    ``zero_grad()`` and ``step()`` as torch's optimizers have them."""

    def __init__(
        self,
        params: object,
        lr: float = 0.001,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.01,
    ) -> None:
        self.params = list(params) if not isinstance(params, torch.Tensor) else [params]
        if not self.params or not all(isinstance(p, nn.Parameter) for p in self.params):
            expected = "model.parameters(): one or more nn.Parameter"
            raise validate.invalid("params", expected, validate.describe(self.params[:1]))
        self.lr = validate.positive(lr, "lr")
        self.beta1 = validate.probability(betas[0], "betas[0]")
        self.beta2 = validate.probability(betas[1], "betas[1]")
        self.eps = validate.positive(eps, "eps")
        self.weight_decay = validate.real(weight_decay, "weight_decay", 0.0, math.inf)
        self.num_steps = 0
        self.exp_avg = [torch.zeros_like(p) for p in self.params]  # the mean of the gradients
        self.exp_avg_sq = [torch.zeros_like(p) for p in self.params]  # ... of their squares

    def zero_grad(self, set_to_none: bool = True) -> None:
        """As torch's optimizers: the gradients become None, or zeros with
        ``set_to_none=False``."""
        set_to_none = validate.flag(set_to_none, "set_to_none")
        for p in self.params:
            if set_to_none or p.grad is None:
                p.grad = None
            else:
                p.grad = torch.zeros_like(p.grad)

    @torch.no_grad()
    def step(self) -> None:
        self.num_steps += 1
        correction_1 = 1 - self.beta1**self.num_steps  # the averages start at 0: scale them up
        correction_2_sqrt = math.sqrt(1 - self.beta2**self.num_steps)
        for p, exp_avg, exp_avg_sq in zip(self.params, self.exp_avg, self.exp_avg_sq, strict=True):
            if p.grad is None:
                continue
            p.mul_(1 - self.lr * self.weight_decay)  # decoupled weight decay: the W of AdamW
            exp_avg.lerp_(p.grad, 1 - self.beta1)
            exp_avg_sq.mul_(self.beta2).addcmul_(p.grad, p.grad, value=1 - self.beta2)
            denom = (exp_avg_sq.sqrt() / correction_2_sqrt).add_(self.eps)
            p.addcdiv_(exp_avg, denom, value=-self.lr / correction_1)


def _set_deterministic(mode: bool) -> None:
    """``torch.use_deterministic_algorithms(mode)`` for eager code. The public function also sets
    torch.compile's option, importing ``torch._inductor`` (70 MB) for it; nothing here compiles."""
    if "torch._inductor.config" in sys.modules or not hasattr(
        torch._C, "_set_deterministic_algorithms"
    ):
        torch.use_deterministic_algorithms(mode)
    else:
        torch._C._set_deterministic_algorithms(mode, warn_only=False)


def _release_freed_memory() -> None:
    """Hand the memory a training freed back to the system. glibc's malloc keeps freed heap
    pages for reuse: after 600 steps, about 14 MB of logits and gradients that no object holds
    stay in the process, and a notebook's kernel has a memory limit. Other C libraries (macOS,
    Windows, musl) have no ``malloc_trim``: nothing to do there."""
    if not sys.platform.startswith("linux"):
        return
    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)


#: A cell that grew the process by more than this (MB) is followed by a collection of cycles.
GREW_MB = 4.0


def _resident_mb() -> float:
    """The process's resident memory in MB (Linux's /proc; 0 where there is none)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


class _AfterEachCell:
    """Kernel hooks: after a cell that grew the process by more than :data:`GREW_MB` (a figure
    shown and dropped, a training), free what only reference cycles hold (Python's collector
    may otherwise wait many cells; a full collection takes about 0.1 s, so not after every
    cell); then, after every cell, hand the freed memory back (:func:`_release_freed_memory`)."""

    def __init__(self) -> None:
        self.before = 0.0

    def pre_run_cell(self, info: object = None) -> None:
        self.before = _resident_mb()

    def post_run_cell(self, result: object = None) -> None:
        if _resident_mb() - self.before > GREW_MB:
            gc.collect()
        _release_freed_memory()


def _release_after_each_cell() -> None:
    """In a Jupyter kernel, :class:`_AfterEachCell`'s hooks, once per kernel: a figure drawn
    and shown frees about 10 MB, a training more, and glibc would keep it all, so that notebook
    10's kernel would grow by each figure's size until its limit."""
    ipython = sys.modules.get("IPython")  # only where IPython runs already: nothing imported
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or getattr(shell, "_attnlib_releases_memory", False):
        return
    hooks = _AfterEachCell()
    shell.events.register("pre_run_cell", hooks.pre_run_cell)
    shell.events.register("post_run_cell", hooks.post_run_cell)
    shell._attnlib_releases_memory = True


_release_after_each_cell()


@contextmanager
def repeatable(seed: int) -> Iterator[None]:
    """Inside ``with repeatable(seed):`` torch is seeded, runs on one thread and picks
    deterministic algorithms, so the same code gives the same numbers on the same machine;
    the thread count and the algorithm setting are restored afterwards, and the memory the
    block freed is handed back to the system (glibc keeps it otherwise)."""
    seed = validate.integer(seed, "seed", 0, 2**63 - 1)
    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(1)  # several threads add partial sums in an order that varies
    _set_deterministic(True)
    torch.manual_seed(seed)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
        _set_deterministic(deterministic)
        _release_freed_memory()


def _attention_layers(model: object) -> list[MultiHeadAttention]:
    modules = model.modules() if isinstance(model, nn.Module) else []
    layers = [m for m in modules if isinstance(m, MultiHeadAttention)]
    if not layers:
        expected = "an nn.Module holding attnlib.modules.MultiHeadAttention layers"
        raise validate.invalid("model", expected, validate.describe(model))
    return layers


def _token_ids(token_ids: object, name: str, rank: int) -> torch.Tensor:
    shape = "(num_tokens,)" if rank == 1 else "(b, num_tokens)"
    ok = isinstance(token_ids, torch.Tensor) and token_ids.dtype == torch.long
    if not ok or token_ids.dim() != rank or token_ids.numel() == 0:
        raise validate.invalid(
            name, f"a non-empty torch.long tensor of shape {shape}", validate.describe(token_ids)
        )
    return token_ids


def attention_maps(model: nn.Module, token_ids: torch.Tensor) -> torch.Tensor:
    """Every head's attention weights over one sentence ``token_ids`` ``(num_tokens,)``:
    ``(num_layers, num_heads, num_tokens, num_tokens)``, layers in the model's order, rows
    queries, columns keys; computed without gradients, in eval mode (no dropout)."""
    layers = _attention_layers(model)
    token_ids = _token_ids(token_ids, "token_ids", 1)
    training = model.training
    model.eval()
    try:
        with torch.no_grad():
            model(token_ids[None])
    finally:
        model.train(training)
    return torch.stack([layer.last_attn_weights[0] for layer in layers])


def share_at_offset(attn_weights: torch.Tensor, offset: int = -1) -> torch.Tensor:
    """The mean weight a query puts on the key ``offset`` places away (-1: the previous token,
    0: itself, +1: the next), over the queries that have such a key: ``(..., num_tokens,
    num_tokens)`` -> ``(...,)``. Evenly spread causal weights give about 1/num_tokens or more."""
    validate.tensor(attn_weights, "attn_weights", "(..., num_tokens, num_tokens)", min_rank=2)
    num_tokens = validate.size(
        attn_weights, "attn_weights", -1, attn_weights.shape[-2], "as many keys as queries"
    ).shape[-1]
    if not (validate.is_real(offset) and offset == int(offset) and abs(offset) < num_tokens):
        raise validate.invalid(
            "offset", f"an int in [{1 - num_tokens}, {num_tokens - 1}]", validate.describe(offset)
        )
    # The keys at query i + offset lie on the diagonal `offset` of the grid.
    return torch.diagonal(attn_weights, offset=int(offset), dim1=-2, dim2=-1).mean(dim=-1)


def train(
    model: nn.Module,
    optimizer: AdamW | torch.optim.Optimizer,
    training_step: Callable[..., float],
    batches: Sequence[tuple[torch.Tensor, torch.Tensor]],
    probe: torch.Tensor,
    snapshot_every: int = 30,
    progress: Callable[[int], object] | None = None,
) -> TrainingRun:
    """One ``training_step(model, optimizer, inputs, targets)`` (returning the loss) per batch
    of ``batches``, each ``(inputs, targets)`` of shape ``(b, num_tokens)``; every
    ``snapshot_every`` steps, and after the last, the :func:`attention_maps` over ``probe``.
    ``progress(done)``, if given, is called with the steps done, from 0 to ``len(batches)``
    (e.g. an :class:`attnlib.progress_bar.ProgressBar`)."""
    _attention_layers(model)
    steps = callable(getattr(optimizer, "zero_grad", None)) and callable(
        getattr(optimizer, "step", None)
    )
    if not steps or not callable(training_step):
        got = f"{validate.describe(optimizer)} and {validate.describe(training_step)}"
        expected = "an optimizer (with zero_grad() and step()) and a function"
        raise validate.invalid("optimizer, training_step", expected, got)
    if isinstance(batches, (str, bytes)) or not isinstance(batches, Sequence) or not batches:
        raise validate.invalid(
            "batches", "a non-empty list of (inputs, targets)", validate.describe(batches)
        )
    probe = _token_ids(probe, "probe", 1)
    snapshot_every = validate.integer(snapshot_every, "snapshot_every", 1)
    if progress is not None and not callable(progress):
        expected = "None or a function of the steps done, e.g. a ProgressBar"
        raise validate.invalid("progress", expected, validate.describe(progress))
    tell = progress if progress is not None else (lambda done: None)
    losses, snapshot_steps, snapshots = [], [], []
    tell(0)
    for step, (inputs, targets) in enumerate(batches):
        if step % snapshot_every == 0:
            snapshot_steps.append(step)
            snapshots.append(attention_maps(model, probe))
        loss = training_step(model, optimizer, inputs, targets)
        losses.append(float(loss.detach() if isinstance(loss, torch.Tensor) else loss))
        tell(step + 1)
    snapshot_steps.append(len(batches))
    snapshots.append(attention_maps(model, probe))
    return TrainingRun(losses, snapshot_steps, torch.stack(snapshots))
