// RUN: rvnn-opt %s -canonicalize -split-input-file | FileCheck %s

// 40 < 30 + 15: one chunk, the op is the identity (fold).
// CHECK-LABEL: func.func @chunk_single_folds
// CHECK-SAME: (%[[X:.*]]: tensor<?x40x64xf32>, %[[M:.*]]: tensor<?x40xf32>)
// CHECK-NOT: rvnn.chunk
// CHECK: return %[[X]], %[[M]]
func.func @chunk_single_folds(%x: tensor<?x40x64xf32>, %mask: tensor<?x40xf32>) -> (tensor<?x40x64xf32>, tensor<?x40xf32>) {
  %c, %cm = rvnn.chunk %x, %mask {size = 30} : (tensor<?x40x64xf32>, tensor<?x40xf32>) -> (tensor<?x40x64xf32>, tensor<?x40xf32>)
  return %c, %cm : tensor<?x40x64xf32>, tensor<?x40xf32>
}

// -----

// The static length is only on the mask and the results are less refined
// than the operands: the pattern replaces the op with casts.
// CHECK-LABEL: func.func @chunk_single_casts
// CHECK-SAME: (%[[X:.*]]: tensor<4x7x?x64xf32>, %[[M:.*]]: tensor<4x44xf32>)
// CHECK-NOT: rvnn.chunk
// CHECK-DAG: %[[CX:.*]] = tensor.cast %[[X]] : tensor<4x7x?x64xf32> to tensor<?x7x?x64xf32>
// CHECK-DAG: %[[CM:.*]] = tensor.cast %[[M]] : tensor<4x44xf32> to tensor<?x?xf32>
// CHECK: return %[[CX]], %[[CM]]
func.func @chunk_single_casts(%x: tensor<4x7x?x64xf32>, %mask: tensor<4x44xf32>) -> (tensor<?x7x?x64xf32>, tensor<?x?xf32>) {
  %c, %cm = rvnn.chunk %x, %mask {size = 30, dim = 2} : (tensor<4x7x?x64xf32>, tensor<4x44xf32>) -> (tensor<?x7x?x64xf32>, tensor<?x?xf32>)
  return %c, %cm : tensor<?x7x?x64xf32>, tensor<?x?xf32>
}

// -----

// 45 >= 30 + 15: two chunks, no fold.
// CHECK-LABEL: func.func @chunk_at_threshold_kept
// CHECK: %{{.*}}, %{{.*}} = rvnn.chunk %{{.*}}, %{{.*}} {size = 30 : i64} : (tensor<2x45x64xf32>, tensor<2x45xf32>) -> (tensor<4x30x64xf32>, tensor<4x30xf32>)
func.func @chunk_at_threshold_kept(%x: tensor<2x45x64xf32>, %mask: tensor<2x45xf32>) -> (tensor<4x30x64xf32>, tensor<4x30xf32>) {
  %c, %cm = rvnn.chunk %x, %mask {size = 30} : (tensor<2x45x64xf32>, tensor<2x45xf32>) -> (tensor<4x30x64xf32>, tensor<4x30xf32>)
  return %c, %cm : tensor<4x30x64xf32>, tensor<4x30xf32>
}

// -----

// A dynamic length may need several chunks: no fold.
// CHECK-LABEL: func.func @chunk_dynamic_kept
// CHECK: rvnn.chunk
func.func @chunk_dynamic_kept(%x: tensor<?x?x64xf32>, %mask: tensor<?x?xf32>) -> (tensor<?x?x64xf32>, tensor<?x?xf32>) {
  %c, %cm = rvnn.chunk %x, %mask {size = 30} : (tensor<?x?x64xf32>, tensor<?x?xf32>) -> (tensor<?x?x64xf32>, tensor<?x?xf32>)
  return %c, %cm : tensor<?x?x64xf32>, tensor<?x?xf32>
}

// -----

// A constant length folds the level count: 1 item needs no level, 44 one
// chunk, 45 two chunks then one (2), 100 -> 4 -> 1 (2), 2000 -> 67 -> 3 -> 1
// (3).
// CHECK-LABEL: func.func @chunk_depth_folds
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NOT: rvnn.chunk_depth
// CHECK: return %[[C0]], %[[C1]], %[[C2]], %[[C2]], %[[C3]]
func.func @chunk_depth_folds() -> (index, index, index, index, index) {
  %c1 = arith.constant 1 : index
  %c44 = arith.constant 44 : index
  %c45 = arith.constant 45 : index
  %c100 = arith.constant 100 : index
  %c2000 = arith.constant 2000 : index
  %d1 = rvnn.chunk_depth %c1 {size = 30 : i64}
  %d44 = rvnn.chunk_depth %c44 {size = 30 : i64}
  %d45 = rvnn.chunk_depth %c45 {size = 30 : i64}
  %d100 = rvnn.chunk_depth %c100 {size = 30 : i64}
  %d2000 = rvnn.chunk_depth %c2000 {size = 30 : i64}
  return %d1, %d44, %d45, %d100, %d2000 : index, index, index, index, index
}

// -----

// A dynamic length: no fold.
// CHECK-LABEL: func.func @chunk_depth_dynamic_kept
// CHECK: rvnn.chunk_depth %{{.*}} {size = 30 : i64}
func.func @chunk_depth_dynamic_kept(%s: index) -> index {
  %d = rvnn.chunk_depth %s {size = 30 : i64}
  return %d : index
}
