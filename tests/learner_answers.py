"""A learner's answers, kept as typed: wrong ones the checks once called "Correct!", and
right ones they once refused; run by test_exercise_gradients.
"""

# ruff: noqa: E501

#: (exercise, label, code, words the verdict must hold).
FALSELY_CORRECT = [
    (
        "05.projections",
        "detached projections",
        """
def project(inputs, W_query, W_key, W_value):
    queries = (inputs @ W_query).detach()
    keys = (inputs @ W_key).detach()
    values = (inputs @ W_value).detach()
    return queries, keys, values
""",
        "no gradient reaches",
    ),
    (
        "07.wrapper_forward",
        "detached",
        """
class MyWrapper(modules.MultiHeadAttentionWrapper):
    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1).detach()
""",
        "no gradient reaches",
    ),
    (
        "07.wrapper_forward",
        "forward under no_grad",
        """
class MyWrapper(modules.MultiHeadAttentionWrapper):
    def forward(self, x):
        with torch.no_grad():
            return torch.cat([h(x) for h in self.heads], dim=-1)
""",
        "no gradient reaches",
    ),
    (
        "07.two_features",
        "frozen parameters",
        """
def two_feature_wrapper(d_in, context_length, dropout):
    w = MultiHeadAttentionWrapper(d_in, 1, context_length, dropout, num_heads=2)
    w.requires_grad_(False)
    return w
""",
        "no gradient reaches",
    ),
    (
        "07.split_heads",
        "detached",
        """
def split_heads(x, num_heads):
    b, num_tokens, d_out = x.shape
    head_dim = d_out // num_heads
    return x.view(b, num_tokens, num_heads, head_dim).transpose(1, 2).detach()
""",
        "no gradient reaches",
    ),
    (
        "10.training_step",
        "returns the tensor",
        """
def training_step(model, optimizer, inputs, targets):
    optimizer.zero_grad()
    loss = next_word_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return loss
""",
        "loss.item()",
    ),
    (
        "10.training_step",
        "returns the loss tensor detached",
        """
def training_step(model, optimizer, inputs, targets):
    optimizer.zero_grad()
    loss = next_word_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return loss.detach()
""",
        "loss.item()",
    ),
]

#: (exercise, label, code).
REFUSED_RIGHT = [
    (
        "10.training_step",
        "cross_entropy written out",
        """
def training_step(model, optimizer, inputs, targets):
    optimizer.zero_grad(set_to_none=True)
    logits = model(inputs)
    loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
    loss.backward()
    optimizer.step()
    return loss.detach().item()
""",
    ),
    (
        "10.training_step",
        "zero_grad set_to_none=True",
        """
def training_step(model, optimizer, inputs, targets):
    optimizer.zero_grad(set_to_none=True)
    loss = next_word_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
    ),
]
