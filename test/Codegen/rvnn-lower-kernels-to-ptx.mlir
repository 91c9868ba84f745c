// RUN: rvnn-opt %s --rvnn-lower-kernels-to-ptx | FileCheck %s

// The NVVM pipeline, then gpu-module-to-binary{format=isa}: one gpu.binary
// holding PTX text per chip, each with one .entry per kernel; the kernel
// parameters are the descriptor fields (3 + 2R per rank-R argument, here
// 2 arguments of rank 2: 14), and no function is called (no libdevice).
// CHECK: gpu.binary @rvnn_kernels
// CHECK-SAME: #gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">
// CHECK-SAME: .version 8.0\0A.target sm_80
// CHECK-SAME: .visible .entry rvnn_kernel_neg_exp(
// CHECK-SAME: .param .u64 rvnn_kernel_neg_exp_param_13\0A)
// CHECK-SAME: .maxntid 128, 1, 1
// CHECK-NOT: call
// CHECK-SAME: #gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// CHECK-SAME: .target sm_90
// CHECK-SAME: .visible .entry rvnn_kernel_neg_exp(
// CHECK-NOT: call
#id = affine_map<(i, j) -> (i, j)>
module @rvnn_kernels attributes {rvnn_exec.kernels} {
  func.func @neg_exp(%x: tensor<?x64xf32>, %out: tensor<?x64xf32>) -> tensor<?x64xf32> {
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<?x64xf32>) outs(%out : tensor<?x64xf32>) {
    ^bb0(%a: f32, %o: f32):
      %n = arith.negf %a : f32
      %e = math.exp %n : f32
      linalg.yield %e : f32
    } -> tensor<?x64xf32>
    return %r : tensor<?x64xf32>
  }
}
