"""The Transformer encoder for ListOps: six post-norm layers with their own
weights. The model is
bench/reference/transformer_encoders.py's "transformer" with the ListOps
head."""
import functools

import transformer_encoders

logits = functools.partial(transformer_encoders.listops_logits,
                           "transformer")
loss = functools.partial(transformer_encoders.listops_loss,
                         "transformer")
