// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/bbt_grc_logic.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The compile pipeline links and inlines the GRC cell and refines its shapes.
// RUN: rvnn-opt %models/bbt_grc_logic.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/bbt_grc_logic.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @embedding : tensor<12x200xf32> init normal(1.000000e+00)
// ROUNDTRIP: rvnn.param @cell_w1 : tensor<800x400xf32> init xavier_uniform
// ROUNDTRIP: rvnn.param @head_w1 : tensor<200x800xf32> init xavier_uniform
// ROUNDTRIP: func.func private @grc_cell
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP-SAME: -> tensor<?x7xf32>
// ROUNDTRIP: arith.maxsi
// ROUNDTRIP: tensor.concat dim(0) {{.*}} -> tensor<?x?xi64>
// ROUNDTRIP: tensor.concat dim(0) {{.*}} -> tensor<?x?xf32>
// ROUNDTRIP: rvnn.dropout %{{.*}} {rate = 4.000000e-01 : f64}
// ROUNDTRIP: rvnn.balanced_reduce %{{.*}}, %{{.*}} {arity = 2 : i64}
// ROUNDTRIP: func.call @grc_cell
// ROUNDTRIP: rvnn.gate
// ROUNDTRIP: math.absf
// ROUNDTRIP: tensor.concat dim(1) {{.*}} -> tensor<?x800xf32>

// COMPILED-NOT: @grc_cell
// COMPILED-LABEL: func.func @forward
// COMPILED: tensor.concat dim(0) {{.*}} -> tensor<?x?xi64>
// COMPILED: rvnn.embedding {{.*}} -> tensor<?x?x200xf32>
// COMPILED: rvnn.balanced_reduce
// COMPILED-NOT: call
// The cell's [l; r] of the children is a view of them (rvnn-fold-slice-concat).
// COMPILED: ^bb0(%[[CHILDREN:.*]]: tensor<?x2x200xf32>,
// COMPILED: tensor.collapse_shape %[[CHILDREN]] {{\[}}[0], [1, 2]] : tensor<?x2x200xf32> into tensor<?x400xf32>
// COMPILED: rvnn.linear {{.*}} -> tensor<?x800xf32>
// COMPILED: rvnn.layer_norm {{.*}} -> tensor<?x200xf32>
// COMPILED: rvnn.yield
// COMPILED: math.absf
// COMPILED: tensor.concat dim(1) {{.*}} -> tensor<?x800xf32>
// COMPILED: -> tensor<?x7xf32>

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
