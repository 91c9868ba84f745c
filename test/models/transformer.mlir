// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/transformer.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The front end links and inlines the Transformer cells: the six layers are
// one loop whose body reads layer t's slice of each stacked weight.
// RUN: rvnn-opt %models/transformer.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/transformer.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @positions : tensor<128x200xf32> init normal(1.000000e+00)
// ROUNDTRIP: rvnn.param @att_qkv_w : tensor<6x600x200xf32> init uniform
// ROUNDTRIP: rvnn.param @ff2_w : tensor<6x200x800xf32> init uniform
// ROUNDTRIP: func.func private @self_attention
// ROUNDTRIP: func.func private @add_norm_feed_forward
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP-SAME: -> tensor<?x7xf32>
// ROUNDTRIP: call @siamese_batch
// ROUNDTRIP: rvnn.dropout %{{.*}} {rate = 4.000000e-01 : f64}
// ROUNDTRIP: rvnn.recurse (%{{.*}} = %{{.*}}) : tensor<?x?x200xf32> halting <fixed> steps = 6 {
// ROUNDTRIP: ^bb0(%[[T:.*]]: index,
// ROUNDTRIP: call @self_attention(%{{.*}}, %{{.*}}, %{{.*}}, %[[T]],
// ROUNDTRIP: call @add_norm_feed_forward(%{{.*}}, %{{.*}}, %[[T]],
// ROUNDTRIP: rvnn.yield
// ROUNDTRIP: rvnn.pool mean
// ROUNDTRIP: call @sentence_pair_head

// COMPILED-NOT: func.call
// COMPILED-LABEL: func.func @forward
// COMPILED: tensor.extract_slice %{{.*}}[0, 0] [%{{.*}}, 200] [1, 1] : tensor<128x200xf32> to tensor<?x200xf32>
// COMPILED: rvnn.recurse
// COMPILED-NEXT: ^bb0(%[[T:.*]]: index,
// COMPILED: tensor.extract_slice %{{.*}}[%[[T]], 0, 0] [1, 600, 200] [1, 1, 1] : tensor<6x600x200xf32> to tensor<600x200xf32>
// COMPILED: linalg.transpose {{.*}} permutation = [2, 0, 3, 1, 4]
// COMPILED: rvnn.masked_attention %{{.*}} : (tensor<?x8x?x25xf32>, tensor<?x8x?x25xf32>, tensor<?x8x?x25xf32>, tensor<?x?xf32>) -> tensor<?x8x?x25xf32>
// COMPILED: tensor.extract_slice %{{.*}}[%[[T]], 0, 0] [1, 800, 200] [1, 1, 1] : tensor<6x800x200xf32> to tensor<800x200xf32>
// COMPILED: rvnn.layer_norm
// COMPILED: rvnn.relu %{{.*}} : tensor<?x?x800xf32>
// COMPILED: rvnn.layer_norm
// COMPILED: rvnn.yield
// COMPILED: rvnn.pool mean
// COMPILED: rvnn.gelu

// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.recurse <fixed>({{.*}}) {steps = 6 : i64}
// EXEC: rvnn_exec.call @forward_body({{.*}}) forward @forward_body_fwd backward @forward_body_bwd grad_inputs
// EXEC: rvnn_exec.func @forward_body(
// EXEC: rvnn_exec.masked_attention
