// The ListOps version of the model: the same checks as test/models/fasttrees.mlir
// at its sizes (H = 128, n = 16 master gates).
// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/fasttrees_listops.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The front end inlines the step cell (and the ordered-neurons update it
// calls) and finds that the master
// gates read no state: rvnn-hoist-step-invariant computes them for all steps
// before the loop.
// RUN: rvnn-opt %models/fasttrees_listops.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/fasttrees_listops.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @ih_w : tensor<544x128xf32> init uniform
// ROUNDTRIP: rvnn.param @hh_w : tensor<512x128xf32> init uniform
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP: rvnn.recurse
// ROUNDTRIP: func.call @fasttrees_step
// ROUNDTRIP: rvnn.yield

// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.linear %{{.*}} : (tensor<?x?x128xf32>, tensor<544x128xf32>, tensor<544xf32>) -> tensor<?x?x544xf32>
// COMPILED: rvnn.cumax %{{.*}} {dim = 2 : i64} : (tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
// COMPILED: rvnn.cumax %{{.*}} {dim = 2 : i64} : (tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
// COMPILED: tensor.collapse_shape {{.*}} into tensor<?x?x128xf32>
// COMPILED: rvnn.recurse
// COMPILED-NOT: rvnn.cumax
// COMPILED: rvnn.linear %{{.*}} : (tensor<?x128xf32>, tensor<512x128xf32>, tensor<512xf32>) -> tensor<?x512xf32>
// COMPILED-NOT: rvnn.cumax
// COMPILED: rvnn.yield
// COMPILED: -> tensor<?x10xf32>

// The code before the loop (the master gates of every step) is one compiled
// call too.
// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.call @forward_part_0({{.*}}) forward @forward_part_0_fwd backward @forward_part_0_bwd grad_inputs
// EXEC: rvnn_exec.recurse <none>
// EXEC: rvnn_exec.call @forward_body({{.*}}) forward @forward_body_fwd backward @forward_body_bwd grad_inputs
// EXEC: rvnn_exec.return
// EXEC: rvnn_exec.func @forward_part_0(
// EXEC: rvnn_exec.cumax
// EXEC: rvnn_exec.func @forward_body(
// EXEC-NOT: rvnn_exec.cumax
// EXEC: rvnn_exec.func @forward_body_fwd(
