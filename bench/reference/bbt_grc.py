"""BBT-GRC, eager PyTorch, written from model-specs §1, §2 and §7.

Evaluation mode (no dropout) by default. `params` uses the model's parameter
names. With `training=True` the functions apply dropout where §8 puts it, at
the rates in `dropout` (a dict with keys "in", "cell", "out"; default
DROPOUT, the §8 ListOps rates): "in" after embedding·mask, "cell" on the GRC
cell's GELU output, "out" at the head's two dropouts (on the root before
Linear(D, D) and on the GELU output before Linear(D, 10)). Dropout is
inverted (kept values scaled by 1/(1 - rate)) and draws from torch's default
generator. With `training=False` (the default) the results are exactly the
evaluation-mode ones that check_equivalence.py compares.
"""
import torch
import torch.nn.functional as F

from cells import grc

# §8, ListOps: dropout in / cell / out.
DROPOUT = {"in": 0.1, "cell": 0.1, "out": 0.1}


def _rate(dropout, key, training):
    if not training:
        return 0.0
    return (DROPOUT if dropout is None else dropout).get(key, 0.0)


def cell(p, left, right, cell_dropout=0.0):
    return grc(left, right, p["cell_w1"], p["cell_b1"], p["cell_w2"],
               p["cell_b2"], p["cell_gamma"], p["cell_beta"], cell_dropout)


def leaves(p, tokens, mask, training=False, dropout=None):
    """§1: LN(Linear(D, D)(dropout(embedding·mask)))."""
    x = F.embedding(tokens, p["embedding"]) * mask.unsqueeze(-1)
    rate_in = _rate(dropout, "in", training)
    if rate_in > 0:
        x = F.dropout(x, rate_in, training=True)
    h = F.linear(x, p["leaf_w"], p["leaf_b"])
    return F.layer_norm(h, h.shape[-1:], p["leaf_gamma"], p["leaf_beta"])


def encode(p, tokens, mask, training=False, dropout=None):
    h = leaves(p, tokens, mask, training, dropout)
    rate_cell = _rate(dropout, "cell", training)
    # §2: pair neighbours until one node is left.
    while h.size(1) > 1:
        if h.size(1) % 2 == 1:
            h = torch.cat([h, torch.zeros_like(h[:, :1])], 1)
            mask = torch.cat([mask, torch.zeros_like(mask[:, :1])], 1)
        left, right = h[:, 0::2], h[:, 1::2]
        left_mask, right_mask = mask[:, 0::2], mask[:, 1::2]
        mr = right_mask.unsqueeze(-1)
        h = mr * cell(p, left, right, rate_cell) + (1 - mr) * left
        mask = left_mask
    return h[:, 0]


def logits(params, inputs, training=False, dropout=None):
    tokens, mask = inputs
    return head(params, encode(params, tokens, mask, training, dropout),
                training, dropout)


def head(params, root, training=False, dropout=None):
    """§7: dropout -> Linear(D, D) -> GELU -> dropout -> Linear(D, 10)."""
    rate_out = _rate(dropout, "out", training)
    if rate_out > 0:
        root = F.dropout(root, rate_out, training=True)
    hidden = F.gelu(F.linear(root, params["head_w1"], params["head_b1"]))
    if rate_out > 0:
        hidden = F.dropout(hidden, rate_out, training=True)
    return F.linear(hidden, params["head_w2"], params["head_b2"])


def family_logits(encode, variant, params, inputs, training=False,
                  dropout=None):
    """ListOps class scores of one variant of a model family whose
    `encode(variant, params, tokens, mask, training, dropout)` gives one
    encoding per sequence: head() over it, §8's ListOps dropout by default."""
    rates = DROPOUT if dropout is None else dropout
    tokens, mask = inputs
    encoding = encode(variant, params, tokens, mask, training, rates)
    return head(params, encoding, training, rates)


def loss(params, inputs, labels, training=False, dropout=None):
    return F.cross_entropy(logits(params, inputs, training, dropout), labels)
