"""The Transformer baselines for logical inference and ListOps, eager
PyTorch, written from Vaswani et al. ("Attention Is All You Need"), Dehghani
et al. ("Universal Transformers"), the FastTrees paper (§3.3) and
model-specs §6 and §7: post-norm encoder layers, each sequence the mean of
its final states over its real tokens. Logical inference (logits, loss) encodes
both sentences of a pair as one Siamese batch of 2N and classifies
[a; b; a⊙b; |a-b|] -> Linear -> GELU -> Linear(D, 7); ListOps
(listops_logits, listops_loss) puts the encoding through BBT-GRC's ListOps
head, Linear -> GELU -> Linear(D, 10).

The variants:
- "transformer": layers with their own weights (stacked [layers, ...] in
  `params`, six in the model), positions added once to the embeddings;
- "universal_transformer": one layer's weights applied once per row of the
  step table, the positions and that row added before each step (Dehghani
  et al.'s coordinate embedding; no adaptive halting);
- "fasttrees_transformer": "transformer" with the FastTrees module applied to
  the self-attention output before its residual connection.

Evaluation mode (no dropout) by default; with training=True dropout applies
on the input (rate dropout["in"]), on each residual branch (dropout["cell"])
and in the head (dropout["out"]), §8's rates by default. `params` uses the
model's parameter names; `inputs` is [tokens1, mask1, tokens2, mask2] for
logical inference and [tokens, mask] for ListOps.
"""
import functools

import torch
import torch.nn.functional as F

import bbt_grc
import ordered_neurons
from ordered_neurons import cumax
from sentence_pair import variant_logits, variant_loss

# §8's dropout (the papers give none for these baselines): logical inference
# here, ListOps in bbt_grc.DROPOUT.
DROPOUT = {"in": 0.4, "cell": 0.1, "out": 0.1}
HEADS = 8
# The per-layer weights, stacked [layers, ...] ("universal_transformer": a
# stack of one; "fasttrees_transformer" adds ft_w and ft_b).
LAYER_PARAMS = ("att_qkv_w", "att_out_w", "ln1_g", "ln1_b", "ff1_w", "ff1_b",
                "ff2_w", "ff2_b", "ln2_g", "ln2_b", "ft_w", "ft_b")


def rate(dropout, key, training):
    return ordered_neurons.rate(DROPOUT if dropout is None else dropout, key,
                                training)


def drop(x, p):
    return F.dropout(x, p, training=True) if p > 0 else x


def self_attention(x, mask, w_qkv, w_o):
    n, length, d = x.shape

    def heads(t):
        return t.reshape(n, length, HEADS, d // HEADS).transpose(1, 2)

    q, k, v = F.linear(x, w_qkv).chunk(3, -1)
    scores = heads(q) @ heads(k).transpose(-1, -2) / (d // HEADS) ** 0.5
    pad_keys = ~mask.bool()[:, None, None, :]
    weights = torch.softmax(scores.masked_fill(pad_keys, float("-inf")), -1)
    o = weights @ heads(v)
    return F.linear(o.transpose(1, 2).reshape(n, length, d), w_o)


def fasttrees_module(x, w, b):
    """Y = F⊙X, F = σ(Fh X)⊙(A⊙B) + (A - A⊙B), A = cumax(Fa X),
    B = 1 - cumax(Fb X); w, b hold Fa, Fb, Fh stacked."""
    fa, fb, fh = F.linear(x, w, b).chunk(3, -1)
    a = cumax(fa)
    b_gate = 1.0 - cumax(fb)
    overlap = a * b_gate
    return (torch.sigmoid(fh) * overlap + (a - overlap)) * x


def layer(p, x, mask, fasttrees, p_cell):
    """One post-norm encoder layer; p maps the parameter names to one layer's
    weights."""
    d = x.size(-1)
    att = self_attention(x, mask, p["att_qkv_w"], p["att_out_w"])
    if fasttrees:
        att = fasttrees_module(att, p["ft_w"], p["ft_b"])
    x = F.layer_norm(x + drop(att, p_cell), (d,), p["ln1_g"], p["ln1_b"])
    ff = F.linear(F.relu(F.linear(x, p["ff1_w"], p["ff1_b"])), p["ff2_w"],
                  p["ff2_b"])
    return F.layer_norm(x + drop(ff, p_cell), (d,), p["ln2_g"], p["ln2_b"])


def encode(variant, p, tokens, mask, training=False, dropout=None):
    length = tokens.size(1)
    x = F.embedding(tokens, p["embedding"])
    positions = p["positions"][:length]
    p_cell = rate(dropout, "cell", training)

    def layer_weights(l):
        return {name: p[name][l] for name in LAYER_PARAMS if name in p}

    if variant == "universal_transformer":
        x = drop(x, rate(dropout, "in", training))
        shared = layer_weights(0)
        for step in p["step_embedding"]:
            x = layer(shared, x + positions + step, mask, False, p_cell)
    else:
        x = drop(x + positions, rate(dropout, "in", training))
        for l in range(p["att_qkv_w"].size(0)):
            x = layer(layer_weights(l), x, mask,
                      variant == "fasttrees_transformer", p_cell)
    # The mean over real tokens.
    m = mask.unsqueeze(-1)
    return (x * m).sum(1) / m.sum(1)


logits = functools.partial(variant_logits, encode, rate)
loss = functools.partial(variant_loss, logits)


listops_logits = functools.partial(bbt_grc.family_logits, encode)
listops_loss = functools.partial(variant_loss, listops_logits)
