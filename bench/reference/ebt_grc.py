"""EBT-GRC, eager PyTorch, written from model-specs §1, §3 (BT-GRC beam
bookkeeping + EBT's sliced scorer) and §7.

Evaluation mode (no dropout, no Gumbel noise) by default. `params` uses
the model's parameter names; linear weights are [out, in]. The pieces that
rir_ebt_grc.py reuses also take its training mode: `cell_dropout` (on the
GRC cell's GELU output) and `noise` (Gumbel(0, 1) noise on both top-ks'
ranking keys, as rvnn.topk's `gumbel` in training; the child scores stay
noise-free), drawn from torch's default generator. The scorer MLP is
Linear(2ds, ds) -> GELU -> Linear(ds, 1) without the last bias (a constant
shift of every pair score, which the masked softmax and the ranking ignore).
"""
import torch
import torch.nn.functional as F

from cells import grc

BEAM = 5
DS = 64


def cell(p, left, right, cell_dropout=0.0):
    """The GRC cell (model-specs §1), shared by the references."""
    return grc(left, right, p["cell_w1"], p["cell_b1"], p["cell_w2"],
               p["cell_b2"], p["cell_gamma"], p["cell_beta"], cell_dropout)


def masked_softmax(x, mask, dim=-1):
    """BTC's masked softmax: softmax(x)·mask + 1e-20, renormalised."""
    probs = F.softmax(x, dim=dim) * mask + 1e-20
    return probs / probs.sum(dim, keepdim=True)


def gumbel(x):
    """Gumbel(0, 1) noise shaped like x (torch's default generator)."""
    u = torch.rand_like(x)
    return -torch.log(-torch.log(u + 1e-20) + 1e-20)


def topk_one_hot(scores, k):
    """One-hot [.., k, S] of the k best entries along the last dim, best
    first; equal scores rank by position (lower index first). Ties are
    common: equal tokens give equal leaves, hence equal pair scores."""
    idx = torch.sort(scores, dim=-1, descending=True, stable=True).indices[..., :k]
    return F.one_hot(idx, scores.size(-1)).to(scores.dtype)


def pair_scores(p, h):
    """score_j = MLP([h_j[:ds]; h_{j+1}[:ds]]) for each adjacent pair."""
    cat = torch.cat([h[..., :-1, :DS], h[..., 1:, :DS]], dim=-1)
    hidden = F.gelu(F.linear(cat, p["score_w1"], p["score_b1"]))
    return F.linear(hidden, p["score_w2"]).squeeze(-1)


def step(p, h, accu, beam_mask, pair_mask, beam=BEAM, noise=False):
    """One scored merge step. h [N, B, S, D], accu / beam_mask [N, B],
    pair_mask [N, S-1] (1 where the pair may be merged). With `noise` both
    rankings take Gumbel noise (on the pair scores and on the child scores;
    the masked softmax keeps masked entries last)."""
    N, B, S, D = h.shape
    P = S - 1
    scores = pair_scores(p, h)
    valid = pair_mask.unsqueeze(1).expand(N, B, P)
    probs = masked_softmax(scores, valid)
    key = masked_softmax(scores + gumbel(scores), valid) if noise else probs
    k = min(P, beam)
    sel = topk_one_hot(key, k)                                   # [N, B, k, P]
    picked = (sel * probs.unsqueeze(2)).sum(-1)                  # [N, B, k]
    accu = (accu.unsqueeze(-1) + torch.log(picked + 1e-20)).reshape(N, B * k)

    # A finished sample (no valid pair) keeps only child 0.
    not_done = pair_mask[:, 0].view(N, 1, 1)
    only_first = torch.zeros(k, dtype=h.dtype)
    only_first[0] = 1
    child_mask = not_done + (1 - not_done) * only_first          # [N, 1, k]
    beam_mask = (beam_mask.unsqueeze(-1) * child_mask).reshape(N, B * k)

    sel = sel.reshape(N, B * k, P)
    h = h.unsqueeze(2).expand(N, B, k, S, D).reshape(N, B * k, S, D)
    if B * k > beam:
        ranked = accu + gumbel(accu) if noise else accu
        keep = topk_one_hot(masked_softmax(ranked, beam_mask), beam)  # [N, beam, B·k]
        h = (keep @ h.reshape(N, B * k, S * D)).reshape(N, beam, S, D)
        sel = keep @ sel
        accu = (keep @ accu.unsqueeze(-1)).squeeze(-1)
        beam_mask = (keep @ beam_mask.unsqueeze(-1)).squeeze(-1)
    return h, sel, accu, beam_mask


def merge(p, h, sel, cell_dropout=0.0):
    """Compose the selected pair only and shrink the sequence by one."""
    N, B, S, D = h.shape
    left, right = h[:, :, :-1], h[:, :, 1:]
    l = (sel.unsqueeze(-2) @ left).reshape(N * B, D)
    r = (sel.unsqueeze(-2) @ right).reshape(N * B, D)
    parent = cell(p, l, r, cell_dropout).reshape(N, B, 1, D)
    c = sel.cumsum(-1)
    before, after = (1 - c).unsqueeze(-1), (c - sel).unsqueeze(-1)
    return sel.unsqueeze(-1) * parent + before * left + after * right


def beam_search(p, h, accu, beam_mask, mask, beam=BEAM, noise=False,
                cell_dropout=0.0):
    """The beam tree over h [N, B, S, D] with beam scores accu and beam_mask
    [N, B] and token mask [N, S]: S - 1 merge steps. Returns the roots
    [N, B', D] with their accu and beam_mask [N, B']. `noise` and
    `cell_dropout` (training mode) as in step() and merge()."""
    N, S = mask.shape
    for i in range(S - 1):
        pair_mask = mask[:, i + 1:]                              # token i+1+j real
        if i < S - 2:
            h, sel, accu, beam_mask = step(p, h, accu, beam_mask, pair_mask,
                                           beam, noise)
        else:  # one pair left: compose it, no choice to score
            sel = torch.ones(N, h.size(1), 1, dtype=h.dtype)
        merged = merge(p, h, sel, cell_dropout)
        not_done = pair_mask[:, 0].view(N, 1, 1, 1)
        h = not_done * merged + (1 - not_done) * h[:, :, :-1]
    return h[:, :, 0], accu, beam_mask


def marginalise(roots, accu, beam_mask):
    """Σ_b w_b·root_b, w = softmax over the real beams' scores."""
    weights = F.softmax(beam_mask * accu + (1 - beam_mask) * -999999.0, dim=-1)
    return (weights.unsqueeze(-1) * roots).sum(1)


def encode(p, tokens, mask):
    x = F.embedding(tokens, p["embedding"]) * mask.unsqueeze(-1)
    h = F.layer_norm(F.linear(x, p["leaf_w"], p["leaf_b"]), (x.size(-1),),
                     p["leaf_gamma"], p["leaf_beta"])
    N = h.size(0)
    roots, accu, beam_mask = beam_search(
        p, h.unsqueeze(1), torch.zeros(N, 1, dtype=h.dtype),
        torch.ones(N, 1, dtype=h.dtype), mask)
    return marginalise(roots, accu, beam_mask)


def loss(params, inputs, labels):
    tokens, mask = inputs
    root = encode(params, tokens, mask)
    hidden = F.gelu(F.linear(root, params["head_w1"], params["head_b1"]))
    logits = F.linear(hidden, params["head_w2"], params["head_b2"])
    return F.cross_entropy(logits, labels)
