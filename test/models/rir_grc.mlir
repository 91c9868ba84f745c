// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/rir_grc.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The compile pipeline links and inlines the GRC cell into the inner loop.
// RUN: rvnn-opt %models/rir_grc.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/rir_grc.mlir --rvnn-compile=library=%models/cells.mlir 2>/dev/null | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @cell_w1 : tensor<512x256xf32> init xavier_uniform
// ROUNDTRIP: func.func private @grc_cell
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP: %[[LEVELS:.*]] = rvnn.chunk_depth %{{.*}} {size = 30 : i64}
// ROUNDTRIP: rvnn.recurse ({{.*}}) : tensor<?x?x128xf32>, tensor<?x?xf32> halting <none> max_steps %[[LEVELS]]
// ROUNDTRIP: rvnn.chunk %{{.*}}, %{{.*}} {size = 30 : i64}
// ROUNDTRIP: rvnn.recurse ({{.*}}) : tensor<?x128xf32>, tensor<?x?x128xf32>, tensor<?x?xf32> halting <none> max_steps
// ROUNDTRIP: func.call @grc_cell
// ROUNDTRIP: rvnn.gate
// ROUNDTRIP: rvnn.yield
// ROUNDTRIP: rvnn.unchunk %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<?x128xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
// ROUNDTRIP: rvnn.unchunk %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<?xf32>, tensor<?x?x128xf32>) -> tensor<?x?xf32>
// ROUNDTRIP: rvnn.yield

// COMPILED-NOT: @grc_cell
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.chunk_depth
// COMPILED: rvnn.recurse
// COMPILED: rvnn.chunk
// COMPILED: rvnn.recurse
// COMPILED-NOT: call
// COMPILED: tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<?x128xf32>, tensor<?x128xf32>) -> tensor<?x256xf32>
// COMPILED: rvnn.linear {{.*}} -> tensor<?x512xf32>
// COMPILED: rvnn.layer_norm {{.*}} -> tensor<?x128xf32>
// COMPILED: rvnn.gate {{.*}} : (tensor<?x1xf32>, tensor<?x128xf32>, tensor<?x128xf32>) -> tensor<?x128xf32>
// COMPILED: rvnn.yield
// COMPILED: rvnn.unchunk
// COMPILED: rvnn.yield
// COMPILED: -> tensor<?x10xf32>

// EXEC: rvnn_exec.param @
// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.chunk_depth %{{.*}} {size = 30 : i64}
// EXEC: rvnn_exec.recurse <none>
// The outer body holds the inner loop: the code before it (chunking) and
// after it (unchunking) runs as calls of compiler-derived functions, the
// inner body (one GRC step) as one call; the masks get no cotangent.
// EXEC: rvnn_exec.call @[[PRE:forward_body_part_[0-9]+]]({{.*}}) forward @[[PRE]]_fwd backward @[[PRE]]_bwd grad_inputs [0] :
// EXEC: rvnn_exec.recurse <none>
// EXEC: rvnn_exec.call @forward_body({{.*}}) forward @forward_body_fwd backward @forward_body_bwd grad_inputs
// EXEC: rvnn_exec.call @[[POST:forward_body_part]]({{.*}}) forward @[[POST]]_fwd backward @[[POST]]_bwd grad_inputs [0] :
// EXEC: rvnn_exec.return
// EXEC: rvnn_exec.func @[[PRE]](
// EXEC: rvnn_exec.chunk
// EXEC: rvnn_exec.func @[[POST]](
// EXEC: rvnn_exec.unchunk
// EXEC: rvnn_exec.func @forward_body(
// EXEC: rvnn_exec.func @forward_body_fwd(
// EXEC: rvnn_exec.func @forward_body_bwd(
