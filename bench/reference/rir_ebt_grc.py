"""RIR-EBT-GRC, eager PyTorch, written from model-specs §1, §3 (EBT-GRC and
RIR-EBT-GRC) and §7, without the S4D pre-chunk layer.

The state is a beam of sequences h [N, B, S, D] with a beam score and a beam
mask per element (accu, beam_mask [N, B, S]; 0 and 1 at the leaves, B = 1).
Outer loop while S > 1: if S >= chunk + chunk//2, right-pad to a multiple of
`chunk` (pad mask, accu and beam_mask 0) and cut into S // chunk chunks; else
one chunk of length S. Each chunk enters EBT-GRC (ebt_grc.beam_search with
beam 7) with its beams' score = the sum of its elements' accu and its beam
mask = its first element's; out come B beam roots with scores. With more than
one chunk the roots' beams are aligned: beam 0 (the top beam) stays, the other
B - 1 are drawn with replacement from masked_softmax(accu, beam_mask)
(`align="sample"`) or uniformly among the real beams (`align="uniform"`, the
random-align variant), and root, accu and beam_mask follow the drawn beam.
The chunk roots become the next sequence, the chunk's first mask its mask.
The last level's roots are marginalised over the beams (ebt_grc.marginalise).
`rir=False` is the non-RIR inference: one chunk over the whole sequence.
`chunk` must exceed the beam (chunk >= 8): a chunk's first step then yields
all 7 beams, as rvnn's static-width beams assume.

The alignment draws are rvnn's (the contract of rvnn/Runtime/Ops/Random.h),
so that a dump's loss can be recomputed: with the forward pass's stream seed
(`draw_seed`, from `rvnn-run dump-grads`), level l's draws take Gumbel(0, 1)
noise u -> -log(-log(u)) (float32) from one block [N·S1, B-1, B] of Philox
uniforms, row n·S1 + c for chunk c of sample n, and draw j of a row is
argmax_b(log p_b + noise[j, b]). In evaluation mode (the default: no
dropout, no Gumbel top-k noise) those are the pass's only draws. One beam
search per level over the chunk rows of all samples (row n·S1 + c).

Training mode (`training=True`, as train_reference.py trains it): dropout
at §8's places at the rates in `dropout` (keys "in", "cell", "out"; default
bbt_grc.DROPOUT: after embedding·mask, on the GRC cell's GELU output, the
head's two), Gumbel(0, 1) noise on both top-ks of the inner EBT-GRC (unless
`noise=False`), and the RIR forward with beam alignment; all of it, the
alignment's Gumbel-max draws included, from torch's default generator
(rvnn draws its own, so `draw_seed` is ignored). logits() at evaluation
does the non-RIR inference, rvnn-run's default (rir_inference=0).
"""
import torch
import torch.nn.functional as F

# Leaves and head (§1, §7) are BBT-GRC's; the inner beam search, the masked
# softmax and the marginalisation EBT-GRC's.
from bbt_grc import _rate as rate, head, leaves
from ebt_grc import beam_search, gumbel, marginalise, masked_softmax

BEAM = 7
CHUNK = 30
# rvnn's evaluation options (rvnn.eval_option) -> the keyword of loss() that
# does the same (bench/eager_step.py --option): rir_inference=0 is rir=False.
EVAL_OPTIONS = {"rir_inference": "rir"}

_MASK32 = 0xFFFFFFFF


def _philox_block(seed, counter):
    """Philox4x32-10 (ATen's at::philox_engine) of a 4-word counter under the
    64-bit key `seed`: four 32-bit words."""
    key = [seed & _MASK32, seed >> 32]
    ctr = list(counter)
    for round_ in range(10):
        if round_ > 0:
            key = [(key[0] + 0x9E3779B9) & _MASK32,
                   (key[1] + 0xBB67AE85) & _MASK32]
        p0 = 0xD2511F53 * ctr[0]
        p1 = 0xCD9E8D57 * ctr[2]
        ctr = [((p1 >> 32) ^ ctr[1] ^ key[0]) & _MASK32, p1 & _MASK32,
               ((p0 >> 32) ^ ctr[3] ^ key[1]) & _MASK32, p0 & _MASK32]
    return ctr


class Draws:
    """rvnn's counter-based draw stream: uniforms in (0, 1) whose element i
    is word i % 4 of Philox(seed; block i // 4, offset), the offset moving
    past the blocks used."""

    def __init__(self, seed):
        self.seed, self.offset = seed, 0

    def gumbel(self, shape):
        count = 1
        for size in shape:
            count *= size
        blocks = (count + 3) // 4
        words = []
        for block in range(blocks):
            words += _philox_block(self.seed, [block & _MASK32, block >> 32,
                                               self.offset & _MASK32,
                                               self.offset >> 32])
        self.offset += 4 * blocks
        u = (torch.tensor(words[:count], dtype=torch.float64).div(512).floor()
             + 0.5) * 2.0 ** -23
        u = u.to(torch.float32).reshape(shape)
        return -(-u.log()).log()


class TorchDraws:
    """Training mode's alignment noise: Gumbel(0, 1) from torch's default
    generator (not rvnn's stream: training draws differ anyway)."""

    def gumbel(self, shape):
        return gumbel(torch.zeros(shape))


def align(roots, accu, beam_mask, noise, mode):
    """Beam alignment of chunk rows: roots [C, B, D], accu and
    beam_mask [C, B], noise [C, B-1, B]. Beam 0 stays; draw j is the Gumbel-max
    of the masked softmax. The gathers are one-hot matmuls, so gradients reach
    the drawn beams' values."""
    C, B = accu.shape
    scores = accu.detach() if mode == "sample" else torch.zeros_like(accu)
    log_probs = masked_softmax(scores, beam_mask.detach()).log()
    drawn = (log_probs.unsqueeze(1) + noise.to(accu.dtype)).argmax(-1)
    idx = torch.cat([torch.zeros(C, 1, dtype=torch.long), drawn], dim=1)
    pick = F.one_hot(idx, B).to(accu.dtype)                       # [C, B, B]
    return (pick @ roots, (pick @ accu.unsqueeze(-1)).squeeze(-1),
            (pick @ beam_mask.unsqueeze(-1)).squeeze(-1))


def encode(p, tokens, mask, draws, chunk=CHUNK, rir=True, align_mode="sample",
           leaf_states=leaves, training=False, dropout=None, noise=True):
    """The marginalised roots [N, D]; `leaf_states(p, tokens, mask)` gives
    the leaves [N, S, D] (BBT-GRC's; rir_ebt_grc_s4d.py passes the S4D
    pre-chunk layer's; in training mode it also gets training and
    dropout)."""
    if training:
        h = leaf_states(p, tokens, mask, True, dropout)
    else:
        h = leaf_states(p, tokens, mask)
    noise = noise and training
    rate_cell = rate(dropout, "cell", training)
    h = h.unsqueeze(1)                                           # [N, 1, S, D]
    N, _, S, D = h.shape
    accu = torch.zeros(N, 1, S, dtype=h.dtype)
    beam_mask = torch.ones(N, 1, S, dtype=h.dtype)
    if not rir:
        chunk = S
    while h.size(2) > 1:
        length = h.size(2)
        if length >= chunk + chunk // 2:
            size, pad = chunk, -length % chunk
            h = F.pad(h, (0, 0, 0, pad))
            accu, beam_mask = F.pad(accu, (0, pad)), F.pad(beam_mask, (0, pad))
            mask = F.pad(mask, (0, pad))
        else:
            size = length
        count = h.size(2) // size
        B = h.size(1)
        drawn = None
        if count > 1:
            drawn = draws.gumbel([N * count, BEAM - 1, BEAM])
        # Row n·count + c is chunk c of sample n: its beams' elements, their
        # score (the sum of the elements') and mask (the first element's).
        rows = (h.reshape(N, B, count, size, D).transpose(1, 2)
                .reshape(N * count, B, size, D))
        rows_accu = (accu.reshape(N, B, count, size).sum(-1).transpose(1, 2)
                     .reshape(N * count, B))
        rows_mask = (beam_mask.reshape(N, B, count, size)[..., 0]
                     .transpose(1, 2).reshape(N * count, B))
        tokens_mask = mask.reshape(N * count, size)
        roots, r_accu, r_mask = beam_search(p, rows, rows_accu, rows_mask,
                                            tokens_mask, BEAM, noise,
                                            rate_cell)
        if count > 1 and roots.size(1) >= 2:
            roots, r_accu, r_mask = align(roots, r_accu, r_mask, drawn,
                                          align_mode)
        B = roots.size(1)
        h = roots.reshape(N, count, B, D).transpose(1, 2)          # [N, B, C, D]
        accu = r_accu.reshape(N, count, B).transpose(1, 2)
        beam_mask = r_mask.reshape(N, count, B).transpose(1, 2)
        mask = tokens_mask[:, 0].reshape(N, count)
    return marginalise(h[:, :, 0], accu[:, :, 0], beam_mask[:, :, 0])


def logits(params, inputs, training=False, dropout=None, draw_seed=0,
           chunk=CHUNK, rir=None, align="sample", noise=True):
    """Class scores; `rir=None` is rvnn's default: the RIR forward in
    training, the non-RIR inference at evaluation."""
    tokens, mask = inputs
    rir = training if rir is None else rir
    draws = TorchDraws() if training else Draws(draw_seed)
    root = encode(params, tokens, mask, draws, chunk, rir, align,
                  training=training, dropout=dropout, noise=noise)
    return head(params, root, training, dropout)


def loss(params, inputs, labels, draw_seed=0, chunk=CHUNK, rir=True,
         align="sample", training=False, dropout=None, noise=True):
    return F.cross_entropy(logits(params, inputs, training, dropout,
                                  draw_seed, chunk, rir, align, noise), labels)
