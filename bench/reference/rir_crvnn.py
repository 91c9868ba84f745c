"""RIR-CRvNN, eager PyTorch, written from model-specs §1, §3 (RIR), §4, §7.

Recursion in Recursion with CRvNN (BRF variant) inside each chunk and no S4D
pre-chunk layer, as the authors' HCRvNN / CRvNNX: the leaf transform runs
once on the tokens before the outer loop; each chunk is one batch row of an
inner CRvNN whose START/END join the chunk untransformed; the chunk's item
is h at its last real item (START for a padding chunk, whose item is masked
at the next level). The outer loop (chunking, padding rule, item masks) is
rir_grc.py's `encode`, one chunk of one sample at a time; the inner CRvNN is
crvnn.py's per-sample `reduce` on a batch of that one chunk.

Evaluation mode (no dropout); `chunk` (default 30, §8) is the outer chunk
size.
"""
import torch.nn.functional as F

import crvnn
import rir_grc
from bbt_grc import head

CHUNK = rir_grc.CHUNK


def chunk_crvnn(p, items, mask, cell_dropout):
    """The inner recursion over one chunk of one sample: items [L, D], mask
    [L] -> the item [D]."""
    assert cell_dropout == 0, "the CRvNN reference is evaluation-mode only"
    return crvnn.reduce(p, items.unsqueeze(0), mask.unsqueeze(0),
                        transform=False)[0]


def logits(params, inputs, chunk=CHUNK):
    tokens, mask = inputs
    root = rir_grc.encode(params, tokens, mask, chunk=chunk,
                          inner=chunk_crvnn)
    return head(params, root)


def loss(params, inputs, labels, chunk=CHUNK):
    return F.cross_entropy(logits(params, inputs, chunk), labels)
