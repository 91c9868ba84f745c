#!/usr/bin/env python3
"""Compares two `rvnn-run dump-grads` outputs of one model and batch.

The loss must agree within --rtol relative, and each parameter's gradient
with its largest absolute difference within --rtol of its largest absolute
value (the measure of bench/reference/check_equivalence.py). The inputs and
parameters must be identical. Prints `loss: match` and `gradients: match`
(or MISMATCH lines) and exits non-zero on a mismatch.
"""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("first")
    parser.add_argument("second")
    args = parser.parse_args()
    with open(args.first) as f:
        a = json.load(f)
    with open(args.second) as f:
        b = json.load(f)

    ok = a["inputs"] == b["inputs"] and a["params"] == b["params"]
    if not ok:
        print("inputs or parameters differ: not the same batch and model")

    loss_error = abs(a["loss"] - b["loss"]) / max(abs(b["loss"]), 1e-12)
    status = "match" if loss_error <= args.rtol else "MISMATCH"
    ok &= status == "match"
    print(f"loss: {status} ({a['loss']:.8g} vs {b['loss']:.8g}, relative "
          f"error {loss_error:.2e})")

    worst, worst_name = 0.0, ""
    for name, grad in b["grads"].items():
        other = a["grads"].get(name)
        if other is None or other["shape"] != grad["shape"]:
            print(f"{name}: missing or differently shaped gradient")
            ok = False
            continue
        scale = max((abs(v) for v in grad["values"]), default=0.0)
        diff = max((abs(x - y) for x, y in zip(other["values"], grad["values"])),
                   default=0.0)
        error = diff / scale if scale > 0 else diff
        if error > worst:
            worst, worst_name = error, name
    status = "match" if worst <= args.rtol else "MISMATCH"
    ok &= status == "match"
    print(f"gradients: {status} ({len(b['grads'])} parameters, worst relative "
          f"error {worst:.2e}{' in ' + worst_name if worst_name else ''})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
