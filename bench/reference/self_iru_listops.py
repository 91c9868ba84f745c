"""Self-IRU for ListOps (model-specs §6, §7): bench/reference/self_iru.py's
encoder with LSTM base transforms and depth 2, the state after each
sequence's last real token, under the ListOps head with §8's ListOps
dropout (bbt_grc.family_logits)."""
import functools

import bbt_grc
import self_iru
from sentence_pair import variant_loss

listops_logits = functools.partial(bbt_grc.family_logits, self_iru.encode)
logits = functools.partial(listops_logits, "lstm")
loss = functools.partial(variant_loss, listops_logits, "lstm")
