"""Cells shared by the eager references (model-specs §1)."""
import torch
import torch.nn.functional as F


def grc(left, right, w1, b1, w2, b2, gamma, beta, dropout=0.0):
    """Gated Recursive Cell, GELU variant: LN(σ(c0)⊙l + σ(c1)⊙r + σ(c2)⊙c3)
    with c = W2·dropout(GELU(W1·[l; r] + b1)) + b2; `dropout` > 0 only in
    training (evaluation mode: none)."""
    u = F.gelu(F.linear(torch.cat([left, right], -1), w1, b1))
    if dropout > 0:
        u = F.dropout(u, dropout, training=True)
    c0, c1, c2, c3 = F.linear(u, w2, b2).chunk(4, dim=-1)
    h = torch.sigmoid(c0) * left + torch.sigmoid(c1) * right + torch.sigmoid(c2) * c3
    return F.layer_norm(h, h.shape[-1:], gamma, beta)


def grc_kary(children, w1, b1, w2, b2, gamma, beta, dropout=0.0):
    """k-ary GRC over children [..., k, D]: LN(Σ_j σ(g_j)⊙x_j + σ(g_i)⊙p)
    with [g_1 .. g_k, g_i, p] = W2·dropout(GELU(W1·[x_1; ...; x_k] + b1)) + b2
    (k + 2 blocks of D); with k = 2 it is grc(x_1, x_2)."""
    k, d = children.shape[-2:]
    u = F.gelu(F.linear(children.flatten(-2), w1, b1))
    if dropout > 0:
        u = F.dropout(u, dropout, training=True)
    c = F.linear(u, w2, b2)
    forget = torch.sigmoid(c[..., :k * d]).unflatten(-1, (k, d))
    write = torch.sigmoid(c[..., k * d:(k + 1) * d])
    h = (forget * children).sum(-2) + write * c[..., (k + 1) * d:]
    return F.layer_norm(h, h.shape[-1:], gamma, beta)
