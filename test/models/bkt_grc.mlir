// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/bkt_grc.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The compile pipeline links and inlines the k-ary GRC cell and refines its
// shapes to k = 30.
// RUN: rvnn-opt %models/bkt_grc.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/bkt_grc.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @cell_w1 : tensor<512x3840xf32> init xavier_uniform
// ROUNDTRIP: rvnn.param @cell_w2 : tensor<4096x512xf32> init xavier_uniform
// ROUNDTRIP: func.func private @grc_kary_cell
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP: rvnn.expose_structure <balanced> %{{.*}} {arity = 30 : i64}
// ROUNDTRIP: rvnn.balanced_reduce %{{.*}}, %{{.*}} {arity = 30 : i64}
// ROUNDTRIP: func.call @grc_kary_cell
// ROUNDTRIP: rvnn.gate

// COMPILED-NOT: @grc_kary_cell
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.balanced_reduce
// COMPILED-NOT: call
// COMPILED: tensor.collapse_shape {{.*}} : tensor<?x30x128xf32> into tensor<?x3840xf32>
// COMPILED: rvnn.linear {{.*}} -> tensor<?x512xf32>
// COMPILED: rvnn.linear {{.*}} -> tensor<?x4096xf32>
// COMPILED: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<?x1x30xf32>, tensor<?x30x128xf32>)
// COMPILED: rvnn.layer_norm {{.*}} -> tensor<?x128xf32>
// COMPILED: rvnn.gate
// COMPILED: rvnn.yield
// COMPILED: -> tensor<?x10xf32>

// EXEC: rvnn_exec.param @
// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// The loop body runs as one call of compiler-derived functions.
// EXEC: rvnn_exec.balanced_reduce %{{.*}}, %{{.*}} {arity = 30 : i64}
// EXEC: rvnn_exec.call @forward_body({{.*}}) forward @forward_body_fwd backward @forward_body_bwd grad_inputs
// EXEC: rvnn_exec.return
// EXEC: rvnn_exec.func @forward_body(
// EXEC: rvnn_exec.func @forward_body_fwd(
// EXEC: rvnn_exec.func @forward_body_bwd(
// EXEC: rvnn_exec.vjp
