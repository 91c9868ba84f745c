// RUN: rvnn-opt %s -rvnn-exec-band-neighbour-products -split-input-file | FileCheck %s

// Both products of one neighbour matrix share one band of its operands and
// direction; the band sits right after the matrix.
// CHECK-LABEL: rvnn_exec.func @two_products
// CHECK: %[[R:.*]] = rvnn_exec.neighbour_retrieve %[[E:[^,]*]], %[[M:[^ ]*]] {direction = #rvnn.direction<left>}
// CHECK-NEXT: %[[B:.*]] = rvnn_exec.neighbour_band %[[E]], %[[M]] {direction = #rvnn.direction<left>} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x2xi64>
// CHECK: %[[Y:.*]] = rvnn_exec.gemm %[[R]], %{{.*}} accumulate %{{.*}} band %[[B]]
// CHECK: rvnn_exec.gemm %[[R]], %[[Y]] accumulate %{{.*}} band %[[B]]
// CHECK-NOT: neighbour_band
rvnn_exec.func @two_products(%e: tensor<?x?xf32>, %m: tensor<?x?xf32>,
                             %h: tensor<?x?x8xf32>, %z: tensor<?x?x8xf32>)
    -> tensor<?x?x8xf32> {
  %r = rvnn_exec.neighbour_retrieve %e, %m {direction = #rvnn.direction<left>}
      : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  %y = rvnn_exec.gemm %r, %h accumulate %z
      : (tensor<?x?x?xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %y2 = rvnn_exec.gemm %r, %y accumulate %z
      : (tensor<?x?x?xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  rvnn_exec.return %y2 : tensor<?x?x8xf32>
}

// -----

// Static sizes carry over to the band.
// CHECK-LABEL: rvnn_exec.func @static_sizes
// CHECK: rvnn_exec.neighbour_band {{.*}} -> tensor<2x5x2xi64>
// CHECK: rvnn_exec.gemm {{.*}} band
rvnn_exec.func @static_sizes(%e: tensor<2x5xf64>, %m: tensor<2x5xf64>,
                             %c: tensor<2x5x1xf64>) -> tensor<2x5x1xf64> {
  %r = rvnn_exec.neighbour_retrieve %e, %m {direction = #rvnn.direction<right>}
      : (tensor<2x5xf64>, tensor<2x5xf64>) -> tensor<2x5x5xf64>
  %y = rvnn_exec.gemm %r, %c
      : (tensor<2x5x5xf64>, tensor<2x5x1xf64>) -> tensor<2x5x1xf64>
  rvnn_exec.return %y : tensor<2x5x1xf64>
}

// -----

// The matrix as rhs, another matrix as lhs, and a matrix no product reads:
// no band.
// CHECK-LABEL: rvnn_exec.func @no_band
// CHECK-NOT: neighbour_band
// CHECK-NOT: band %
rvnn_exec.func @no_band(%e: tensor<?x?xf32>, %m: tensor<?x?xf32>,
                        %a: tensor<?x?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %r = rvnn_exec.neighbour_retrieve %e, %m {direction = #rvnn.direction<right>}
      : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  %y = rvnn_exec.gemm %a, %r
      : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %u = rvnn_exec.neighbour_retrieve %e, %m {direction = #rvnn.direction<left>}
      : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  rvnn_exec.return %y, %u : tensor<?x?x?xf32>, tensor<?x?x?xf32>
}
