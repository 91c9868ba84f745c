#!/usr/bin/env python3
"""Compiles each MODEL:TASK, dumps one batch's loss and gradients three ways
(compiled backward with saved residuals, compiled backward recomputing each
call's forward, ATen autograd through the calls' plain functions) and
prints, per model, whether compiled matches autograd and whether recompute
matches save (compare_grad_dumps.py's measure, rtol 1e-4 and 1e-5: loops
checkpointed in segments sum their parameter gradients in another order)."""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_grad_dumps  # noqa: E402


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{result.stderr}")
    return result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--run", required=True, help="rvnn-run")
    parser.add_argument("--models", required=True, help="models/ directory")
    parser.add_argument("--out", required=True, help="work directory")
    parser.add_argument("specs", nargs="+", metavar="MODEL:TASK")
    args = parser.parse_args()
    for spec in args.specs:
        model, task = spec.split(":")
        config = os.path.join(args.models, model + ".json")
        compiled = os.path.join(args.out, model)
        run([args.run, "compile", os.path.join(args.models, model + ".mlir"),
             "-o", compiled])
        dumps = {}
        for name, flags in (("save", ["--recompute", "save"]),
                            ("recompute", ["--recompute", "recompute"]),
                            ("autograd", ["--kernels", "reference"])):
            dumps[name] = os.path.join(args.out, f"{model}-{name}.json")
            run([args.run, "dump-grads", "--config", config, "--model",
                 compiled, "--data", os.path.join(args.out, task + ".tsv"),
                 "--rows", "4", "--seed", "3", "--training",
                 "--output", dumps[name]]
                + flags)
        # Each dump parsed once, for both comparisons.
        loaded = {name: compare_grad_dumps.load(path)
                  for name, path in dumps.items()}
        def matches(first, second, rtol):
            ok, lines = compare_grad_dumps.compare(loaded[first],
                                                   loaded[second], rtol)
            return "match" if ok else "MISMATCH\n" + "\n".join(lines)
        match = matches("save", "autograd", 1e-4)
        same = matches("recompute", "save", 1e-5)
        print(f"{model}: compiled vs autograd: {match}; recompute vs save: "
              f"{same}")


if __name__ == "__main__":
    main()
