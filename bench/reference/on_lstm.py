"""ON-LSTM for logical inference (model-specs §6): the master gates read x_t
and h_{t-1}. The model is bench/reference/ordered_neurons.py's "on_lstm"."""
import functools

import ordered_neurons

logits = functools.partial(ordered_neurons.logits, "on_lstm")
loss = functools.partial(ordered_neurons.loss, "on_lstm")
