"""Ordered Memory for ListOps, eager PyTorch, one sample at a time, written
from the equations of Shen et al., "Ordered Memory" (NeurIPS 2019, §3) as
the authors' public code computes them (see /work/notes/issue10-om-s10.md):

  x_t = LN(W_in·emb_t + b_in)                     (LN shared with the cell)
  t = 0:   M_0 = 0, M̂_{0,i} = x_0 for every slot i, p_0 = 0
  t >= 1:  q = LN_q(W_q x_t + b_q), k_i = LN_k(W_k M̂_{t-1,i} + b_k)
           β_i = w_β·ReLU(q + k_i) / sqrt(D)   (the code's bias b_β is
           dropped: p is invariant to it, its gradient is identically 0)
           a_i = Σ_{j<=i+1} p_{t-1,j} (zeroed below 1e-5) for i < n-1,
           a_{n-1} = 1
           p_t = a⊙exp(β) / Σ a⊙exp(β)
           π_i = Σ_{j<=i} p_{t,j},  ρ_i = Σ_{j>=i} p_{t,j}
           M_{t,i} = (1 - ρ_i) M_{t-1,i} + ρ_i M̂_{t-1,i}
           o = x_t; for i = 0 .. n-1:
               o = (1 - π_i) x_t + π_i Cell(o, M_{t,i});  M̂_{t,i} = o
  Cell(v, h) = LN(σ(g_v)⊙v + σ(g_h)⊙h + σ(g_c)⊙c),
      [g_v; g_h; g_c; c] = W2 ReLU(W1 [v; h] + b1) + b2
  encoding = M̂_{T-1,n-1} after the sequence's last token; ListOps head as
  bbt_grc.head (model-specs §7).

Each sequence is run alone over its real tokens (no padding, no batch).
Evaluation mode (no dropout) by default; with training=True dropout applies
at rates dropout["in"] (embeddings), dropout["cell"] (the cell's input and
hidden layer), dropout["memory"] (before W_q, W_k, w_β) and dropout["out"]
(the head).
"""
import math

import torch
import torch.nn.functional as F

import bbt_grc

# The authors' ListOps script: dropouti 0.1, dropout 0.1, dropoutm 0.3; the
# head's dropout is §8's 0.1.
DROPOUT = {"in": 0.1, "cell": 0.1, "memory": 0.3, "out": 0.1}
LN_EPS = 1e-5


def _rate(dropout, key, training):
    if not training:
        return 0.0
    return (DROPOUT if dropout is None else dropout).get(key, 0.0)


def _drop(x, rate):
    return F.dropout(x, rate, training=True) if rate > 0 else x


def layer_norm(x, gamma, beta):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + LN_EPS) * gamma + beta


def om_cell(p, v, h, rate):
    """v, h: [D] -> [D]."""
    d = v.numel()
    u = torch.relu(p["cell_w1"] @ _drop(torch.cat([v, h]), rate)
                   + p["cell_b1"])
    g = p["cell_w2"] @ _drop(u, rate) + p["cell_b2"]
    gv, gh, gc, c = g[:d], g[d:2 * d], g[2 * d:3 * d], g[3 * d:]
    s = torch.sigmoid(gv) * v + torch.sigmoid(gh) * h + torch.sigmoid(gc) * c
    return layer_norm(s, p["ln_gamma"], p["ln_beta"])


def encode_one(p, tokens, training=False, dropout=None, nslot=21):
    """tokens: the real tokens of one sequence [L] -> the encoding [D]."""
    r_in = _rate(dropout, "in", training)
    r_cell = _rate(dropout, "cell", training)
    r_mem = _rate(dropout, "memory", training)
    emb = _drop(p["embedding"][tokens], r_in)                 # [L, E]
    xs = layer_norm(emb @ p["in_w"].t() + p["in_b"], p["ln_gamma"],
                    p["ln_beta"])                             # [L, D]
    d = xs.size(1)
    # Step 0: no attention yet.
    mem = xs.new_zeros(nslot, d)
    out = xs[0].expand(nslot, d)
    prev_p = xs.new_zeros(nslot)
    for t in range(1, xs.size(0)):
        x = xs[t]
        q = layer_norm(p["q_w"] @ _drop(x, r_mem) + p["q_b"], p["q_gamma"],
                       p["q_beta"])                           # [D]
        k = layer_norm(_drop(out, r_mem) @ p["k_w"].t() + p["k_b"],
                       p["k_gamma"], p["k_beta"])             # [n, D]
        scores = (_drop(torch.relu(q + k), r_mem) @ p["score_w"][0]
                  / math.sqrt(d))                             # [n]
        # Allowed slots: the previous attention's cumulative sum, shifted
        # one slot down, below 1e-5 cut to 0; the last slot always allowed.
        allow = torch.cumsum(prev_p, 0)[1:]
        allow = torch.where(allow >= 1e-5, allow, torch.zeros_like(allow))
        allow = torch.cat([allow, xs.new_ones(1)])
        weights = allow * torch.exp(scores - scores.max().detach())
        prob = weights / weights.sum()
        pi = torch.cumsum(prob, 0)                            # π_i
        rho = torch.flip(torch.cumsum(torch.flip(prob, [0]), 0), [0])  # ρ_i
        new_mem = (1 - rho)[:, None] * mem + rho[:, None] * out
        outs = []
        o = x
        for i in range(nslot):
            o = (1 - pi[i]) * x + pi[i] * om_cell(p, o, new_mem[i], r_cell)
            outs.append(o)
        mem, out, prev_p = new_mem, torch.stack(outs), prob
    return out[nslot - 1]


def encode(params, tokens, mask, training=False, dropout=None, nslot=21):
    """tokens, mask [N, S] -> the encodings [N, D], each row over its real
    tokens alone."""
    return torch.stack([
        encode_one(params, tokens[row, :int(mask[row].sum().item())],
                   training, dropout, nslot)
        for row in range(tokens.size(0))])


def logits(params, inputs, training=False, dropout=None):
    tokens, mask = inputs
    rates = DROPOUT if dropout is None else dropout
    return bbt_grc.head(params, encode(params, tokens, mask, training, rates),
                        training, rates)


def loss(params, inputs, labels, training=False, dropout=None):
    return F.cross_entropy(logits(params, inputs, training, dropout), labels)
