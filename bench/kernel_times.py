#!/usr/bin/env python3
"""Times each generated kernel of a compiled model by itself.

Loads the model's CPU kernel library (kernels.so) and, for every
rvnn_exec.dispatch of its plan, calls the kernel's forward and backward entry
points (ABI rvnn-memref-v4, docs/compiled-model-format.md) on warm buffers of
random values: the result type with its first dynamic dim set to --rows and
its other dynamic dims to 1 (a kernel's rows), each input shaped like it
(row operands and static 1s as the plan types them). Prints, per kernel, the
median time of a call and per row (one row: the last dim's elements) over
--repeats timings of --calls calls each. The buffers stay warm in the caches
unless --cold-mib N: then the calls rotate over enough sets of buffers to
fill N MiB (more than the last-level cache), as a model's kernels mostly
find their operands.

  python3 bench/kernel_times.py out/bbt_grc --rows 1920 [--kernel NAME ...]

Times depend on the rows' placement: in a model a rank-3 kernel may run its
rows in dim 1 ([1, S, D] at batch 1), which this places in dim 0.
"""
import argparse
import ctypes
import json
import math
import os
import statistics
import sys
import time

import torch

ABI = "rvnn-memref-v4"
DTYPES = {"f32": torch.float32, "f64": torch.float64}


def dispatches(ops):
    """Every rvnn_exec.dispatch in `ops` and their regions, in plan order."""
    for op in ops:
        if op["op"] == "rvnn_exec.dispatch":
            yield op
        for region in op.get("regions", []):
            yield from dispatches(region["body"])


def kernel_types(plan):
    """kernel name -> (input types, result types), first dispatch of each."""
    kernels = {}
    for function in plan["functions"]:
        for op in dispatches(function["body"]):
            name = op["attrs"]["kernel"]
            if name not in kernels:
                inputs = [arg["type"] for arg in op["regions"][0]["args"]]
                results = [result["type"] for result in op["results"]]
                kernels[name] = (inputs, results)
    return kernels


def result_shape(shape, rows):
    """A result type's shape: the first dynamic dim `rows`, others 1."""
    sizes, placed = [], False
    for size in shape:
        if size >= 0:
            sizes.append(size)
        else:
            sizes.append(1 if placed else rows)
            placed = True
    return sizes


def input_shape(shape, full):
    """An input's shape: a dynamic dim as the result's, where ranks agree."""
    if len(shape) != len(full):
        if any(size < 0 for size in shape):
            sys.exit(f"kernel_times: cannot size an input typed {shape} "
                     f"against the results' {full}")
        return list(shape)
    return [full[d] if size < 0 else size for d, size in enumerate(shape)]


def descriptor(tensor):
    """MLIR's strided memref descriptor of a contiguous tensor, as words:
    allocated, aligned, offset, sizes, strides."""
    rank = tensor.dim()
    words = (ctypes.c_int64 * (3 + 2 * rank))()
    words[0] = words[1] = tensor.data_ptr()
    for d in range(rank):
        words[3 + d] = tensor.size(d)
        words[3 + rank + d] = tensor.stride(d)
    if rank:
        words[3 + 2 * rank - 1] = 1
    return words


def entry_call(entry, tensors):
    """A no-argument callable that runs `entry` on `tensors`."""
    words = [descriptor(tensor) for tensor in tensors]
    args = (ctypes.c_void_p * len(words))(
        *[ctypes.addressof(w) for w in words])

    def call():
        entry(args)
    # The descriptors and tensors live as long as the call.
    call.keep = (tensors, words)
    return call


def median_call_seconds(rotation, calls, repeats):
    """The median over `repeats` of the mean time of `calls` calls, each
    call the next of `rotation`'s callables."""
    for call in rotation[:3]:
        call()
    times, next_call = [], 0
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            rotation[next_call]()
            next_call = (next_call + 1) % len(rotation)
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times)


def buffer_set(so, name, input_types, result_types, full, dtype):
    """One set of a kernel's buffers: its forward and backward calls."""
    inputs = [torch.randn(input_shape(t["shape"], full), dtype=dtype)
              for t in input_types]
    outputs = [torch.empty(full, dtype=dtype) for _ in result_types]
    cotangents = [torch.randn(full, dtype=dtype) for _ in result_types]
    grads = [torch.empty_like(x) for x in inputs]
    tensors = inputs + outputs + cotangents + grads
    size = sum(t.numel() * t.element_size() for t in tensors)
    return (entry_call(getattr(so, f"rvnn_kernel_{name}"), inputs + outputs),
            entry_call(getattr(so, f"rvnn_kernel_{name}_grad"),
                       inputs + cotangents + grads),
            size)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", help="compiled-model directory")
    parser.add_argument("--rows", type=int, default=1920)
    parser.add_argument("--kernel", action="append", default=[],
                        help="only these kernels (repeatable)")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--cold-mib", type=float, default=0,
                        help="rotate over buffers filling this many MiB")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="write the times here as JSON")
    args = parser.parse_args()

    with open(os.path.join(args.model, "manifest.json")) as f:
        manifest = json.load(f)
    library = manifest.get("kernels", {})
    if "library" not in library:
        sys.exit(f"kernel_times: {args.model}: manifest.json names no CPU "
                 "kernel library (kernels.library)")
    if library.get("abi") != ABI:
        sys.exit(f"kernel_times: {args.model}: kernel ABI "
                 f"{library.get('abi')!r}, this script calls {ABI!r}")
    with open(os.path.join(args.model, "plan.json")) as f:
        kernels = kernel_types(json.load(f))
    unknown = set(args.kernel) - set(kernels)
    if unknown:
        sys.exit(f"kernel_times: {args.model} has no kernel "
                 f"{', '.join(sorted(unknown))}")
    so = ctypes.CDLL(os.path.join(args.model, library["library"]))
    torch.manual_seed(args.seed)

    print(f"{args.model}: {args.rows} rows, median of {args.repeats} x "
          f"{args.calls} calls, "
          + (f"buffers rotated over {args.cold_mib:g} MiB" if args.cold_mib
             else "warm buffers"))
    print(f"{'kernel':32} {'shape':>16} {'fwd us':>9} {'bwd us':>9} "
          f"{'fwd ns/row':>10} {'bwd ns/row':>10}")
    report = []
    for name, (input_types, result_types) in sorted(kernels.items()):
        if args.kernel and name not in args.kernel:
            continue
        dtype = DTYPES[result_types[0]["dtype"]]
        full = result_shape(result_types[0]["shape"], args.rows)
        sets = []
        while not sets or sum(s for _, _, s in sets) < args.cold_mib * 2**20:
            sets.append(buffer_set(so, name, input_types, result_types, full,
                                   dtype))
        rows = math.prod(full[:-1])
        fwd = median_call_seconds([f for f, _, _ in sets], args.calls,
                                  args.repeats)
        bwd = median_call_seconds([b for _, b, _ in sets], args.calls,
                                  args.repeats)
        shape = "x".join(map(str, full))
        print(f"{name:32} {shape:>16} {fwd * 1e6:9.2f} {bwd * 1e6:9.2f} "
              f"{fwd * 1e9 / rows:10.1f} {bwd * 1e9 / rows:10.1f}")
        report.append({"kernel": name, "shape": full, "rows": rows,
                       "forward_us": fwd * 1e6, "backward_us": bwd * 1e6})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"model": args.model, "rows": args.rows,
                       "calls": args.calls, "repeats": args.repeats,
                       "cold_mib": args.cold_mib,
                       "kernels": report}, f, indent=1)


if __name__ == "__main__":
    main()
