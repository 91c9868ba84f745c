"""BBT-GRC for logical inference, eager PyTorch, written from model-specs §1,
§2 and §7 ("Sentence pair"): a Siamese balanced binary tree of GRC cells over
both sentences, then [a; b; a⊙b; |a-b|] -> Linear -> GELU -> Linear(D, 7).

Evaluation mode (no dropout). `params` uses the model's parameter names;
`inputs` is [tokens1, mask1, tokens2, mask2].
"""
import torch
import torch.nn.functional as F

from bbt_grc import encode
from sentence_pair import stack_pair


def loss(params, inputs, labels):
    # §7: one Siamese batch of 2N, both sentences right-padded to one length.
    tokens, mask = stack_pair(*inputs)
    roots = encode(params, tokens, mask)
    a, b = roots.split(inputs[0].size(0), 0)
    features = torch.cat([a, b, a * b, (a - b).abs()], -1)
    hidden = F.gelu(F.linear(features, params["head_w1"], params["head_b1"]))
    logits = F.linear(hidden, params["head_w2"], params["head_b2"])
    return F.cross_entropy(logits, labels)
