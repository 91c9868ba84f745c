// The Neural Data Router model (models/ndr.mlir, model-specs §5): it parses,
// verifies and round-trips, and the compile pipeline inlines its helpers and
// makes the generic head split static.

// RUN: rvnn-opt %models/ndr.mlir | rvnn-opt | FileCheck %s
// RUN: rvnn-opt %models/ndr.mlir --rvnn-front | FileCheck %s --check-prefix=COMPILED
// RUN: rvnn-opt %models/ndr.mlir --rvnn-front | FileCheck %s --check-prefix=GENERIC
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/ndr.mlir --rvnn-compile | FileCheck %s --check-prefix=EXEC

// Parameters: D = 512, 16 heads of 32, FF 1024, learned rank-0 scalars,
// gate bias -3, Linear(D, 10) head.
// CHECK: rvnn.param @emb : tensor<16x512xf32> init normal(1.000000e+00)
// CHECK: rvnn.param @sos : tensor<1x1x512xf32> init normal(1.000000e+00)
// CHECK: rvnn.param @att_content_bias : tensor<16x32xf32> init zeros
// CHECK: rvnn.param @att_pos_w : tensor<32x512xf32>
// CHECK: rvnn.param @att_scale_pos : tensor<f32> init ones
// CHECK: rvnn.param @att_scale : tensor<f32> init constant(0.17677669529663687)
// CHECK: rvnn.param @att_s_bias : tensor<f32> init zeros
// CHECK: rvnn.param @ff1_w : tensor<1024x512xf32>
// CHECK: rvnn.param @gate2_b : tensor<512xf32> init constant(-3.000000e+00)
// CHECK: rvnn.param @out_w : tensor<10x512xf32>

// CHECK-LABEL: func.func private @split_heads(%{{.*}}: tensor<?x?x?xf32>) -> tensor<?x16x?x?xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [%{{.*}}, %{{.*}}, 16, %{{.*}}]
// CHECK: linalg.transpose {{.*}} permutation = [0, 2, 1, 3]

// CHECK-LABEL: func.func private @geometric_attention
// CHECK: rvnn.dropout %{{.*}} {rate = 1.000000e-01 : f64} : tensor<?x16x?x32xf32>
// CHECK: rvnn.geometric_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x16x?x32xf32>, tensor<?x16x?x32xf32>, tensor<?x16x?x32xf32>, tensor<?x16x?xf32>, tensor<?x16x?xf32>, tensor<?x?xf32>, tensor<f32>, tensor<f32>) -> tensor<?x16x?x32xf32>

// CHECK-LABEL: func.func private @ndr_layer
// CHECK: rvnn.layer_norm
// CHECK: rvnn.relu %{{.*}} : tensor<?x?x1024xf32>
// CHECK: rvnn.sigmoid
// CHECK: rvnn.dropout %{{.*}} {rate = 5.000000e-02 : f64, rescale = false, shared_dims = array<i64: 2>} : tensor<?x?x512xf32>
// CHECK: rvnn.gate %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x?x512xf32>, tensor<?x?x512xf32>, tensor<?x?x512xf32>) -> tensor<?x?x512xf32>

// CHECK-LABEL: func.func @forward(%{{.*}}: tensor<?x?xi64>, %{{.*}}: tensor<?x?xf32>) -> tensor<?x10xf32>
// CHECK: rvnn.embedding
// CHECK: rvnn.broadcast_like %{{.*}}, %{{.*}} : (tensor<1x1x512xf32>, tensor<?x1x512xf32>) -> tensor<?x1x512xf32>
// CHECK: tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<?x1x512xf32>, tensor<?x?x512xf32>) -> tensor<?x?x512xf32>
// CHECK: tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<?x1xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK: rvnn.recurse (%{{.*}} = %{{.*}}) : tensor<?x?x512xf32> halting <fixed> steps = 20 eval_steps = 24 {
// CHECK: func.call @ndr_layer
// CHECK: rvnn.yield %{{.*}} : tensor<?x?x512xf32>
// CHECK: rvnn.pool first %{{.*}}, %{{.*}} : (tensor<?x?x512xf32>, tensor<?x?xf32>) -> tensor<?x512xf32>
// CHECK: rvnn.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x512xf32>, tensor<10x512xf32>, tensor<10xf32>) -> tensor<?x10xf32>

// After --rvnn-front the helpers are inlined into the loop body and gone;
// the generic head split is static again: q, k, v split into [N, 16, S, 32]
// and the (back, front) projection into [N, 16, S, 2].
// COMPILED-NOT: func.func private
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.recurse (%{{.*}} = %{{.*}}) : tensor<?x?x512xf32> halting <fixed> steps = 20 eval_steps = 24 {
// COMPILED-NOT: func.call
// COMPILED: tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x16x?x32xf32>
// COMPILED: linalg.transpose ins(%{{.*}} : tensor<?x?x16x32xf32>) outs(%{{.*}} : tensor<?x16x?x32xf32>) permutation = [0, 2, 1, 3]
// COMPILED: linalg.transpose ins(%{{.*}} : tensor<?x?x16x32xf32>) outs(%{{.*}} : tensor<?x16x?x32xf32>) permutation = [0, 2, 1, 3]
// COMPILED: linalg.transpose ins(%{{.*}} : tensor<?x?x16x32xf32>) outs(%{{.*}} : tensor<?x16x?x32xf32>) permutation = [0, 2, 1, 3]
// COMPILED: tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x16x?x2xf32>
// COMPILED: linalg.transpose ins(%{{.*}} : tensor<?x?x16x2xf32>) outs(%{{.*}} : tensor<?x16x?x2xf32>) permutation = [0, 2, 1, 3]
// COMPILED: rvnn.geometric_attention {{.*}} -> tensor<?x16x?x32xf32>
// COMPILED: rvnn.gate
// COMPILED: rvnn.yield %{{.*}} : tensor<?x?x512xf32>
// COMPILED: rvnn.pool first
// COMPILED: return %{{.*}} : tensor<?x10xf32>

// No value keeps the generic [N, 16, S, ?] head type.
// GENERIC-NOT: tensor<?x16x?x?xf32>

// EXEC: rvnn_exec.param @
// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// The loop body runs as one call of compiler-derived functions.
// EXEC: rvnn_exec.call @forward_body({{.*}}) forward @forward_body_fwd backward @forward_body_bwd grad_inputs
// EXEC: rvnn_exec.return
// EXEC: rvnn_exec.func @forward_body(
// EXEC: rvnn_exec.func @forward_body_fwd(
// EXEC: rvnn_exec.func @forward_body_bwd(
// EXEC: rvnn_exec.vjp
