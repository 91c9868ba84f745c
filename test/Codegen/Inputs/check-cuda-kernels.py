"""Checks the CUDA code of compiled-model directories (argv[1:]): every file
the manifest lists has its SHA-256; kernels.cuda names the entry symbols of
the CPU library, less those it lists as cpu_only (kernels with a row
reduction), every PTX file defines exactly those entries
(`.visible .entry <symbol>(`) and calls nothing; every arch has a cubin when
--cubin is given. Prints one line per model (the number of CUDA kernels);
exits non-zero on the first mismatch."""
import hashlib
import json
import os
import re
import sys

want_cubin = "--cubin" in sys.argv
for directory in [a for a in sys.argv[1:] if a != "--cubin"]:
    def fail(why):
        sys.exit(f"{directory}: {why}")

    manifest = json.load(open(os.path.join(directory, "manifest.json")))
    roles = {}
    for entry in manifest["files"]:
        data = open(os.path.join(directory, entry["path"]), "rb").read()
        if hashlib.sha256(data).hexdigest() != entry["sha256"]:
            fail(f"{entry['path']}: SHA-256 mismatch")
        roles[entry["path"]] = entry["role"]
    kernels = manifest["kernels"]
    cuda = kernels["cuda"]
    library = sorted(kernels["symbols"])
    symbols = sorted(cuda["symbols"])
    cpu_only = sorted(cuda.get("cpu_only", []))
    if not symbols or sorted(symbols + cpu_only) != library:
        fail(f"CUDA symbols {symbols} + cpu_only {cpu_only} != library "
             f"symbols {library}")
    if [a["arch"] for a in cuda["archs"]] != ["sm_80", "sm_90"]:
        fail(f"archs {cuda['archs']}")
    for arch in cuda["archs"]:
        if roles.get(arch["ptx"]) != "ptx":
            fail(f"{arch['ptx']} not listed with role ptx")
        ptx = open(os.path.join(directory, arch["ptx"])).read()
        entries = sorted(re.findall(r"^\.visible \.entry (\w+)\(", ptx, re.M))
        if entries != symbols:
            fail(f"{arch['ptx']}: entries {entries} != {symbols}")
        if re.search(r"\bcall(\.uni)?\b", ptx) or ".extern" in ptx:
            fail(f"{arch['ptx']}: calls a function")
        if want_cubin and roles.get(arch.get("cubin")) != "cubin":
            fail(f"{arch['arch']}: no cubin listed")
    print(f"{os.path.basename(directory)}: {len(symbols)} kernels, "
          f"{len(cuda['archs'])} archs ok")
