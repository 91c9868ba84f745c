// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/bbt_grc.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The compile pipeline links and inlines the GRC cell and refines its shapes.
// RUN: rvnn-opt %models/bbt_grc.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/bbt_grc.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @cell_w1 : tensor<512x256xf32> init xavier_uniform
// ROUNDTRIP: func.func private @grc_cell
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP: rvnn.balanced_reduce %{{.*}}, %{{.*}} {arity = 2 : i64}
// ROUNDTRIP: func.call @grc_cell
// ROUNDTRIP: rvnn.gate

// COMPILED-NOT: @grc_cell
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.balanced_reduce
// COMPILED-NOT: call
// The cell's [l; r] of the children is a view of them (rvnn-fold-slice-concat).
// COMPILED: ^bb0(%[[CHILDREN:.*]]: tensor<?x2x128xf32>,
// COMPILED: tensor.collapse_shape %[[CHILDREN]] {{\[}}[0], [1, 2]] : tensor<?x2x128xf32> into tensor<?x256xf32>
// COMPILED: rvnn.linear {{.*}} -> tensor<?x512xf32>
// COMPILED: rvnn.layer_norm {{.*}} -> tensor<?x128xf32>
// COMPILED: rvnn.yield
// COMPILED: -> tensor<?x10xf32>

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
