"""Mistaken answers to notebook 01's exercises: each replaces the stub and must be named."""

MISTAKES = {
    "01.loop_body": {
        "same_token": '''
def attention_scores_loop(inputs):
    attn_scores = torch.zeros(len(inputs), len(inputs))
    for i, x_i in enumerate(inputs):
        for j, x_j in enumerate(inputs):
            attn_scores[i, j] = torch.dot(x_i, x_i)
    return attn_scores
''',
    },
}
