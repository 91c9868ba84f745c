"""BBT-GRC for logical inference, eager PyTorch, written from model-specs §1,
§2 and §7 ("Sentence pair"): a Siamese balanced binary tree of GRC cells over
both sentences, then [a; b; a⊙b; |a-b|] -> Linear -> GELU -> Linear(D, 7).

Evaluation mode (no dropout). `params` uses the model's parameter names;
`inputs` is [tokens1, mask1, tokens2, mask2].
"""
import torch.nn.functional as F

from bbt_grc import encode
from sentence_pair import pair_logits


def loss(params, inputs, labels):
    def roots(tokens, mask):
        return encode(params, tokens, mask)

    return F.cross_entropy(pair_logits(params, inputs, roots), labels)
