// RUN: rvnn-opt %s -rvnn-lower-to-exec -split-input-file -verify-diagnostics | FileCheck %s

// A GRC-like step: linear layers become GEMM library calls, arith/math on
// tensors become elementwise kernels, rvnn ops their mirrors.
// CHECK-LABEL: rvnn_exec.func @cell
// CHECK-SAME: (%[[L:.*]]: tensor<?x4xf32>, %[[R:.*]]: tensor<?x4xf32>, %[[W:.*]]: tensor<8x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[LR:.*]] = rvnn_exec.concat %[[L]], %[[R]] {dim = 1 : i64}
// CHECK: %[[PRE:.*]] = rvnn_exec.gemm %[[LR]], %[[W]] bias %[[B]] {transpose_rhs}
// CHECK: %[[ACT:.*]] = rvnn_exec.gelu %[[PRE]] : tensor<?x8xf32>
// CHECK: %[[HALF:.*]] = rvnn_exec.slice %[[ACT]][] [%{{.*}}] [] {dropped_dims = array<i64>, static_offsets = array<i64: 0, 4>
// CHECK: %[[T:.*]] = rvnn_exec.elementwise <tanh> %[[HALF]] : tensor<?x4xf32>
// CHECK: %[[S:.*]] = rvnn_exec.elementwise <add> %[[T]], %[[L]] : tensor<?x4xf32>
// CHECK: rvnn_exec.return %[[S]] : tensor<?x4xf32>
func.func @cell(%l: tensor<?x4xf32>, %r: tensor<?x4xf32>, %w: tensor<8x8xf32>,
                %b: tensor<8xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %lr = tensor.concat dim(1) %l, %r
      : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x8xf32>
  %pre = rvnn.linear %lr, %w, %b
      : (tensor<?x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %act = rvnn.gelu %pre : tensor<?x8xf32>
  %m = tensor.dim %l, %c0 : tensor<?x4xf32>
  %half = tensor.extract_slice %act[0, 4] [%m, 4] [1, 1]
      : tensor<?x8xf32> to tensor<?x4xf32>
  %t = math.tanh %half : tensor<?x4xf32>
  %s = arith.addf %t, %l : tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}

// -----

// Rank-reducing slices record the dims they drop; collapses compute their
// dynamic sizes from the source's.
// CHECK-LABEL: rvnn_exec.func @views
// CHECK-SAME: (%[[X:.*]]: tensor<?x2x4xf32>, %[[Y:.*]]: tensor<?x4xf32>, %[[N:.*]]: index)
// CHECK: rvnn_exec.slice %[[X]][] [%{{.*}}] [] {dropped_dims = array<i64: 1>
// CHECK-SAME: : tensor<?x2x4xf32> to tensor<?x4xf32>
// CHECK: %[[C0:.*]] = rvnn_exec.constant 0 : index
// CHECK: %[[M:.*]] = rvnn_exec.dim %[[X]], %[[C0]] : tensor<?x2x4xf32>
// CHECK: %[[C2:.*]] = rvnn_exec.constant 2 : index
// CHECK: %[[M2:.*]] = rvnn_exec.index_arith <mul> %[[M]], %[[C2]] : index
// CHECK: rvnn_exec.reshape %[[X]](%[[M2]]) : tensor<?x2x4xf32> to tensor<?x4xf32>
// CHECK: rvnn_exec.reshape %[[Y]](%[[N]]) : tensor<?x4xf32> to tensor<?x2x4xf32>
func.func @views(%x: tensor<?x2x4xf32>, %y: tensor<?x4xf32>, %n: index)
    -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x2x4xf32>) {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2x4xf32>
  %first = tensor.extract_slice %x[0, 0, 0] [%m, 1, 4] [1, 1, 1]
      : tensor<?x2x4xf32> to tensor<?x4xf32>
  %flat = tensor.collapse_shape %x [[0, 1], [2]]
      : tensor<?x2x4xf32> into tensor<?x4xf32>
  %back = tensor.expand_shape %y [[0, 1], [2]] output_shape [%n, 2, 4]
      : tensor<?x4xf32> into tensor<?x2x4xf32>
  return %first, %flat, %back : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x2x4xf32>
}

// -----

// Scalars: index arithmetic; comparisons and i1 -> float conversions.
// CHECK-LABEL: rvnn_exec.func @scalars
// CHECK: rvnn_exec.index_arith <floordiv> %{{.*}}, %{{.*}} : index
// CHECK: rvnn_exec.index_arith <ceildiv> %{{.*}}, %{{.*}} : index
// CHECK: %[[GT:.*]] = rvnn_exec.compare <ogt> %{{.*}}, %{{.*}} : tensor<?xf32> -> tensor<?xi1>
// CHECK: %[[OR:.*]] = rvnn_exec.elementwise <or> %[[GT]], %{{.*}} : tensor<?xi1>
// CHECK: rvnn_exec.convert %[[OR]] : tensor<?xi1> -> tensor<?xf32>
func.func @scalars(%a: index, %b: index, %x: tensor<?xf32>, %y: tensor<?xf32>,
                   %done: tensor<?xi1>) -> (index, index, tensor<?xf32>) {
  %q = arith.floordivsi %a, %b : index
  %r = arith.ceildivsi %a, %b : index
  %gt = arith.cmpf ogt, %x, %y : tensor<?xf32>
  %or = arith.ori %gt, %done : tensor<?xi1>
  %f = arith.uitofp %or : tensor<?xi1> to tensor<?xf32>
  return %q, %r, %f : index, index, tensor<?xf32>
}

// -----

// linalg contractions accumulate into their init; transposes are views.
// CHECK-LABEL: rvnn_exec.func @contractions
// CHECK: %[[Z:.*]] = rvnn_exec.alloc(%{{.*}}) : tensor<?x5xf32>
// CHECK: rvnn_exec.gemm %{{.*}}, %{{.*}} accumulate %[[Z]] : (tensor<?x3xf32>, tensor<3x5xf32>, tensor<?x5xf32>) -> tensor<?x5xf32>
// CHECK: rvnn_exec.gemm %{{.*}}, %{{.*}} accumulate %{{.*}} : (tensor<2x?x3xf32>, tensor<2x3x5xf32>, tensor<2x?x5xf32>)
// CHECK: rvnn_exec.transpose %{{.*}} {permutation = array<i64: 1, 0>} : tensor<?x5xf32> to tensor<5x?xf32>
func.func @contractions(%a: tensor<?x3xf32>, %b: tensor<3x5xf32>,
                        %ba: tensor<2x?x3xf32>, %bb: tensor<2x3x5xf32>,
                        %bc: tensor<2x?x5xf32>, %t: tensor<5x?xf32>)
    -> (tensor<?x5xf32>, tensor<2x?x5xf32>, tensor<5x?xf32>) {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x3xf32>
  %init = tensor.empty(%m) : tensor<?x5xf32>
  %p = linalg.matmul ins(%a, %b : tensor<?x3xf32>, tensor<3x5xf32>)
      outs(%init : tensor<?x5xf32>) -> tensor<?x5xf32>
  %bp = linalg.batch_matmul ins(%ba, %bb : tensor<2x?x3xf32>, tensor<2x3x5xf32>)
      outs(%bc : tensor<2x?x5xf32>) -> tensor<2x?x5xf32>
  %pt = linalg.transpose ins(%p : tensor<?x5xf32>) outs(%t : tensor<5x?xf32>)
      permutation = [1, 0]
  return %p, %bp, %pt : tensor<?x5xf32>, tensor<2x?x5xf32>, tensor<5x?xf32>
}

// -----

// Recursion keeps its halting policy and body; parameters become the
// runtime's.
// CHECK: rvnn_exec.param @w : tensor<4x4xf32> init <xavier_uniform>
// CHECK-LABEL: rvnn_exec.func @loop
// CHECK: rvnn_exec.param_get @w : tensor<4x4xf32>
// CHECK: rvnn_exec.recurse <per_sample>(%{{.*}}) {steps = 5 : i64}
// CHECK: ^bb0(%{{.*}}: index, %[[S:.*]]: tensor<?x4xf32>):
// CHECK: rvnn_exec.gemm %[[S]]
// CHECK: rvnn_exec.yield {has_halt} %{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<?xi1>
rvnn.param @w : tensor<4x4xf32> init xavier_uniform
func.func @loop(%h0: tensor<?x4xf32>, %halt: tensor<?xi1>) -> tensor<?x4xf32> {
  %w = rvnn.param_get @w : tensor<4x4xf32>
  %h = rvnn.recurse (%s = %h0) : tensor<?x4xf32> halting <per_sample> steps = 5 {
  ^bb0(%t: index, %s: tensor<?x4xf32>):
    %n = rvnn.linear %s, %w : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    rvnn.yield %n halt %halt : tensor<?x4xf32>, tensor<?xi1>
  }
  return %h : tensor<?x4xf32>
}

// -----

// diagonal_scan is mirrored with its reverse flag; the elementwise
// discretisation around it (here Ā = a·a) becomes elementwise kernels.
// CHECK-LABEL: rvnn_exec.func @scan
// CHECK: %[[A:.*]] = rvnn_exec.elementwise <mul> %{{.*}}, %{{.*}} : tensor<4x3xf32>
// CHECK: rvnn_exec.diagonal_scan %{{.*}}, %[[A]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {reverse = true} : (tensor<?x?x4xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<?x?xf32>) -> tensor<?x?x4xf32>
func.func @scan(%u: tensor<?x?x4xf32>, %a: tensor<4x3xf32>, %p: tensor<4x3xf32>, %mask: tensor<?x?xf32>) -> tensor<?x?x4xf32> {
  %abar = arith.mulf %a, %a : tensor<4x3xf32>
  %y = rvnn.diagonal_scan %u, %abar, %p, %p, %p, %p, %p, %mask {reverse = true}
      : (tensor<?x?x4xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<?x?xf32>) -> tensor<?x?x4xf32>
  return %y : tensor<?x?x4xf32>
}

// -----

// An op with no lowering stops the pass at its location.
func.func @unsupported(%x: tensor<4xf32>) -> tensor<6xf32> {
  %c0 = arith.constant 0.0 : f32
  // expected-error @+1 {{failed to legalize operation 'tensor.pad'}}
  %p = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %c0 : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}
