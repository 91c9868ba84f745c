"""FastTrees for ListOps (model-specs §6): the master gates read x_t only. The
model is bench/reference/ordered_neurons.py's "fasttrees" with the ListOps head
on the state after each sequence's last real token."""
import functools

import ordered_neurons

logits = functools.partial(ordered_neurons.listops_logits, "fasttrees")
loss = functools.partial(ordered_neurons.listops_loss, "fasttrees")
