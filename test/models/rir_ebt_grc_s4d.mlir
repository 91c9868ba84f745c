// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/rir_ebt_grc_s4d.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The compile pipeline links and inlines the S4D layer (two diagonal scans,
// one reversed, then the S4D dropout and the GLU projection), the inner
// EBT-GRC and the GRC cell; the RIR levels follow the leaves.
// RUN: rvnn-opt %models/rir_ebt_grc_s4d.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/rir_ebt_grc_s4d.mlir --rvnn-compile=library=%models/cells.mlir 2>/dev/null | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @s4d_f_log_dt_centred : tensor<128xf32> init uniform(2.30258509299404{{[0-9]*}})
// ROUNDTRIP: rvnn.param @s4d_b_a_im_offset : tensor<128x32xf32> init zeros
// ROUNDTRIP: rvnn.param @s4d_glu_w : tensor<256x256xf32> init xavier_uniform
// ROUNDTRIP: rvnn.param @score_w1 : tensor<64x128xf32> init xavier_uniform
// ROUNDTRIP: func.func private @s4d_layer
// ROUNDTRIP-LABEL: func.func private @beam_tree
// ROUNDTRIP: rvnn.topk %{{.*}}, %{{.*}} {gumbel = true, k = 7 : i64}
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP: rvnn.dropout %{{.*}} {rate = 1.000000e-01 : f64}
// ROUNDTRIP: call @s4d_layer
// ROUNDTRIP: rvnn.linear
// ROUNDTRIP: rvnn.chunk_depth %{{.*}} {size = 30 : i64}
// ROUNDTRIP: rvnn.eval_option "rir_inference" {evaluation = 0 : i64, training = 1 : i64}
// ROUNDTRIP: call @beam_tree
// ROUNDTRIP: rvnn.beam_align
// ROUNDTRIP: call @beam_tree
// ROUNDTRIP: rvnn.beam_marginalize

// COMPILED-NOT: @s4d_layer
// COMPILED-NOT: @beam_tree
// COMPILED-LABEL: func.func @forward
// COMPILED-NOT: call
// COMPILED: rvnn.diagonal_scan {{.*}} : (tensor<?x?x128xf32>, tensor<128x32xf32>, {{.*}}) -> tensor<?x?x128xf32>
// COMPILED: rvnn.diagonal_scan {{.*}} {reverse = true} : (tensor<?x?x128xf32>, tensor<128x32xf32>, {{.*}}) -> tensor<?x?x128xf32>
// COMPILED: rvnn.dropout %{{.*}} {rate = 1.000000e-01 : f64} : tensor<?x?x128xf32>
// COMPILED: rvnn.dropout %{{.*}} {rate = 1.000000e-01 : f64} : tensor<?x?x128xf32>
// COMPILED: rvnn.linear {{.*}} -> tensor<?x?x256xf32>
// COMPILED: rvnn.chunk_depth
// COMPILED: rvnn.recurse
// COMPILED: rvnn.topk
// COMPILED: rvnn.beam_align
// COMPILED: rvnn.recurse
// COMPILED: rvnn.beam_marginalize
// COMPILED: -> tensor<?x10xf32>

// EXEC: rvnn_exec.param @
// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// The leaves (embedding to LN, the S4D layer inside) are one call with a
// compiler-derived backward.
// EXEC: rvnn_exec.call @[[LEAVES:forward_part_[0-9]+]]({{.*}}) forward @[[LEAVES]]_fwd backward @[[LEAVES]]_bwd
// EXEC: rvnn_exec.chunk_depth %{{.*}} {size = 30 : i64}
// EXEC: rvnn_exec.eval_option "rir_inference"
// EXEC: rvnn_exec.recurse <none>
// The outer body's code after the inner loop (beam alignment, unchunking)
// is a call with a compiler-derived backward.
// EXEC: rvnn_exec.call @forward_body_part({{.*}}) forward @forward_body_part_fwd backward @forward_body_part_bwd
// EXEC: rvnn_exec.return
// EXEC: rvnn_exec.func @[[LEAVES]](
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.diagonal_scan
// EXEC: rvnn_exec.diagonal_scan {{.*}} {reverse = true}
