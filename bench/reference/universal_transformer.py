"""The Universal Transformer for logical inference: one post-norm layer's
weights applied 15 times. The model is
bench/reference/transformer_encoders.py's "universal_transformer"."""
import functools

import transformer_encoders

logits = functools.partial(transformer_encoders.logits,
                           "universal_transformer")
loss = functools.partial(transformer_encoders.loss, "universal_transformer")
