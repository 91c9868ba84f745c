// The ListOps Transformer parses, verifies and round-trips; its compiled
// form is the encoder loop of models/transformer.mlir at D = 128 with the
// ListOps head, and the full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/transformer_listops.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: rvnn-opt %models/transformer_listops.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// RUN: rvnn-opt %models/transformer_listops.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @embedding : tensor<16x128xf32> init normal(1.000000e+00)
// ROUNDTRIP: rvnn.param @positions : tensor<1024x128xf32> init normal(1.000000e+00)
// ROUNDTRIP: rvnn.param @att_qkv_w : tensor<6x384x128xf32> init uniform
// ROUNDTRIP: rvnn.param @head_w2 : tensor<10x128xf32> init xavier_uniform
// ROUNDTRIP-LABEL: func.func @forward(%{{.*}}: tensor<?x?xi64>, %{{.*}}: tensor<?x?xf32>) -> tensor<?x10xf32>
// ROUNDTRIP: rvnn.dropout %{{.*}} {rate = 1.000000e-01 : f64} : tensor<?x?x128xf32>
// ROUNDTRIP: rvnn.recurse (%{{.*}} = %{{.*}}) : tensor<?x?x128xf32> halting <fixed> steps = 6 {
// ROUNDTRIP: rvnn.pool mean

// COMPILED-NOT: func.call
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.recurse
// COMPILED: rvnn.masked_attention %{{.*}} : (tensor<?x8x?x16xf32>, tensor<?x8x?x16xf32>, tensor<?x8x?x16xf32>, tensor<?x?xf32>) -> tensor<?x8x?x16xf32>
// COMPILED: rvnn.relu %{{.*}} : tensor<?x?x512xf32>
// COMPILED: rvnn.yield
// COMPILED: rvnn.pool mean
// COMPILED: rvnn.gelu
// COMPILED: -> tensor<?x10xf32>

// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.recurse <fixed>({{.*}}) {steps = 6 : i64}
// EXEC: rvnn_exec.func @forward_body(
// EXEC: rvnn_exec.masked_attention
