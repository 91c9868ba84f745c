// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/rir_ebt_grc_logic.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The compile pipeline links and inlines the S4D layer's two parts (no S4D
// dropout for logical inference), the inner EBT-GRC and the GRC cell.
// RUN: rvnn-opt %models/rir_ebt_grc_logic.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/rir_ebt_grc_logic.mlir --rvnn-compile=library=%models/cells.mlir 2>/dev/null | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @embedding : tensor<12x200xf32> init normal(1.000000e+00)
// ROUNDTRIP: rvnn.param @s4d_f_a_im_offset : tensor<200x32xf32> init zeros
// ROUNDTRIP: rvnn.param @s4d_glu_w : tensor<400x400xf32> init xavier_uniform
// ROUNDTRIP: rvnn.param @score_w1 : tensor<64x128xf32> init xavier_uniform
// ROUNDTRIP: rvnn.param @cell_w1 : tensor<800x400xf32> init xavier_uniform
// ROUNDTRIP: rvnn.param @head_w1 : tensor<200x800xf32> init xavier_uniform
// ROUNDTRIP: func.func private @s4d_branches
// ROUNDTRIP: func.func private @s4d_glu
// ROUNDTRIP-LABEL: func.func private @beam_tree
// ROUNDTRIP: rvnn.topk %{{.*}}, %{{.*}} {gumbel = true, k = 7 : i64}
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP-SAME: -> tensor<?x7xf32>
// ROUNDTRIP: arith.maxsi
// ROUNDTRIP: tensor.concat dim(0) {{.*}} -> tensor<?x?xi64>
// ROUNDTRIP: rvnn.dropout %{{.*}} {rate = 4.000000e-01 : f64}
// ROUNDTRIP: %[[Y:.*]]:2 = call @s4d_branches
// ROUNDTRIP-NEXT: call @s4d_glu(%[[Y]]#0, %[[Y]]#1,
// ROUNDTRIP: rvnn.chunk_depth %{{.*}} {size = 30 : i64}
// ROUNDTRIP: rvnn.eval_option "rir_inference" {evaluation = 0 : i64, training = 1 : i64}
// ROUNDTRIP: rvnn.beam_align
// ROUNDTRIP: rvnn.beam_marginalize
// ROUNDTRIP: math.absf
// ROUNDTRIP: tensor.concat dim(1) {{.*}} -> tensor<?x800xf32>

// COMPILED-NOT: @s4d_branches
// COMPILED-NOT: @beam_tree
// COMPILED-LABEL: func.func @forward
// COMPILED-NOT: call
// COMPILED: rvnn.dropout %{{.*}} {rate = 4.000000e-01 : f64} : tensor<?x?x200xf32>
// COMPILED: rvnn.diagonal_scan {{.*}} : (tensor<?x?x200xf32>, tensor<200x32xf32>, {{.*}}) -> tensor<?x?x200xf32>
// COMPILED: rvnn.diagonal_scan {{.*}} {reverse = true} : (tensor<?x?x200xf32>, tensor<200x32xf32>, {{.*}}) -> tensor<?x?x200xf32>
// COMPILED: rvnn.gelu
// COMPILED-NEXT: rvnn.gelu
// COMPILED-NOT: rvnn.dropout
// COMPILED: rvnn.linear {{.*}} -> tensor<?x?x400xf32>
// COMPILED: rvnn.chunk_depth
// COMPILED: rvnn.beam_align
// COMPILED: rvnn.beam_marginalize
// COMPILED: math.absf
// COMPILED: -> tensor<?x7xf32>

// EXEC: rvnn_exec.param @
// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.chunk_depth %{{.*}} {size = 30 : i64}
// EXEC: rvnn_exec.eval_option "rir_inference"
// The outer body's code after the inner loop (beam alignment, unchunking)
// is a call with a compiler-derived backward.
// EXEC: rvnn_exec.call @forward_body_part({{.*}}) forward @forward_body_part_fwd backward @forward_body_part_bwd
// EXEC: rvnn_exec.return
// EXEC: rvnn_exec.diagonal_scan
// EXEC: rvnn_exec.diagonal_scan {{.*}} {reverse = true}
