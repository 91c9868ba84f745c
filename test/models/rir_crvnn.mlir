// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/rir_crvnn.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The compile pipeline links and inlines the CRvNN cells and the GRC cell
// into the inner loop.
// RUN: rvnn-opt %models/rir_crvnn.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/rir_crvnn.mlir --rvnn-compile=library=%models/cells.mlir 2>/dev/null | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @start : tensor<128xf32> init normal(1.000000e+00)
// ROUNDTRIP: rvnn.param @score_w1 : tensor<128x640xf32> init xavier_uniform
// ROUNDTRIP: func.func private @crvnn_augment
// ROUNDTRIP: func.func private @crvnn_decide
// ROUNDTRIP: func.func private @crvnn_update
// ROUNDTRIP: func.func private @grc_cell
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP: %[[LEVELS:.*]] = rvnn.chunk_depth %{{.*}} {size = 30 : i64}
// ROUNDTRIP: rvnn.recurse ({{.*}}) : tensor<?x?x128xf32>, tensor<?x?xf32> halting <none> max_steps %[[LEVELS]]
// ROUNDTRIP: rvnn.chunk %{{.*}}, %{{.*}} {size = 30 : i64}
// ROUNDTRIP: call @crvnn_augment
// ROUNDTRIP: rvnn.recurse ({{.*}}) : tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32> halting <per_sample> max_steps
// ROUNDTRIP: call @crvnn_decide
// ROUNDTRIP: call @grc_cell
// ROUNDTRIP: call @crvnn_update
// ROUNDTRIP: rvnn.yield {{.*}} halt
// ROUNDTRIP: rvnn.pool last
// ROUNDTRIP: rvnn.unchunk
// ROUNDTRIP: rvnn.unchunk
// ROUNDTRIP: rvnn.yield

// COMPILED-NOT: @grc_cell
// COMPILED-NOT: @crvnn_
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.chunk_depth
// COMPILED: rvnn.recurse
// COMPILED: rvnn.chunk
// COMPILED: rvnn.recurse ({{.*}}) : {{.*}} halting <per_sample>
// COMPILED-NOT: call
// COMPILED: rvnn.neighbour_retrieve
// COMPILED: rvnn.layer_norm {{.*}} -> tensor<?x128xf32>
// COMPILED: rvnn.yield {{.*}} halt
// COMPILED: rvnn.pool last
// COMPILED: rvnn.unchunk
// COMPILED: rvnn.yield
// COMPILED: -> tensor<?x10xf32>

// EXEC: rvnn_exec.param @
// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.chunk_depth %{{.*}} {size = 30 : i64}
// EXEC: rvnn_exec.recurse <none>
// The outer body holds the inner loop: the code before it (chunking, the
// leaf transform) and after it (pooling, unchunking) runs as calls of
// compiler-derived functions, the inner body (one CRvNN iteration) as one
// call.
// EXEC: rvnn_exec.call @[[PRE:forward_body_part_[0-9]+]]({{.*}}) forward @[[PRE]]_fwd backward @[[PRE]]_bwd grad_inputs
// EXEC: rvnn_exec.recurse <per_sample>
// EXEC: rvnn_exec.call @forward_body({{.*}}) forward @forward_body_fwd backward @forward_body_bwd grad_inputs
// EXEC: rvnn_exec.call @[[POST:forward_body_part]]({{.*}}) forward @[[POST]]_fwd backward @[[POST]]_bwd grad_inputs [0] :
// EXEC: rvnn_exec.return
// EXEC: rvnn_exec.func @[[PRE]](
// EXEC: rvnn_exec.chunk
// EXEC: rvnn_exec.func @[[POST]](
// EXEC: rvnn_exec.pool <last>
// EXEC: rvnn_exec.unchunk
// EXEC: rvnn_exec.func @forward_body(
