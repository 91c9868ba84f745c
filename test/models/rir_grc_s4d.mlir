// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/rir_grc_s4d.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The compile pipeline links and inlines the S4D layer: the discretisation
// is elementwise, the two blocks are diagonal scans, one reversed.
// RUN: rvnn-opt %models/rir_grc_s4d.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/rir_grc_s4d.mlir --rvnn-compile=library=%models/cells.mlir 2>/dev/null | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @s4d_f_log_dt_centred : tensor<128xf32> init uniform(2.30258509299404{{[0-9]*}})
// ROUNDTRIP: rvnn.param @s4d_f_a_im_offset : tensor<128x32xf32> init zeros
// ROUNDTRIP: func.func private @s4d_layer
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP: call @s4d_layer
// ROUNDTRIP: rvnn.chunk_depth %{{.*}} {size = 30 : i64}

// COMPILED-NOT: @s4d_layer
// COMPILED-LABEL: func.func @forward
// COMPILED-NOT: call
// COMPILED: rvnn.diagonal_scan {{.*}} : (tensor<?x?x128xf32>, tensor<128x32xf32>, {{.*}}) -> tensor<?x?x128xf32>
// COMPILED: rvnn.diagonal_scan {{.*}} {reverse = true} : (tensor<?x?x128xf32>, tensor<128x32xf32>, {{.*}}) -> tensor<?x?x128xf32>
// COMPILED: rvnn.linear {{.*}} -> tensor<?x?x256xf32>
// COMPILED: rvnn.chunk_depth
// COMPILED: rvnn.recurse

// EXEC: rvnn_exec.param @
// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.call @[[LEAVES:forward_part_[0-9]+]]({{.*}}) forward @[[LEAVES]]_fwd backward @[[LEAVES]]_bwd
// EXEC: rvnn_exec.recurse <none>
// EXEC: rvnn_exec.return
// The layer before the loop is differentiated by the compiler: each scan's
// backward is a vjp (the runtime's reverse-scan rule), the mask no input.
// EXEC: rvnn_exec.func @[[LEAVES]](
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.diagonal_scan
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.diagonal_scan {{.*}} {reverse = true}
// EXEC: rvnn_exec.func @[[LEAVES]]_bwd(
// EXEC: rvnn_exec.vjp({{.*}}) cotangents({{.*}}) grad_inputs [0, 1, 2, 3, 4, 5, 6]
// EXEC-NEXT: ^bb0
// EXEC-NEXT: rvnn_exec.diagonal_scan {{.*}} {reverse = true}
// EXEC: rvnn_exec.vjp({{.*}}) cotangents({{.*}}) grad_inputs [0, 1, 2, 3, 4, 5, 6]
// EXEC-NEXT: ^bb0
// EXEC-NEXT: rvnn_exec.diagonal_scan
