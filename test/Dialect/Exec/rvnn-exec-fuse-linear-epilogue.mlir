// RUN: rvnn-opt %s -rvnn-exec-fuse-linear-epilogue -split-input-file | FileCheck %s

// The GRC cell's second linear, split into gate windows that one dispatch
// reads: the gemm loses its bias, each window gets its slice of it as a
// [1, 8] broadcast operand, added first thing in the body.
// CHECK-LABEL: rvnn_exec.func @gate_split
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>, %[[W:.*]]: tensor<16x4xf32>, %[[B:.*]]: tensor<16xf32>, %[[L:.*]]: tensor<?x8xf32>, %[[N:.*]]: index)
// CHECK: %[[B0:.*]] = rvnn_exec.slice %[[B]][] [] [] {dropped_dims = array<i64>, static_offsets = array<i64: 0>, static_sizes = array<i64: 8>, static_strides = array<i64: 1>} : tensor<16xf32> to tensor<8xf32>
// CHECK: %[[R0:.*]] = rvnn_exec.reshape %[[B0]]() : tensor<8xf32> to tensor<1x8xf32>
// CHECK: %[[B1:.*]] = rvnn_exec.slice %[[B]][] [] [] {dropped_dims = array<i64>, static_offsets = array<i64: 8>, static_sizes = array<i64: 8>, static_strides = array<i64: 1>} : tensor<16xf32> to tensor<8xf32>
// CHECK: %[[R1:.*]] = rvnn_exec.reshape %[[B1]]() : tensor<8xf32> to tensor<1x8xf32>
// CHECK: %[[C:.*]] = rvnn_exec.gemm %[[X]], %[[W]] {transpose_rhs} : (tensor<?x4xf32>, tensor<16x4xf32>) -> tensor<?x16xf32>
// CHECK: %[[C0:.*]] = rvnn_exec.slice %[[C]]
// CHECK: %[[C1:.*]] = rvnn_exec.slice %[[C]]
// CHECK: rvnn_exec.dispatch "gate_split_k0"(%[[C0]], %[[L]], %[[C1]], %[[R0]], %[[R1]])
// CHECK-NEXT: ^bb0(%[[A0:.*]]: tensor<?x8xf32>, %[[AL:.*]]: tensor<?x8xf32>, %[[A1:.*]]: tensor<?x8xf32>, %[[P0:.*]]: tensor<1x8xf32>, %[[P1:.*]]: tensor<1x8xf32>):
// CHECK-NEXT: %[[E0:.*]] = rvnn_exec.broadcast_like %[[P0]], %[[A0]] : (tensor<1x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK-NEXT: %[[S0:.*]] = rvnn_exec.elementwise <add> %[[A0]], %[[E0]]
// CHECK-NEXT: %[[G:.*]] = rvnn_exec.sigmoid %[[S0]]
// CHECK-NEXT: %[[M:.*]] = rvnn_exec.elementwise <mul> %[[G]], %[[AL]]
// CHECK-NEXT: %[[E1:.*]] = rvnn_exec.broadcast_like %[[P1]], %[[A1]] : (tensor<1x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK-NEXT: %[[S1:.*]] = rvnn_exec.elementwise <add> %[[A1]], %[[E1]]
// CHECK-NEXT: %[[Y:.*]] = rvnn_exec.elementwise <add> %[[M]], %[[S1]]
// CHECK-NEXT: rvnn_exec.yield %[[Y]]
rvnn_exec.func @gate_split(%x: tensor<?x4xf32>, %w: tensor<16x4xf32>,
                           %b: tensor<16xf32>, %l: tensor<?x8xf32>,
                           %n: index) -> tensor<?x8xf32> {
  %c = rvnn_exec.gemm %x, %w bias %b {transpose_rhs} : (tensor<?x4xf32>, tensor<16x4xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  %c0 = rvnn_exec.slice %c[] [%n] [] {dropped_dims = array<i64>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 8>, static_strides = array<i64: 1, 1>} : tensor<?x16xf32> to tensor<?x8xf32>
  %c1 = rvnn_exec.slice %c[] [%n] [] {dropped_dims = array<i64>, static_offsets = array<i64: 0, 8>, static_sizes = array<i64: -9223372036854775808, 8>, static_strides = array<i64: 1, 1>} : tensor<?x16xf32> to tensor<?x8xf32>
  %y = rvnn_exec.dispatch "gate_split_k0"(%c0, %l, %c1) : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32> {
  ^bb0(%a0: tensor<?x8xf32>, %al: tensor<?x8xf32>, %a1: tensor<?x8xf32>):
    %g = rvnn_exec.sigmoid %a0 : tensor<?x8xf32>
    %m = rvnn_exec.elementwise <mul> %g, %al : tensor<?x8xf32>
    %s = rvnn_exec.elementwise <add> %m, %a1 : tensor<?x8xf32>
    rvnn_exec.yield %s : tensor<?x8xf32>
  }
  rvnn_exec.return %y : tensor<?x8xf32>
}

// -----

// A dispatch reading the whole product: the bias as [1, 8].
// CHECK-LABEL: rvnn_exec.func @whole
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>, %[[W:.*]]: tensor<8x4xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[P:.*]] = rvnn_exec.reshape %[[B]]() : tensor<8xf32> to tensor<1x8xf32>
// CHECK: %[[C:.*]] = rvnn_exec.gemm %[[X]], %[[W]] {transpose_rhs} : (tensor<?x4xf32>, tensor<8x4xf32>) -> tensor<?x8xf32>
// CHECK: rvnn_exec.dispatch "whole_k0"(%[[C]], %[[P]])
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<?x8xf32>, %[[AP:.*]]: tensor<1x8xf32>):
// CHECK-NEXT: %[[E:.*]] = rvnn_exec.broadcast_like %[[AP]], %[[A]]
// CHECK-NEXT: %[[S:.*]] = rvnn_exec.elementwise <add> %[[A]], %[[E]]
// CHECK-NEXT: %[[T:.*]] = rvnn_exec.elementwise <tanh> %[[S]]
// CHECK-NEXT: rvnn_exec.elementwise <mul> %[[T]], %[[S]]
rvnn_exec.func @whole(%x: tensor<?x4xf32>, %w: tensor<8x4xf32>,
                      %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %c = rvnn_exec.gemm %x, %w bias %b {transpose_rhs} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %y = rvnn_exec.dispatch "whole_k0"(%c) : (tensor<?x8xf32>) -> tensor<?x8xf32> {
  ^bb0(%a: tensor<?x8xf32>):
    %t = rvnn_exec.elementwise <tanh> %a : tensor<?x8xf32>
    %m = rvnn_exec.elementwise <mul> %t, %a : tensor<?x8xf32>
    rvnn_exec.yield %m : tensor<?x8xf32>
  }
  rvnn_exec.return %y : tensor<?x8xf32>
}

// -----

// The product is also a function result: the bias stays in the gemm.
// CHECK-LABEL: rvnn_exec.func @read_outside
// CHECK: rvnn_exec.gemm %{{.*}}, %{{.*}} bias %{{.*}} {transpose_rhs}
// CHECK-NOT: rvnn_exec.broadcast_like
rvnn_exec.func @read_outside(%x: tensor<?x4xf32>, %w: tensor<8x4xf32>,
                             %b: tensor<8xf32>)
    -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %c = rvnn_exec.gemm %x, %w bias %b {transpose_rhs} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %y = rvnn_exec.dispatch "read_outside_k0"(%c) : (tensor<?x8xf32>) -> tensor<?x8xf32> {
  ^bb0(%a: tensor<?x8xf32>):
    %t = rvnn_exec.elementwise <tanh> %a : tensor<?x8xf32>
    %m = rvnn_exec.elementwise <mul> %t, %a : tensor<?x8xf32>
    rvnn_exec.yield %m : tensor<?x8xf32>
  }
  rvnn_exec.return %y, %c : tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// A slice dropping the last dim (one column) is no window of the bias.
// CHECK-LABEL: rvnn_exec.func @column
// CHECK: rvnn_exec.gemm %{{.*}}, %{{.*}} bias %{{.*}} {transpose_rhs}
// CHECK-NOT: rvnn_exec.broadcast_like
rvnn_exec.func @column(%x: tensor<?x4xf32>, %w: tensor<8x4xf32>,
                       %b: tensor<8xf32>, %n: index) -> tensor<?xf32> {
  %c = rvnn_exec.gemm %x, %w bias %b {transpose_rhs} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %c0 = rvnn_exec.slice %c[] [%n] [] {dropped_dims = array<i64: 1>, static_offsets = array<i64: 0, 3>, static_sizes = array<i64: -9223372036854775808, 1>, static_strides = array<i64: 1, 1>} : tensor<?x8xf32> to tensor<?xf32>
  %y = rvnn_exec.dispatch "column_k0"(%c0) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %t = rvnn_exec.elementwise <tanh> %a : tensor<?xf32>
    %m = rvnn_exec.elementwise <mul> %t, %a : tensor<?xf32>
    rvnn_exec.yield %m : tensor<?xf32>
  }
  rvnn_exec.return %y : tensor<?xf32>
}

// -----

// Two gemms with one bias (a cell called twice) share its piece, so the
// derived backward slices the bias once per window.
// CHECK-LABEL: rvnn_exec.func @shared
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>, %[[Y:.*]]: tensor<?x4xf32>, %[[W:.*]]: tensor<8x4xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[P:.*]] = rvnn_exec.reshape %[[B]]() : tensor<8xf32> to tensor<1x8xf32>
// CHECK-NOT: rvnn_exec.reshape
// CHECK: rvnn_exec.dispatch "shared_k0"(%{{.*}}, %[[P]])
// CHECK: rvnn_exec.dispatch "shared_k1"(%{{.*}}, %[[P]])
rvnn_exec.func @shared(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>,
                       %w: tensor<8x4xf32>, %b: tensor<8xf32>)
    -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %c = rvnn_exec.gemm %x, %w bias %b {transpose_rhs} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %r = rvnn_exec.dispatch "shared_k0"(%c) : (tensor<?x8xf32>) -> tensor<?x8xf32> {
  ^bb0(%a: tensor<?x8xf32>):
    %t = rvnn_exec.elementwise <tanh> %a : tensor<?x8xf32>
    %m = rvnn_exec.elementwise <mul> %t, %a : tensor<?x8xf32>
    rvnn_exec.yield %m : tensor<?x8xf32>
  }
  %d = rvnn_exec.gemm %y, %w bias %b {transpose_rhs} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %s = rvnn_exec.dispatch "shared_k1"(%d) : (tensor<?x8xf32>) -> tensor<?x8xf32> {
  ^bb0(%a: tensor<?x8xf32>):
    %t = rvnn_exec.elementwise <tanh> %a : tensor<?x8xf32>
    %m = rvnn_exec.elementwise <mul> %t, %a : tensor<?x8xf32>
    rvnn_exec.yield %m : tensor<?x8xf32>
  }
  rvnn_exec.return %r, %s : tensor<?x8xf32>, tensor<?x8xf32>
}
