"""BT-GRC, eager PyTorch, written from model-specs §1, §3 ("BT-GRC") and §7.

Every adjacent pair of every beam is composed by the GRC cell, the scorer
Linear(D, 1) reads the composed parents, and the update selects among the
composed candidates. The scorer has no bias (a constant shift of every pair
score, which the masked softmax and the ranking ignore).

Evaluation mode (no dropout, no Gumbel noise) by default. `params` uses the
model's parameter names; linear weights are [out, in]. With `training=True`
dropout applies where §8 puts it, at the rates in `dropout` (keys "in",
"cell", "out"; default bbt_grc.DROPOUT), and both top-ks rank with Gumbel(0, 1)
noise (unless `noise=False`), all drawn from torch's default generator.
`prune` is the step that brings B·k candidates back to BEAM beams (BT-GRC
OneSoft replaces it).
"""
import torch
import torch.nn.functional as F

from bbt_grc import _rate as rate, head
from cells import grc

BEAM = 5


def masked_softmax(x, mask, dim=-1):
    """BTC's masked softmax: softmax(x)·mask + 1e-20, renormalised."""
    probs = F.softmax(x, dim=dim) * mask + 1e-20
    return probs / probs.sum(dim, keepdim=True)


def gumbel(x):
    u = torch.rand_like(x)
    return -torch.log(-torch.log(u + 1e-20) + 1e-20)


def topk_one_hot(scores, k):
    """One-hot [.., k, S] of the k best entries along the last dim, best
    first; equal scores rank by position (lower index first). Ties are
    common: equal tokens give equal leaves, hence equal pair scores."""
    idx = torch.sort(scores, dim=-1, descending=True, stable=True).indices[..., :k]
    return F.one_hot(idx, scores.size(-1)).to(scores.dtype)


def truncate(h, cand, sel, accu, beam_mask, training, noise):
    """§3: keep the top BEAM of B·k candidates by masked_softmax(accu,
    beam_mask) (Gumbel noise with `noise`), gathered with a one-hot matmul."""
    logits = accu + gumbel(accu) if noise else accu
    keep = topk_one_hot(masked_softmax(logits, beam_mask), BEAM)  # [N, BEAM, C]
    return mix(keep, h, cand, sel, accu, beam_mask)


def mix(weights, h, cand, sel, accu, beam_mask):
    """Each new beam b is Σ_c weights[:, b, c]·candidate c (a one-hot row
    gathers one candidate)."""
    N, C, S, D = h.shape
    P = S - 1
    h = (weights @ h.reshape(N, C, S * D)).reshape(N, -1, S, D)
    cand = (weights @ cand.reshape(N, C, P * D)).reshape(N, -1, P, D)
    sel = weights @ sel
    accu = (weights @ accu.unsqueeze(-1)).squeeze(-1)
    beam_mask = (weights @ beam_mask.unsqueeze(-1)).squeeze(-1)
    return h, cand, sel, accu, beam_mask


def step(p, h, cand, accu, beam_mask, pair_mask, training, noise, prune):
    """One scored step. h [N, B, S, D], cand [N, B, S-1, D] the composed
    pairs, accu / beam_mask [N, B], pair_mask [N, S-1] (1 where the pair may
    be merged). Returns the kept beams' h, cand, one-hot sel [N, B', S-1],
    accu and beam_mask."""
    N, B, S, D = h.shape
    P = S - 1
    logits = F.linear(cand, p["score_w"]).squeeze(-1)           # [N, B, P]
    valid = pair_mask.unsqueeze(1).expand(N, B, P)
    probs = masked_softmax(logits, valid)
    key = masked_softmax(logits + gumbel(logits), valid) if noise else probs
    k = min(P, BEAM)
    sel = topk_one_hot(key, k)                                   # [N, B, k, P]
    picked = (sel * probs.unsqueeze(2)).sum(-1)                  # noise-free p
    accu = (accu.unsqueeze(-1) + torch.log(picked + 1e-20)).reshape(N, B * k)

    # A finished sample (no valid pair) keeps only child 0.
    not_done = pair_mask[:, 0].view(N, 1, 1)
    only_first = torch.zeros(k, dtype=h.dtype)
    only_first[0] = 1
    child_mask = not_done + (1 - not_done) * only_first          # [N, 1, k]
    beam_mask = (beam_mask.unsqueeze(-1) * child_mask).reshape(N, B * k)

    sel = sel.reshape(N, B * k, P)
    h = h.unsqueeze(2).expand(N, B, k, S, D).reshape(N, B * k, S, D)
    cand = cand.unsqueeze(2).expand(N, B, k, P, D).reshape(N, B * k, P, D)
    if B * k > BEAM:
        h, cand, sel, accu, beam_mask = prune(h, cand, sel, accu, beam_mask,
                                              training, noise)
    return h, cand, sel, accu, beam_mask


def encode(p, tokens, mask, training=False, dropout=None, prune=truncate,
           noise=True):
    noise = noise and training
    x = F.embedding(tokens, p["embedding"]) * mask.unsqueeze(-1)
    rate_in = rate(dropout, "in", training)
    if rate_in > 0:
        x = F.dropout(x, rate_in, training=True)
    rate_cell = rate(dropout, "cell", training)
    h = F.layer_norm(F.linear(x, p["leaf_w"], p["leaf_b"]), (x.size(-1),),
                     p["leaf_gamma"], p["leaf_beta"])
    N, S, D = h.shape
    h = h.unsqueeze(1)                                           # [N, 1, S, D]
    accu = torch.zeros(N, 1, dtype=h.dtype)
    beam_mask = torch.ones(N, 1, dtype=h.dtype)
    for i in range(S - 1):
        pair_mask = mask[:, i + 1:]                              # token i+1+j real
        cand = grc(h[:, :, :-1], h[:, :, 1:], p["cell_w1"], p["cell_b1"],
                   p["cell_w2"], p["cell_b2"], p["cell_gamma"],
                   p["cell_beta"], rate_cell)
        if i < S - 2:
            h, cand, sel, accu, beam_mask = step(p, h, cand, accu, beam_mask,
                                                 pair_mask, training, noise,
                                                 prune)
        else:  # one pair left: compose it, no choice to score
            sel = torch.ones(N, h.size(1), 1, dtype=h.dtype)
        c = sel.cumsum(-1)
        before, after = (1 - c).unsqueeze(-1), (c - sel).unsqueeze(-1)
        merged = (sel.unsqueeze(-1) * cand + before * h[:, :, :-1]
                  + after * h[:, :, 1:])
        not_done = pair_mask[:, 0].view(N, 1, 1, 1)
        h = not_done * merged + (1 - not_done) * h[:, :, :-1]
    roots = h[:, :, 0]
    weights = F.softmax(beam_mask * accu + (1 - beam_mask) * -999999.0, dim=-1)
    return (weights.unsqueeze(-1) * roots).sum(1)


def logits(params, inputs, training=False, dropout=None, prune=truncate,
           noise=True):
    tokens, mask = inputs
    root = encode(params, tokens, mask, training, dropout, prune, noise)
    return head(params, root, training, dropout)


def loss(params, inputs, labels, training=False, dropout=None, noise=True):
    return F.cross_entropy(logits(params, inputs, training, dropout,
                                  noise=noise), labels)
