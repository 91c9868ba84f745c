"""BT-GRC OneSoft, eager PyTorch, written from model-specs §3 ("BT-GRC
OneSoft"), on BT-GRC (bt_grc.py, §1, §3, §7).

When a step has more than BEAM candidates, training keeps the BEAM - 1 best
(by accu, masked candidates last, ties to the lower index) and merges all
the others into one soft beam weighted by masked_softmax(accu, beam_mask)
over them: its accu, beam mask, pair selection, states and composed pairs
are those weighted sums (gradients flow through the weights). Evaluation
keeps the BEAM best, as BT-GRC. No Gumbel noise in either mode (the
authors' OneSoft code draws none).

Evaluation mode (no dropout) by default. With `training=True` dropout
applies as in bt_grc.py, at the rates in `dropout` (all 0 gives the
noise-free training-mode forward that the equivalence test compares).
"""
import torch
import torch.nn.functional as F

import bt_grc
from bt_grc import BEAM, masked_softmax


def soft_merge(h, cand, sel, accu, beam_mask, training, noise):
    """Brings the C candidates back to BEAM beams: hard top BEAM - 1 plus one
    soft beam in training, top BEAM at evaluation."""
    if not training:
        return bt_grc.truncate(h, cand, sel, accu, beam_mask, training, noise)
    N, C = accu.shape
    ranked = accu.masked_fill(beam_mask == 0, float("-inf"))
    order = torch.sort(ranked, dim=-1, descending=True, stable=True).indices
    sorted_one_hot = F.one_hot(order, C).to(accu.dtype)         # [N, C, C]
    weights = torch.zeros(N, BEAM, C, dtype=accu.dtype)
    weights[:, :BEAM - 1, :BEAM - 1] = torch.eye(BEAM - 1, dtype=accu.dtype)
    sorted_accu = (sorted_one_hot @ accu.unsqueeze(-1)).squeeze(-1)
    sorted_mask = (sorted_one_hot @ beam_mask.unsqueeze(-1)).squeeze(-1)
    rest = masked_softmax(sorted_accu[:, BEAM - 1:], sorted_mask[:, BEAM - 1:])
    weights = torch.cat([weights[:, :BEAM - 1],
                         F.pad(rest, (BEAM - 1, 0)).unsqueeze(1)], 1)
    # Weights over the sorted candidates -> weights over the candidates.
    return bt_grc.mix(weights @ sorted_one_hot, h, cand, sel, accu, beam_mask)


def loss(params, inputs, labels, training=False, dropout=None):
    logits = bt_grc.logits(params, inputs, training, dropout, prune=soft_merge,
                           noise=False)
    return F.cross_entropy(logits, labels)
