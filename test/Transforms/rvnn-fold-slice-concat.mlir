// RUN: rvnn-opt %s -rvnn-fold-slice-concat -split-input-file | FileCheck %s

// A tree's children [N, 2, D] concatenated as [l; r]: the rows of the
// children, dims 1 and 2 merged.
// CHECK-LABEL: func.func @children
// CHECK-SAME:      (%[[X:.*]]: tensor<?x2x4xf32>)
// CHECK-NEXT:    %[[M:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2]] : tensor<?x2x4xf32> into tensor<?x8xf32>
// CHECK-NEXT:    return %[[M]]
func.func @children(%x: tensor<?x2x4xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x2x4xf32>
  %l = tensor.extract_slice %x[0, 0, 0] [%n, 1, 4] [1, 1, 1] : tensor<?x2x4xf32> to tensor<?x4xf32>
  %r = tensor.extract_slice %x[0, 1, 0] [%n, 1, 4] [1, 1, 1] : tensor<?x2x4xf32> to tensor<?x4xf32>
  %c = tensor.concat dim(1) %l, %r : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x8xf32>
  return %c : tensor<?x8xf32>
}

// -----

// Three children, a leading batch dim, and a result type less static than
// the collapse's: a cast back.
// CHECK-LABEL: func.func @three
// CHECK-NEXT:    %[[M:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<5x?x3x4xf32> into tensor<5x?x12xf32>
// CHECK-NEXT:    %[[C:.*]] = tensor.cast %[[M]] : tensor<5x?x12xf32> to tensor<5x?x?xf32>
// CHECK-NEXT:    return %[[C]]
func.func @three(%x: tensor<5x?x3x4xf32>) -> tensor<5x?x?xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<5x?x3x4xf32>
  %a = tensor.extract_slice %x[0, 0, 0, 0] [5, %n, 1, 4] [1, 1, 1, 1] : tensor<5x?x3x4xf32> to tensor<5x?x4xf32>
  %b = tensor.extract_slice %x[0, 0, 1, 0] [5, %n, 1, 4] [1, 1, 1, 1] : tensor<5x?x3x4xf32> to tensor<5x?x4xf32>
  %d = tensor.extract_slice %x[0, 0, 2, 0] [5, %n, 1, 4] [1, 1, 1, 1] : tensor<5x?x3x4xf32> to tensor<5x?x4xf32>
  %c = tensor.concat dim(2) %a, %b, %d : (tensor<5x?x4xf32>, tensor<5x?x4xf32>, tensor<5x?x4xf32>) -> tensor<5x?x?xf32>
  return %c : tensor<5x?x?xf32>
}

// -----

// Not the same as the source's rows: swapped order, a missing child, a
// partial row, two sources, or a concat along another dim stay concats.
// CHECK-LABEL: func.func @kept
// CHECK-NOT:     collapse_shape
// CHECK-COUNT-5: tensor.concat
func.func @kept(%x: tensor<?x2x4xf32>, %y: tensor<?x2x4xf32>, %z: tensor<?x3x4xf32>)
    -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x6xf32>, tensor<?x8xf32>, tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x2x4xf32>
  %l = tensor.extract_slice %x[0, 0, 0] [%n, 1, 4] [1, 1, 1] : tensor<?x2x4xf32> to tensor<?x4xf32>
  %r = tensor.extract_slice %x[0, 1, 0] [%n, 1, 4] [1, 1, 1] : tensor<?x2x4xf32> to tensor<?x4xf32>
  %swapped = tensor.concat dim(1) %r, %l : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x8xf32>
  %m = tensor.dim %z, %c0 : tensor<?x3x4xf32>
  %z0 = tensor.extract_slice %z[0, 0, 0] [%m, 1, 4] [1, 1, 1] : tensor<?x3x4xf32> to tensor<?x4xf32>
  %z1 = tensor.extract_slice %z[0, 1, 0] [%m, 1, 4] [1, 1, 1] : tensor<?x3x4xf32> to tensor<?x4xf32>
  %missing = tensor.concat dim(1) %z0, %z1 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x8xf32>
  %l3 = tensor.extract_slice %x[0, 0, 0] [%n, 1, 3] [1, 1, 1] : tensor<?x2x4xf32> to tensor<?x3xf32>
  %r3 = tensor.extract_slice %x[0, 1, 0] [%n, 1, 3] [1, 1, 1] : tensor<?x2x4xf32> to tensor<?x3xf32>
  %partial = tensor.concat dim(1) %l3, %r3 : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x6xf32>
  %ry = tensor.extract_slice %y[0, 1, 0] [%n, 1, 4] [1, 1, 1] : tensor<?x2x4xf32> to tensor<?x4xf32>
  %two = tensor.concat dim(1) %l, %ry : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x8xf32>
  %rows = tensor.concat dim(0) %l, %r : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %swapped, %missing, %partial, %two, %rows : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x6xf32>, tensor<?x8xf32>, tensor<?x4xf32>
}
