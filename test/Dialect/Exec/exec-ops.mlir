// RUN: rvnn-opt %s -split-input-file | rvnn-opt -split-input-file | FileCheck %s

// Every op kind of the contract parses, verifies and round-trips.
// CHECK: rvnn_exec.param @w : tensor<4x8xf32> init <xavier_uniform>
// CHECK: rvnn_exec.param @b : tensor<4xf32> init <constant> scale 5.000000e-01
// CHECK-LABEL: rvnn_exec.func @kinds
rvnn_exec.param @w : tensor<4x8xf32> init <xavier_uniform>
rvnn_exec.param @b : tensor<4xf32> init <constant> scale 0.5
rvnn_exec.func @kinds(%x: tensor<?x2x4xf32>, %n: index) -> (tensor<?x4xf32>, index) {
  // CHECK: %[[C0:.*]] = rvnn_exec.constant 0 : index
  %c0 = rvnn_exec.constant 0 : index
  // CHECK: rvnn_exec.dim %{{.*}}, %[[C0]] : tensor<?x2x4xf32>
  %m = rvnn_exec.dim %x, %c0 : tensor<?x2x4xf32>
  // CHECK: rvnn_exec.index_arith <mul> %{{.*}}, %{{.*}} : index
  %m2 = rvnn_exec.index_arith <mul> %m, %n : index
  // CHECK: rvnn_exec.slice %{{.*}}[] [%{{.*}}] [] {dropped_dims = array<i64: 1>
  %l = rvnn_exec.slice %x [] [%m] [] {static_offsets = array<i64: 0, 0, 0>,
      static_sizes = array<i64: -9223372036854775808, 1, 4>,
      static_strides = array<i64: 1, 1, 1>, dropped_dims = array<i64: 1>}
      : tensor<?x2x4xf32> to tensor<?x4xf32>
  // CHECK: rvnn_exec.add_into_window %{{.*}} into %{{.*}}[] [%{{.*}}] [] {dropped_dims = array<i64: 1>
  // CHECK-SAME: : tensor<?x4xf32> into tensor<?x2x4xf32>
  %xl = rvnn_exec.add_into_window %l into %x [] [%m] [] {
      static_offsets = array<i64: 0, 1, 0>,
      static_sizes = array<i64: -9223372036854775808, 1, 4>,
      static_strides = array<i64: 1, 1, 1>, dropped_dims = array<i64: 1>}
      : tensor<?x4xf32> into tensor<?x2x4xf32>
  // CHECK: rvnn_exec.concat
  %lr = rvnn_exec.concat %l, %l {dim = 1 : i64}
      : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x8xf32>
  // CHECK: rvnn_exec.shape_witness %{{.*}} : tensor<?x8xf32>
  %lrw = rvnn_exec.shape_witness %lr : tensor<?x8xf32>
  %w = rvnn_exec.param_get @w : tensor<4x8xf32>
  %b = rvnn_exec.param_get @b : tensor<4xf32>
  // CHECK: rvnn_exec.gemm %{{.*}}, %{{.*}} bias %{{.*}} {transpose_rhs}
  %y = rvnn_exec.gemm %lr, %w bias %b {transpose_rhs}
      : (tensor<?x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: rvnn_exec.elementwise <add>
  %s = rvnn_exec.elementwise <add> %y, %l : tensor<?x4xf32>
  // CHECK: rvnn_exec.layer_norm
  %g = rvnn_exec.cast %b : tensor<4xf32> to tensor<?xf32>
  %gs = rvnn_exec.cast %g : tensor<?xf32> to tensor<4xf32>
  %h = rvnn_exec.layer_norm %s, %gs, %gs
      : (tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: rvnn_exec.dropout
  %d = rvnn_exec.dropout %h {rate = 1.000000e-01 : f64} : tensor<?x4xf32>
  // CHECK: rvnn_exec.return
  rvnn_exec.return %d, %m2 : tensor<?x4xf32>, index
}

// -----

// Loops: the recursion with its halting policy and the balanced reduction.
// CHECK-LABEL: rvnn_exec.func @loops
rvnn_exec.func @loops(%h0: tensor<?x4xf32>, %halt: tensor<?xi1>,
                      %seq: tensor<?x?x4xf32>, %mask: tensor<?x?xf32>)
    -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  // CHECK: rvnn_exec.recurse <per_sample>(%{{.*}}) {steps = 3 : i64}
  %h = rvnn_exec.recurse <per_sample>(%h0) {steps = 3 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%t: index, %s: tensor<?x4xf32>):
    // CHECK: rvnn_exec.yield {has_halt} %{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<?xi1>
    rvnn_exec.yield {has_halt} %s, %halt : tensor<?x4xf32>, tensor<?xi1>
  }
  // CHECK: rvnn_exec.balanced_reduce
  %root = rvnn_exec.balanced_reduce %seq, %mask {arity = 2 : i64} : (tensor<?x?x4xf32>, tensor<?x?xf32>) -> tensor<?x4xf32> {
  ^bb0(%children: tensor<?x2x4xf32>, %m: tensor<?x2xf32>):
    %c0 = rvnn_exec.constant 0 : index
    %n = rvnn_exec.dim %children, %c0 : tensor<?x2x4xf32>
    %p = rvnn_exec.slice %children [] [%n] [] {static_offsets = array<i64: 0, 0, 0>,
        static_sizes = array<i64: -9223372036854775808, 1, 4>,
        static_strides = array<i64: 1, 1, 1>, dropped_dims = array<i64: 1>}
        : tensor<?x2x4xf32> to tensor<?x4xf32>
    rvnn_exec.yield %p : tensor<?x4xf32>
  }
  rvnn_exec.return %h, %root : tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// The ops of compiler-derived backward programs.
// CHECK-LABEL: rvnn_exec.func @step
rvnn_exec.func @step(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: %[[POS:.*]] = rvnn_exec.draw_position
  %p = rvnn_exec.draw_position
  // CHECK: rvnn_exec.dropout_mask %{{.*}} {rate = 1.000000e-01 : f64} : tensor<?x4xf32>
  %m = rvnn_exec.dropout_mask %x {rate = 1.000000e-01 : f64} : tensor<?x4xf32>
  // CHECK: rvnn_exec.redraw_dropout_mask %{{.*}} at %[[POS]] {rate = 1.000000e-01 : f64, shared_dims = array<i64: 0>} : tensor<?x4xf32>
  %r = rvnn_exec.redraw_dropout_mask %x at %p {rate = 1.000000e-01 : f64, shared_dims = array<i64: 0>} : tensor<?x4xf32>
  %y = rvnn_exec.elementwise <mul> %x, %m : tensor<?x4xf32>
  %z = rvnn_exec.elementwise <mul> %y, %r : tensor<?x4xf32>
  rvnn_exec.return %z : tensor<?x4xf32>
}
rvnn_exec.func @step_fwd(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %m = rvnn_exec.dropout_mask %x {rate = 1.000000e-01 : f64} : tensor<?x4xf32>
  %y = rvnn_exec.elementwise <mul> %x, %m : tensor<?x4xf32>
  rvnn_exec.return %y, %x : tensor<?x4xf32>, tensor<?x4xf32>
}
// CHECK-LABEL: rvnn_exec.func @step_bwd
rvnn_exec.func @step_bwd(%x: tensor<?x4xf32>, %dy: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: rvnn_exec.vjp(%{{.*}}) cotangents(%{{.*}}) grad_inputs [0] : (tensor<?x4xf32>), (tensor<?x4xf32>) -> tensor<?x4xf32>
  %dx = rvnn_exec.vjp (%x) cotangents (%dy) grad_inputs [0] : (tensor<?x4xf32>), (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%a: tensor<?x4xf32>):
    // CHECK: rvnn_exec.gelu
    %g = rvnn_exec.gelu %a : tensor<?x4xf32>
    rvnn_exec.yield %g : tensor<?x4xf32>
  }
  rvnn_exec.return %dx : tensor<?x4xf32>
}
// CHECK-LABEL: rvnn_exec.func @bias_grad
rvnn_exec.func @bias_grad(%dy: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: rvnn_exec.sum_to_like %{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<4xf32>
  %db = rvnn_exec.sum_to_like %dy, %b : tensor<?x4xf32>, tensor<4xf32>
  rvnn_exec.return %db : tensor<4xf32>
}
// CHECK-LABEL: rvnn_exec.func @caller
rvnn_exec.func @caller(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: rvnn_exec.call @step(%{{.*}}) forward @step_fwd backward @step_bwd grad_inputs [0] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %y = rvnn_exec.call @step(%x) forward @step_fwd backward @step_bwd grad_inputs [0] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  rvnn_exec.return %y : tensor<?x4xf32>
}
