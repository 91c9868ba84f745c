// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/bt_grc.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The compile pipeline links and inlines the GRC cell and refines its shapes.
// RUN: rvnn-opt %models/bt_grc.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/bt_grc.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

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
// ROUNDTRIP: rvnn.topk {{.*}} {gumbel = true, k = 5 : i64} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> (tensor<?x?x5xf32>, tensor<?x?x5xi64>)
// ROUNDTRIP: call @beam_children
// ROUNDTRIP: rvnn.topk {{.*}} {gumbel = true, k = 5 : i64} : (tensor<?x?xf32>, tensor<?x?xf32>) -> (tensor<?x5xf32>, tensor<?x5xi64>)
// ROUNDTRIP: rvnn.one_hot
// ROUNDTRIP: rvnn.expose_structure <merge_selection>
// ROUNDTRIP: rvnn.expose_structure <beam_parent>
// The kept beams take their parents' states and composed pairs.
// ROUNDTRIP: rvnn.beam_gather {{.*}} {factor = 5 : i64} : (tensor<?x?x?x128xf32>, tensor<?x5xi64>) -> tensor<?x5x?x128xf32>
// ROUNDTRIP: rvnn.beam_gather {{.*}} {factor = 5 : i64} : (tensor<?x?x?x128xf32>, tensor<?x5xi64>) -> tensor<?x5x?x128xf32>
// ROUNDTRIP: rvnn.pair_merge {{.*}} : (tensor<?x5x?x128xf32>, tensor<?x5x?x128xf32>, tensor<?x5x?xf32>) -> tensor<?x5x?x128xf32>
// ROUNDTRIP: rvnn.gate
// The merged node and its two neighbours make the step's only two new pairs:
// one cell call on 2 rows per beam.
// ROUNDTRIP: call @beam_merge_neighbours
// ROUNDTRIP: tensor.concat dim(0)
// ROUNDTRIP: tensor.concat dim(0)
// ROUNDTRIP: func.call @grc_cell
// ROUNDTRIP: call @beam_carried_pairs
// ROUNDTRIP: rvnn.yield
// ROUNDTRIP: rvnn.beam_marginalize {{.*}} -> tensor<?x128xf32>

// COMPILED-NOT: @grc_cell
// COMPILED-LABEL: func.func @forward
// COMPILED: tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<?x128xf32>, tensor<?x128xf32>) -> tensor<?x256xf32>
// COMPILED: rvnn.recurse
// COMPILED-NOT: call
// COMPILED: rvnn.linear {{.*}} -> tensor<?x?x?x1xf32>
// COMPILED: rvnn.masked_softmax {{.*}} {dim = 2 : i64}
// COMPILED: rvnn.topk
// COMPILED: rvnn.beam_accumulate
// COMPILED: rvnn.topk
// COMPILED: rvnn.pair_merge
// The shared beam cells' sizes come out static again (5 beams, D = 128).
// COMPILED-COUNT-3: linalg.batch_matmul {{.*}} -> tensor<?x1x128xf32>
// COMPILED: tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<?x128xf32>, tensor<?x128xf32>) -> tensor<?x256xf32>
// COMPILED: rvnn.linear {{.*}} -> tensor<?x512xf32>
// COMPILED: rvnn.layer_norm {{.*}} -> tensor<?x128xf32>
// COMPILED: rvnn.pair_merge {{.*}} : (tensor<?x5x?x128xf32>, tensor<?x5x1x128xf32>, tensor<?x5x?xf32>) -> tensor<?x5x?x128xf32>
// COMPILED: rvnn.gate {{.*}} : (tensor<?x5x?x1xf32>, tensor<?x5x?x128xf32>, tensor<?x5x?x128xf32>)
// COMPILED: rvnn.yield
// COMPILED: rvnn.beam_marginalize %{{.*}}, %{{.*}}#2, %{{.*}}#3
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
