// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/ebt_grc.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The compile pipeline links and inlines the GRC cell and refines its shapes.
// RUN: rvnn-opt %models/ebt_grc.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/ebt_grc.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @score_w1 : tensor<64x128xf32> init xavier_uniform
// ROUNDTRIP: rvnn.param @score_w2 : tensor<1x64xf32> init xavier_uniform
// ROUNDTRIP: rvnn.param @cell_w1 : tensor<512x256xf32> init xavier_uniform
// ROUNDTRIP: func.func private @grc_cell
// ROUNDTRIP-LABEL: func.func @forward
// The leaves' scorer projections [W_l; W_r]·h[:ds], made before the loop.
// ROUNDTRIP: tensor.concat dim(0) {{.*}} -> tensor<128x64xf32>
// ROUNDTRIP: rvnn.linear {{.*}} : (tensor<?x1x?x64xf32>, tensor<128x64xf32>) -> tensor<?x1x?x128xf32>
// ROUNDTRIP: rvnn.recurse ({{.*}}) : tensor<?x?x?x128xf32>, tensor<?x?x?x128xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32> halting <none> max_steps
// A pair's first scorer layer adds its children's projections: no product.
// ROUNDTRIP: tensor.extract_slice {{.*}} to tensor<?x?x?x64xf32>
// ROUNDTRIP: tensor.extract_slice {{.*}} to tensor<?x?x?x64xf32>
// ROUNDTRIP-NEXT: arith.addf {{.*}} : tensor<?x?x?x64xf32>
// ROUNDTRIP: call @beam_pair_ranking
// ROUNDTRIP: rvnn.topk {{.*}} {gumbel = true, k = 5 : i64} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> (tensor<?x?x5xf32>, tensor<?x?x5xi64>)
// ROUNDTRIP: call @beam_children
// ROUNDTRIP: rvnn.topk {{.*}} {gumbel = true, k = 5 : i64} : (tensor<?x?xf32>, tensor<?x?xf32>) -> (tensor<?x5xf32>, tensor<?x5xi64>)
// ROUNDTRIP: rvnn.beam_expand {{.*}} {factor = 5 : i64}
// ROUNDTRIP: rvnn.one_hot
// ROUNDTRIP: linalg.batch_matmul
// ROUNDTRIP: func.call @grc_cell
// ROUNDTRIP: rvnn.pair_merge {{.*}} : (tensor<?x5x?x128xf32>, tensor<?x5x1x128xf32>, tensor<?x5x?xf32>) -> tensor<?x5x?x128xf32>
// ROUNDTRIP: rvnn.gate
// The merged node's projections follow it into the kept beams.
// ROUNDTRIP: rvnn.linear {{.*}} : (tensor<?x5x1x64xf32>, tensor<128x64xf32>) -> tensor<?x5x1x128xf32>
// ROUNDTRIP: rvnn.beam_gather
// ROUNDTRIP: rvnn.pair_merge {{.*}} : (tensor<?x5x?x128xf32>, tensor<?x5x1x128xf32>, tensor<?x5x?xf32>) -> tensor<?x5x?x128xf32>
// ROUNDTRIP: rvnn.gate
// ROUNDTRIP: rvnn.yield
// ROUNDTRIP: rvnn.beam_marginalize {{.*}} -> tensor<?x128xf32>

// COMPILED-NOT: @grc_cell
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.recurse
// COMPILED-NOT: call
// COMPILED: rvnn.topk
// The pruned beams are gathered from their parents, not from a 5x copy.
// COMPILED-NOT: rvnn.beam_expand
// COMPILED: rvnn.beam_gather {{.*}} {factor = 5 : i64} : (tensor<?x?x?x128xf32>, tensor<?x5xi64>)
// COMPILED: linalg.batch_matmul {{.*}} -> tensor<?x1x128xf32>
// COMPILED: tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<?x128xf32>, tensor<?x128xf32>) -> tensor<?x256xf32>
// COMPILED: rvnn.linear {{.*}} -> tensor<?x512xf32>
// COMPILED: tensor.extract_slice {{.*}} to tensor<?x128xf32>
// COMPILED: rvnn.layer_norm {{.*}} -> tensor<?x128xf32>
// COMPILED: rvnn.pair_merge
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
// EXEC: rvnn_exec.vjp
