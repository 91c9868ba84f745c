"""The FastTrees Transformer for logical inference: the Transformer encoder
with the FastTrees module on each self-attention output. The model is
bench/reference/transformer_encoders.py's "fasttrees_transformer"."""
import functools

import transformer_encoders

logits = functools.partial(transformer_encoders.logits,
                           "fasttrees_transformer")
loss = functools.partial(transformer_encoders.loss, "fasttrees_transformer")
