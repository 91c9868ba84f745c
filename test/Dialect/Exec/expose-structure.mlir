// rvnn.expose_structure survives the compile pipeline: it lowers to its
// rvnn_exec mirror, stays in the functions the differentiation derives for
// a loop body and for the code between loops (the plain function and the
// forward the runtime runs when recording gradients, not the backward),
// and reaches the exported plan with its kind and attributes.
// RUN: rvnn-opt %s -rvnn-lower-to-exec | FileCheck %s --check-prefix=LOWERED
// RUN: rvnn-opt %s -rvnn-lower-to-exec | rvnn-opt | FileCheck %s --check-prefix=LOWERED
// RUN: rvnn-opt %s -rvnn-lower-to-exec -rvnn-exec-differentiate | FileCheck %s --check-prefix=DIFF
// RUN: rm -rf %t && rvnn-opt %s --rvnn-compile --rvnn-export-plan=dir=%t > /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/plan.json

// LOWERED-LABEL: rvnn_exec.func @forward
// LOWERED: rvnn_exec.expose_structure <balanced> %{{.*}} {arity = 2 : i64} : tensor<?x?xf32>
// LOWERED: rvnn_exec.recurse
// LOWERED: rvnn_exec.expose_structure <existence> %{{.*}} : tensor<?x4xf32>
// LOWERED: rvnn_exec.yield

// DIFF-LABEL: rvnn_exec.func @forward(
// DIFF-NOT: expose_structure
// DIFF: rvnn_exec.call @forward_part(
// DIFF-NOT: expose_structure
// DIFF: rvnn_exec.call @forward_body(
// DIFF-LABEL: rvnn_exec.func @forward_part(
// DIFF: rvnn_exec.expose_structure <balanced>
// DIFF-LABEL: rvnn_exec.func @forward_part_fwd(
// DIFF: rvnn_exec.expose_structure <balanced>
// DIFF-LABEL: rvnn_exec.func @forward_part_bwd(
// DIFF-NOT: expose_structure
// DIFF-LABEL: rvnn_exec.func @forward_body(
// DIFF: rvnn_exec.expose_structure <existence>
// DIFF-LABEL: rvnn_exec.func @forward_body_fwd(
// DIFF: rvnn_exec.expose_structure <existence>
// DIFF-LABEL: rvnn_exec.func @forward_body_bwd(
// DIFF-NOT: expose_structure

// Each exposure is in two functions (the plain one and its forward).
// RUN: grep -c '"op": "rvnn_exec.expose_structure"' %t/plan.json | FileCheck %s --check-prefix=COUNT
// COUNT: 4
// PLAN-DAG: "arity": 2,
// PLAN-DAG: "kind": "balanced"
// PLAN-DAG: "kind": "existence"

rvnn.param @w : tensor<4x4xf32> init xavier_uniform

func.func @forward(%x: tensor<?x4xf32>, %mask: tensor<?x?xf32>)
    -> tensor<?x4xf32> {
  %w = rvnn.param_get @w : tensor<4x4xf32>
  %x2 = rvnn.linear %x, %w
      : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  rvnn.expose_structure <balanced> %mask {arity = 2 : i64} : tensor<?x?xf32>
  %h = rvnn.recurse (%s = %x2) : tensor<?x4xf32> halting <fixed> steps = 3 {
  ^bb0(%t: index, %s: tensor<?x4xf32>):
    %y = rvnn.linear %s, %w
        : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    %z = math.tanh %y : tensor<?x4xf32>
    rvnn.expose_structure <existence> %z : tensor<?x4xf32>
    rvnn.yield %z : tensor<?x4xf32>
  }
  return %h : tensor<?x4xf32>
}
