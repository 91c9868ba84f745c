// RUN: rvnn-opt %s -split-input-file -verify-diagnostics

rvnn_exec.func @alloc_sizes(%n: index) -> tensor<?x?xf32> {
  // expected-error @+1 {{expects one size operand per dynamic result dim (2), got 1}}
  %z = rvnn_exec.alloc (%n) : tensor<?x?xf32>
  rvnn_exec.return %z : tensor<?x?xf32>
}

// -----

rvnn_exec.func @reshape_element_type(%x: tensor<4xf32>) -> tensor<2x2xf64> {
  // expected-error @+1 {{changes the element type from 'f32' to 'f64'}}
  %r = rvnn_exec.reshape %x () : tensor<4xf32> to tensor<2x2xf64>
  rvnn_exec.return %r : tensor<2x2xf64>
}

// -----

rvnn_exec.func @shape_witness_type(%x: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %w = "rvnn_exec.shape_witness"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  rvnn_exec.return %w : tensor<5xf32>
}

// -----

rvnn_exec.func @cast_shape(%x: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{casts between incompatible shapes}}
  %r = rvnn_exec.cast %x : tensor<4xf32> to tensor<5xf32>
  rvnn_exec.return %r : tensor<5xf32>
}

// -----

rvnn_exec.func @slice_drop(%x: tensor<4x2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{drops dim 1, which is not a static unit dim of the slice}}
  %r = rvnn_exec.slice %x [] [] [] {static_offsets = array<i64: 0, 0>,
      static_sizes = array<i64: 4, 2>, static_strides = array<i64: 1, 1>,
      dropped_dims = array<i64: 1>} : tensor<4x2xf32> to tensor<4xf32>
  rvnn_exec.return %r : tensor<4xf32>
}

// -----

rvnn_exec.func @slice_operands(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  // expected-error @+1 {{expects one sizes operand per dynamic entry, got 0}}
  %r = rvnn_exec.slice %x [] [] [] {static_offsets = array<i64: 0, 0>,
      static_sizes = array<i64: -9223372036854775808, 2>,
      static_strides = array<i64: 1, 1>, dropped_dims = array<i64>}
      : tensor<?x2xf32> to tensor<?x2xf32>
  rvnn_exec.return %r : tensor<?x2xf32>
}

// -----

rvnn_exec.func @add_into_window_rank(%x: tensor<?x2xf32>, %u: tensor<?x2xf32>, %n: index) -> tensor<?x2xf32> {
  // expected-error @+1 {{window rank 2 does not match rank 2 less 1 dropped dims}}
  %r = rvnn_exec.add_into_window %u into %x [] [%n] [] {
      static_offsets = array<i64: 0, 0>,
      static_sizes = array<i64: -9223372036854775808, 1>,
      static_strides = array<i64: 1, 1>, dropped_dims = array<i64: 1>}
      : tensor<?x2xf32> into tensor<?x2xf32>
  rvnn_exec.return %r : tensor<?x2xf32>
}

// -----

rvnn_exec.func @add_into_window_type(%x: tensor<?x2xf32>, %u: tensor<?x1xf64>, %n: index) -> tensor<?x2xf32> {
  // expected-error @+1 {{changes the element type from 'f32' to 'f64'}}
  %r = rvnn_exec.add_into_window %u into %x [] [%n] [] {
      static_offsets = array<i64: 0, 0>,
      static_sizes = array<i64: -9223372036854775808, 1>,
      static_strides = array<i64: 1, 1>, dropped_dims = array<i64>}
      : tensor<?x1xf64> into tensor<?x2xf32>
  rvnn_exec.return %r : tensor<?x2xf32>
}

// -----

rvnn_exec.func @elementwise_arity(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'add' takes 2 operand(s), got 1}}
  %r = rvnn_exec.elementwise <add> %x : tensor<4xf32>
  rvnn_exec.return %r : tensor<4xf32>
}

// -----

rvnn_exec.func @elementwise_or_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'or' is not defined on 'tensor<4xf32>'}}
  %r = rvnn_exec.elementwise <or> %x, %x : tensor<4xf32>
  rvnn_exec.return %r : tensor<4xf32>
}

// -----

rvnn_exec.func @return_types(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{returns 'tensor<4xf32>', the function declares 'tensor<4xf64>'}}
  rvnn_exec.return %x : tensor<4xf32>
}

// -----

rvnn_exec.func @step(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  rvnn_exec.return %x : tensor<?x4xf32>
}
rvnn_exec.func @step_bwd(%dy: tensor<?x4xf32>) -> tensor<?x4xf32> {
  rvnn_exec.return %dy : tensor<?x4xf32>
}
rvnn_exec.func @call_forward_missing(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{refers to @missing, which is not an rvnn_exec.func}}
  %y = rvnn_exec.call @step(%x) forward @missing backward @step_bwd grad_inputs [0] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  rvnn_exec.return %y : tensor<?x4xf32>
}

// -----

rvnn_exec.func @step(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  rvnn_exec.return %x : tensor<?x4xf32>
}
rvnn_exec.func @step_bwd(%dy: tensor<?x4xf32>) -> tensor<?x4xf32> {
  rvnn_exec.return %dy : tensor<?x4xf32>
}
rvnn_exec.func @call_grad_input(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{grad_inputs entry 1 is not an operand index}}
  %y = rvnn_exec.call @step(%x) forward @step backward @step_bwd grad_inputs [1] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  rvnn_exec.return %y : tensor<?x4xf32>
}

// -----

rvnn_exec.func @step(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  rvnn_exec.return %x : tensor<?x4xf32>
}
rvnn_exec.func @step_bwd(%dy: tensor<?x4xf32>, %z: tensor<?x4xf64>) -> tensor<?x4xf64> {
  rvnn_exec.return %z : tensor<?x4xf64>
}
rvnn_exec.func @call_backward_type(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{expects @step_bwd to have type '(tensor<?x4xf32>) -> tensor<?x4xf32>', it has '(tensor<?x4xf32>, tensor<?x4xf64>) -> tensor<?x4xf64>'}}
  %y = rvnn_exec.call @step(%x) forward @step backward @step_bwd grad_inputs [0] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  rvnn_exec.return %y : tensor<?x4xf32>
}

// -----

rvnn_exec.func @vjp_grad_type(%x: tensor<?x4xf32>, %dy: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{grad_inputs entry 2 is not a primal index}}
  %dx = rvnn_exec.vjp (%x) cotangents (%dy) grad_inputs [2] : (tensor<?x4xf32>), (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%a: tensor<?x4xf32>):
    %y = rvnn_exec.gelu %a : tensor<?x4xf32>
    rvnn_exec.yield %y : tensor<?x4xf32>
  }
  rvnn_exec.return %dx : tensor<?x4xf32>
}

// -----

rvnn_exec.func @vjp_yield(%x: tensor<?x4xf32>, %dy: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{body must yield one result per cotangent, of types 'tensor<?x4xf32>', 'tensor<?x4xf32>'}}
  %dx = rvnn_exec.vjp (%x) cotangents (%dy, %dy) grad_inputs [0] : (tensor<?x4xf32>), (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%a: tensor<?x4xf32>):
    %y = rvnn_exec.gelu %a : tensor<?x4xf32>
    rvnn_exec.yield %y : tensor<?x4xf32>
  }
  rvnn_exec.return %dx : tensor<?x4xf32>
}

// -----

rvnn_exec.func @band_unbatched(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>,
                               %b: tensor<1x4x2xi64>) -> tensor<4x3xf32> {
  // expected-error @+1 {{takes a band only for a batched product [B, M, K] · [B, K, N], got 'tensor<4x8xf32>' · 'tensor<8x3xf32>'}}
  %y = rvnn_exec.gemm %x, %w band %b
      : (tensor<4x8xf32>, tensor<8x3xf32>, tensor<1x4x2xi64>) -> tensor<4x3xf32>
  rvnn_exec.return %y : tensor<4x3xf32>
}

// -----

rvnn_exec.func @band_rows(%x: tensor<2x4x8xf32>, %h: tensor<2x8x3xf32>,
                          %b: tensor<2x5x2xi64>) -> tensor<2x4x3xf32> {
  // expected-error @+1 {{band 'tensor<2x5x2xi64>' does not match lhs 'tensor<2x4x8xf32>': expected [B, M, 2] with the lhs's B and M}}
  %y = rvnn_exec.gemm %x, %h band %b
      : (tensor<2x4x8xf32>, tensor<2x8x3xf32>, tensor<2x5x2xi64>) -> tensor<2x4x3xf32>
  rvnn_exec.return %y : tensor<2x4x3xf32>
}
