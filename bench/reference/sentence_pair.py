"""The Siamese batch and the classifier of the sentence-pair models
(model-specs §7)."""
import torch
import torch.nn.functional as F


def dropout_rate(defaults, dropout, key, training):
    """The dropout rate `key` ("in", "out", ...) of a forward pass: 0 at
    evaluation, else from `dropout` (a dict) or the model's `defaults`."""
    if not training:
        return 0.0
    return (defaults if dropout is None else dropout).get(key, 0.0)


def stack_pair(tokens1, mask1, tokens2, mask2):
    """One batch of 2N: both sentences right-padded (id 0, mask 0) to one
    length and stacked, first sentences in rows [0, N)."""
    length = max(tokens1.size(1), tokens2.size(1))
    tokens = torch.cat([F.pad(tokens1, (0, length - tokens1.size(1))),
                        F.pad(tokens2, (0, length - tokens2.size(1)))], 0)
    mask = torch.cat([F.pad(mask1, (0, length - mask1.size(1))),
                      F.pad(mask2, (0, length - mask2.size(1)))], 0)
    return tokens, mask


def classify(params, encodings, rows, rate_out=0.0):
    """The sentence-pair head (§7) over the encodings [2N, D] of a Siamese
    batch (first sentences in rows [0, rows)): [a; b; a⊙b; |a-b|] -> dropout
    -> Linear -> GELU -> dropout -> Linear; dropout only if rate_out > 0."""
    def drop(x):
        return F.dropout(x, rate_out, training=True) if rate_out > 0 else x

    a, b = encodings.split(rows, 0)
    features = drop(torch.cat([a, b, a * b, (a - b).abs()], -1))
    hidden = drop(F.gelu(F.linear(features, params["head_w1"],
                                  params["head_b1"])))
    return F.linear(hidden, params["head_w2"], params["head_b2"])


def pair_logits(params, inputs, encode, rate_out=0.0):
    """Class scores of a sentence-pair model: `encode(tokens, mask)` maps the
    Siamese batch of `inputs` ([tokens1, mask1, tokens2, mask2]) to one
    encoding per row, which classify() scores."""
    tokens, mask = stack_pair(*inputs)
    return classify(params, encode(tokens, mask), inputs[0].size(0), rate_out)


def variant_logits(encode, rate, variant, params, inputs, training=False,
                   dropout=None):
    """pair_logits of one variant of a model family: its
    `encode(variant, params, tokens, mask, training, dropout)` and its head
    dropout `rate(dropout, "out", training)`."""
    return pair_logits(
        params, inputs,
        lambda tokens, mask: encode(variant, params, tokens, mask, training,
                                    dropout),
        rate(dropout, "out", training))


def variant_loss(logits, variant, params, inputs, labels, training=False,
                 dropout=None):
    """The cross entropy of `logits(variant, params, inputs, training,
    dropout)`."""
    return F.cross_entropy(
        logits(variant, params, inputs, training, dropout), labels)
