"""Conv FastTrees for logical inference (model-specs §6): the master gates are
a position-wise layer over a causal convolution of the sequence. The model is
bench/reference/ordered_neurons.py's "conv_fasttrees"."""
import functools

import ordered_neurons

logits = functools.partial(ordered_neurons.logits, "conv_fasttrees")
loss = functools.partial(ordered_neurons.loss, "conv_fasttrees")
