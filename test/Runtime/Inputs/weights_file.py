#!/usr/bin/env python3
"""Reads, checks and edits the weights files of `rvnn-run export` with
PyTorch and a small safetensors reader and writer of its own (the format is
an 8-byte little-endian header length, a JSON header, the raw data), as a
user's script would. Each subcommand prints what it checked and exits
non-zero when a check fails.
"""
import argparse
import collections
import ctypes
import json
import struct
import sys

import torch

DTYPES = {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16,
          "BF16": torch.bfloat16, "I64": torch.int64, "I32": torch.int32,
          "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8,
          "BOOL": torch.bool}
NAMES = {dtype: name for name, dtype in DTYPES.items()}


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def read_safetensors(path):
    """The tensors and metadata of a safetensors file, checking the layout
    rules of the format (the data exactly covered, header and data sizes)."""
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length].decode("utf-8"))
    body = data[8 + length:]
    metadata = header.pop("__metadata__", {})
    tensors = {}
    covered = 0
    for name, info in sorted(header.items(),
                             key=lambda item: item[1]["data_offsets"][0]):
        begin, end = info["data_offsets"]
        if begin != covered:
            fail(f"{path}: '{name}' starts at {begin}, expected {covered}")
        covered = end
        dtype = DTYPES[info["dtype"]]
        blob = bytearray(body[begin:end])
        flat = (torch.frombuffer(blob, dtype=dtype) if blob
                else torch.empty(0, dtype=dtype))
        tensors[name] = flat.reshape(info["shape"])
    if covered != len(body):
        fail(f"{path}: tensors cover {covered} of {len(body)} data bytes")
    # The header's order, as the writer gave it.
    return {name: tensors[name] for name in header}, metadata


def write_safetensors(path, tensors, metadata):
    """Lays the data out sorted by name, not in the header's order, and
    leaves the header unpadded: both are the writer's choice."""
    entries = {}
    blobs = []
    offset = 0
    for name in sorted(tensors):
        tensor = tensors[name].detach().contiguous()
        size = tensor.numel() * tensor.element_size()
        blobs.append(ctypes.string_at(tensor.data_ptr(), size))
        entries[name] = {"dtype": NAMES[tensor.dtype],
                         "shape": list(tensor.shape),
                         "data_offsets": [offset, offset + size]}
        offset += size
    header = {"__metadata__": metadata}
    header.update((name, entries[name]) for name in tensors)
    text = json.dumps(header).encode("utf-8")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def load_torch(path):
    weights = torch.load(path)
    if type(weights) is not dict:
        fail(f"{path}: torch.load gives a {type(weights).__name__}, "
             "not a plain dict")
    for name, value in weights.items():
        if type(value) is not torch.Tensor:
            fail(f"{path}: '{name}' is a {type(value).__name__}")
    return weights


def load(path):
    with open(path, "rb") as f:
        zip_file = f.read(4) == b"PK\x03\x04"
    return load_torch(path) if zip_file else read_safetensors(path)[0]


def check_same(a, b, what, allowed_to_differ=()):
    if list(a) != list(b):
        fail(f"{what}: names {list(a)} != {list(b)}")
    for name in a:
        same = (a[name].dtype == b[name].dtype
                and a[name].shape == b[name].shape
                and torch.equal(a[name], b[name]))
        if same == (name in allowed_to_differ):
            fail(f"{what}: '{name}' " + ("did not change" if same
                                          else "differs"))


def compare(args):
    """Both exports hold the same tensors as the checkpoint, which
    dump-grads (another path through the runtime) wrote as JSON."""
    torch_weights = load_torch(args.torch_file)
    safetensors_weights, metadata = read_safetensors(args.safetensors_file)
    check_same(torch_weights, safetensors_weights, "torch vs safetensors")
    if metadata != {"format": "pt"}:
        fail(f"metadata {metadata}")
    with open(args.dump) as f:
        params = json.load(f)["params"]
    if sorted(params) != sorted(torch_weights):
        fail(f"names {sorted(torch_weights)} != checkpoint's {sorted(params)}")
    for name, tensor in torch_weights.items():
        expected = torch.tensor(params[name]["values"], dtype=torch.float64)
        if (tensor.dtype != torch.float32
                or list(tensor.shape) != params[name]["shape"]
                or not torch.equal(tensor.double().flatten(), expected)):
            fail(f"'{name}' differs from the checkpoint")
    print(f"{len(torch_weights)} tensors match the checkpoint: "
          + " ".join(torch_weights))


def bias(args):
    """Makes every prediction class K through the output bias; writes the
    result with torch.save and as safetensors."""
    weights = load_torch(args.input)
    weights[args.name] = weights[args.name].clone()
    weights[args.name][args.k] += 1000.0
    torch.save(weights, args.torch_out)
    write_safetensors(args.safetensors_out, weights, {"format": "pt"})
    print(f"{args.name}[{args.k}] += 1000")


def same(args):
    check_same(load(args.first), load(args.second),
               f"{args.first} vs {args.second}", args.differ or ())
    print("same" if not args.differ else "only " + " ".join(args.differ)
          + " differ")


def accuracy(args):
    """The 'all' row of an accuracy table is the share of label K."""
    with open(args.data) as f:
        labels = [line.split("\t")[0] for line in f if line.strip()]
    expected = 100.0 * labels.count(str(args.k)) / len(labels)
    with open(args.log) as f:
        rows = [line.split() for line in f if " all " in line]
    if len(rows) != 1 or rows[0][-1] != f"{expected:.2f}":
        fail(f"expected accuracy {expected:.2f}, table rows {rows}")
    print(f"accuracy {expected:.2f} = share of class {args.k}")


def edit(args):
    """Writes a broken copy for the error tests."""
    weights = load_torch(args.input)
    if args.rename:
        old, new = args.rename.split("=")
        weights = {new if k == old else k: v for k, v in weights.items()}
    if args.resize:
        name, size = args.resize.split("=")
        weights[name] = torch.zeros(int(size))
    if args.double:
        weights[args.double] = weights[args.double].double()
    if args.ordered:
        weights = collections.OrderedDict(weights)
    if args.parameter:
        weights[args.parameter] = torch.nn.Parameter(weights[args.parameter])
    torch.save(weights, args.output)


# Each subcommand's positional arguments ("k" is an int), then its options.
COMMANDS = {
    compare: ["torch_file", "safetensors_file", "dump"],
    bias: ["input", "name", "k", "torch_out", "safetensors_out"],
    same: ["first", "second", "--differ"],
    accuracy: ["log", "data", "k"],
    edit: ["input", "output", "--rename", "--resize", "--double", "--ordered",
           "--parameter"],
}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for run, arguments in COMMANDS.items():
        p = sub.add_parser(run.__name__, help=run.__doc__)
        for name in arguments:
            if name == "--differ":
                p.add_argument(name, action="append")
            elif name == "--ordered":
                p.add_argument(name, action="store_true")
            else:
                p.add_argument(name, type=int if name == "k" else str)
        p.set_defaults(run=run)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
