"""Speed (and memory) of attention, as ratios against a baseline timed in the same process.

    python benchmarks/attention_speed.py [--repeats N]

Every figure is a ratio of two functions measured in this run, float32 on the CPU,
feature size d = 64, ``torch.set_num_threads`` left as it is:

* ``loops_over_matmul``: ``attention_scores_loop`` (two nested Python loops of dot
  products) over ``attention_scores`` (``inputs @ inputs.T``), 64 tokens.
* ``attnlib_over_torch_<T>``: ``attnlib.attention.scaled_dot_product_attention`` over
  ``torch.nn.functional.scaled_dot_product_attention``, T = 64 and 1,024 tokens.
* ``blockwise_time_ratio`` and ``blockwise_memory_ratio``: attention over blocks of keys
  with a running (online) softmax, the idea of FlashAttention, over full attention (the
  whole ``num_tokens x num_tokens`` grid of scores materialised), 4,096 tokens. Both are
  written below in plain torch; each is checked against the other (and attnlib) first.

Two lines are for the record only (not in the summary): ``attnlib_blockwise``, the same
two ratios for ``attnlib.attention.blockwise_attention`` when attnlib has it, and
``attnlib_memory``, the peak of attnlib's full attention at 4,096 tokens.

Time: each pair of functions is warmed up, then timed in alternation (candidate,
baseline, candidate, ...; one repeat lasts about 10 ms, 41 pairs by default, half as many
at 4,096 tokens). The ratio is the median over the pairs of candidate / baseline, each
pair timed back to back so that a slow moment of the machine hits both; above 1 is
slower. The times printed beside it are each function's median time per call.

Memory: the peak of the bytes allocated by one call (what its tensors and the kernels'
scratch buffers hold at the worst moment), above what existed before the call. It is
read from ``torch.profiler.profile(profile_memory=True)``, which records every CPU
allocation and free, in order; the running sum of their sizes peaks at that value.

The first line names the machine, with its load average: other busy processes slow
torch's small multi-threaded operations most, so a loaded machine skews the ratios of
64 tokens. Then one line per measurement, then one summary line:
``loops_over_matmul=<x> attnlib_over_torch_64=<x> attnlib_over_torch_1024=<x>
blockwise_time_ratio=<x> blockwise_memory_ratio=<x>``.
Expected: ``blockwise_memory_ratio`` <= 0.1; target ``attnlib_over_torch_64`` <= 1.3.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import statistics
import sys
import tempfile
import timeit
from collections.abc import Callable, Iterator
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

# Runs from a checkout without installing attnlib.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attnlib import attention  # noqa: E402

D = 64
DTYPE = torch.float32
BLOCK_SIZE = 256
# Each timed repeat calls the function often enough to last about this long (seconds):
# short, so that the candidate's and the baseline's repeats of a pair meet the same load.
REPEAT_SECONDS = 0.01


def random_qkv(num_tokens: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Queries, keys and values of shape ``(num_tokens, D)``: the course's 2-d layout."""
    generator = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(num_tokens, D, dtype=DTYPE, generator=generator) for _ in range(3))


def full_attention(queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """Textbook attention: the whole ``(num_tokens, num_keys)`` grid of scores, then softmax."""
    scale = 1.0 / math.sqrt(queries.shape[-1])
    attn_weights = torch.softmax((queries @ keys.mT) * scale, dim=-1)
    return attn_weights @ values


def blockwise_attention(
    queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, block_size: int = BLOCK_SIZE
) -> torch.Tensor:
    """The same result as :func:`full_attention`, visiting ``block_size`` keys at a time.

    Only a ``(num_tokens, block_size)`` slice of the scores exists at any moment. Softmax
    needs each row's maximum and total over *all* keys, so they are kept as running values:
    when a block raises a row's maximum from ``m`` to ``m_new``, everything summed so far
    was computed with ``exp(score - m)`` and is multiplied by ``exp(m - m_new)`` to catch
    up. Dividing by the final total at the end gives exactly softmax(scores) @ values.
    """
    scale = 1.0 / math.sqrt(queries.shape[-1])
    rows = queries.shape[:-1]
    row_max = queries.new_full(rows, -math.inf)  # m: largest scaled score seen so far
    row_total = queries.new_zeros(rows)  # l: sum of exp(score - m) so far
    blended = queries.new_zeros(*rows, values.shape[-1])  # sum of exp(score - m) * value
    for start in range(0, keys.shape[-2], block_size):
        block_keys = keys[..., start : start + block_size, :]
        block_values = values[..., start : start + block_size, :]
        scores = queries @ block_keys.mT  # (num_tokens, block_size): the only big tensor
        scores.mul_(scale)
        new_max = torch.maximum(row_max, scores.amax(dim=-1))
        catch_up = torch.exp(row_max - new_max)  # 0 on the first block (exp(-inf))
        weights = scores.sub_(new_max.unsqueeze(-1)).exp_()  # in place: no second block
        row_total = row_total * catch_up + weights.sum(dim=-1)
        blended = blended * catch_up.unsqueeze(-1) + weights @ block_values
        row_max = new_max
    return blended / row_total.unsqueeze(-1)


def attnlib_context(queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor):
    # attnlib: validates its arguments in Python (types, shapes, dtypes, batch axes), computes
    # softmax(queries @ keys^T / sqrt(d)) @ values with the whole grid of weights materialised,
    # checks that the results are finite, and returns both the context vectors (num_tokens, d)
    # and the weights (num_tokens, num_tokens).
    return attention.scaled_dot_product_attention(queries, keys, values)


def torch_context(queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor):
    # PyTorch: no checks written in Python; the same default scale 1 / sqrt(d), no mask, no
    # dropout; returns the context vectors only. For 2-d inputs it takes its "math" backend
    # (scores grid materialised, as attnlib), see torch_backend(); the fused flash kernel
    # needs 4-d inputs.
    return F.scaled_dot_product_attention(queries, keys, values)


@contextlib.contextmanager
def profiler_logs_dropped() -> Iterator[None]:
    """Drop the lines the profiler's C++ side writes to stderr at each start and stop.

    They bypass Python (``USDT: ... profiler_start``) and no setting turns them off in
    torch 2.13, so file descriptor 2 is pointed at a temporary file meanwhile; any other
    line written there is passed on to stderr afterwards.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as captured:
        os.dup2(captured.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            for line in captured.read().decode(errors="replace").splitlines(keepends=True):
                if not line.startswith(("USDT:", "STAGE:")):
                    sys.stderr.write(line)


def torch_backend(queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor) -> str:
    """The aten kernel behind ``F.scaled_dot_product_attention`` for these inputs."""
    with profiler_logs_dropped(), profile(activities=[ProfilerActivity.CPU]) as prof:
        torch_context(queries, keys, values)
    names = [event.name for event in prof.events()]
    kernels = [name for name in names if name.startswith("aten::_scaled_dot_product")]
    return kernels[0].removeprefix("aten::") if kernels else "unknown"


def seconds_per_call(fn: Callable[[], object]) -> float:
    """A rough estimate, to choose how many calls make one repeat."""
    timer = timeit.Timer(fn)
    number, total = timer.autorange()
    return total / number


def compare(
    candidate: Callable[[], object], baseline: Callable[[], object], repeats: int
) -> tuple[float, float, float]:
    """Seconds per call of ``candidate`` and ``baseline``, and the ratio of the two.

    The two are timed in alternation, one repeat of each per pair. Returns the median
    seconds per call of each and the median over the pairs of candidate / baseline: each
    pair's two repeats ran back to back, so a moment of load elsewhere on the machine
    slows both and leaves their ratio nearly unchanged.
    """
    for fn in (candidate, baseline):  # warm-up: first-call allocations, thread pools
        fn()
        fn()
    numbers = [max(1, round(REPEAT_SECONDS / seconds_per_call(fn))) for fn in (candidate, baseline)]
    timers = [timeit.Timer(fn) for fn in (candidate, baseline)]
    samples: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for timer, number, sample in zip(timers, numbers, samples, strict=True):
            sample.append(timer.timeit(number) / number)
    ratios = [mine / theirs for mine, theirs in zip(*samples, strict=True)]
    return statistics.median(samples[0]), statistics.median(samples[1]), statistics.median(ratios)


def peak_bytes(fn: Callable[[], object]) -> int:
    """Peak bytes allocated while ``fn()`` runs and its result is dropped, above the start."""
    fn()  # warm-up, outside the record
    with (
        profiler_logs_dropped(),
        profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof,
    ):
        result = fn()
        del result
    sizes = []  # (time, +bytes allocated or -bytes freed)

    def collect(events: list) -> None:
        for event in events:
            fields = event.extra_fields
            if hasattr(fields, "alloc_size"):  # an allocation (or, negative, a free)
                sizes.append((event.start_time_ns, fields.alloc_size))
            collect(event.children)

    # Every allocation the profiler saw, in order (the event tree is the profiler's raw record).
    collect(prof.profiler.kineto_results.experimental_event_tree())
    if not sizes:
        raise RuntimeError("the profiler recorded no allocations; cannot measure memory")
    live = peak = 0
    for _, size in sorted(sizes):
        live += size
        peak = max(peak, live)
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=41, help="timed pairs per comparison")
    repeats = parser.parse_args().repeats
    # Other busy processes slow small inputs most (torch's threads wait on each other):
    # the load average tells a reader how much to trust the ratios of one run.
    load = os.getloadavg()[0]
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads, {os.cpu_count()} CPUs, "
        f"load average {load:.2f}, float32, d={D}"
    )
    summary = {}

    # 1. Two Python loops of dot products against one matrix product, 64 tokens.
    inputs = random_qkv(64)[0]
    torch.testing.assert_close(
        attention.attention_scores_loop(inputs), attention.attention_scores(inputs)
    )
    loops, matmul, ratio = compare(
        lambda: attention.attention_scores_loop(inputs),
        lambda: attention.attention_scores(inputs),
        repeats,
    )
    summary["loops_over_matmul"] = ratio
    print(
        f"loops_over_matmul num_tokens=64 loops_us={loops * 1e6:.1f} "
        f"matmul_us={matmul * 1e6:.2f} ratio={ratio:.2f}"
    )

    # 2. attnlib's scaled_dot_product_attention against PyTorch's, same inputs.
    for num_tokens in (64, 1024):
        q, k, v = random_qkv(num_tokens)
        context_vecs, _ = attnlib_context(q, k, v)
        torch.testing.assert_close(context_vecs, torch_context(q, k, v))
        mine, theirs, ratio = compare(
            lambda q=q, k=k, v=v: attnlib_context(q, k, v),
            lambda q=q, k=k, v=v: torch_context(q, k, v),
            repeats,
        )
        summary[f"attnlib_over_torch_{num_tokens}"] = ratio
        print(
            f"attnlib_over_torch num_tokens={num_tokens} attnlib_us={mine * 1e6:.1f} "
            f"torch_us={theirs * 1e6:.1f} ratio={ratio:.2f} "
            f"torch_backend={torch_backend(q, k, v)}"
        )

    # 3. Blockwise attention with a running softmax against the full grid, 4,096 tokens.
    q, k, v = random_qkv(4096)
    expected = full_attention(q, k, v)
    torch.testing.assert_close(blockwise_attention(q, k, v), expected)
    torch.testing.assert_close(attnlib_context(q, k, v)[0], expected)
    blockwise, full, ratio = compare(
        lambda: blockwise_attention(q, k, v), lambda: full_attention(q, k, v), max(5, repeats // 2)
    )
    summary["blockwise_time_ratio"] = ratio
    print(
        f"blockwise_time num_tokens=4096 block_size={BLOCK_SIZE} "
        f"blockwise_ms={blockwise * 1e3:.1f} full_ms={full * 1e3:.1f} ratio={ratio:.2f}"
    )
    blockwise_peak = peak_bytes(lambda: blockwise_attention(q, k, v))
    full_peak = peak_bytes(lambda: full_attention(q, k, v))
    summary["blockwise_memory_ratio"] = blockwise_peak / full_peak
    print(
        f"blockwise_memory num_tokens=4096 block_size={BLOCK_SIZE} "
        f"blockwise_peak_mb={blockwise_peak / 2**20:.1f} full_peak_mb={full_peak / 2**20:.1f} "
        f"ratio={blockwise_peak / full_peak:.3f}"
    )
    # For the record, not in the summary: attnlib's own blockwise attention, once it has one.
    attnlib_blockwise = getattr(attention, "blockwise_attention", None)
    if attnlib_blockwise is not None:
        torch.testing.assert_close(attnlib_blockwise(q, k, v), expected)
        _, _, ratio = compare(
            lambda: attnlib_blockwise(q, k, v),
            lambda: full_attention(q, k, v),
            max(5, repeats // 2),
        )
        theirs_peak = peak_bytes(lambda: attnlib_blockwise(q, k, v))
        print(
            f"attnlib_blockwise num_tokens=4096 (attnlib.attention.blockwise_attention, its "
            f"default block size) time_ratio={ratio:.2f} "
            f"memory_ratio={theirs_peak / full_peak:.3f} peak_mb={theirs_peak / 2**20:.1f}"
        )
    # For the record, not in the summary: attnlib's own full attention at the same size.
    attnlib_peak = peak_bytes(lambda: attnlib_context(q, k, v))
    print(
        f"attnlib_memory num_tokens=4096 attnlib_peak_mb={attnlib_peak / 2**20:.1f} "
        f"full_peak_mb={full_peak / 2**20:.1f} ratio={attnlib_peak / full_peak:.2f}"
    )

    print(" ".join(f"{name}={value:.2f}" for name, value in summary.items()))


if __name__ == "__main__":
    main()
