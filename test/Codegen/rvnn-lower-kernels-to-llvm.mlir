// RUN: rvnn-opt %s --rvnn-lower-kernels-to-llvm | FileCheck %s
// RUN: rvnn-opt %s --rvnn-lower-kernels-to-llvm | FileCheck %s --check-prefix=NOLIBM

// A kernels module as the compiler emits it: linalg.generic on dynamically
// shaped tensors in destination-passing style, a forward kernel and its
// backward, becomes LLVM dialect with C interfaces and packed entry points.
// Results equal to the destinations are dropped: kernels return nothing.

// Each memref's aligned pointer (its second) is noalias.
// CHECK: llvm.func @gelu_tanh(%{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr {llvm.noalias}, {{[^)]*}}) attributes {llvm.emit_c_interface}
// CHECK: llvm.func @_mlir_ciface_gelu_tanh(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK: llvm.func @rvnn_kernel_gelu_tanh(%{{.*}}: !llvm.ptr)
// CHECK: llvm.call @_mlir_ciface_gelu_tanh(
// CHECK: llvm.func @_mlir_ciface_gelu_tanh_grad(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK: llvm.func @rvnn_kernel_gelu_tanh_grad(%{{.*}}: !llvm.ptr)
// CHECK: llvm.call @_mlir_ciface_gelu_tanh_grad(
// A row reduction with a temporary: its two stages one loop over the rows
// (rvnn-fuse-kernel-rows), the temporary one row on the stack.
// CHECK: llvm.func @row_logsumexp(
// CHECK: llvm.alloca %{{.*}} x f32
// CHECK: llvm.func @rvnn_kernel_row_logsumexp(%{{.*}}: !llvm.ptr)

// Nothing but the LLVM dialect, and no libm call for the f32 math.
// NOLIBM-NOT: math.
// NOLIBM-NOT: linalg.
// NOLIBM-NOT: memref.
// NOLIBM-NOT: llvm.call @expf
// NOLIBM-NOT: llvm.call @tanhf
// NOLIBM-NOT: llvm.call @erff
// NOLIBM-NOT: llvm.call @logf
// NOLIBM-NOT: llvm.intr.exp(
// NOLIBM-NOT: llvm.intr.log(
// NOLIBM-NOT: @malloc

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

  // out[i] = log(sum_j exp(x[i, j])) + sqrt(|x[i, 0]|), with a temporary.
  func.func @row_logsumexp(%x: tensor<?x?xf32>, %out: tensor<?xf32>)
      -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %m = tensor.dim %x, %c0 : tensor<?x?xf32>
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty(%m) : tensor<?xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    %sum = linalg.generic {indexing_maps = [#id, #row],
                           iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<?x?xf32>) outs(%acc : tensor<?xf32>) {
    ^bb0(%a: f32, %s: f32):
      %ea = math.exp %a : f32
      %n = arith.addf %s, %ea : f32
      linalg.yield %n : f32
    } -> tensor<?xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                          affine_map<(i) -> (i)>],
                         iterator_types = ["parallel"]}
        ins(%sum : tensor<?xf32>) outs(%out : tensor<?xf32>) {
    ^bb0(%s: f32, %o: f32):
      %l = math.log %s : f32
      %q = math.sqrt %s : f32
      %v = arith.addf %l, %q : f32
      linalg.yield %v : f32
    } -> tensor<?xf32>
    return %r : tensor<?xf32>
  }
}
