"""The Siamese batch of the sentence-pair models (model-specs §7)."""
import torch
import torch.nn.functional as F


def stack_pair(tokens1, mask1, tokens2, mask2):
    """One batch of 2N: both sentences right-padded (id 0, mask 0) to one
    length and stacked, first sentences in rows [0, N)."""
    length = max(tokens1.size(1), tokens2.size(1))
    tokens = torch.cat([F.pad(tokens1, (0, length - tokens1.size(1))),
                        F.pad(tokens2, (0, length - tokens2.size(1)))], 0)
    mask = torch.cat([F.pad(mask1, (0, length - mask1.size(1))),
                      F.pad(mask2, (0, length - mask2.size(1)))], 0)
    return tokens, mask
