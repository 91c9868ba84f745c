"""Self-IRU with linear base transforms for logical inference (model-specs
§6): bench/reference/self_iru.py's "linear" variant."""
import functools

import self_iru

logits = functools.partial(self_iru.family_logits, "linear")
loss = functools.partial(self_iru.family_loss, "linear")
