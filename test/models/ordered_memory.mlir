// Ordered Memory (ListOps): the model parses, verifies and round-trips, and
// the compile pipeline links its step from models/cells.mlir and inlines it
// with the attention, slot and cell functions it calls into two nested
// loops (tokens, then memory slots) and leaves only execution-contract ops.
// RUN: rvnn-opt %models/ordered_memory.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: rvnn-opt %models/ordered_memory.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// RUN: rvnn-opt %models/ordered_memory.mlir --rvnn-compile=library=%models/cells.mlir 2>/dev/null | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @embedding : tensor<16x128xf32> init normal(1.000000e+00)
// ROUNDTRIP: rvnn.param @score_w : tensor<1x128xf32> init uniform
// ROUNDTRIP: rvnn.param @cell_w1 : tensor<512x256xf32> init uniform
// ROUNDTRIP: func.func private @om_step(
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP: rvnn.recurse ({{.*}}) : tensor<?x21x128xf32>, tensor<?x21x128xf32>, tensor<?x21xf32> halting <none> max_steps
// ROUNDTRIP: call @om_step
// ROUNDTRIP: -> tensor<?x10xf32>

// COMPILED-NOT: func.func private @om_
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.recurse ({{.*}}) : tensor<?x21x128xf32>, tensor<?x21x128xf32>, tensor<?x21xf32>
// COMPILED: rvnn.softmax %{{.*}} {dim = -1 : i64} : tensor<?x21xf32>
// COMPILED: rvnn.recurse
// COMPILED: rvnn.relu
// COMPILED: rvnn.layer_norm
// COMPILED: tensor.concat dim(1)
// COMPILED: rvnn.yield
// COMPILED: rvnn.yield
// COMPILED-NOT: call
// COMPILED: -> tensor<?x10xf32>

// EXEC: rvnn_exec.param @
// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// The token loop's body holds the slot loop: its code before and after the
// slot loop, and the slot loop's body, run as calls of compiler-derived
// functions.
// EXEC: rvnn_exec.recurse <none>
// EXEC: rvnn_exec.call @[[PRE:forward_body_part_[0-9]+]]({{.*}}) forward @[[PRE]]_fwd backward @[[PRE]]_bwd grad_inputs
// EXEC: rvnn_exec.recurse <none>
// EXEC: rvnn_exec.call @forward_body({{.*}}) forward @forward_body_fwd backward @forward_body_bwd grad_inputs
// EXEC: rvnn_exec.call @forward_body_part({{.*}}) forward @forward_body_part_fwd backward @forward_body_part_bwd grad_inputs
// EXEC: rvnn_exec.return
