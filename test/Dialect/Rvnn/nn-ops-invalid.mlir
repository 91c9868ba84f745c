// RUN: rvnn-opt %s -split-input-file -verify-diagnostics

func.func @linear_in_size(%x: tensor<4x8xf32>, %w: tensor<2x7xf32>) -> tensor<4x2xf32> {
  // expected-error @below {{in-size mismatch: 'input' dim 1 is 8 but 'weight' dim 1 is 7}}
  %y = rvnn.linear %x, %w : (tensor<4x8xf32>, tensor<2x7xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

func.func @linear_weight_rank(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x2xf32> {
  // expected-error @below {{'weight' must be [out, in] (rank 2), got rank 1}}
  %y = rvnn.linear %x, %w : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

func.func @linear_bias(%x: tensor<4x8xf32>, %w: tensor<2x8xf32>, %b: tensor<3xf32>) -> tensor<4x2xf32> {
  // expected-error @below {{out-size mismatch: 'bias' dim 0 is 3 but 'weight' dim 0 is 2}}
  %y = rvnn.linear %x, %w, %b : (tensor<4x8xf32>, tensor<2x8xf32>, tensor<3xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

func.func @linear_result(%x: tensor<4x8xf32>, %w: tensor<2x8xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{result #0 type 'tensor<4x3xf32>' is incompatible with the inferred shape 4x2}}
  %y = rvnn.linear %x, %w : (tensor<4x8xf32>, tensor<2x8xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

func.func @param_not_in_symbol_table() {
  // expected-error @below {{symbol's parent must have the SymbolTable trait}}
  rvnn.param @p : tensor<4xf32> init zeros
  return
}

// -----

// expected-error @below {{parameter type must have a static shape, got 'tensor<?x4xf32>'}}
rvnn.param @p : tensor<?x4xf32> init zeros

// -----

// expected-error @below {{attribute 'type' failed to satisfy constraint: type attribute of ranked tensor of 32-bit float or 64-bit float values}}
rvnn.param @p : tensor<4xi64> init zeros

// -----

// expected-error @below {{init ones takes no scale}}
rvnn.param @p : tensor<4xf32> init ones(2.0)

// -----

// expected-error @below {{init constant needs a scale (the constant value), e.g. constant(0.0)}}
rvnn.param @p : tensor<4xf32> init constant

// -----

// expected-error @below {{init xavier_uniform needs rank >= 2 (fan-in and fan-out), got rank 1}}
rvnn.param @p : tensor<4xf32> init xavier_uniform

// -----

// expected-error @below {{init normal needs scale > 0, got -1.000000e+00}}
rvnn.param @p : tensor<4xf32> init normal(-1.0)

// -----

// expected-error @below {{init uniform needs scale > 0, got 0.000000e+00}}
rvnn.param @p : tensor<4xf32> init uniform(0.0)

// -----

// expected-error @below {{unknown initialiser 'glorot' (expected zeros, ones, constant, normal, uniform or xavier_uniform)}}
rvnn.param @p : tensor<4x4xf32> init glorot

// -----

func.func @param_get_unknown() -> tensor<4xf32> {
  // expected-error @below {{unknown parameter @nope}}
  %p = rvnn.param_get @nope : tensor<4xf32>
  return %p : tensor<4xf32>
}

// -----

func.func @param_get_not_param() -> tensor<4xf32> {
  // expected-error @below {{@param_get_not_param is a 'func.func', not an rvnn.param}}
  %p = rvnn.param_get @param_get_not_param : tensor<4xf32>
  return %p : tensor<4xf32>
}

// -----

rvnn.param @p : tensor<8xf32> init zeros
func.func @param_get_type() -> tensor<?xf32> {
  // expected-error @below {{result type 'tensor<?xf32>' does not match the declared type 'tensor<8xf32>' of @p}}
  %p = rvnn.param_get @p : tensor<?xf32>
  return %p : tensor<?xf32>
}

// -----

func.func @embedding_table_rank(%t: tensor<1000xf32>, %ids: tensor<?xi64>) -> tensor<?x1xf32> {
  // expected-error @below {{'table' must be [V, D] (rank 2), got rank 1}}
  %e = rvnn.embedding %t, %ids : (tensor<1000xf32>, tensor<?xi64>) -> tensor<?x1xf32>
  return %e : tensor<?x1xf32>
}

// -----

func.func @embedding_result(%t: tensor<1000x128xf32>, %ids: tensor<?x?xi64>) -> tensor<?x64xf32> {
  // expected-error @below {{result #0 type 'tensor<?x64xf32>' is incompatible with the inferred shape ?x?x128}}
  %e = rvnn.embedding %t, %ids : (tensor<1000x128xf32>, tensor<?x?xi64>) -> tensor<?x64xf32>
  return %e : tensor<?x64xf32>
}

// -----

func.func @layer_norm_rank(%x: tensor<f32>, %g: tensor<1xf32>) -> tensor<f32> {
  // expected-error @below {{'input' must be [..., D] (rank >= 1), got rank 0}}
  %y = rvnn.layer_norm %x, %g, %g : (tensor<f32>, tensor<1xf32>, tensor<1xf32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

func.func @layer_norm_gamma(%x: tensor<?x128xf32>, %g: tensor<64xf32>, %b: tensor<128xf32>) -> tensor<?x128xf32> {
  // expected-error @below {{gamma must be 'tensor<128xf32>' (the input's last dim and element type), got 'tensor<64xf32>'}}
  %y = rvnn.layer_norm %x, %g, %b : (tensor<?x128xf32>, tensor<64xf32>, tensor<128xf32>) -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

func.func @layer_norm_beta(%x: tensor<?x128xf32>, %g: tensor<128xf32>, %b: tensor<128xf64>) -> tensor<?x128xf32> {
  // expected-error @below {{beta must be 'tensor<128xf32>' (the input's last dim and element type), got 'tensor<128xf64>'}}
  %y = rvnn.layer_norm %x, %g, %b : (tensor<?x128xf32>, tensor<128xf32>, tensor<128xf64>) -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

func.func @layer_norm_epsilon(%x: tensor<?x128xf32>, %g: tensor<128xf32>) -> tensor<?x128xf32> {
  // expected-error @below {{epsilon must be > 0, got 0.000000e+00}}
  %y = rvnn.layer_norm %x, %g, %g {epsilon = 0.0 : f64} : (tensor<?x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

func.func @dropout_rate(%x: tensor<?x128xf32>) -> tensor<?x128xf32> {
  // expected-error @below {{rate must be in [0, 1), got 1.000000e+00}}
  %y = rvnn.dropout %x {rate = 1.0 : f64} : tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

func.func @dropout_negative_rate(%x: tensor<?x128xf32>) -> tensor<?x128xf32> {
  // expected-error @below {{rate must be in [0, 1), got -1.000000e-01}}
  %y = rvnn.dropout %x {rate = -0.1 : f64} : tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

func.func @dropout_shared_range(%x: tensor<?x?x128xf32>) -> tensor<?x?x128xf32> {
  // expected-error @below {{shared_dims entry 3 is out of range for rank 3}}
  %y = rvnn.dropout %x {rate = 0.1 : f64, shared_dims = array<i64: 1, 3>} : tensor<?x?x128xf32>
  return %y : tensor<?x?x128xf32>
}

// -----

func.func @dropout_shared_negative(%x: tensor<?x?x128xf32>) -> tensor<?x?x128xf32> {
  // expected-error @below {{shared_dims entry -1 is out of range for rank 3}}
  %y = rvnn.dropout %x {rate = 0.1 : f64, shared_dims = array<i64: -1>} : tensor<?x?x128xf32>
  return %y : tensor<?x?x128xf32>
}

// -----

func.func @dropout_shared_twice(%x: tensor<?x?x128xf32>) -> tensor<?x?x128xf32> {
  // expected-error @below {{shared_dims lists dim 2 twice}}
  %y = rvnn.dropout %x {rate = 0.1 : f64, shared_dims = array<i64: 2, 1, 2>} : tensor<?x?x128xf32>
  return %y : tensor<?x?x128xf32>
}

// -----

func.func @gelu_type(%x: tensor<?x128xf32>) -> tensor<?x64xf32> {
  // expected-error @below {{requires the same type for all operands and results}}
  %y = "rvnn.gelu"(%x) : (tensor<?x128xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

func.func @softmax_dim(%x: tensor<?x?x10xf32>) -> tensor<?x?x10xf32> {
  // expected-error @below {{dim 3 is out of range for rank 3 (expected -3 <= dim < 3)}}
  %y = rvnn.softmax %x {dim = 3 : i64} : tensor<?x?x10xf32>
  return %y : tensor<?x?x10xf32>
}

// -----

func.func @softmax_negative_dim(%x: tensor<?x?x10xf32>) -> tensor<?x?x10xf32> {
  // expected-error @below {{dim -4 is out of range for rank 3 (expected -3 <= dim < 3)}}
  %y = rvnn.softmax %x {dim = -4 : i64} : tensor<?x?x10xf32>
  return %y : tensor<?x?x10xf32>
}

// -----

func.func @masked_softmax_dim(%x: tensor<?x10xf32>, %m: tensor<?x10xf32>) -> tensor<?x10xf32> {
  // expected-error @below {{dim 2 is out of range for rank 2 (expected -2 <= dim < 2)}}
  %y = rvnn.masked_softmax %x, %m {dim = 2 : i64} : tensor<?x10xf32>, tensor<?x10xf32>
  return %y : tensor<?x10xf32>
}

// -----

func.func @masked_softmax_mask_shape(%x: tensor<?x10xf32>, %m: tensor<?x9xf32>) -> tensor<?x10xf32> {
  // expected-error @below {{'mask' type 'tensor<?x9xf32>' must have the shape of 'input' type 'tensor<?x10xf32>'}}
  %y = rvnn.masked_softmax %x, %m {dim = 1 : i64} : tensor<?x10xf32>, tensor<?x9xf32>
  return %y : tensor<?x10xf32>
}

// -----

func.func @masked_softmax_mask_rank(%x: tensor<?x10xf32>, %m: tensor<?xf32>) -> tensor<?x10xf32> {
  // expected-error @below {{'mask' type 'tensor<?xf32>' must have the shape of 'input' type 'tensor<?x10xf32>'}}
  %y = rvnn.masked_softmax %x, %m {dim = 1 : i64} : tensor<?x10xf32>, tensor<?xf32>
  return %y : tensor<?x10xf32>
}

// -----

func.func @cross_entropy_logits(%l: tensor<?x?x10xf32>, %y: tensor<?xi64>) -> tensor<f32> {
  // expected-error @below {{'logits' must be [N, C] (rank 2), got rank 3}}
  %loss = rvnn.cross_entropy %l, %y : (tensor<?x?x10xf32>, tensor<?xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

func.func @cross_entropy_labels(%l: tensor<?x10xf32>, %y: tensor<?x1xi64>) -> tensor<f32> {
  // expected-error @below {{'labels' must be [N] (rank 1), got rank 2}}
  %loss = rvnn.cross_entropy %l, %y : (tensor<?x10xf32>, tensor<?x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

func.func @cross_entropy_batch(%l: tensor<4x10xf32>, %y: tensor<3xi64>) -> tensor<f32> {
  // expected-error @below {{batch dim N mismatch: 'labels' dim 0 is 3 but 'logits' dim 0 is 4}}
  %loss = rvnn.cross_entropy %l, %y : (tensor<4x10xf32>, tensor<3xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

func.func @cross_entropy_result(%l: tensor<4x10xf64>, %y: tensor<4xi64>) -> tensor<f32> {
  // expected-error @below {{result #0 element type 'f32' should be 'f64'}}
  %loss = rvnn.cross_entropy %l, %y : (tensor<4x10xf64>, tensor<4xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

func.func @broadcast_like_rank(%x: tensor<2x3x4xf32>, %r: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @below {{'input' of type 'tensor<2x3x4xf32>' does not broadcast to 'ref' of type 'tensor<3x4xf32>': rank 3 exceeds rank 2}}
  %y = rvnn.broadcast_like %x, %r : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

func.func @broadcast_like_dim(%x: tensor<3x1xf32>, %r: tensor<?x4x5xf32>) -> tensor<?x4x5xf32> {
  // expected-error @below {{'input' of type 'tensor<3x1xf32>' does not broadcast to 'ref' of type 'tensor<?x4x5xf32>': dim 0 is 3, expected 1 or 4}}
  %y = rvnn.broadcast_like %x, %r : (tensor<3x1xf32>, tensor<?x4x5xf32>) -> tensor<?x4x5xf32>
  return %y : tensor<?x4x5xf32>
}

// -----

func.func @broadcast_like_result(%x: tensor<?x1xf32>, %r: tensor<?x5xf32>) -> tensor<?x1xf32> {
  // expected-error @below {{result #0 type 'tensor<?x1xf32>' is incompatible with the inferred shape ?x5}}
  %y = rvnn.broadcast_like %x, %r : (tensor<?x1xf32>, tensor<?x5xf32>) -> tensor<?x1xf32>
  return %y : tensor<?x1xf32>
}

// -----

func.func @pool_rank(%h: tensor<?x128xf32>, %m: tensor<?x?xf32>) -> tensor<?x128xf32> {
  // expected-error @below {{'h' must be [N, S, D] (rank 3), got rank 2}}
  %y = rvnn.pool mean %h, %m : (tensor<?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

func.func @pool_mask(%h: tensor<4x?x128xf32>, %m: tensor<3x?xf32>) -> tensor<4x128xf32> {
  // expected-error @below {{mask must be 'tensor<4x?xf32>' (h's [N, S] and element type), got 'tensor<3x?xf32>'}}
  %y = rvnn.pool last %h, %m : (tensor<4x?x128xf32>, tensor<3x?xf32>) -> tensor<4x128xf32>
  return %y : tensor<4x128xf32>
}

// -----

func.func @pool_result(%h: tensor<?x?x128xf32>, %m: tensor<?x?xf32>) -> tensor<?x64xf32> {
  // expected-error @below {{result #0 type 'tensor<?x64xf32>' is incompatible with the inferred shape ?x128}}
  %y = rvnn.pool first %h, %m : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

func.func @pool_kind(%h: tensor<?x?x128xf32>, %m: tensor<?x?xf32>) -> tensor<?x128xf32> {
  // expected-error @below {{unknown pooling kind 'sum' (expected first, last, mean or max)}}
  %y = rvnn.pool sum %h, %m : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

func.func @mode_select_sizes(%a: tensor<4x5xf32>, %b: tensor<4x6xf32>) -> tensor<4x5xf32> {
  // expected-error @below {{result type 'tensor<4x5xf32>' should be 'tensor<4x?xf32>' (a size is static only where both operands have it)}}
  %y = rvnn.mode_select %a, %b : tensor<4x5xf32>, tensor<4x6xf32> -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

func.func @mode_select_dynamic(%a: tensor<?x5xf32>, %b: tensor<?x5xf32>) -> tensor<3x5xf32> {
  // expected-error @below {{result type 'tensor<3x5xf32>' should be 'tensor<?x5xf32>'}}
  %y = rvnn.mode_select %a, %b : tensor<?x5xf32>, tensor<?x5xf32> -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// -----

func.func @mode_select_ranks(%a: tensor<4x5xf32>, %b: tensor<20xf32>) -> tensor<4x5xf32> {
  // expected-error @below {{operands don't have matching ranks}}
  %y = rvnn.mode_select %a, %b : tensor<4x5xf32>, tensor<20xf32> -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

func.func @mode_select_integer(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @below {{operand #0 must be ranked tensor of 32-bit float or 64-bit float values}}
  %y = "rvnn.mode_select"(%a, %b) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %y : tensor<4xi64>
}

// -----

func.func @eval_option_name() -> index {
  // expected-error @below {{name must be a lower-case identifier ([a-z_][a-z0-9_]*), got 'rir=1'}}
  %x = rvnn.eval_option "rir=1" {training = 1 : i64, evaluation = 0 : i64}
  return %x : index
}

// -----

func.func @eval_option_empty_name() -> index {
  // expected-error @below {{name must be a lower-case identifier ([a-z_][a-z0-9_]*), got ''}}
  %x = rvnn.eval_option "" {training = 1 : i64, evaluation = 0 : i64}
  return %x : index
}

// -----

func.func @eval_option_no_default() -> index {
  // expected-error @below {{requires attribute 'evaluation'}}
  %x = rvnn.eval_option "rir_inference" {training = 1 : i64}
  return %x : index
}
