// RUN: rvnn-opt %s --rvnn-lower-kernels-to-nvvm -split-input-file -verify-diagnostics | FileCheck %s
// RUN: rvnn-opt %s --rvnn-lower-kernels-to-nvvm -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=NOLIBDEVICE
// RUN: rvnn-opt %s --rvnn-lower-kernels-to-nvvm="chips=sm_90" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=ONECHIP

// A kernels module as the compiler emits it (linalg.generic on dynamically
// shaped tensors, destination-passing, a forward kernel and its backward)
// becomes one gpu.module with an NVVM target per chip and one kernel per
// function, named rvnn_kernel_<name>, whose parameters are the expanded
// memref descriptors of the function's arguments in order (rvnn-cuda-v1:
// rank 2 -> allocated, aligned, offset, 2 sizes, 2 strides = 7 each),
// launched on blocks of 128 threads (nvvm.maxntid). No host code is left.

// CHECK-LABEL: module @rvnn_kernels attributes {gpu.container_module
// CHECK-NOT: func.func
// CHECK: gpu.module @rvnn_kernels [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, #nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
// CHECK: llvm.func @rvnn_kernel_gelu_tanh(
// CHECK-SAME: %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64,
// CHECK-SAME: %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64,
// CHECK-SAME: %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64)
// CHECK-SAME: nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>
// One element per thread: blockIdx.x * 128 + threadIdx.x, checked against
// the element count (the product of the sizes).
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.icmp "ult"
// CHECK: llvm.cond_br
// CHECK: llvm.load
// CHECK: llvm.store
// CHECK: llvm.return
// CHECK: llvm.func @rvnn_kernel_gelu_tanh_grad(
// CHECK-SAME: nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>
// CHECK-NOT: func.func

// The f32 exp, tanh and erf are polynomials, and what they use (fma,
// floor, abs) are NVPTX instructions: nothing is left for libdevice.
// NOLIBDEVICE-NOT: math.
// NOLIBDEVICE-NOT: memref.
// NOLIBDEVICE-NOT: __nv_
// NOLIBDEVICE-NOT: llvm.call
// NOLIBDEVICE-NOT: llvm.intr.exp
// NOLIBDEVICE-NOT: llvm.intr.log
// NOLIBDEVICE: llvm.intr.fma
// NOLIBDEVICE-NOT: math.
// NOLIBDEVICE-NOT: __nv_
// NOLIBDEVICE-NOT: llvm.call

// ONECHIP: gpu.module @rvnn_kernels [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
module @rvnn_kernels attributes {rvnn_exec.kernels} {
  // out = x * sigmoid(y) + tanh(x) * erf(y)
  func.func @gelu_tanh(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>,
                       %out: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %r = linalg.generic {indexing_maps = [#id, #id, #id],
                         iterator_types = ["parallel", "parallel"]}
        ins(%x, %y : tensor<?x?xf32>, tensor<?x?xf32>)
        outs(%out : tensor<?x?xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %one = arith.constant 1.0 : f32
      %nb = arith.negf %b : f32
      %e = math.exp %nb : f32
      %d = arith.addf %one, %e : f32
      %s = arith.divf %one, %d : f32
      %xs = arith.mulf %a, %s : f32
      %t = math.tanh %a : f32
      %f = math.erf %b : f32
      %tf = arith.mulf %t, %f : f32
      %v = arith.addf %xs, %tf : f32
      linalg.yield %v : f32
    } -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }

  // din = dout * (1 - tanh(x)^2), clamped with maximumf/minimumf, cmpf/select.
  func.func @gelu_tanh_grad(%x: tensor<?x?xf32>, %dout: tensor<?x?xf32>,
                            %din: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %r = linalg.generic {indexing_maps = [#id, #id, #id],
                         iterator_types = ["parallel", "parallel"]}
        ins(%x, %dout : tensor<?x?xf32>, tensor<?x?xf32>)
        outs(%din : tensor<?x?xf32>) {
    ^bb0(%a: f32, %g: f32, %o: f32):
      %one = arith.constant 1.0 : f32
      %lo = arith.constant -10.0 : f32
      %hi = arith.constant 10.0 : f32
      %zero = arith.constant 0.0 : f32
      %c = arith.maximumf %a, %lo : f32
      %c2 = arith.minimumf %c, %hi : f32
      %t = math.tanh %c2 : f32
      %t2 = arith.mulf %t, %t : f32
      %d = arith.subf %one, %t2 : f32
      %v = arith.mulf %g, %d : f32
      %neg = arith.cmpf olt, %v, %zero : f32
      %av = math.absf %v : f32
      %w = arith.select %neg, %v, %av : f32
      linalg.yield %w : f32
    } -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }

}

// -----

// Rank 3 and rank 1 kernels get the same flat launch: rank-R descriptors
// (3 + 2R parameters each).
// CHECK-LABEL: llvm.func @rvnn_kernel_rank3(%{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: !llvm.ptr,
// CHECK: llvm.func @rvnn_kernel_rank1(%{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64)
#id3 = affine_map<(i, j, k) -> (i, j, k)>
#id1 = affine_map<(i) -> (i)>
module @rvnn_kernels attributes {rvnn_exec.kernels} {
  func.func @rank3(%x: tensor<?x?x128xf32>, %out: tensor<?x?x128xf32>) -> tensor<?x?x128xf32> {
    %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%x : tensor<?x?x128xf32>) outs(%out : tensor<?x?x128xf32>) {
    ^bb0(%a: f32, %o: f32):
      %t = math.tanh %a : f32
      linalg.yield %t : f32
    } -> tensor<?x?x128xf32>
    return %r : tensor<?x?x128xf32>
  }
  func.func @rank1(%x: tensor<?xf32>, %out: tensor<?xf32>) -> tensor<?xf32> {
    %r = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
        ins(%x : tensor<?xf32>) outs(%out : tensor<?xf32>) {
    ^bb0(%a: f32, %o: f32):
      %t = math.log %a : f32
      linalg.yield %t : f32
    } -> tensor<?xf32>
    return %r : tensor<?xf32>
  }
}

// -----

// A kernel with a reduction into a temporary needs host work the ABI has
// no place for: an error naming the kernel, not wrong code.
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
module @rvnn_kernels attributes {rvnn_exec.kernels} {
  // expected-error @+1 {{kernel 'row_sum' needs 'memref.alloc' on the host, which rvnn-cuda-v1 cannot express}}
  func.func @row_sum(%x: tensor<?x?xf32>, %out: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %m = tensor.dim %x, %c0 : tensor<?x?xf32>
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty(%m) : tensor<?xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<?x?xf32>) outs(%acc : tensor<?xf32>) {
    ^bb0(%a: f32, %s: f32):
      %n = arith.addf %s, %a : f32
      linalg.yield %n : f32
    } -> tensor<?xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
        ins(%sum : tensor<?xf32>) outs(%out : tensor<?xf32>) {
    ^bb0(%s: f32, %o: f32):
      linalg.yield %s : f32
    } -> tensor<?xf32>
    return %r : tensor<?xf32>
  }
}
