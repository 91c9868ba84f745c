// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/universal_transformer.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The front end links and inlines the Transformer cells: one loop of 15
// steps over the one layer's weights, read whole at every step.
// RUN: rvnn-opt %models/universal_transformer.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/universal_transformer.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @step_embedding : tensor<15x200xf32> init zeros
// ROUNDTRIP: rvnn.param @att_qkv_w : tensor<1x600x200xf32> init uniform
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP: %[[SHARED:.*]] = arith.constant 0 : index
// ROUNDTRIP: rvnn.recurse (%{{.*}} = %{{.*}}) : tensor<?x?x200xf32> halting <fixed> steps = 15 {
// ROUNDTRIP: call @self_attention(%{{.*}}, %{{.*}}, %{{.*}}, %[[SHARED]],
// ROUNDTRIP: call @add_norm_feed_forward(
// ROUNDTRIP-SAME: %{{.*}}, %{{.*}}, %[[SHARED]],

// The coordinate embedding: step t's row of the step table plus the
// positions, added to the state before the layer, whose weights the loop
// reads whole (the stack of one layer folds away).
// COMPILED-NOT: func.call
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.recurse
// COMPILED-NEXT: ^bb0(%[[T:.*]]: index, %[[STATE:.*]]: tensor<?x?x200xf32>):
// COMPILED-NEXT: tensor.extract_slice %{{.*}}[%[[T]], 0] [1, 200] [1, 1] : tensor<15x200xf32> to tensor<1x200xf32>
// COMPILED: %[[INPUT:.*]] = arith.addf %[[STATE]], %{{.*}} : tensor<?x?x200xf32>
// COMPILED: rvnn.linear %[[INPUT]], %{{.*}} : (tensor<?x?x200xf32>, tensor<600x200xf32>) -> tensor<?x?x600xf32>
// COMPILED: rvnn.masked_attention
// COMPILED: rvnn.yield

// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.recurse <fixed>({{.*}}) {steps = 15 : i64}
// EXEC: rvnn_exec.func @forward_body(
// EXEC: rvnn_exec.masked_attention
