#!/usr/bin/python3
"""Checks rvnn against an independent eager PyTorch implementation.

Reads the JSON that `rvnn-run dump-grads` writes (parameters, one batch, the
evaluation-mode loss and every parameter's gradient), recomputes the loss with
bench/reference/<model>.py in float64 from the same parameters, and compares:
the loss within --rtol relative, and each parameter's gradient with its
largest absolute error within --rtol of its largest absolute value.

Each reference module defines `loss(params, inputs, labels) -> scalar tensor`
with `params` a dict of float64 tensors named as the model's rvnn.param
symbols, `inputs` the model's @forward inputs (i64 tokens, float64 masks).

With --training the dump is `dump-grads --training` of a model compiled with
every dropout rate 0, and the reference runs `loss(..., training=True,
dropout=<all rates 0>)`: the training-mode forward without its randomness,
for models whose training mode differs otherwise (BT-GRC OneSoft's soft
beam).

A reference whose loss takes `draw_seed` gets the dump's: the seed of the
pass's draw stream, for models that draw at evaluation (RIR-EBT-GRC's beam
alignment).

--set NAME=VALUE (repeatable; VALUE is JSON) passes a keyword argument to the
reference's loss, for a dump of a model whose .mlir was edited to match
(e.g. RIR-GRC with a smaller chunk: --set chunk=4).
Runs with Debian's python3-torch (/usr/bin/python3).
"""
import argparse
import importlib
import inspect
import json
import os
import sys

import torch


def decode(entry, dtype):
    return torch.tensor(entry["values"], dtype=dtype).reshape(entry["shape"])


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True, help="bench/reference module")
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--training", action="store_true",
                        help="compare the training-mode loss, no dropout")
    parser.add_argument("--set", action="append", default=[],
                        metavar="NAME=VALUE",
                        help="keyword argument of the reference's loss "
                             "(VALUE is JSON)")
    parser.add_argument("dump", help="rvnn-run dump-grads output")
    args = parser.parse_args()

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    reference = importlib.import_module(args.model)
    with open(args.dump) as f:
        dump = json.load(f)

    params = {name: decode(entry, torch.float64).requires_grad_()
              for name, entry in dump["params"].items()}
    # @forward inputs alternate token ids and masks.
    inputs = [decode(entry, torch.int64 if i % 2 == 0 else torch.float64)
              for i, entry in enumerate(dump["inputs"])]
    labels = decode(dump["labels"], torch.int64)

    mode = {}
    if args.training:
        mode = {"training": True,
                "dropout": {"in": 0.0, "cell": 0.0, "out": 0.0}}
    if "draw_seed" in inspect.signature(reference.loss).parameters:
        mode["draw_seed"] = dump["draw_seed"]
    for setting in args.set:
        name, _, value = setting.partition("=")
        mode[name] = json.loads(value)
    loss = reference.loss(params, inputs, labels, **mode)
    loss.backward()

    ok = True
    loss_error = abs(loss.item() - dump["loss"]) / max(abs(loss.item()), 1e-12)
    status = "match" if loss_error <= args.rtol else "MISMATCH"
    ok &= status == "match"
    print(f"loss: {status} (rvnn {dump['loss']:.8g}, reference "
          f"{loss.item():.8g}, relative error {loss_error:.2e})")

    worst = (0.0, "")
    for name, param in params.items():
        got = decode(dump["grads"][name], torch.float64)
        want = param.grad if param.grad is not None else torch.zeros_like(param)
        scale = max(want.abs().max().item(), 1e-12)
        error = (got - want).abs().max().item() / scale
        if error > args.rtol:
            ok = False
            print(f"gradient {name}: MISMATCH (relative error {error:.2e})")
        worst = max(worst, (error, name))
    print(f"gradients: {'match' if ok else 'MISMATCH'} ({len(params)} "
          f"parameters, worst relative error {worst[0]:.2e} in {worst[1]})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
