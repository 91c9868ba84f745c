"""The Transformer encoder for logical inference: six post-norm layers with
their own weights. The model is bench/reference/transformer_encoders.py's
"transformer"."""
import functools

import transformer_encoders

logits = functools.partial(transformer_encoders.logits, "transformer")
loss = functools.partial(transformer_encoders.loss, "transformer")
