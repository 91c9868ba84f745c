// RUN: rvnn-opt %s -split-input-file | rvnn-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @linear
func.func @linear(%x: tensor<?x?x128xf32>, %w: tensor<512x128xf32>, %b: tensor<512xf32>) -> tensor<?x?x512xf32> {
  // CHECK: rvnn.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x?x128xf32>, tensor<512x128xf32>, tensor<512xf32>) -> tensor<?x?x512xf32>
  %y = rvnn.linear %x, %w, %b : (tensor<?x?x128xf32>, tensor<512x128xf32>, tensor<512xf32>) -> tensor<?x?x512xf32>
  return %y : tensor<?x?x512xf32>
}

// -----

// CHECK-LABEL: func.func @linear_no_bias
func.func @linear_no_bias(%x: tensor<4x8xf32>, %w: tensor<2x8xf32>) -> tensor<4x2xf32> {
  // CHECK: rvnn.linear %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<2x8xf32>) -> tensor<4x2xf32>
  %y = rvnn.linear %x, %w : (tensor<4x8xf32>, tensor<2x8xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// CHECK: rvnn.param @w1 : tensor<512x256xf32> init xavier_uniform{{$}}
rvnn.param @w1 : tensor<512x256xf32> init xavier_uniform
// CHECK: rvnn.param @w2 : tensor<4x4x3xf64> init xavier_uniform(2.000000e+00)
rvnn.param @w2 : tensor<4x4x3xf64> init xavier_uniform(2.0)
// CHECK: rvnn.param @emb : tensor<1000x128xf32> init normal(1.000000e+00)
rvnn.param @emb : tensor<1000x128xf32> init normal(1.0)
// CHECK: rvnn.param @u : tensor<8xf32> init uniform(1.000000e-01)
rvnn.param @u : tensor<8xf32> init uniform(0.1)
// CHECK: rvnn.param @gate_bias : tensor<512xf32> init constant(-3.000000e+00)
rvnn.param @gate_bias : tensor<512xf32> init constant(-3.0)
// CHECK: rvnn.param @ln_gamma : tensor<128xf32> init ones{{$}}
rvnn.param @ln_gamma : tensor<128xf32> init ones
// CHECK: rvnn.param @ln_beta : tensor<128xf32> init zeros{{$}}
rvnn.param @ln_beta : tensor<128xf32> init zeros
// CHECK: rvnn.param @s : tensor<f32> init constant(0.17677669529663687) {note = "1/sqrt(32)"}
rvnn.param @s : tensor<f32> init constant(0.17677669529663687) {note = "1/sqrt(32)"}

// CHECK-LABEL: func.func @param_get
func.func @param_get() -> (tensor<512x256xf32>, tensor<128xf32>) {
  // CHECK: rvnn.param_get @w1 : tensor<512x256xf32>
  %w = rvnn.param_get @w1 : tensor<512x256xf32>
  // CHECK: rvnn.param_get @ln_beta : tensor<128xf32>
  %b = rvnn.param_get @ln_beta : tensor<128xf32>
  return %w, %b : tensor<512x256xf32>, tensor<128xf32>
}

// -----

// CHECK-LABEL: func.func @embedding
func.func @embedding(%table: tensor<1000x128xf32>, %ids: tensor<?x?xi64>, %id: tensor<i64>) -> (tensor<?x?x128xf32>, tensor<128xf32>) {
  // CHECK: rvnn.embedding %{{.*}}, %{{.*}} : (tensor<1000x128xf32>, tensor<?x?xi64>) -> tensor<?x?x128xf32>
  %e = rvnn.embedding %table, %ids : (tensor<1000x128xf32>, tensor<?x?xi64>) -> tensor<?x?x128xf32>
  // CHECK: rvnn.embedding %{{.*}}, %{{.*}} : (tensor<1000x128xf32>, tensor<i64>) -> tensor<128xf32>
  %r = rvnn.embedding %table, %id : (tensor<1000x128xf32>, tensor<i64>) -> tensor<128xf32>
  return %e, %r : tensor<?x?x128xf32>, tensor<128xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm
func.func @layer_norm(%x: tensor<?x?x128xf32>, %g: tensor<128xf32>, %b: tensor<128xf32>) -> (tensor<?x?x128xf32>, tensor<?x?x128xf32>) {
  // CHECK: rvnn.layer_norm %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x?x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<?x?x128xf32>
  %y = rvnn.layer_norm %x, %g, %b : (tensor<?x?x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<?x?x128xf32>
  // CHECK: rvnn.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 9.9999999999999995E-7 : f64} : (tensor<?x?x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<?x?x128xf32>
  %z = rvnn.layer_norm %x, %g, %b {epsilon = 1.0e-6 : f64} : (tensor<?x?x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<?x?x128xf32>
  return %y, %z : tensor<?x?x128xf32>, tensor<?x?x128xf32>
}

// -----

// CHECK-LABEL: func.func @dropout
func.func @dropout(%x: tensor<?x?x512xf32>) -> (tensor<?x?x512xf32>, tensor<?x?x512xf32>) {
  // CHECK: rvnn.dropout %{{.*}} {rate = 1.000000e-01 : f64} : tensor<?x?x512xf32>
  %y = rvnn.dropout %x {rate = 0.1 : f64} : tensor<?x?x512xf32>
  // CHECK: rvnn.dropout %{{.*}} {rate = 5.000000e-02 : f64, rescale = false, shared_dims = array<i64: 2>} : tensor<?x?x512xf32>
  %g = rvnn.dropout %x {rate = 0.05 : f64, rescale = false, shared_dims = array<i64: 2>} : tensor<?x?x512xf32>
  return %y, %g : tensor<?x?x512xf32>, tensor<?x?x512xf32>
}

// -----

// CHECK-LABEL: func.func @activations
func.func @activations(%x: tensor<?x?x128xf32>, %d: tensor<3xf64>) -> (tensor<?x?x128xf32>, tensor<?x?x128xf32>, tensor<3xf64>) {
  // CHECK: rvnn.gelu %{{.*}} : tensor<?x?x128xf32>
  %a = rvnn.gelu %x : tensor<?x?x128xf32>
  // CHECK: rvnn.sigmoid %{{.*}} : tensor<?x?x128xf32>
  %b = rvnn.sigmoid %a : tensor<?x?x128xf32>
  // CHECK: rvnn.relu %{{.*}} : tensor<3xf64>
  %c = rvnn.relu %d : tensor<3xf64>
  return %a, %b, %c : tensor<?x?x128xf32>, tensor<?x?x128xf32>, tensor<3xf64>
}

// -----

// CHECK-LABEL: func.func @softmax
func.func @softmax(%x: tensor<?x?x10xf32>, %m: tensor<?x?x10xf32>) -> (tensor<?x?x10xf32>, tensor<?x?x10xf32>, tensor<?x?x10xf32>) {
  // CHECK: rvnn.softmax %{{.*}} {dim = -1 : i64} : tensor<?x?x10xf32>
  %a = rvnn.softmax %x {dim = -1} : tensor<?x?x10xf32>
  // CHECK: rvnn.softmax %{{.*}} {dim = 1 : i64} : tensor<?x?x10xf32>
  %b = rvnn.softmax %x {dim = 1 : i64} : tensor<?x?x10xf32>
  // CHECK: rvnn.masked_softmax %{{.*}}, %{{.*}} {dim = 2 : i64} : tensor<?x?x10xf32>, tensor<?x?x10xf32>
  %c = rvnn.masked_softmax %x, %m {dim = 2 : i64} : tensor<?x?x10xf32>, tensor<?x?x10xf32>
  return %a, %b, %c : tensor<?x?x10xf32>, tensor<?x?x10xf32>, tensor<?x?x10xf32>
}

// -----

// CHECK-LABEL: func.func @masked_softmax_refined_mask
func.func @masked_softmax_refined_mask(%x: tensor<?x5xf32>, %m: tensor<4x5xf32>) -> tensor<?x5xf32> {
  // CHECK: rvnn.masked_softmax %{{.*}}, %{{.*}} {dim = -1 : i64} : tensor<?x5xf32>, tensor<4x5xf32>
  %p = rvnn.masked_softmax %x, %m {dim = -1 : i64} : tensor<?x5xf32>, tensor<4x5xf32>
  return %p : tensor<?x5xf32>
}

// -----

// CHECK-LABEL: func.func @cross_entropy
func.func @cross_entropy(%logits: tensor<?x10xf32>, %labels: tensor<?xi64>) -> tensor<f32> {
  // CHECK: rvnn.cross_entropy %{{.*}}, %{{.*}} : (tensor<?x10xf32>, tensor<?xi64>) -> tensor<f32>
  %loss = rvnn.cross_entropy %logits, %labels : (tensor<?x10xf32>, tensor<?xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @broadcast_like
func.func @broadcast_like(%g: tensor<?x?x1xf32>, %b: tensor<128xf32>, %s: tensor<f32>, %h: tensor<?x?x128xf32>) -> (tensor<?x?x128xf32>, tensor<?x?x128xf32>, tensor<?x?x128xf32>) {
  // CHECK: rvnn.broadcast_like %{{.*}}, %{{.*}} : (tensor<?x?x1xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %0 = rvnn.broadcast_like %g, %h : (tensor<?x?x1xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  // CHECK: rvnn.broadcast_like %{{.*}}, %{{.*}} : (tensor<128xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %1 = rvnn.broadcast_like %b, %h : (tensor<128xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  // CHECK: rvnn.broadcast_like %{{.*}}, %{{.*}} : (tensor<f32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %2 = rvnn.broadcast_like %s, %h : (tensor<f32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  return %0, %1, %2 : tensor<?x?x128xf32>, tensor<?x?x128xf32>, tensor<?x?x128xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_like_element_type
func.func @broadcast_like_element_type(%m: tensor<?x?x1xf32>, %idx: tensor<?x?x4xi64>) -> tensor<?x?x4xf32> {
  // CHECK: rvnn.broadcast_like %{{.*}}, %{{.*}} : (tensor<?x?x1xf32>, tensor<?x?x4xi64>) -> tensor<?x?x4xf32>
  %0 = rvnn.broadcast_like %m, %idx : (tensor<?x?x1xf32>, tensor<?x?x4xi64>) -> tensor<?x?x4xf32>
  return %0 : tensor<?x?x4xf32>
}

// -----

// CHECK-LABEL: func.func @pool
func.func @pool(%h: tensor<?x?x128xf32>, %mask: tensor<?x?xf32>) -> (tensor<?x128xf32>, tensor<?x128xf32>, tensor<?x128xf32>, tensor<?x128xf32>) {
  // CHECK: rvnn.pool first %{{.*}}, %{{.*}} : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32>
  %0 = rvnn.pool first %h, %mask : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32>
  // CHECK: rvnn.pool last %{{.*}}, %{{.*}} : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32>
  %1 = rvnn.pool last %h, %mask : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32>
  // CHECK: rvnn.pool mean %{{.*}}, %{{.*}} : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32>
  %2 = rvnn.pool mean %h, %mask : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32>
  // CHECK: rvnn.pool max %{{.*}}, %{{.*}} : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32>
  %3 = rvnn.pool max %h, %mask : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32>
  return %0, %1, %2, %3 : tensor<?x128xf32>, tensor<?x128xf32>, tensor<?x128xf32>, tensor<?x128xf32>
}

// -----

// CHECK-LABEL: func.func @mode_select
func.func @mode_select(%soft: tensor<?x1x?xf32>, %hard: tensor<?x1x?xf32>) -> tensor<?x1x?xf32> {
  // CHECK: rvnn.mode_select %{{.*}}, %{{.*}} : tensor<?x1x?xf32>, tensor<?x1x?xf32> -> tensor<?x1x?xf32>
  %w = rvnn.mode_select %soft, %hard : tensor<?x1x?xf32>, tensor<?x1x?xf32> -> tensor<?x1x?xf32>
  return %w : tensor<?x1x?xf32>
}

// -----

// Rows only training computes: an empty block at evaluation. A size the
// modes disagree on is dynamic.
// CHECK-LABEL: func.func @mode_select_sizes
func.func @mode_select_sizes(%rows: tensor<6x128xf32>, %none: tensor<0x128xf32>) -> tensor<?x128xf32> {
  // CHECK: rvnn.mode_select %{{.*}}, %{{.*}} : tensor<6x128xf32>, tensor<0x128xf32> -> tensor<?x128xf32>
  %y = rvnn.mode_select %rows, %none : tensor<6x128xf32>, tensor<0x128xf32> -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

// CHECK-LABEL: func.func @eval_option
func.func @eval_option() -> index {
  // CHECK: rvnn.eval_option "rir_inference" {evaluation = 0 : i64, training = 1 : i64}
  %rir = rvnn.eval_option "rir_inference" {training = 1 : i64, evaluation = 0 : i64}
  return %rir : index
}
