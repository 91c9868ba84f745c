// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/bt_grc_onesoft.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The compile pipeline links and inlines the GRC cell and refines its shapes.
// RUN: rvnn-opt %models/bt_grc_onesoft.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/bt_grc_onesoft.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP-NOT: gumbel
// ROUNDTRIP: rvnn.param @score_w : tensor<1x128xf32> init xavier_uniform
// ROUNDTRIP: rvnn.param @cell_w1 : tensor<512x256xf32> init xavier_uniform
// ROUNDTRIP: func.func private @grc_cell
// ROUNDTRIP-LABEL: func.func @forward
// The leaves' adjacent pairs are composed once, before the loop.
// ROUNDTRIP: call @grc_cell
// ROUNDTRIP: rvnn.recurse ({{.*}}) : tensor<?x?x?x128xf32>, tensor<?x?x?x128xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32> halting <none> max_steps
// Every composed pair of every beam is scored.
// ROUNDTRIP: rvnn.linear %{{.*}} : (tensor<?x?x?x128xf32>, tensor<1x128xf32>) -> tensor<?x?x?x1xf32>
// ROUNDTRIP: call @beam_pair_ranking
// No Gumbel noise in either top-k.
// ROUNDTRIP: rvnn.topk {{.*}} {k = 5 : i64} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> (tensor<?x?x5xf32>, tensor<?x?x5xi64>)
// ROUNDTRIP: call @beam_children
// ROUNDTRIP: rvnn.topk {{.*}} {k = 5 : i64} : (tensor<?x?xf32>, tensor<?x?xf32>) -> (tensor<?x5xf32>, tensor<?x5xi64>)
// The last row of the beam mixing weights: the soft beam in training, the
// 5th child at evaluation.
// ROUNDTRIP: rvnn.masked_softmax {{.*}} {dim = 1 : i64}
// ROUNDTRIP: rvnn.mode_select {{.*}} : tensor<?x1x?xf32>
// ROUNDTRIP: tensor.concat dim(1) {{.*}} : (tensor<?x4x?xf32>, tensor<?x1x?xf32>) -> tensor<?x5x?xf32>
// ROUNDTRIP: rvnn.expose_structure <merge_selection>
// ROUNDTRIP: rvnn.expose_structure <beam_parent>
// The kept beams mix their parents' states and composed pairs.
// ROUNDTRIP: rvnn.linear {{.*}} : (tensor<?x5x?x5xf32>, tensor<1x5xf32>) -> tensor<?x5x?x1xf32>
// ROUNDTRIP: linalg.batch_matmul
// ROUNDTRIP: linalg.batch_matmul
// ROUNDTRIP: rvnn.pair_merge {{.*}} : (tensor<?x5x?x128xf32>, tensor<?x5x?x128xf32>, tensor<?x5x?xf32>) -> tensor<?x5x?x128xf32>
// ROUNDTRIP: rvnn.gate
// One cell call composes the merged node with its two neighbours in every
// beam and every pair of the soft beam (row 4), whose states are mixed.
// ROUNDTRIP: call @beam_merge_neighbours
// ROUNDTRIP: tensor.extract_slice %{{.*}}[0, 4, 0, 0] [%{{.*}}, 1, %{{.*}}, 128] [1, 1, 1, 1] : tensor<?x5x?x128xf32> to tensor<?x1x?x128xf32>
// ROUNDTRIP: tensor.extract_slice %{{.*}}[0, 4, 1, 0] [%{{.*}}, 1, %{{.*}}, 128] [1, 1, 1, 1] : tensor<?x5x?x128xf32> to tensor<?x1x?x128xf32>
// ROUNDTRIP: tensor.concat dim(0) {{.*}} : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
// ROUNDTRIP: tensor.concat dim(0) {{.*}} : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
// ROUNDTRIP: func.call @grc_cell
// The other beams shift their pairs and take the two new ones.
// ROUNDTRIP: call @beam_carried_pairs
// ROUNDTRIP: tensor.concat dim(1) {{.*}} : (tensor<?x4x?x128xf32>, tensor<?x1x?x128xf32>) -> tensor<?x5x?x128xf32>
// ROUNDTRIP: rvnn.yield
// ROUNDTRIP: rvnn.beam_marginalize {{.*}} -> tensor<?x128xf32>

// COMPILED-NOT: @grc_cell
// COMPILED-LABEL: func.func @forward
// COMPILED: tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<?x128xf32>, tensor<?x128xf32>) -> tensor<?x256xf32>
// COMPILED: rvnn.recurse
// COMPILED-NOT: call
// COMPILED: rvnn.linear {{.*}} -> tensor<?x?x?x1xf32>
// COMPILED: rvnn.topk
// COMPILED: rvnn.topk
// COMPILED: rvnn.mode_select
// COMPILED: rvnn.pair_merge
// COMPILED: tensor.concat dim(0) {{.*}} : (tensor<?x128xf32>, tensor<?x128xf32>, tensor<?x128xf32>) -> tensor<?x128xf32>
// COMPILED: tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<?x128xf32>, tensor<?x128xf32>) -> tensor<?x256xf32>
// COMPILED: rvnn.linear {{.*}} -> tensor<?x512xf32>
// COMPILED: rvnn.layer_norm {{.*}} -> tensor<?x128xf32>
// COMPILED: rvnn.yield
// COMPILED: rvnn.beam_marginalize
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
// EXEC: rvnn_exec.mode_select
// EXEC: rvnn_exec.vjp
