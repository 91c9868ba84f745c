// RUN: rvnn-opt %s -rvnn-expand-recursion -split-input-file | FileCheck %s

// A linear self-recursion (depth l adds x to the result at depth l - 1, the
// base case returns x): the call at depth 2 becomes a chain of one
// specialisation per depth, the depth argument a constant that folds the
// base-case test away, and the private recursive original is erased.
// CHECK-NOT: func.func private @stack(
// CHECK-LABEL: func.func private @stack_depth2
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: scf.if
// CHECK: %[[R:.*]] = call @stack_depth1(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[S:.*]] = arith.addf %[[R]], %[[X]]
// CHECK: return %[[S]]
// CHECK-LABEL: func.func private @stack_depth1
// CHECK: call @stack_depth0(
// CHECK-LABEL: func.func private @stack_depth0
// CHECK-SAME: (%[[X0:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: call
// CHECK: return %[[X0]]
// CHECK-LABEL: func.func @caller
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>)
// CHECK: %[[Y:.*]] = call @stack_depth2(%[[A]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: return %[[Y]]
func.func private @stack(%depth: index {rvnn.recursion_depth},
                         %x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %is_base = arith.cmpi eq, %depth, %c0 : index
  %r = scf.if %is_base -> tensor<4xf32> {
    scf.yield %x : tensor<4xf32>
  } else {
    %child = arith.subi %depth, %c1 : index
    %below = func.call @stack(%child, %x)
        : (index, tensor<4xf32>) -> tensor<4xf32>
    %sum = arith.addf %below, %x : tensor<4xf32>
    scf.yield %sum : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

func.func @caller(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c2 = arith.constant 2 : index
  %y = func.call @stack(%c2, %a) : (index, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A binary recursion (Self-IRU's shape: two children per node, numbered in
// heap order) gets one specialisation per depth, shared by both children;
// the node index stays an argument. Two callers at different depths share
// the specialisations below them; each is placed before the original, in
// the order they are first needed. A public recursive function is kept.
// CHECK-LABEL: func.func private @tree_depth1
// CHECK-SAME: (%[[N:.*]]: index, %[[X:.*]]: tensor<4xf32>)
// CHECK: %[[L:.*]] = call @tree_depth0(%{{.*}}, %[[X]])
// CHECK: %[[R:.*]] = call @tree_depth0(%{{.*}}, %[[X]])
// CHECK: arith.mulf %[[L]], %[[R]]
// CHECK-LABEL: func.func private @tree_depth3
// CHECK: call @tree_depth2(
// CHECK: call @tree_depth2(
// CHECK-LABEL: func.func private @tree_depth0
// CHECK-NOT: call
// CHECK: return
// CHECK-LABEL: func.func private @tree_depth2
// CHECK: call @tree_depth1(
// CHECK: call @tree_depth1(
// CHECK-LABEL: func.func @tree(
// CHECK-SAME: {rvnn.recursion_depth}
// CHECK: scf.if
// CHECK-LABEL: func.func @two_callers
// CHECK: %[[Y:.*]] = call @tree_depth1(
// CHECK: call @tree_depth3(%{{.*}}, %[[Y]])
func.func @tree(%depth: index {rvnn.recursion_depth}, %node: index,
                %x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %is_base = arith.cmpi eq, %depth, %c0 : index
  %r = scf.if %is_base -> tensor<4xf32> {
    scf.yield %x : tensor<4xf32>
  } else {
    %child = arith.subi %depth, %c1 : index
    %n2 = arith.muli %node, %c2 : index
    %left_node = arith.addi %n2, %c1 : index
    %right_node = arith.addi %n2, %c2 : index
    %left = func.call @tree(%child, %left_node, %x)
        : (index, index, tensor<4xf32>) -> tensor<4xf32>
    %right = func.call @tree(%child, %right_node, %x)
        : (index, index, tensor<4xf32>) -> tensor<4xf32>
    %prod = arith.mulf %left, %right : tensor<4xf32>
    scf.yield %prod : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

func.func @two_callers(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %y = func.call @tree(%c1, %c0, %a)
      : (index, index, tensor<4xf32>) -> tensor<4xf32>
  %z = func.call @tree(%c3, %c0, %y)
      : (index, index, tensor<4xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

// The call may sit in a recursion body (Self-IRU's recurrence over time);
// depth 0 is the base case alone.
// CHECK-NOT: func.func private @step(
// CHECK-LABEL: func.func private @step_depth0
// CHECK-NOT: call
// CHECK: arith.mulf
// CHECK-LABEL: func.func @scan
// CHECK: rvnn.recurse
// CHECK: call @step_depth0(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: rvnn.yield
func.func private @step(%depth: index {rvnn.recursion_depth},
                        %x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %is_base = arith.cmpi eq, %depth, %c0 : index
  %r = scf.if %is_base -> tensor<4xf32> {
    %sq = arith.mulf %x, %x : tensor<4xf32>
    scf.yield %sq : tensor<4xf32>
  } else {
    %child = arith.subi %depth, %c1 : index
    %below = func.call @step(%child, %x)
        : (index, tensor<4xf32>) -> tensor<4xf32>
    scf.yield %below : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

func.func @scan(%h0: tensor<4xf32>, %s: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %r = rvnn.recurse (%h = %h0) : tensor<4xf32> halting <none> max_steps %s {
  ^bb0(%t: index, %h: tensor<4xf32>):
    %next = func.call @step(%c0, %h) : (index, tensor<4xf32>) -> tensor<4xf32>
    rvnn.yield %next : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Without recursion the pass changes nothing (calls, declarations).
// CHECK-LABEL: func.func private @leaf(index, tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @plain
// CHECK: call @leaf(%{{.*}}, %{{.*}})
func.func private @leaf(index, tensor<4xf32>) -> tensor<4xf32>

func.func @plain(%a: tensor<4xf32>, %i: index) -> tensor<4xf32> {
  %y = func.call @leaf(%i, %a) : (index, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
