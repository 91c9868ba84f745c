"""Conv FastTrees for ListOps (model-specs §6): the master gates are a
position-wise layer over a causal convolution of the sequence. The model is
bench/reference/ordered_neurons.py's "conv_fasttrees" with the ListOps head on
the state after each sequence's last real token."""
import functools

import ordered_neurons

logits = functools.partial(ordered_neurons.listops_logits, "conv_fasttrees")
loss = functools.partial(ordered_neurons.listops_loss, "conv_fasttrees")
