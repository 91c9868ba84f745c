// Export of a module with f32 kernels writes, beside kernels.so, PTX for
// sm_80 and sm_90 with one .entry per kernel, lists each file in the
// manifest with its role and SHA-256, and describes them in kernels.cuda.
// This file runs without ptxas (RVNN_PTXAS empty: PTX only, and the
// manifest says why); export-cuda-kernels-ptxas.mlir assembles.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env RVNN_PTXAS= rvnn-opt %S/Inputs/program-with-f32-kernels.mlir --rvnn-export-plan=dir=%t/model > /dev/null
// RUN: ls %t/model | FileCheck %s --check-prefix=FILES
// RUN: cd %t/model && sha256sum kernels.sm_80.ptx kernels.sm_90.ptx > %t/hashes
// RUN: cat %t/hashes %t/model/manifest.json | FileCheck %s --check-prefix=MANIFEST
// RUN: FileCheck %s --check-prefix=PTX80 < %t/model/kernels.sm_80.ptx
// RUN: FileCheck %s --check-prefix=PTX90 < %t/model/kernels.sm_90.ptx
// f64 exp/tanh/erf need libdevice: without a toolkit to link it from at
// compile time, the model gets no CUDA code and the manifest says why.
// RUN: env -u CUDA_HOME -u CUDA_ROOT -u CUDA_PATH RVNN_PTXAS= rvnn-opt %S/Inputs/program-with-kernels.mlir --rvnn-export-plan=dir=%t/nolibdevice > /dev/null
// RUN: FileCheck %s --check-prefix=NOLIBDEVICE < %t/nolibdevice/manifest.json
// RUN: ls %t/nolibdevice | FileCheck %s --check-prefix=NOLIBDEVICE-FILES

// FILES: kernels.sm_80.ptx
// FILES-NEXT: kernels.sm_90.ptx
// FILES-NEXT: kernels.so
// FILES-NEXT: manifest.json
// FILES-NEXT: plan.json
// FILES-NOT: tmp
// FILES-NOT: cubin

// MANIFEST: [[SHA80:[0-9a-f]{64}]] kernels.sm_80.ptx
// MANIFEST: [[SHA90:[0-9a-f]{64}]] kernels.sm_90.ptx
// MANIFEST: "files": [
// MANIFEST: "path": "kernels.so"
// MANIFEST-NEXT: "role": "kernels"
// MANIFEST: "path": "kernels.sm_80.ptx"
// MANIFEST-NEXT: "role": "ptx"
// MANIFEST-NEXT: "sha256": "[[SHA80]]"
// MANIFEST: "path": "kernels.sm_90.ptx"
// MANIFEST-NEXT: "role": "ptx"
// MANIFEST-NEXT: "sha256": "[[SHA90]]"
// MANIFEST: "kernels": {
// MANIFEST: "cuda": {
// MANIFEST-NEXT: "abi": "rvnn-cuda-v1"
// MANIFEST-NEXT: "archs": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "arch": "sm_80"
// MANIFEST-NEXT: "ptx": "kernels.sm_80.ptx"
// MANIFEST-NEXT: }
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "arch": "sm_90"
// MANIFEST-NEXT: "ptx": "kernels.sm_90.ptx"
// MANIFEST-NEXT: }
// MANIFEST-NEXT: ]
// MANIFEST-NEXT: "block": [
// MANIFEST-NEXT: 128
// MANIFEST-NEXT: 1
// MANIFEST-NEXT: 1
// MANIFEST-NEXT: ]
// MANIFEST-NEXT: "cubin": "not assembled: ptxas disabled (RVNN_PTXAS is empty)"
// MANIFEST-NEXT: "symbols": [
// MANIFEST-NEXT: "rvnn_kernel_ew_tanh"
// MANIFEST-NEXT: "rvnn_kernel_ew_tanh_grad"
// MANIFEST-NEXT: ]
// MANIFEST-NEXT: }

// Each kernel an .entry with 7 parameters per rank-2 argument, blocks of
// 128 threads, and no call (no libdevice, no device function).
// PTX80: .version 8.0
// PTX80: .target sm_80
// PTX80-NOT: call
// PTX80: .entry rvnn_kernel_ew_tanh(
// PTX80: .param .u64 rvnn_kernel_ew_tanh_param_13
// PTX80-NEXT: )
// PTX80-NEXT: .maxntid 128, 1, 1
// PTX80: .entry rvnn_kernel_ew_tanh_grad(
// PTX80: .param .u64 rvnn_kernel_ew_tanh_grad_param_20
// PTX80-NEXT: )
// PTX80-NOT: call
// PTX90: .target sm_90
// PTX90: .entry rvnn_kernel_ew_tanh(
// PTX90: .entry rvnn_kernel_ew_tanh_grad(

// NOLIBDEVICE: "cuda": {
// NOLIBDEVICE-NEXT: "abi": "rvnn-cuda-v1"
// NOLIBDEVICE-NEXT: "archs": []
// NOLIBDEVICE: "ptx": "not generated: the kernels call '__nv_exp', '__nv_tanh', '__nv_erf' (f64 math), which needs the CUDA toolkit's libdevice at compile time, and none was found"
// NOLIBDEVICE-NEXT: "symbols": []
// NOLIBDEVICE-FILES-NOT: ptx
// NOLIBDEVICE-FILES-NOT: cubin
