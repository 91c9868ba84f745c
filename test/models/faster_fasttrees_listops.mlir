// The ListOps version of the model: the same checks as test/models/faster_fasttrees.mlir
// at its sizes (H = 128, n = 16 master gates).
// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/faster_fasttrees_listops.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// No gate reads the state: rvnn-hoist-step-invariant computes every gate
// for all steps before the loop, which keeps only the cell update.
// RUN: rvnn-opt %models/faster_fasttrees_listops.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/faster_fasttrees_listops.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP-NOT: @hh_w
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP: rvnn.recurse
// ROUNDTRIP: func.call @faster_fasttrees_step
// ROUNDTRIP: rvnn.yield

// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.linear %{{.*}} -> tensor<?x?x544xf32>
// COMPILED: rvnn.cumax %{{.*}} {dim = 2 : i64}
// COMPILED: rvnn.sigmoid %{{.*}} : tensor<?x?x128xf32>
// COMPILED: math.tanh %{{.*}} : tensor<?x?x128xf32>
// COMPILED: rvnn.recurse
// COMPILED-NOT: rvnn.linear
// COMPILED-NOT: rvnn.sigmoid
// COMPILED: arith.mulf %{{.*}}, %{{.*}} : tensor<?x128xf32>
// COMPILED: math.tanh %{{.*}} : tensor<?x128xf32>
// COMPILED: rvnn.yield

// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.recurse <none>
// EXEC: rvnn_exec.return
// EXEC: rvnn_exec.func @forward_body(
// EXEC-NOT: rvnn_exec.gemm
// EXEC: rvnn_exec.func @forward_body_fwd(
