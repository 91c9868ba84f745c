// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/rir_ebt_grc.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The compile pipeline inlines the inner EBT-GRC (@beam_tree, twice), the
// chunk beam scores and the GRC cell.
// RUN: rvnn-opt %models/rir_ebt_grc.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/rir_ebt_grc.mlir --rvnn-compile=library=%models/cells.mlir 2>/dev/null | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @score_w1 : tensor<64x128xf32> init xavier_uniform
// ROUNDTRIP: func.func private @grc_cell
// ROUNDTRIP-LABEL: func.func private @beam_tree
// ROUNDTRIP: rvnn.recurse
// ROUNDTRIP: rvnn.topk %{{.*}}, %{{.*}} {gumbel = true, k = 7 : i64}
// ROUNDTRIP: rvnn.topk %{{.*}}, %{{.*}} {gumbel = true, k = 7 : i64}
// ROUNDTRIP: rvnn.beam_gather %{{.*}}, %{{.*}} {factor = 7 : i64}
// ROUNDTRIP: rvnn.pair_merge
// ROUNDTRIP-LABEL: func.func private @chunk_beams
// ROUNDTRIP: linalg.matvec
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP: %[[LEVELS:.*]] = rvnn.chunk_depth %{{.*}} {size = 30 : i64}
// ROUNDTRIP: %[[LEVELS1:.*]] = arith.subi %[[LEVELS]], %{{.*}}
// ROUNDTRIP: %[[RIRLEVELS:.*]] = arith.maxsi %[[LEVELS1]], %{{.*}}
// ROUNDTRIP: %[[RIR:.*]] = rvnn.eval_option "rir_inference" {evaluation = 0 : i64, training = 1 : i64}
// ROUNDTRIP: %[[ALIGNED:.*]] = arith.muli %[[RIRLEVELS]], %[[RIR]]
// ROUNDTRIP: rvnn.recurse ({{.*}}) : {{.*}} halting <none> max_steps %[[ALIGNED]]
// ROUNDTRIP: rvnn.chunk %{{.*}}, %{{.*}} {dim = 2 : i64, size = 30 : i64} : (tensor<?x?x?x128xf32>, tensor<?x?xf32>)
// ROUNDTRIP: rvnn.chunk %{{.*}}, %{{.*}} {dim = 2 : i64, size = 30 : i64} : (tensor<?x?x?xf32>, tensor<?x?xf32>)
// ROUNDTRIP: call @chunk_beams
// ROUNDTRIP: call @beam_tree
// ROUNDTRIP: %[[DRAWN:.*]] = rvnn.beam_align
// ROUNDTRIP: rvnn.beam_gather %{{.*}}, %[[DRAWN]]
// ROUNDTRIP: rvnn.unchunk %{{.*}}, %{{.*}} {dim = 2 : i64} : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x?x?x128xf32>
// ROUNDTRIP: rvnn.yield
// ROUNDTRIP: call @chunk_beams
// ROUNDTRIP: call @beam_tree
// ROUNDTRIP: rvnn.beam_marginalize

// COMPILED-NOT: @grc_cell
// COMPILED-NOT: @beam_tree
// COMPILED-NOT: @chunk_beams
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.chunk_depth
// COMPILED: rvnn.recurse
// COMPILED: rvnn.chunk
// COMPILED: rvnn.recurse
// COMPILED-NOT: call
// COMPILED: rvnn.topk
// COMPILED: rvnn.pair_merge
// COMPILED: rvnn.yield
// COMPILED: rvnn.beam_align
// COMPILED: rvnn.unchunk
// COMPILED: rvnn.yield
// COMPILED: rvnn.recurse
// COMPILED: rvnn.beam_marginalize
// COMPILED: -> tensor<?x10xf32>

// EXEC: rvnn_exec.param @
// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.chunk_depth %{{.*}} {size = 30 : i64}
// EXEC: rvnn_exec.eval_option "rir_inference" {evaluation = 0 : i64, training = 1 : i64}
// The outer (aligned) loop holds the inner one: the code before it
// (chunking) and after it (beam alignment, unchunking) runs as calls of
// compiler-derived functions, the inner bodies (one EBT-GRC step) as one
// call each.
// EXEC: rvnn_exec.recurse <none>
// EXEC: rvnn_exec.call @[[PRE:forward_body_part_[0-9]+]]({{.*}}) forward @[[PRE]]_fwd backward @[[PRE]]_bwd grad_inputs
// EXEC: rvnn_exec.recurse <none>
// EXEC: rvnn_exec.call @forward_body({{.*}}) forward @forward_body_fwd backward @forward_body_bwd grad_inputs
// EXEC: rvnn_exec.call @[[POST:forward_body_part]]({{.*}}) forward @[[POST]]_fwd backward @[[POST]]_bwd grad_inputs
// EXEC: rvnn_exec.recurse <none>
// EXEC: rvnn_exec.call @[[LAST:forward_body_[0-9]+]]({{.*}}) forward @[[LAST]]_fwd backward @[[LAST]]_bwd grad_inputs
// EXEC: rvnn_exec.return
// EXEC: rvnn_exec.func @[[PRE]](
// EXEC: rvnn_exec.chunk
// EXEC: rvnn_exec.func @[[POST]](
// EXEC: rvnn_exec.beam_align
// EXEC: rvnn_exec.beam_gather
// EXEC: rvnn_exec.unchunk
