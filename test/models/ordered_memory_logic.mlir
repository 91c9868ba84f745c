// Ordered Memory (logical inference): the model parses, verifies and
// round-trips, and the compile pipeline links its step from
// models/cells.mlir (shared with the ListOps model) and inlines it with the
// attention, slot and cell functions it calls into two nested loops
// (tokens, then the 12 memory slots) over the Siamese batch, and leaves only
// execution-contract ops.
// RUN: rvnn-opt %models/ordered_memory_logic.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: rvnn-opt %models/ordered_memory_logic.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// RUN: rvnn-opt %models/ordered_memory_logic.mlir --rvnn-compile=library=%models/cells.mlir 2>/dev/null | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @embedding : tensor<12x200xf32> init normal(1.000000e+00)
// ROUNDTRIP: rvnn.param @score_w : tensor<1x200xf32> init uniform
// ROUNDTRIP: rvnn.param @cell_w1 : tensor<800x400xf32> init uniform
// ROUNDTRIP: func.func private @om_step(
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP: call @siamese_batch
// ROUNDTRIP: rvnn.recurse ({{.*}}) : tensor<?x12x200xf32>, tensor<?x12x200xf32>, tensor<?x12xf32> halting <none> max_steps
// ROUNDTRIP: call @om_step
// ROUNDTRIP: call @sentence_pair_head
// ROUNDTRIP: return %{{.*}} : tensor<?x7xf32>

// COMPILED-NOT: func.func private @om_
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.recurse ({{.*}}) : tensor<?x12x200xf32>, tensor<?x12x200xf32>, tensor<?x12xf32>
// COMPILED: rvnn.softmax %{{.*}} {dim = -1 : i64} : tensor<?x12xf32>
// COMPILED: rvnn.recurse
// COMPILED: rvnn.relu
// COMPILED: rvnn.layer_norm
// COMPILED: tensor.concat dim(1)
// COMPILED: rvnn.yield
// COMPILED: rvnn.yield
// COMPILED-NOT: call
// COMPILED: -> tensor<?x7xf32>

// EXEC: rvnn_exec.param @
// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.recurse <none>
// EXEC: rvnn_exec.recurse <none>
// The inner (slot) loop body runs as one call of compiler-derived functions.
// EXEC: rvnn_exec.call @forward_body({{.*}}) forward @forward_body_fwd backward @forward_body_bwd grad_inputs
// EXEC: rvnn_exec.return
