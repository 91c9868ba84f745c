// With ptxas, export assembles each PTX into a cubin for its arch, lists it
// (role cubin, SHA-256) and records the assembler; the PTX assembles on its
// own too; f64 math links libdevice from the toolkit at compile time.
// REQUIRES: ptxas, cuda-libdevice
// RUN: rm -rf %t && mkdir -p %t
// RUN: env RVNN_PTXAS=%ptxas rvnn-opt %S/Inputs/program-with-f32-kernels.mlir --rvnn-export-plan=dir=%t/model > /dev/null
// RUN: ls %t/model | FileCheck %s --check-prefix=FILES
// RUN: cd %t/model && sha256sum kernels.sm_80.cubin kernels.sm_90.cubin > %t/hashes
// RUN: cat %t/hashes %t/model/manifest.json | FileCheck %s --check-prefix=MANIFEST
// RUN: %ptxas -arch=sm_90 -o %t/check.cubin %t/model/kernels.sm_90.ptx
// RUN: %ptxas -arch=sm_80 -o %t/check80.cubin %t/model/kernels.sm_80.ptx
// A failing ptxas fails the export, naming the command, and leaves no model.
// RUN: printf '#!/bin/sh\nif [ "$1" = --version ]; then echo "Cuda compilation tools, release 0.0"; exit 0; fi\necho "ptxas fatal: bad input" >&2\nexit 3\n' > %t/bad-ptxas && chmod +x %t/bad-ptxas
// RUN: not env RVNN_PTXAS=%t/bad-ptxas rvnn-opt %S/Inputs/program-with-f32-kernels.mlir --rvnn-export-plan=dir=%t/bad 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not test -e %t/bad/manifest.json
// f64 kernels (exp, tanh, erf) with the toolkit's libdevice (CUDA_HOME).
// RUN: env CUDA_HOME=%cuda_home CUDA_ROOT= CUDA_PATH= rvnn-opt %S/Inputs/program-with-kernels.mlir --rvnn-export-plan=dir=%t/f64 > /dev/null
// RUN: FileCheck %s --check-prefix=F64 < %t/f64/kernels.sm_90.ptx
// RUN: %ptxas -arch=sm_90 -o %t/f64.cubin %t/f64/kernels.sm_90.ptx

// FILES: kernels.sm_80.cubin
// FILES-NEXT: kernels.sm_80.ptx
// FILES-NEXT: kernels.sm_90.cubin
// FILES-NEXT: kernels.sm_90.ptx
// FILES-NEXT: kernels.so
// FILES-NEXT: manifest.json
// FILES-NEXT: plan.json
// FILES-NOT: tmp

// MANIFEST: [[SHA80:[0-9a-f]{64}]] kernels.sm_80.cubin
// MANIFEST: [[SHA90:[0-9a-f]{64}]] kernels.sm_90.cubin
// MANIFEST: "path": "kernels.sm_80.ptx"
// MANIFEST: "path": "kernels.sm_80.cubin"
// MANIFEST-NEXT: "role": "cubin"
// MANIFEST-NEXT: "sha256": "[[SHA80]]"
// MANIFEST: "path": "kernels.sm_90.cubin"
// MANIFEST-NEXT: "role": "cubin"
// MANIFEST-NEXT: "sha256": "[[SHA90]]"
// MANIFEST: "cuda": {
// MANIFEST-NEXT: "abi": "rvnn-cuda-v1"
// MANIFEST-NEXT: "archs": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "arch": "sm_80"
// MANIFEST-NEXT: "cubin": "kernels.sm_80.cubin"
// MANIFEST-NEXT: "ptx": "kernels.sm_80.ptx"
// MANIFEST: "assembler": "ptxas ({{.*}}ptxas): Cuda compilation tools, release {{.*}}"

// BAD: error: CUDA codegen: '{{.*}}bad-ptxas -arch=sm_80 -O3 -o {{.*}}kernels.sm_80.cubin.tmp {{.*}}kernels.sm_80.ptx' failed with exit status 3:
// BAD-NEXT: ptxas fatal: bad input

// F64: .entry rvnn_kernel_ew_exp_f64(
// F64-NOT: .extern
// F64-NOT: __nv_

