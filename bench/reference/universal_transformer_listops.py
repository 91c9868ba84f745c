"""The Universal Transformer for ListOps: one post-norm layer's weights
applied 20 times. The model
is bench/reference/transformer_encoders.py's "universal_transformer" with
the ListOps head."""
import functools

import transformer_encoders

logits = functools.partial(transformer_encoders.listops_logits,
                           "universal_transformer")
loss = functools.partial(transformer_encoders.listops_loss,
                         "universal_transformer")
