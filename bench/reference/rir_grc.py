"""RIR-GRC, eager PyTorch, written from model-specs §1, §3 (RIR), §7.

Recursion in Recursion with a left-to-right GRC RNN inside each chunk and no
S4D pre-chunk layer. Outer loop while S > 1: if S >= chunk + chunk//2,
right-pad to a multiple of `chunk` (pad mask 0) and cut into S // chunk
chunks; else one chunk of length S. Each chunk is read left to right by the
RNN h <- m_t·GRC(h, x_t) + (1 - m_t)·h from h = 0, one chunk at a time here
(a Python loop over the chunks of every sample, not batched); the chunk's
item is the last h and its mask the chunk's first mask.

Evaluation mode (no dropout) by default; `training` and `dropout` as in
bbt_grc.py. `chunk` (default 30, §8) is the outer chunk size.
"""
import functools

import torch
import torch.nn.functional as F

# The leaf transform (§1), the GRC cell with its parameter names, the ListOps
# head (§7) and the dropout rates (§8) are BBT-GRC's.
from bbt_grc import _rate, cell, head, leaves

CHUNK = 30


def rnn(p, items, mask, cell_dropout):
    """The inner recursion over one chunk of one sample: items [L, D], mask
    [L] -> the last state [D]."""
    h = torch.zeros_like(items[0])
    for t in range(items.size(0)):
        h = mask[t] * cell(p, h.unsqueeze(0), items[t].unsqueeze(0),
                           cell_dropout)[0] + (1 - mask[t]) * h
    return h


def encode(p, tokens, mask, training=False, dropout=None, chunk=CHUNK,
           inner=rnn):
    """The outer RIR recursion; `inner(p, items [L, D], mask [L],
    cell_dropout) -> [D]` reduces one chunk (RIR-GRC: `rnn`)."""
    h = leaves(p, tokens, mask, training, dropout)
    return outer(p, h, mask, _rate(dropout, "cell", training), chunk, inner)


def outer(p, h, mask, rate_cell, chunk=CHUNK, inner=rnn):
    """The outer recursion from the leaves h [N, S, D] -> the roots [N, D],
    each chunk reduced by `inner`."""
    while h.size(1) > 1:
        length = h.size(1)
        if length >= chunk + chunk // 2:
            size = chunk
            pad = -length % chunk
            h = F.pad(h, (0, 0, 0, pad))
            mask = F.pad(mask, (0, pad))
        else:
            size = length
        items, masks = [], []
        for n in range(h.size(0)):
            row_items, row_masks = [], []
            for start in range(0, h.size(1), size):
                row_items.append(inner(p, h[n, start:start + size],
                                       mask[n, start:start + size], rate_cell))
                row_masks.append(mask[n, start])
            items.append(torch.stack(row_items))
            masks.append(torch.stack(row_masks))
        h, mask = torch.stack(items), torch.stack(masks)
    return h[:, 0]


def encoder_logits(encoder, params, inputs, training=False, dropout=None,
                   chunk=CHUNK):
    """The ListOps head over `encoder(params, tokens, mask, training,
    dropout, chunk)`: shared by the RIR-GRC variants."""
    tokens, mask = inputs
    root = encoder(params, tokens, mask, training, dropout, chunk)
    return head(params, root, training, dropout)


def encoder_loss(encoder, params, inputs, labels, training=False,
                 dropout=None, chunk=CHUNK):
    return F.cross_entropy(
        encoder_logits(encoder, params, inputs, training, dropout, chunk),
        labels)


logits = functools.partial(encoder_logits, encode)
loss = functools.partial(encoder_loss, encode)
