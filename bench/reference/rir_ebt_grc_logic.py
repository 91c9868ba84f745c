"""RIR-EBT-GRC for logical inference, eager PyTorch: a Siamese sentence-pair
classifier (model-specs §7) whose encoder is rir_ebt_grc_s4d.py's (the S4D
pre-chunk layer of rir_grc_s4d.py, then rir_ebt_grc.py's outer recursion with
beam alignment around EBT-GRC with beam 7), over the Siamese batch of both
sentences (sentence_pair.py), as models/rir_ebt_grc_logic.mlir composes
them. The S4D dropout is 0 for logical inference (§8).

Evaluation mode by default; `inputs` is [tokens1, mask1, tokens2, mask2].
The beam alignment of the one Siamese batch redraws rvnn's draws from
`draw_seed` (rir_ebt_grc.py); `rir=False` is the non-RIR inference, rvnn's
default at evaluation. Training mode (`training=True`) is rir_ebt_grc.py's
(dropout, Gumbel top-k noise unless `noise=False`, the RIR forward, all
drawn from torch's default generator) with the head's dropout at
sentence_pair.classify's two places, at the rates in `dropout` (default
bbt_grc_logic.DROPOUT, §8's logical-inference rates).
"""
import torch.nn.functional as F

from bbt_grc_logic import DROPOUT
from rir_ebt_grc import CHUNK, EVAL_OPTIONS, Draws, TorchDraws, encode  # noqa: F401
from rir_grc_s4d import leaves
from sentence_pair import dropout_rate, pair_logits


def logits(params, inputs, training=False, dropout=None, draw_seed=0,
           chunk=CHUNK, rir=None, align="sample", noise=True):
    """Class scores; `rir=None` is rvnn's default: the RIR forward in
    training, the non-RIR inference at evaluation."""
    rir = training if rir is None else rir
    draws = TorchDraws() if training else Draws(draw_seed)
    rates = DROPOUT if dropout is None else dropout

    def encodings(tokens, mask):
        return encode(params, tokens, mask, draws, chunk, rir, align,
                      leaf_states=leaves, training=training, dropout=rates,
                      noise=noise)

    return pair_logits(params, inputs, encodings,
                       dropout_rate(DROPOUT, dropout, "out", training))


def loss(params, inputs, labels, draw_seed=0, chunk=CHUNK, rir=True,
         align="sample", training=False, dropout=None, noise=True):
    return F.cross_entropy(logits(params, inputs, training, dropout,
                                  draw_seed, chunk, rir, align, noise), labels)
