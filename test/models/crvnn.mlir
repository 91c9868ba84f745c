// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/crvnn.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The compile pipeline links and inlines the CRvNN cells and the GRC cell
// (models/cells.mlir), lowers the affine.apply
// that folding tensor.dim of the collapsed [N·Sa, D] cell input creates, and
// keeps the per-sample halting loop.
// RUN: rvnn-opt %models/crvnn.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/crvnn.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @start : tensor<128xf32> init normal(1.000000e+00)
// ROUNDTRIP: rvnn.param @end : tensor<128xf32> init normal(1.000000e+00)
// ROUNDTRIP: rvnn.param @score_w1 : tensor<128x640xf32> init xavier_uniform
// ROUNDTRIP: func.func private @crvnn_augment
// ROUNDTRIP: func.func private @crvnn_decide
// ROUNDTRIP: func.func private @crvnn_update
// ROUNDTRIP: func.func private @grc_cell
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP: call @crvnn_augment
// ROUNDTRIP: rvnn.recurse ({{.*}}) : tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32> halting <per_sample> max_steps
// ROUNDTRIP: call @crvnn_decide
// ROUNDTRIP: call @grc_cell
// ROUNDTRIP: call @crvnn_update
// ROUNDTRIP: rvnn.expose_structure <composition>
// ROUNDTRIP: rvnn.yield {{.*}} halt
// ROUNDTRIP: rvnn.pool last

// COMPILED-NOT: @grc_cell
// COMPILED-NOT: @crvnn_
// COMPILED-LABEL: func.func @forward
// The GRC input's row count N·Sa (a collapse's size, arith after
// lower-affine) is computed in the step: N is the rows of the state h,
// which compaction of halted samples shrinks.
// COMPILED-NOT: affine.apply
// COMPILED: rvnn.recurse ({{.*}}) : tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32> halting <per_sample> max_steps
// COMPILED-NOT: call
// COMPILED-NOT: affine.apply
// COMPILED: arith.muli
// COMPILED: rvnn.layer_norm {{.*}} -> tensor<?x128xf32>
// COMPILED: arith.cmpf ogt
// COMPILED: arith.uitofp
// COMPILED: linalg.matvec
// COMPILED: arith.ori
// COMPILED: rvnn.yield {{.*}} halt
// COMPILED: rvnn.pool last
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
