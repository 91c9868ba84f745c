// The ListOps version of the model: the same checks as test/models/self_iru.mlir
// at its sizes (D = 128, 9 base transforms of 4·128 LSTM rows).
// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/self_iru_listops.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The front end expands the recursion and inlines it into straight-line code.
// RUN: rvnn-opt %models/self_iru_listops.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/self_iru_listops.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @embedding : tensor<16x128xf32> init normal(1.000000e+00)
// ROUNDTRIP: rvnn.param @base_ih_w : tensor<4608x128xf32> init uniform
// ROUNDTRIP: rvnn.param @depth_w : tensor<6x128xf32> init uniform
// ROUNDTRIP: func.func private @self_iru_cell(index, index,
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP-SAME: -> tensor<?x10xf32>
// ROUNDTRIP: %[[L:.*]] = arith.constant 2 : index
// ROUNDTRIP: rvnn.recurse
// ROUNDTRIP: func.call @self_iru_lstm_base(
// ROUNDTRIP: func.call @self_iru_cell(%[[L]], %{{.*}})
// ROUNDTRIP: rvnn.yield

// The input halves of the 9 LSTM base transforms and the 6 depth gates
// read x_t only: one linear each over the whole sequence before the loop.
// In the loop, the hidden half and the gate mixes of the 3 nodes with
// children: 6 soft_depth_mix; no call and no scf.if is left.
// COMPILED-NOT: @self_iru_cell
// COMPILED-NOT: @self_iru_lstm_base
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.linear %{{.*}} : (tensor<?x?x128xf32>, tensor<4608x128xf32>, tensor<4608xf32>) -> tensor<?x?x4608xf32>
// COMPILED: rvnn.linear %{{.*}} : (tensor<?x?x128xf32>, tensor<6x128xf32>, tensor<6xf32>) -> tensor<?x?x6xf32>
// COMPILED: rvnn.recurse
// COMPILED: rvnn.linear %{{.*}} : (tensor<?x128xf32>, tensor<4608x128xf32>, tensor<4608xf32>) -> tensor<?x4608xf32>
// COMPILED-COUNT-6: rvnn.soft_depth_mix %{{.*}} : (tensor<?x1xf32>, tensor<?x128xf32>, tensor<?x128xf32>) -> tensor<?x128xf32>
// COMPILED-NOT: rvnn.soft_depth_mix
// COMPILED: rvnn.yield
// COMPILED-NOT: scf.if
// COMPILED-NOT: call @self_iru
// COMPILED: -> tensor<?x10xf32>

// EXEC: rvnn_exec.param @
// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.recurse <none>
// The loop body runs as one call of compiler-derived functions.
// EXEC: rvnn_exec.call @forward_body({{.*}}) forward @forward_body_fwd backward @forward_body_bwd grad_inputs
// EXEC: rvnn_exec.return
// EXEC: rvnn_exec.func @forward_body(
// EXEC: rvnn_exec.soft_depth_mix
// EXEC: rvnn_exec.func @forward_body_fwd(
// EXEC: rvnn_exec.func @forward_body_bwd(
// EXEC: rvnn_exec.vjp
