"""Faster FastTrees for ListOps (model-specs §6): no hidden-to-hidden term at
all. The model is bench/reference/ordered_neurons.py's "faster_fasttrees" with
the ListOps head on the state after each sequence's last real token."""
import functools

import ordered_neurons

logits = functools.partial(ordered_neurons.listops_logits, "faster_fasttrees")
loss = functools.partial(ordered_neurons.listops_loss, "faster_fasttrees")
