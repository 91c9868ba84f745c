"""ON-LSTM for ListOps (model-specs §6): the master gates read x_t and h_{t-1}.
The model is bench/reference/ordered_neurons.py's "on_lstm" with the ListOps
head on the state after each sequence's last real token."""
import functools

import ordered_neurons

logits = functools.partial(ordered_neurons.listops_logits, "on_lstm")
loss = functools.partial(ordered_neurons.listops_loss, "on_lstm")
