"""RIR-GRC with the S4D pre-chunk layer, eager PyTorch, written from the RIR
paper (App. J, eqs. 13-17), model-specs §3 and the S4D paper (Gu et al., "On
the Parameterization and Initialization of Diagonal State Space Models",
2022): bilinear discretisation, S4D-Inv, d_state 64 (32 conjugate-pair
modes, y = 2·Re(C·x)).

Per sample, on its valid prefix x [L, D] (padding is zero after
embedding·mask and stays zero here): the forward block reads x left to right;
the backward block reads the reversed prefix and its output is reversed
back. Each block is a complex diagonal recurrence, one step at a time in
torch's complex128:
    Ā = (1 + ΔA/2)/(1 - ΔA/2),  B̄ = Δ/(1 - ΔA/2)
    s_t = Ā·s_{t-1} + B̄·x_t,    y_t = 2·Re(Σ_n C_n·s_{t,n}) + D⊙x_t
then GELU and the S4D dropout; out = GLU(Linear(2D, 2D)([y_f; y_b])) + x
(torch.nn.functional.glu: first half ⊙ σ(second half)); leaves =
LN(Linear(D, D)(out)). The stored parameters map to S4D's as in
models/rir_grc_s4d.mlir: log Δ = log_dt_centred + ln(0.01),
Re A = -exp(log_a_re), Im A = S4D-Inv + a_im_offset.
The outer and inner recursions and the head are rir_grc.py's.
"""
import functools
import math

import torch
import torch.nn.functional as F

from bbt_grc import _rate
from rir_grc import CHUNK, encoder_logits, encoder_loss, outer

D_STATE = 64
# S4D-Inv: Im A_n = (N/π)(N/(2n+1) - 1), n < N/2.
S4D_INV = [(D_STATE / math.pi) * (D_STATE / (2 * n + 1) - 1)
           for n in range(D_STATE // 2)]


def s4d_block(p, prefix, x):
    """One direction over one valid prefix x [L, D] -> [L, D]."""
    dt = torch.exp(p[prefix + "log_dt_centred"] + math.log(0.01))
    a_im = torch.tensor(S4D_INV, dtype=x.dtype) + p[prefix + "a_im_offset"]
    a = torch.complex(-torch.exp(p[prefix + "log_a_re"]), a_im)
    c = torch.complex(p[prefix + "c_re"], p[prefix + "c_im"])
    half = dt.unsqueeze(-1) * a / 2
    a_bar = (1 + half) / (1 - half)
    b_bar = dt.unsqueeze(-1) / (1 - half)
    state = torch.zeros_like(a_bar)
    ys = []
    for t in range(x.size(0)):
        state = a_bar * state + b_bar * x[t].unsqueeze(-1)
        ys.append(2 * (c * state).sum(-1).real + p[prefix + "skip"] * x[t])
    if not ys:
        return torch.zeros_like(x)
    return torch.stack(ys)


def s4d_layer(p, x, mask, rate):
    rows = []
    for n in range(x.size(0)):
        length = int(mask[n].sum().item())
        valid = x[n, :length]
        forward = s4d_block(p, "s4d_f_", valid)
        backward = s4d_block(p, "s4d_b_", valid.flip(0)).flip(0)
        y = torch.cat([forward, backward], -1)
        rows.append(F.pad(y, (0, 0, 0, x.size(1) - length)))
    y = F.gelu(torch.stack(rows))
    if rate > 0:
        y = F.dropout(y, rate, training=True)
    return F.glu(F.linear(y, p["s4d_glu_w"], p["s4d_glu_b"]), -1) + x


def leaves(p, tokens, mask, training=False, dropout=None):
    x = F.embedding(tokens, p["embedding"]) * mask.unsqueeze(-1)
    rate_in = _rate(dropout, "in", training)
    if rate_in > 0:
        x = F.dropout(x, rate_in, training=True)
    x = s4d_layer(p, x, mask, _rate(dropout, "s4d", training))
    h = F.linear(x, p["leaf_w"], p["leaf_b"])
    return F.layer_norm(h, h.shape[-1:], p["leaf_gamma"], p["leaf_beta"])


def encode(p, tokens, mask, training=False, dropout=None, chunk=CHUNK):
    h = leaves(p, tokens, mask, training, dropout)
    return outer(p, h, mask, _rate(dropout, "cell", training), chunk)


logits = functools.partial(encoder_logits, encode)
loss = functools.partial(encoder_loss, encode)
