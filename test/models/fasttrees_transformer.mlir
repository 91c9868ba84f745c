// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/fasttrees_transformer.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The front end links and inlines the Transformer cells and the FastTrees
// module: in each layer the module's two cumax gates run between the
// self-attention and its residual connection.
// RUN: rvnn-opt %models/fasttrees_transformer.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/fasttrees_transformer.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @att_qkv_w : tensor<6x600x200xf32> init uniform
// ROUNDTRIP: rvnn.param @ft_w : tensor<6x600x200xf32> init uniform
// ROUNDTRIP: rvnn.param @ft_b : tensor<6x600xf32> init uniform
// ROUNDTRIP: func.func private @fasttrees_module
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP: rvnn.recurse (%{{.*}} = %{{.*}}) : tensor<?x?x200xf32> halting <fixed> steps = 6 {
// ROUNDTRIP: ^bb0(%[[T:.*]]: index,
// ROUNDTRIP: %[[ATT:.*]] = func.call @self_attention
// ROUNDTRIP: %[[GATED:.*]] = func.call @fasttrees_module(%[[ATT]], %[[T]],
// ROUNDTRIP: func.call @add_norm_feed_forward(
// ROUNDTRIP-SAME: %{{.*}}, %[[GATED]], %[[T]],

// COMPILED-NOT: func.call
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.recurse
// COMPILED: rvnn.masked_attention
// COMPILED: %[[ATT:.*]] = rvnn.linear %{{.*}} : (tensor<?x?x200xf32>, tensor<200x200xf32>) -> tensor<?x?x200xf32>
// COMPILED: rvnn.linear %[[ATT]], %{{.*}}, %{{.*}} : (tensor<?x?x200xf32>,
// COMPILED: rvnn.cumax %{{.*}} {dim = 2 : i64}
// COMPILED: rvnn.cumax %{{.*}} {dim = 2 : i64}
// COMPILED: rvnn.sigmoid
// COMPILED: rvnn.dropout %{{.*}} {rate = 1.000000e-01 : f64}
// COMPILED: rvnn.layer_norm
// COMPILED: rvnn.yield

// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.recurse <fixed>({{.*}}) {steps = 6 : i64}
// EXEC: rvnn_exec.func @forward_body(
// EXEC: rvnn_exec.masked_attention
// EXEC: rvnn_exec.cumax
// EXEC: rvnn_exec.cumax
