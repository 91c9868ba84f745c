// The ListOps Universal Transformer parses, verifies and round-trips; its
// compiled form is the shared-layer loop of models/universal_transformer.mlir
// at D = 128 for 20 steps with the ListOps head, and the full pipeline leaves
// only execution-contract ops.
// RUN: rvnn-opt %models/universal_transformer_listops.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: rvnn-opt %models/universal_transformer_listops.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// RUN: rvnn-opt %models/universal_transformer_listops.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @step_embedding : tensor<20x128xf32> init zeros
// ROUNDTRIP: rvnn.param @att_qkv_w : tensor<1x384x128xf32> init uniform
// ROUNDTRIP-LABEL: func.func @forward(%{{.*}}: tensor<?x?xi64>, %{{.*}}: tensor<?x?xf32>) -> tensor<?x10xf32>
// ROUNDTRIP: rvnn.recurse (%{{.*}} = %{{.*}}) : tensor<?x?x128xf32> halting <fixed> steps = 20 {

// COMPILED-NOT: func.call
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.recurse
// COMPILED-NEXT: ^bb0(%[[T:.*]]: index,
// COMPILED-NEXT: tensor.extract_slice %{{.*}}[%[[T]], 0] [1, 128] [1, 1] : tensor<20x128xf32> to tensor<1x128xf32>
// COMPILED: rvnn.linear %{{.*}}, %{{.*}} : (tensor<?x?x128xf32>, tensor<384x128xf32>) -> tensor<?x?x384xf32>
// COMPILED: rvnn.masked_attention
// COMPILED: rvnn.yield
// COMPILED: -> tensor<?x10xf32>

// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.recurse <fixed>({{.*}}) {steps = 20 : i64}
// EXEC: rvnn_exec.func @forward_body(
// EXEC: rvnn_exec.masked_attention
