#!/usr/bin/env python3
"""Compares two `rvnn-run dump-grads` outputs of one model and batch.

The loss must agree within --rtol relative, and each parameter's gradient
with its largest absolute difference within --rtol of its largest absolute
value (the measure of bench/reference/check_equivalence.py). The inputs and
parameters must be identical. Prints `loss: match` and `gradients: match`
(or MISMATCH lines) and exits non-zero on a mismatch.

check_compiled_backward.py imports load() and compare().
"""
import argparse
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def compare(a, b, rtol):
    """Returns (ok, report lines) for the dumps a and b."""
    lines = []
    ok = a["inputs"] == b["inputs"] and a["params"] == b["params"]
    if not ok:
        lines.append("inputs or parameters differ: not the same batch and model")

    loss_error = abs(a["loss"] - b["loss"]) / max(abs(b["loss"]), 1e-12)
    status = "match" if loss_error <= rtol else "MISMATCH"
    ok &= status == "match"
    lines.append(f"loss: {status} ({a['loss']:.8g} vs {b['loss']:.8g}, "
                 f"relative error {loss_error:.2e})")

    worst, worst_name = 0.0, ""
    for name, grad in b["grads"].items():
        other = a["grads"].get(name)
        if other is None or other["shape"] != grad["shape"]:
            lines.append(f"{name}: missing or differently shaped gradient")
            ok = False
            continue
        scale = max((abs(v) for v in grad["values"]), default=0.0)
        diff = max((abs(x - y) for x, y in zip(other["values"], grad["values"])),
                   default=0.0)
        error = diff / scale if scale > 0 else diff
        if error > worst:
            worst, worst_name = error, name
    status = "match" if worst <= rtol else "MISMATCH"
    ok &= status == "match"
    lines.append(f"gradients: {status} ({len(b['grads'])} parameters, worst "
                 f"relative error {worst:.2e}"
                 f"{' in ' + worst_name if worst_name else ''})")
    return ok, lines


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("first")
    parser.add_argument("second")
    args = parser.parse_args()
    ok, lines = compare(load(args.first), load(args.second), args.rtol)
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
