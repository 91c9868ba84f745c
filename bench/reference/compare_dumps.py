#!/usr/bin/python3
"""Compares two `rvnn-run dump-grads` outputs of one model, batch and seed,
e.g. the GPU's against the CPU's:

    compare_dumps.py EXPECTED.json ACTUAL.json [--rtol 1e-4]

Prints the losses' relative difference and the worst parameter gradient's
relative L2 error (||actual - expected|| / ||expected||), then "match" or
"mismatch"; exits 1 on a mismatch or when the dumps do not have the same
parameters and shapes.
"""
import argparse
import json
import math
import sys


def relative_l2(expected, actual):
    num = sum((a - e) ** 2 for e, a in zip(expected, actual))
    den = sum(e * e for e in expected)
    return math.sqrt(num / den) if den else math.sqrt(num)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("expected")
    parser.add_argument("actual")
    parser.add_argument("--rtol", type=float, default=1e-4)
    args = parser.parse_args()
    with open(args.expected) as f:
        expected = json.load(f)
    with open(args.actual) as f:
        actual = json.load(f)
    if expected["grads"].keys() != actual["grads"].keys():
        sys.exit("compare_dumps.py: the dumps have different parameters")
    loss_error = abs(actual["loss"] - expected["loss"]) / max(
        abs(expected["loss"]), 1e-30)
    worst, worst_name = 0.0, "-"
    for name, grad in expected["grads"].items():
        other = actual["grads"][name]
        if grad["shape"] != other["shape"]:
            sys.exit(f"compare_dumps.py: {name}: shape {other['shape']} "
                     f"is not {grad['shape']}")
        error = relative_l2(grad["values"], other["values"])
        if error > worst:
            worst, worst_name = error, name
    ok = loss_error <= args.rtol and worst <= args.rtol
    print(f"loss {expected['loss']:.7g} vs {actual['loss']:.7g} (relative "
          f"difference {loss_error:.2e}); worst gradient relative L2 error "
          f"{worst:.2e} ({worst_name}): {'match' if ok else 'mismatch'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
