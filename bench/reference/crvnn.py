"""CRvNN (BRF variant), eager PyTorch, written from model-specs §1, §4 and §7.

BRF variant: existence threshold 0.1, no transition features, no halt
penalty. Evaluation mode (no dropout). `params` uses the model's parameter
names (models/crvnn.mlir).

The augmented sequence is built here per sample by indexing (START at 0, the
tokens at 1..L, END at L+1), independently of the model's mask arithmetic.
Halting as models/crvnn.mlir and rvnn.recurse define it: after each step a
sample halts when #(e > 0.1) - 2 <= 1 or it has taken more steps than it has
tokens; from the next step on its h and e stay frozen; the loop runs while
any sample has not halted, at most S_aug - 2 steps. The score shift is the
per-sample max over the real positions of the augmented sequence and 0 (it
cancels in c up to the 4e-8 epsilon).
"""
import torch
import torch.nn.functional as F

from cells import grc

TAU = 0.1
EPS = 1e-8


def cell(p, left, right):
    return grc(left, right, p["cell_w1"], p["cell_b1"], p["cell_w2"],
               p["cell_b2"], p["cell_gamma"], p["cell_beta"])


def right_neighbours(exist, mask):
    """§4 step 1: R_ij = E_ij while C_ij <= 1, then the remainder 1 - C_{i,j-1}
    (never negative); E_ij = e_j·M_j for j > i; rows of pad tokens are 0."""
    s = exist.size(1)
    later = torch.ones(s, s, dtype=torch.bool).triu(1)
    weights = (exist * mask).unsqueeze(1).expand(-1, s, -1) * later
    total = weights.cumsum(-1)
    before = torch.cat([torch.zeros_like(total[..., :1]), total[..., :-1]], -1)
    r = torch.where(total <= 1, weights, (1 - before).clamp(min=0))
    return r * mask.unsqueeze(-1)


def left_neighbours(exist, mask):
    return right_neighbours(exist.flip(1), mask.flip(1)).flip(1, 2)


def encode(p, tokens, mask, stats=None):
    x = F.embedding(tokens, p["embedding"]) * mask.unsqueeze(-1)
    return reduce(p, x, mask, stats=stats)


def reduce(p, x, mask, transform=True, stats=None):
    """CRvNN over the rows of x [n, s, d] (mask [n, s], a prefix of ones per
    row, possibly all zeros) -> h at each row's last real item [n, d].
    `transform`: the leaf transform LN(Linear(·)) on [START; x; END] (CRvNN);
    without it START/END join x untransformed (RIR-CRvNN's inner CRvNN)."""
    n, s, d = x.shape
    lengths = mask.sum(1).round().long()

    # [START; x_1..x_L; END; pad], its mask, and the selectable positions.
    sa = s + 2
    m = torch.zeros(n, sa, dtype=x.dtype)
    sel = torch.zeros(n, sa, dtype=x.dtype)
    rows = []
    for b in range(n):
        length = int(lengths[b])
        row = torch.cat([p["start"].unsqueeze(0), x[b, :length],
                         p["end"].unsqueeze(0),
                         torch.zeros(sa - length - 2, d, dtype=x.dtype)])
        rows.append(row)
        m[b, :length + 2] = 1
        sel[b, 1:length] = 1  # x_1..x_{L-1}: not START, END, x_L, pad
    seq = torch.stack(rows)
    m3 = m.unsqueeze(-1)
    h = seq * m3
    if transform:
        h = F.linear(h, p["leaf_w"], p["leaf_b"])
        h = F.layer_norm(h, h.shape[-1:], p["leaf_gamma"], p["leaf_beta"]) * m3
    e = m.clone()
    sel3 = sel.unsqueeze(-1)

    halted = torch.zeros(n, dtype=torch.bool)
    for step in range(sa - 2):
        left = left_neighbours(e, m)
        right = right_neighbours(e, m)
        lh = left @ h
        rh = right @ h
        window = torch.cat([left @ lh, lh, h, rh, right @ rh], -1)
        score = F.linear(F.gelu(F.linear(window, p["score_w1"], p["score_b1"])),
                         p["score_w2"], p["score_b2"])
        mu = score.squeeze(-1).masked_fill(m == 0, float("-inf")).max(1).values
        mu = torch.maximum(mu, torch.zeros_like(mu)).view(n, 1, 1)
        s_hat = torch.exp(score - mu) * sel3
        no_op = torch.exp(0 - mu)
        # sum-normalised over (compose, no-op, left's, right's), each + EPS
        c = s_hat / (s_hat + no_op + left @ s_hat + right @ s_hat + 4 * EPS) * sel3
        comp = cell(p, lh, h)
        lc = left @ c
        h_next = (lc * comp + (1 - lc) * h) * m3
        e_next = e * (1 - c.squeeze(-1)) * m

        frozen = halted.view(n, 1)
        h = torch.where(frozen.unsqueeze(-1), h, h_next)
        e = torch.where(frozen, e, e_next)
        count = (e > TAU).sum(1)
        reduced = count - 2 <= 1
        out_of_steps = step + 1 > lengths
        if stats is not None:
            newly = ~halted & (reduced | out_of_steps)
            stats.setdefault("halt_step", torch.zeros(n, dtype=torch.long))[newly] = step + 1
            stats.setdefault("by_existence", torch.zeros(n, dtype=torch.bool))[newly & reduced] = True
            stats["steps"] = step + 1
        halted = halted | reduced | out_of_steps
        if bool(halted.all()):
            break

    # The root: h at the last real token x_L (position L; START if L = 0).
    return h[torch.arange(n), lengths]


def loss(params, inputs, labels):
    tokens, mask = inputs
    root = encode(params, tokens, mask)
    hidden = F.gelu(F.linear(root, params["head_w1"], params["head_b1"]))
    logits = F.linear(hidden, params["head_w2"], params["head_b2"])
    return F.cross_entropy(logits, labels)


def main():
    """`crvnn.py --halting DUMP`: how the loop halted on a dump-grads batch."""
    import argparse
    import json
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--halting", required=True, metavar="DUMP")
    args = parser.parse_args()
    with open(args.halting) as f:
        dump = json.load(f)

    def decode(entry, dtype):
        return torch.tensor(entry["values"], dtype=dtype).reshape(entry["shape"])

    params = {k: decode(v, torch.float64) for k, v in dump["params"].items()}
    tokens = decode(dump["inputs"][0], torch.int64)
    mask = decode(dump["inputs"][1], torch.float64)
    stats = {}
    with torch.no_grad():
        encode(params, tokens, mask, stats)
    bound = tokens.size(1)
    existence = int(stats["by_existence"].sum())
    print(f"halting: {stats['steps']} of {bound} steps; halted by existence "
          f"{existence}, by t > L {tokens.size(0) - existence}")
    print("halt steps:", stats["halt_step"].tolist())
    if stats["steps"] < bound:
        print("halting: stopped early")


if __name__ == "__main__":
    main()
