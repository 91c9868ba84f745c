"""FastTrees for logical inference (model-specs §6): the master gates read x_t
only, the other gates x_t and h_{t-1}. The model is
bench/reference/ordered_neurons.py's "fasttrees"."""
import functools

import ordered_neurons

logits = functools.partial(ordered_neurons.logits, "fasttrees")
loss = functools.partial(ordered_neurons.loss, "fasttrees")
