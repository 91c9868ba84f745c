"""BBT-GRC for logical inference, eager PyTorch, written from model-specs §1,
§2 and §7 ("Sentence pair"): a Siamese balanced binary tree of GRC cells over
both sentences, then [a; b; a⊙b; |a-b|] -> Linear -> GELU -> Linear(D, 7).

Evaluation mode (no dropout) by default. `params` uses the model's parameter
names; `inputs` is [tokens1, mask1, tokens2, mask2]. With `training=True`
dropout applies at bbt_grc.py's places ("in" after embedding·mask, "cell" in
the GRC cell) and at the head's two ("out", sentence_pair.classify), at the
rates in `dropout` (default DROPOUT).
"""
import torch.nn.functional as F

from bbt_grc import encode
from sentence_pair import dropout_rate, pair_logits

# §8, logical inference: dropout in / cell / out (models/bbt_grc_logic.json).
DROPOUT = {"in": 0.4, "cell": 0.1, "out": 0.1}


def logits(params, inputs, training=False, dropout=None):
    rates = DROPOUT if dropout is None else dropout
    return pair_logits(
        params, inputs,
        lambda tokens, mask: encode(params, tokens, mask, training, rates),
        dropout_rate(DROPOUT, dropout, "out", training))


def loss(params, inputs, labels, training=False, dropout=None):
    return F.cross_entropy(logits(params, inputs, training, dropout), labels)
