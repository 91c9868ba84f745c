"""ON-LSTM and the FastTrees family for logical inference and ListOps, eager
PyTorch, written from model-specs §6 and §7 and the FastTrees paper (§3): one
left-to-right layer of ordered-neurons cells. Logical inference (logits,
loss) runs it over both sentences of a pair (a Siamese batch of 2N), then
[a; b; a⊙b; |a-b|] -> Linear -> GELU -> Linear(H, 7); ListOps
(listops_logits, listops_loss) puts the state after each sequence's last
real token through BBT-GRC's ListOps head, Linear -> GELU -> Linear(H, 10).

The variants differ in what the master gates and the gates read:
- "on_lstm": G = ih(x_t) + hh(h_{t-1}), all 4H + 2n outputs;
- "fasttrees": master gates from ih(x_t) only, the 4H gates add hh(h_{t-1});
- "faster_fasttrees": no hh term at all;
- "conv_fasttrees": like "fasttrees", but the master gates are
  Linear(CausalConv(x)) (kernel CONV_KERNEL, zero-padded on the left).
A padded step (mask 0) keeps the state, so the encoding is the state after
the last real token. The master gates are computed per step inside the loop,
as ON-LSTM's reference code does, not batched over time.

Evaluation mode (no dropout) by default; with training=True dropout applies
on the embeddings (rate dropout["in"]) and in the head (dropout["out"]):
the FastTrees paper's 0.2 for logical inference, §8's ListOps 0.1
(bbt_grc.DROPOUT) for ListOps. `params` uses the model's parameter names;
`inputs` is [tokens1, mask1, tokens2, mask2] for logical inference and
[tokens, mask] for ListOps. The sizes (hidden H, master gates 2n, so the
chunk H / n) come from the parameters' shapes.
"""
import functools

import torch
import torch.nn.functional as F

import bbt_grc
from sentence_pair import variant_logits, variant_loss

# FastTrees paper, logical inference: dropout 0.2 between layers.
DROPOUT = {"in": 0.2, "out": 0.2}
# Conv FastTrees' kernel size (the paper gives none).
CONV_KERNEL = 3


def rate(dropout, key, training):
    if not training:
        return 0.0
    return (DROPOUT if dropout is None else dropout).get(key, 0.0)


def cumax(x):
    return torch.cumsum(torch.softmax(x, -1), -1)


def cell(master, gates, c):
    """One ordered-neurons update: master [M, 2n], gates [M, 4H], c [M, H]."""
    m, hidden = c.shape
    n = master.size(1) // 2
    chunk = hidden // n
    fm = cumax(master[:, :n])
    im = 1.0 - cumax(master[:, n:])
    # Each master gate covers `chunk` consecutive neurons.
    fm = fm.repeat_interleave(chunk, dim=1)
    im = im.repeat_interleave(chunk, dim=1)
    o, cand, i, f = gates.chunk(4, 1)
    omega = fm * im
    f_hat = torch.sigmoid(f) * omega + (fm - omega)
    i_hat = torch.sigmoid(i) * omega + (im - omega)
    c_new = f_hat * c + i_hat * torch.tanh(cand)
    h_new = torch.sigmoid(o) * torch.tanh(c_new)
    return h_new, c_new


def causal_conv(p, x, kernel):
    """x [M, S, E] -> [M, S, C]: out_t reads x_{t-k+1} .. x_t (zeros before
    the sequence). The model stores the weight as [C, k·E], the weight of
    x_{t-k+1+j}[e] at column j·E + e; conv1d takes [C, E, k]."""
    channels, width = p["conv_w"].shape
    w = p["conv_w"].reshape(channels, kernel, width // kernel).transpose(1, 2)
    y = F.conv1d(F.pad(x.transpose(1, 2), (kernel - 1, 0)), w, p["conv_b"])
    return y.transpose(1, 2)


def encode(variant, p, tokens, mask, training=False, dropout=None):
    x = F.embedding(tokens, p["embedding"]) * mask.unsqueeze(-1)
    rate_in = rate(dropout, "in", training)
    if rate_in > 0:
        x = F.dropout(x, rate_in, training=True)
    m, length = tokens.shape
    hidden = p["head_w2"].size(1)
    n2 = p["ih_w"].size(0) - 4 * hidden  # 2n, 0 for conv_fasttrees
    if variant == "conv_fasttrees":
        master_seq = F.linear(causal_conv(p, x, CONV_KERNEL), p["master_w"],
                              p["master_b"])
    h = x.new_zeros(m, hidden)
    c = x.new_zeros(m, hidden)
    for t in range(length):
        g_x = F.linear(x[:, t], p["ih_w"], p["ih_b"])
        if variant == "on_lstm":
            g = g_x + F.linear(h, p["hh_w"], p["hh_b"])
            master, gates = g[:, :n2], g[:, n2:]
        elif variant == "conv_fasttrees":
            master = master_seq[:, t]
            gates = g_x + F.linear(h, p["hh_w"], p["hh_b"])
        else:
            master, gates = g_x[:, :n2], g_x[:, n2:]
            if variant == "fasttrees":
                gates = gates + F.linear(h, p["hh_w"], p["hh_b"])
        h_new, c_new = cell(master, gates, c)
        keep = mask[:, t:t + 1]
        h = keep * h_new + (1 - keep) * h
        c = keep * c_new + (1 - keep) * c
    return h


logits = functools.partial(variant_logits, encode, rate)
loss = functools.partial(variant_loss, logits)


listops_logits = functools.partial(bbt_grc.family_logits, encode)
listops_loss = functools.partial(variant_loss, listops_logits)
