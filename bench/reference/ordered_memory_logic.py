"""Ordered Memory for logical inference (model-specs §7): one Siamese batch
of both sentences, each encoded alone over its real tokens by
bench/reference/ordered_memory.py's encoder with 12 slots (the authors'
proplog.py), then sentence_pair.classify's head ([a; b; a⊙b; |a-b|] ->
Linear -> GELU -> Linear(D, 7)). The dropout rates are ordered_memory's:
the model shares its step, with its rates, with the ListOps model."""
import torch.nn.functional as F

import ordered_memory
from sentence_pair import dropout_rate, pair_logits

# The authors' logical-inference script (proplog.py): nslot 12.
SLOTS = 12


def logits(params, inputs, training=False, dropout=None):
    rates = ordered_memory.DROPOUT if dropout is None else dropout
    return pair_logits(
        params, inputs,
        lambda tokens, mask: ordered_memory.encode(params, tokens, mask,
                                                   training, rates, SLOTS),
        dropout_rate(ordered_memory.DROPOUT, dropout, "out", training))


def loss(params, inputs, labels, training=False, dropout=None):
    return F.cross_entropy(logits(params, inputs, training, dropout), labels)
