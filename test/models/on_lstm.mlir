// The model parses, verifies and round-trips.
// RUN: rvnn-opt %models/on_lstm.mlir | rvnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The compile pipeline links and inlines the step cell and the cells it calls
// (the ordered-neurons update) and refines their shapes.
// RUN: rvnn-opt %models/on_lstm.mlir --rvnn-front=library=%models/cells.mlir | FileCheck %s --check-prefix=COMPILED
// The full pipeline leaves only execution-contract ops.
// RUN: rvnn-opt %models/on_lstm.mlir --rvnn-compile=library=%models/cells.mlir | FileCheck %s --check-prefix=EXEC

// ROUNDTRIP: rvnn.param @embedding : tensor<12x128xf32> init normal(1.000000e+00)
// ROUNDTRIP: rvnn.param @ih_w : tensor<1680x128xf32> init uniform
// ROUNDTRIP: rvnn.param @hh_w : tensor<1680x400xf32> init uniform
// ROUNDTRIP: func.func private @on_lstm_step
// ROUNDTRIP-LABEL: func.func @forward
// ROUNDTRIP-SAME: -> tensor<?x7xf32>
// ROUNDTRIP: rvnn.dropout %{{.*}} {rate = 2.000000e-01 : f64}
// ROUNDTRIP: rvnn.recurse (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : tensor<?x400xf32>, tensor<?x400xf32> halting <none> max_steps
// ROUNDTRIP: ^bb0(%[[T:.*]]: index,
// ROUNDTRIP: func.call @on_lstm_step(%{{.*}}, %{{.*}}, %[[T]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// ROUNDTRIP: rvnn.yield

// The input projection reads no state: rvnn-hoist-step-invariant computes it
// for all steps before the loop. The master gates read h_{t-1}: the cumax
// stays in the loop.
// COMPILED-NOT: @ordered_neurons_cell
// COMPILED-NOT: @on_lstm_step
// COMPILED-LABEL: func.func @forward
// COMPILED: rvnn.linear %{{.*}} : (tensor<?x?x128xf32>, tensor<1680x128xf32>, tensor<1680xf32>) -> tensor<?x?x1680xf32>
// COMPILED-NOT: rvnn.cumax
// COMPILED: rvnn.recurse
// COMPILED: tensor.extract_slice {{.*}} : tensor<?x?x1680xf32> to tensor<?x1680xf32>
// COMPILED: rvnn.linear %{{.*}} : (tensor<?x400xf32>, tensor<1680x400xf32>, tensor<1680xf32>) -> tensor<?x1680xf32>
// COMPILED: rvnn.cumax %{{.*}} {dim = 1 : i64} : (tensor<?x40xf32>) -> tensor<?x40xf32>
// COMPILED: math.tanh
// COMPILED: rvnn.yield
// COMPILED-NOT: call
// COMPILED: -> tensor<?x7xf32>

// EXEC: rvnn_exec.param @
// EXEC-LABEL: rvnn_exec.func @forward
// EXEC-NOT: {{ (arith|math|tensor|linalg|func|scf|rvnn)\.}}
// EXEC: rvnn_exec.recurse <none>
// The loop body runs as one call of compiler-derived functions.
// EXEC: rvnn_exec.call @forward_body({{.*}}) forward @forward_body_fwd backward @forward_body_bwd grad_inputs
// EXEC: rvnn_exec.return
// EXEC: rvnn_exec.func @forward_body(
// EXEC: rvnn_exec.cumax
// EXEC: rvnn_exec.func @forward_body_fwd(
// EXEC: rvnn_exec.func @forward_body_bwd(
// EXEC: rvnn_exec.vjp
