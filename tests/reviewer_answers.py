"""Reviewer L's answers (session 3) that the checks called "Correct!" although they are
wrong, and right ones they refused; copied from its script, run by test_exercise_gradients.
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
        "05.forward",
        "detached output",
        """
class MySelfAttentionV1(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        queries = x @ self.W_query
        keys = x @ self.W_key
        values = x @ self.W_value
        w = torch.softmax(queries @ keys.T / keys.shape[-1] ** 0.5, dim=-1)
        return (w @ values).detach()
""",
        "no gradient reaches",
    ),
    (
        "05.forward",
        "forward under no_grad",
        """
class MySelfAttentionV1(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        with torch.no_grad():
            queries = x @ self.W_query
            keys = x @ self.W_key
            values = x @ self.W_value
            out = torch.softmax(queries @ keys.T / keys.shape[-1] ** 0.5, dim=-1) @ values
        return out
""",
        "no gradient reaches",
    ),
    (
        "06.forward",
        "forward under no_grad",
        """
class MyCausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        ones = torch.ones(context_length, context_length, dtype=torch.bool)
        self.register_buffer("mask", torch.triu(ones, diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        with torch.no_grad():
            queries = self.W_query(x)
            keys = self.W_key(x)
            values = self.W_value(x)
            s = (queries @ keys.transpose(1, 2)).masked_fill(self.mask[:num_tokens, :num_tokens], -torch.inf)
            out = self.dropout(torch.softmax(s / keys.shape[-1] ** 0.5, dim=-1)) @ values
        return out
""",
        "no gradient reaches",
    ),
    (
        "06.forward",
        "detached output",
        """
class MyCausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        ones = torch.ones(context_length, context_length, dtype=torch.bool)
        self.register_buffer("mask", torch.triu(ones, diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        queries = self.W_query(x)
        keys = self.W_key(x)
        values = self.W_value(x)
        s = queries @ keys.transpose(1, 2)
        s = s.masked_fill(self.mask[:num_tokens, :num_tokens], -torch.inf)
        w = torch.softmax(s / keys.shape[-1] ** 0.5, dim=-1)
        w = self.dropout(w)
        out = w @ values
        return out.detach()
""",
        "no gradient reaches",
    ),
    (
        "06.forward",
        "buffer overwritten with the cut mask",
        """
class MyCausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        ones = torch.ones(context_length, context_length, dtype=torch.bool)
        self.register_buffer("mask", torch.triu(ones, diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        queries = self.W_query(x)
        keys = self.W_key(x)
        values = self.W_value(x)
        self.mask = self.mask[:num_tokens, :num_tokens]
        s = (queries @ keys.transpose(1, 2)).masked_fill(self.mask, -torch.inf)
        return self.dropout(torch.softmax(s / keys.shape[-1] ** 0.5, dim=-1)) @ values
""",
        "your forward changes the layer",
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
        "07.forward",
        "detached output",
        """
class MyMultiHeadAttention(modules.MultiHeadAttention):
    def forward(self, x):
        b, num_tokens, d_in = x.shape
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        keys = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        s = queries @ keys.transpose(-2, -1)
        s = s.masked_fill(self.mask[:num_tokens, :num_tokens], -torch.inf)
        w = torch.softmax(s / self.head_dim ** 0.5, dim=-1)
        w = self.dropout(w)
        ctx = (w @ values).transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(ctx).detach()
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
