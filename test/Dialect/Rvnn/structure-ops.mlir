// RUN: rvnn-opt %s -split-input-file | rvnn-opt -split-input-file | FileCheck %s

// Every kind round-trips with the attributes it takes.
// CHECK-LABEL: func.func @expose
func.func @expose(%mask: tensor<?x?xf32>, %sel: tensor<?x5x?xf32>, %greedy: tensor<?x?xf32>, %kept: tensor<?x5xi64>) {
  // CHECK: rvnn.expose_structure <balanced> %{{.*}} {arity = 2 : i64} : tensor<?x?xf32>
  rvnn.expose_structure <balanced> %mask {arity = 2 : i64} : tensor<?x?xf32>
  // CHECK: rvnn.expose_structure <merge_selection> %{{.*}} : tensor<?x5x?xf32>
  rvnn.expose_structure <merge_selection> %sel : tensor<?x5x?xf32>
  // CHECK: rvnn.expose_structure <merge_selection> %{{.*}} : tensor<?x?xf32>
  rvnn.expose_structure <merge_selection> %greedy : tensor<?x?xf32>
  // CHECK: rvnn.expose_structure <beam_parent> %{{.*}} {factor = 5 : i64} : tensor<?x5xi64>
  rvnn.expose_structure <beam_parent> %kept {factor = 5 : i64} : tensor<?x5xi64>
  // CHECK: rvnn.expose_structure <beam_parent> %{{.*}} : tensor<?x5xi64>
  rvnn.expose_structure <beam_parent> %kept : tensor<?x5xi64>
  // CHECK: rvnn.expose_structure <composition> %{{.*}} : tensor<?x?xf32>
  rvnn.expose_structure <composition> %mask : tensor<?x?xf32>
  // CHECK: rvnn.expose_structure <existence> %{{.*}} : tensor<?x?xf32>
  rvnn.expose_structure <existence> %mask : tensor<?x?xf32>
  return
}

// -----

// An exposure is the op's only effect, and canonicalisation and CSE keep
// every one, also of the same value, also inside a loop body.
// RUN: rvnn-opt %s -split-input-file -canonicalize -cse | FileCheck %s --check-prefix=KEPT
// KEPT-LABEL: func.func @kept
// KEPT-COUNT-2: rvnn.expose_structure <composition>
// KEPT: rvnn.recurse
// KEPT: rvnn.expose_structure <existence>
func.func @kept(%c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  rvnn.expose_structure <composition> %c : tensor<?x?xf32>
  rvnn.expose_structure <composition> %c : tensor<?x?xf32>
  %r = rvnn.recurse (%e = %c) : tensor<?x?xf32> halting <fixed> steps = 2 {
  ^bb0(%t: index, %e: tensor<?x?xf32>):
    rvnn.expose_structure <existence> %e : tensor<?x?xf32>
    %next = math.tanh %e : tensor<?x?xf32>
    rvnn.yield %next : tensor<?x?xf32>
  }
  return %r : tensor<?x?xf32>
}
