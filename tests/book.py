"""The numbers printed in chapter 3 of Sebastian Raschka's *Build a Large Language Model
(From Scratch)* (Manning, 2024), "Coding attention mechanisms", typed in once for every
test module.

Expected values come from here (or from plain torch), never from the code under test.
Every value is printed to 4 decimals in the book.
"""

from __future__ import annotations

from typing import NamedTuple

TOKENS = ("Your", "journey", "starts", "with", "one", "step")
BOOK_INPUTS = [
    [0.43, 0.15, 0.89],  # Your     (x^1)
    [0.55, 0.87, 0.66],  # journey  (x^2)
    [0.57, 0.85, 0.64],  # starts   (x^3)
    [0.22, 0.58, 0.33],  # with     (x^4)
    [0.77, 0.25, 0.10],  # one      (x^5)
    [0.05, 0.80, 0.55],  # step     (x^6)
]

# --- simplified self-attention (3.3) -------------------------------------------------------
# attn_scores = inputs @ inputs.T
ATTN_SCORES = [
    [0.9995, 0.9544, 0.9422, 0.4753, 0.4576, 0.6310],
    [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865],
    [0.9422, 1.4754, 1.4570, 0.8296, 0.7154, 1.0605],
    [0.4753, 0.8434, 0.8296, 0.4937, 0.3474, 0.6565],
    [0.4576, 0.7070, 0.7154, 0.3474, 0.6654, 0.2935],
    [0.6310, 1.0865, 1.0605, 0.6565, 0.2935, 0.9450],
]
# attn_weights = torch.softmax(attn_scores, dim=-1)
ATTN_WEIGHTS = [
    [0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452],
    [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581],
    [0.1390, 0.2369, 0.2326, 0.1242, 0.1108, 0.1565],
    [0.1435, 0.2074, 0.2046, 0.1462, 0.1263, 0.1720],
    [0.1526, 0.1958, 0.1975, 0.1367, 0.1879, 0.1295],
    [0.1385, 0.2184, 0.2128, 0.1420, 0.0988, 0.1896],
]
SCORE_0_1 = ATTN_SCORES[0][1]
WEIGHT_0_1, WEIGHT_1_0 = ATTN_WEIGHTS[0][1], ATTN_WEIGHTS[1][0]
# Query "journey" (index 1): its attention weights and its context vector z(2).
JOURNEY_WEIGHTS = list(ATTN_WEIGHTS[1])
JOURNEY_CONTEXT = [0.4419, 0.6515, 0.5683]
# all_context_vecs = attn_weights @ inputs
ALL_CONTEXT_VECS = [
    [0.4421, 0.5931, 0.5790],
    [0.4419, 0.6515, 0.5683],
    [0.4431, 0.6496, 0.5671],
    [0.4304, 0.6298, 0.5510],
    [0.4671, 0.5910, 0.5266],
    [0.4177, 0.6503, 0.5645],
]


# --- the modules (3.4 - 3.6) -----------------------------------------------------------------
class BookModule(NamedTuple):
    """``torch.manual_seed(seed)``, then ``attnlib.modules.<name>(*args)``, prints ``output``.

    ``batched`` modules take the book's ``batch = torch.stack((inputs, inputs))`` and print
    ``output`` for each of its two sequences; the others take ``inputs`` itself.
    """

    seed: int
    args: tuple
    batched: bool
    output: list


# d_in = 3, d_out = 2; context_length = batch.shape[1] = 6 and dropout 0.0; num_heads = 2.
BOOK_MODULES = {
    "SelfAttentionV1": BookModule(123, (3, 2), False, [
        [0.2996, 0.8053],
        [0.3061, 0.8210],  # z(2), "journey"
        [0.3058, 0.8203],
        [0.2948, 0.7939],
        [0.2927, 0.7891],
        [0.2990, 0.8040],
    ]),
    "SelfAttentionV2": BookModule(789, (3, 2), False, [
        [-0.0739, 0.0713],
        [-0.0748, 0.0703],
        [-0.0749, 0.0702],
        [-0.0760, 0.0685],
        [-0.0763, 0.0679],
        [-0.0754, 0.0693],
    ]),
    "CausalAttention": BookModule(123, (3, 2, 6, 0.0), True, [
        [-0.4519, 0.2216],
        [-0.5874, 0.0058],
        [-0.6300, -0.0632],
        [-0.5675, -0.0843],
        [-0.5526, -0.0981],
        [-0.5299, -0.1081],
    ]),
    "MultiHeadAttentionWrapper": BookModule(123, (3, 2, 6, 0.0, 2), True, [
        [-0.4519, 0.2216, 0.4772, 0.1063],
        [-0.5874, 0.0058, 0.5891, 0.3257],
        [-0.6300, -0.0632, 0.6202, 0.3860],
        [-0.5675, -0.0843, 0.5478, 0.3589],
        [-0.5526, -0.0981, 0.5321, 0.3428],
        [-0.5299, -0.1081, 0.5077, 0.3493],
    ]),
    "MultiHeadAttention": BookModule(123, (3, 2, 6, 0.0, 2), True, [
        [0.3190, 0.4858],
        [0.2943, 0.3897],
        [0.2856, 0.3593],
        [0.2693, 0.3873],
        [0.2639, 0.3928],
        [0.2575, 0.4028],
    ]),
}  # fmt: skip
