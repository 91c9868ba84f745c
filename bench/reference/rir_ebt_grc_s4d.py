"""RIR-EBT-GRC with the S4D pre-chunk layer, eager PyTorch: rir_ebt_grc.py's
model (outer chunked recursion with beam alignment, inner EBT-GRC with beam
7, marginalisation, ListOps head) over rir_grc_s4d.py's leaves (embedding ·
mask, the bidirectional S4D layer of the RIR paper, App. J, eqs. 13-17, then
LN(Linear(D, D)(·))), as models/rir_ebt_grc_s4d.mlir composes them.

Evaluation mode only (no dropout, no Gumbel top-k noise); the beam
alignment redraws rvnn's draws from `draw_seed` (see rir_ebt_grc.py).
`rir=False` is the non-RIR inference, rvnn's default at evaluation.
"""
import torch.nn.functional as F

from bbt_grc import head
from rir_ebt_grc import CHUNK, EVAL_OPTIONS, Draws, encode  # noqa: F401
from rir_grc_s4d import leaves


def loss(params, inputs, labels, draw_seed=0, chunk=CHUNK, rir=True,
         align="sample"):
    tokens, mask = inputs
    root = encode(params, tokens, mask, Draws(draw_seed), chunk, rir, align,
                  leaf_states=leaves)
    return F.cross_entropy(head(params, root), labels)
