"""Faster FastTrees for logical inference (model-specs §6): every gate reads
x_t only (no hidden-to-hidden term). The model is
bench/reference/ordered_neurons.py's "faster_fasttrees"."""
import functools

import ordered_neurons

logits = functools.partial(ordered_neurons.logits, "faster_fasttrees")
loss = functools.partial(ordered_neurons.loss, "faster_fasttrees")
