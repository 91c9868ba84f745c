"""RIR-EBT-GRC for logical inference, eager PyTorch: a Siamese sentence-pair
classifier (model-specs §7) whose encoder is rir_ebt_grc_s4d.py's (the S4D
pre-chunk layer of rir_grc_s4d.py, then rir_ebt_grc.py's outer recursion with
beam alignment around EBT-GRC with beam 7), over the Siamese batch of both
sentences (sentence_pair.py), as models/rir_ebt_grc_logic.mlir composes
them. The S4D dropout (0 for logical inference, §8) does not arise in
evaluation mode.

Evaluation mode only; `inputs` is [tokens1, mask1, tokens2, mask2]. The
beam alignment of the one Siamese batch redraws rvnn's draws from
`draw_seed` (rir_ebt_grc.py); `rir=False` is the non-RIR inference, rvnn's
default at evaluation.
"""
import torch.nn.functional as F

from rir_ebt_grc import CHUNK, EVAL_OPTIONS, Draws, encode  # noqa: F401
from rir_grc_s4d import leaves
from sentence_pair import pair_logits


def loss(params, inputs, labels, draw_seed=0, chunk=CHUNK, rir=True,
         align="sample"):
    draws = Draws(draw_seed)

    def encodings(tokens, mask):
        return encode(params, tokens, mask, draws, chunk, rir, align,
                      leaf_states=leaves)

    return F.cross_entropy(pair_logits(params, inputs, encodings), labels)
