// Export of a module with a kernels module: the plan skips it, kernels.so is
// compiled and linked, and the manifest lists it with its SHA-256 and the
// entry points.
// RUN: rm -rf %t && mkdir -p %t
// (No CUDA toolkit in the environment: the f64 kernel gets no CUDA code, so
// kernels.so is the only code file; export-cuda-kernels*.mlir test those.)
// RUN: env -u CUDA_HOME -u CUDA_ROOT -u CUDA_PATH rvnn-opt %S/Inputs/program-with-kernels.mlir --rvnn-export-plan="dir=%t/model cpu=x86-64-v3" > /dev/null
// RUN: nm -D --defined-only %t/model/kernels.so | FileCheck %s --check-prefix=SYMS
// RUN: sha256sum %t/model/kernels.so > %t/hash
// RUN: cat %t/hash %t/model/manifest.json | FileCheck %s --check-prefix=MANIFEST
// The plan holds the program only.
// RUN: FileCheck %s --check-prefix=PLAN < %t/model/plan.json
// No temporary file is left behind.
// RUN: ls %t/model | FileCheck %s --check-prefix=FILES
// By default the kernels are built for the newest x86-64 level this machine
// runs, tuned for its CPU; an unknown level is refused.
// RUN: rvnn-opt %S/Inputs/program-with-kernels.mlir --rvnn-export-plan=dir=%t/host > /dev/null
// RUN: FileCheck %s --check-prefix=HOST < %t/host/manifest.json
// RUN: not rvnn-opt %S/Inputs/program-with-kernels.mlir --rvnn-export-plan="dir=%t/znver4 cpu=znver4" 2>&1 | FileCheck %s --check-prefix=LEVEL
// RUN: not test -e %t/znver4/manifest.json
// Without a C compiler to link with, the export fails naming the step, and
// no model (manifest) is written.
// RUN: mkdir -p %t/empty-path
// RUN: not env PATH=%t/empty-path rvnn-opt %S/Inputs/program-with-kernels.mlir --rvnn-export-plan=dir=%t/nocc 2>&1 | FileCheck %s --check-prefix=NOCC
// RUN: not test -e %t/nocc/manifest.json

// SYMS-DAG: T _mlir_ciface_ew_tanh
// SYMS-DAG: T rvnn_kernel_ew_tanh
// SYMS-DAG: T rvnn_kernel_ew_tanh_grad
// SYMS-DAG: T rvnn_kernel_ew_exp_f64

// MANIFEST: [[SHA:[0-9a-f]+]] {{.*}}kernels.so
// MANIFEST: "files": [
// MANIFEST: "path": "plan.json"
// MANIFEST-NEXT: "role": "plan"
// MANIFEST: "path": "kernels.so"
// MANIFEST-NEXT: "role": "kernels"
// MANIFEST-NEXT: "sha256": "[[SHA]]"
// MANIFEST: "kernels": {
// MANIFEST-NEXT: "abi": "rvnn-memref-v4"
// MANIFEST-NEXT: "cpu": "x86-64-v3"
// MANIFEST: "library": "kernels.so"
// MANIFEST-NEXT: "symbols": [
// MANIFEST-NEXT: "rvnn_kernel_ew_exp_f64"
// MANIFEST-NEXT: "rvnn_kernel_ew_tanh"
// MANIFEST-NEXT: "rvnn_kernel_ew_tanh_grad"
// MANIFEST-NEXT: ]
// MANIFEST-NEXT: "target": "{{.+}}"
// MANIFEST-NOT: "tune_cpu"
// MANIFEST: "version": 3

// HOST: "cpu": "x86-64{{(-v[234])?}}"
// HOST: "target": "{{.+}}"
// HOST-NEXT: "tune_cpu": "{{.+}}"

// LEVEL: error: kernel codegen: unknown CPU 'znver4'; expected one of x86-64, x86-64-v2, x86-64-v3, x86-64-v4

// PLAN: "functions": [
// PLAN: "op": "rvnn_exec.elementwise"
// PLAN-NOT: linalg
// PLAN-NOT: rvnn_kernels

// NOCC: error: kernel codegen: cannot find the C compiler 'cc' on PATH to link '{{.*}}nocc/.compiling-{{[^/]+}}/kernels.so'

// FILES: kernels.so
// FILES-NEXT: manifest.json
// FILES-NEXT: plan.json
// FILES-NOT: tmp
