// The ListOps FastTrees Transformer parses, verifies and round-trips; its
// compiled form is the encoder loop of models/fasttrees_transformer.mlir at
// D = 128 with the ListOps head, and the full pipeline leaves only
// execution-contract ops.
// RUN: rvnn-opt %models/fasttrees_transformer_listops.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: rvnn-opt %models/fasttrees_transformer_listops.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// RUN: rvnn-opt %models/fasttrees_transformer_listops.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @ft_w : tensor<6x384x128xf32> init uniform
// ROUNDTRIP: rvnn.param @ft_b : tensor<6x384xf32> init uniform
// ROUNDTRIP-LABEL: func.func @forward(%{{.*}}: tensor<?x?xi64>, %{{.*}}: tensor<?x?xf32>) -> tensor<?x10xf32>
// ROUNDTRIP: rvnn.recurse (%{{.*}} = %{{.*}}) : tensor<?x?x128xf32> halting <fixed> steps = 6 {
// ROUNDTRIP: func.call @fasttrees_module

// COMPILED-NOT: func.call
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.recurse
// COMPILED: rvnn.masked_attention
// COMPILED: rvnn.cumax %{{.*}} {dim = 2 : i64}
// COMPILED: rvnn.cumax %{{.*}} {dim = 2 : i64}
// COMPILED: rvnn.yield
// COMPILED: -> tensor<?x10xf32>

// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.recurse <fixed>({{.*}}) {steps = 6 : i64}
// EXEC: rvnn_exec.func @forward_body(
// EXEC: rvnn_exec.cumax
