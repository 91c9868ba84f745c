"""BKT-GRC, eager PyTorch: a balanced k-ary tree of k-ary GRC cells over the
leaf states, written from model-specs §1, §2 ("balanced k-ary (BKT)") and §7
and the RIR paper's BKT-RvNN (chunks of k composed by one k-ary cell, until
one node is left).

The k-ary GRC (cells.grc_kary) is the GRC with one forget gate per child. In
each chunk, padding children (mask 0) are zero vectors; a chunk whose second
child is padding passes its first child up; the new mask is each chunk's
first mask. `arity` (default ARITY = 30, the RIR paper's chunk size) must
match the model's: it fixes the shapes of cell_w1 and cell_w2.

Evaluation mode (no dropout) by default; `training` and `dropout` as in
bbt_grc.py (inverted dropout at §8's ListOps rates, torch's default
generator).
"""
import torch
import torch.nn.functional as F

from bbt_grc import _rate, head, leaves
from cells import grc_kary

ARITY = 30


def encode(p, tokens, mask, training=False, dropout=None, arity=ARITY):
    h = leaves(p, tokens, mask, training, dropout)
    rate_cell = _rate(dropout, "cell", training)
    while h.size(1) > 1:
        pad = -h.size(1) % arity
        if pad:
            h = torch.cat([h, h.new_zeros(h.size(0), pad, h.size(2))], 1)
            mask = torch.cat([mask, mask.new_zeros(mask.size(0), pad)], 1)
        n, s, d = h.shape
        children = h.reshape(n, s // arity, arity, d)
        child_mask = mask.reshape(n, s // arity, arity)
        real = children * child_mask.unsqueeze(-1)
        parent = grc_kary(real, p["cell_w1"], p["cell_b1"], p["cell_w2"],
                          p["cell_b2"], p["cell_gamma"], p["cell_beta"],
                          rate_cell)
        second = child_mask[..., 1:2]
        h = second * parent + (1 - second) * children[..., 0, :]
        mask = child_mask[..., 0]
    return h[:, 0]


def logits(params, inputs, training=False, dropout=None, arity=ARITY):
    tokens, mask = inputs
    return head(params, encode(params, tokens, mask, training, dropout, arity),
                training, dropout)


def loss(params, inputs, labels, training=False, dropout=None, arity=ARITY):
    return F.cross_entropy(logits(params, inputs, training, dropout, arity),
                           labels)
