// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/conv_fasttrees.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The causal convolution and the position-wise layer run over the sequence
// before the loop as written; rvnn-hoist-step-invariant adds the master
// gates' cumax and chunk expansion and the input projection.
// RUN: rvnn-opt %models/conv_fasttrees.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/conv_fasttrees.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @conv_w : tensor<128x384xf32> init uniform
// ROUNDTRIP: rvnn.param @master_w : tensor<80x128xf32> init uniform
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP: call @causal_conv_master
// ROUNDTRIP: rvnn.recurse
// ROUNDTRIP: func.call @conv_fasttrees_step
// ROUNDTRIP: rvnn.yield

// COMPILED-LABEL: func.func @forward
// COMPILED: tensor.concat dim(2) {{.*}} -> tensor<?x?x384xf32>
// COMPILED: rvnn.linear {{.*}} -> tensor<?x?x128xf32>
// COMPILED: rvnn.linear {{.*}} -> tensor<?x?x80xf32>
// COMPILED: rvnn.linear {{.*}} -> tensor<?x?x1600xf32>
// COMPILED: rvnn.cumax %{{.*}} {dim = 2 : i64}
// COMPILED: rvnn.recurse
// COMPILED-NOT: rvnn.cumax
// COMPILED: rvnn.linear %{{.*}} : (tensor<?x400xf32>, tensor<1600x400xf32>, tensor<1600xf32>) -> tensor<?x1600xf32>
// COMPILED-NOT: rvnn.cumax
// COMPILED: rvnn.yield

// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.recurse <none>
// EXEC: rvnn_exec.return
// EXEC: rvnn_exec.func @forward_body(
// EXEC-NOT: rvnn_exec.cumax
// EXEC: rvnn_exec.func @forward_body_fwd(
