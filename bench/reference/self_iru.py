"""Self-IRU for logical inference, eager PyTorch, written from the paper
(Zhang et al., NeurIPS 2021, §2) and model-specs §6 and §7: one
left-to-right layer of self-instantiated recurrent units over both sentences
of a pair (a Siamese batch of 2N), then [a; b; a⊙b; |a-b|] -> Linear -> GELU
-> Linear(D, 7).

The unit at depth l is the Python recursion `instance` below: for l > 0 its
forget and output gates mix the h of two child instances at depth l - 1
(forget child 2n+1, output child 2n+2 of node n) with its own base
transforms through the node's soft depth gates α_n, β_n; l = 0 has plain
gates. Every instance reads the same x_t, h_{t-1}, c_{t-1}; the root's
(h_t, c_t) is the state. z = ReLU(F_z) (the authors' code), c = f⊙c +
(1-f)⊙z, h = o⊙c + x_t.

Base transforms ("lstm" for self_iru, "linear" for self_iru_linear): the
K = 3(L+1) transforms F_⋆^(l) (cell k = 3l + (f, o, z)) are one LSTM step
each, (i, f, g, o) = ih(x_t) + hh(h_{t-1}) with the rows gate-major [4, K, D],
F = σ(o)⊙tanh(σ(f)⊙c_{t-1} + σ(i)⊙tanh(g)); or linear in x_t, rows [K, D].

Dropout (training=True only): dropout["in"] on the embeddings and
dropout["out"] in the head. Parameters carry the model's names; the inputs
are the two sentences' token ids and masks.
"""
import functools

import torch
import torch.nn.functional as F

from sentence_pair import dropout_rate, variant_logits, variant_loss

# GRC models' §8 logical-inference settings (the paper gives none).
DROPOUT = {"in": 0.4, "out": 0.1}
# Maximum recursion depth L (the paper's Table 7, logical inference).
DEPTH = 2


rate = functools.partial(dropout_rate, DROPOUT)


def base_transforms(variant, p, x, h, c, cells):
    """The K = cells base transforms of one step: [M, K, D]."""
    m, hidden = c.shape
    if variant == "linear":
        return F.linear(x, p["base_w"], p["base_b"]).view(m, cells, hidden)
    g = (F.linear(x, p["base_ih_w"], p["base_ih_b"])
         + F.linear(h, p["base_hh_w"], p["base_hh_b"]))
    i, f, cand, o = g.view(m, 4, cells, hidden).unbind(1)
    lstm_c = torch.sigmoid(f) * c.unsqueeze(1) + torch.sigmoid(i) * torch.tanh(cand)
    return torch.sigmoid(o) * torch.tanh(lstm_c)


def instance(depth, node, base, alpha, beta, x, c):
    """SelfIRU^(depth) at recursion node `node`: (h, c)."""
    f_base = base[:, 3 * depth]
    o_base = base[:, 3 * depth + 1]
    z_base = base[:, 3 * depth + 2]
    if depth == 0:
        f = torch.sigmoid(f_base)
        o = torch.sigmoid(o_base)
    else:
        h_forget, _ = instance(depth - 1, 2 * node + 1, base, alpha, beta, x, c)
        h_output, _ = instance(depth - 1, 2 * node + 2, base, alpha, beta, x, c)
        a = alpha[:, node:node + 1]
        b = beta[:, node:node + 1]
        f = torch.sigmoid(a * h_forget + (1 - a) * f_base)
        o = torch.sigmoid(b * h_output + (1 - b) * o_base)
    z = torch.relu(z_base)
    c_new = f * c + (1 - f) * z
    return o * c_new + x, c_new


def encode(variant, p, tokens, mask, training=False, dropout=None,
           depth=DEPTH):
    x = F.embedding(tokens, p["embedding"]) * mask.unsqueeze(-1)
    rate_in = rate(dropout, "in", training)
    if rate_in > 0:
        x = F.dropout(x, rate_in, training=True)
    m, length = tokens.shape
    hidden = p["embedding"].size(1)
    cells = 3 * (depth + 1)
    h = x.new_zeros(m, hidden)
    c = x.new_zeros(m, hidden)
    for t in range(length):
        x_t = x[:, t]
        base = base_transforms(variant, p, x_t, h, c, cells)
        # Node n's (α, β) are outputs (2n, 2n+1).
        gates = torch.sigmoid(F.linear(x_t, p["depth_w"], p["depth_b"]))
        h_new, c_new = instance(depth, 0, base, gates[:, 0::2], gates[:, 1::2],
                                x_t, c)
        keep = mask[:, t:t + 1]
        h = keep * h_new + (1 - keep) * h
        c = keep * c_new + (1 - keep) * c
    return h


family_logits = functools.partial(variant_logits, encode, rate)
family_loss = functools.partial(variant_loss, family_logits)
logits = functools.partial(family_logits, "lstm")
loss = functools.partial(family_loss, "lstm")
