"""The FastTrees Transformer for ListOps: the Transformer encoder with the
FastTrees module on each self-attention output. The model
is bench/reference/transformer_encoders.py's "fasttrees_transformer" with
the ListOps head."""
import functools

import transformer_encoders

logits = functools.partial(transformer_encoders.listops_logits,
                           "fasttrees_transformer")
loss = functools.partial(transformer_encoders.listops_loss,
                         "fasttrees_transformer")
