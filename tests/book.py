"""The figures printed in chapter 3 of the book, typed in once for every test module.

Expected values come from here, never from the code under test.
"""

TOKENS = ("Your", "journey", "starts", "with", "one", "step")
BOOK_INPUTS = [
    [0.43, 0.15, 0.89],
    [0.55, 0.87, 0.66],
    [0.57, 0.85, 0.64],
    [0.22, 0.58, 0.33],
    [0.77, 0.25, 0.10],
    [0.05, 0.80, 0.55],
]
SCORE_0_1 = 0.9544
WEIGHT_0_1, WEIGHT_1_0 = 0.2006, 0.1385
# Query "journey" (index 1): its attention weights and its context vector z(2).
JOURNEY_WEIGHTS = [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]
JOURNEY_CONTEXT = [0.4419, 0.6515, 0.5683]
ALL_CONTEXT_VECS = [
    [0.4421, 0.5931, 0.5790],
    [0.4419, 0.6515, 0.5683],
    [0.4431, 0.6496, 0.5671],
    [0.4304, 0.6298, 0.5510],
    [0.4671, 0.5910, 0.5266],
    [0.4177, 0.6503, 0.5645],
]
