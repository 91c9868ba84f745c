// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/self_iru.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// rvnn-expand-recursion turns the call of the self-recursive cell at depth
// L = 2 into one specialisation per depth.
// RUN: rvnn-opt %models/self_iru.mlir --rvnn-link-library=path=%models/cells.mlir --rvnn-expand-recursion | FileCheck %s --check-prefix=EXPANDED
// The front end inlines the expanded recursion into straight-line code.
// RUN: rvnn-opt %models/self_iru.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/self_iru.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC
// The linear-base variant: its base transforms and depth gates read x_t
// only and leave the loop.
// RUN: rvnn-opt %models/self_iru_linear.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=LINEAR

// ROUNDTRIP: rvnn.param @embedding : tensor<12x200xf32> init normal(1.000000e+00)
// ROUNDTRIP: rvnn.param @base_ih_w : tensor<7200x200xf32> init uniform
// ROUNDTRIP: rvnn.param @depth_w : tensor<6x200xf32> init uniform
// ROUNDTRIP: func.func private @self_iru_cell(index, index,
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP: %[[L:.*]] = arith.constant 2 : index
// ROUNDTRIP: rvnn.recurse
// ROUNDTRIP: func.call @self_iru_cell(%[[L]], %{{.*}})
// ROUNDTRIP: rvnn.yield

// EXPANDED-NOT: func.func private @self_iru_cell(
// EXPANDED-LABEL: func.func private @self_iru_cell_depth2(
// EXPANDED-SAME: %{{.*}}: index, %{{.*}}: tensor<?x?xf32>, %{{.*}}: tensor<?x?xf32>, %{{.*}}: tensor<?x?xf32>, %{{.*}}: tensor<?x?xf32>)
// EXPANDED-NOT: scf.if
// EXPANDED: call @self_iru_cell_depth1(
// EXPANDED: call @self_iru_cell_depth1(
// EXPANDED-COUNT-2: rvnn.soft_depth_mix
// EXPANDED-LABEL: func.func private @self_iru_cell_depth1(
// EXPANDED: call @self_iru_cell_depth0(
// EXPANDED: call @self_iru_cell_depth0(
// EXPANDED-LABEL: func.func private @self_iru_cell_depth0(
// EXPANDED-NOT: call
// EXPANDED-NOT: soft_depth_mix
// EXPANDED: rvnn.sigmoid
// EXPANDED: rvnn.sigmoid
// EXPANDED: rvnn.relu
// EXPANDED-LABEL: func.func @forward
// EXPANDED: call @self_iru_cell_depth2(

// The input halves of the 9 LSTM base transforms and the 6 depth gates
// read x_t only: one linear each over the whole sequence before the loop.
// In the loop, the 4 leaf instances (one value: same base transforms, same
// inputs) and the gate mixes of the 3 nodes with children: 6
// soft_depth_mix; no call and no scf.if is left.
// COMPILED-NOT: @self_iru_cell
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.linear %{{.*}} : (tensor<?x?x200xf32>, tensor<7200x200xf32>, tensor<7200xf32>) -> tensor<?x?x7200xf32>
// COMPILED: rvnn.linear %{{.*}} : (tensor<?x?x200xf32>, tensor<6x200xf32>, tensor<6xf32>) -> tensor<?x?x6xf32>
// COMPILED: rvnn.recurse
// COMPILED: rvnn.linear %{{.*}} : (tensor<?x200xf32>, tensor<7200x200xf32>, tensor<7200xf32>) -> tensor<?x7200xf32>
// COMPILED-COUNT-6: rvnn.soft_depth_mix %{{.*}} : (tensor<?x1xf32>, tensor<?x200xf32>, tensor<?x200xf32>) -> tensor<?x200xf32>
// COMPILED-NOT: rvnn.soft_depth_mix
// COMPILED: rvnn.yield
// COMPILED-NOT: scf.if
// COMPILED-NOT: call @self_iru
// COMPILED: -> tensor<?x7xf32>

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

// LINEAR-LABEL: func.func @forward
// LINEAR: rvnn.linear %{{.*}} : (tensor<?x?x200xf32>, tensor<1800x200xf32>, tensor<1800xf32>) -> tensor<?x?x1800xf32>
// LINEAR: rvnn.linear %{{.*}} : (tensor<?x?x200xf32>, tensor<6x200xf32>, tensor<6xf32>) -> tensor<?x?x6xf32>
// LINEAR: rvnn.recurse
// LINEAR-NOT: rvnn.linear
// LINEAR-COUNT-6: rvnn.soft_depth_mix
// LINEAR: rvnn.yield
