// RUN: rvnn-opt %s -rvnn-hoist-step-invariant -split-input-file | FileCheck %s

// FastTrees' master gate: the input projection and the cumax read x_t only,
// so they run once over all steps before the loop; the hidden-to-hidden
// linear reads the state and stays.
// CHECK-LABEL: func.func @master_gate
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x8xf32>, %[[N:.*]]: index, %[[S:.*]]: index,
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[LEN:.*]] = tensor.dim %[[X]], %[[C1]]
// CHECK: %[[XS:.*]] = tensor.extract_slice %[[X]][0, 0, 0] [%[[N]], %[[LEN]], 8] [1, 1, 1] : tensor<?x?x8xf32> to tensor<?x?x8xf32>
// CHECK: %[[G:.*]] = rvnn.linear %[[XS]], %{{.*}}, %{{.*}} : (tensor<?x?x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<?x?x4xf32>
// CHECK: %[[F:.*]] = rvnn.cumax %[[G]] {dim = 2 : i64} : (tensor<?x?x4xf32>) -> tensor<?x?x4xf32>
// CHECK: rvnn.recurse
// CHECK-NEXT: ^bb0(%[[T:.*]]: index, %[[H:.*]]: tensor<?x4xf32>):
// CHECK-NEXT: %[[FT:.*]] = tensor.extract_slice %[[F]][0, %[[T]], 0] [%{{.*}}, 1, 4] [1, 1, 1] : tensor<?x?x4xf32> to tensor<?x4xf32>
// CHECK-NEXT: %[[U:.*]] = rvnn.linear %[[H]]
// CHECK-NEXT: %[[NEW:.*]] = arith.mulf %[[FT]], %[[U]]
// CHECK-NEXT: rvnn.yield %[[NEW]]
func.func @master_gate(%x: tensor<?x?x8xf32>, %n: index, %s: index,
                       %w: tensor<4x8xf32>, %b: tensor<4xf32>,
                       %u: tensor<4x4xf32>, %h0: tensor<?x4xf32>)
    -> tensor<?x4xf32> {
  %r = rvnn.recurse (%h = %h0) : tensor<?x4xf32> halting <none> max_steps %s {
  ^bb0(%t: index, %h: tensor<?x4xf32>):
    %xt = tensor.extract_slice %x[0, %t, 0] [%n, 1, 8] [1, 1, 1]
        : tensor<?x?x8xf32> to tensor<?x8xf32>
    %g = rvnn.linear %xt, %w, %b
        : (tensor<?x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    %f = rvnn.cumax %g {dim = 1 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
    %hu = rvnn.linear %h, %u : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    %next = arith.mulf %f, %hu : tensor<?x4xf32>
    rvnn.yield %next : tensor<?x4xf32>
  }
  return %r : tensor<?x4xf32>
}

// -----

// ON-LSTM: the master gates add a state term, so only the input projection
// leaves the loop; the loop reads its step t, and the cumax stays.
// CHECK-LABEL: func.func @input_projection
// CHECK: %[[G:.*]] = rvnn.linear %{{.*}} -> tensor<?x?x4xf32>
// CHECK-NOT: rvnn.cumax
// CHECK: rvnn.recurse
// CHECK: %[[GT:.*]] = tensor.extract_slice %[[G]][0, %{{.*}}, 0] [%{{.*}}, 1, 4] [1, 1, 1] : tensor<?x?x4xf32> to tensor<?x4xf32>
// CHECK: %[[HU:.*]] = rvnn.linear
// CHECK: %[[SUM:.*]] = arith.addf %[[GT]], %[[HU]]
// CHECK: rvnn.cumax %[[SUM]] {dim = 1 : i64}
func.func @input_projection(%x: tensor<?x?x8xf32>, %n: index, %s: index,
                            %w: tensor<4x8xf32>, %u: tensor<4x4xf32>,
                            %h0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = rvnn.recurse (%h = %h0) : tensor<?x4xf32> halting <none> max_steps %s {
  ^bb0(%t: index, %h: tensor<?x4xf32>):
    %xt = tensor.extract_slice %x[0, %t, 0] [%n, 1, 8] [1, 1, 1]
        : tensor<?x?x8xf32> to tensor<?x8xf32>
    %g = rvnn.linear %xt, %w : (tensor<?x8xf32>, tensor<4x8xf32>) -> tensor<?x4xf32>
    %hu = rvnn.linear %h, %u : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    %sum = arith.addf %g, %hu : tensor<?x4xf32>
    %f = rvnn.cumax %sum {dim = 1 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
    rvnn.yield %f : tensor<?x4xf32>
  }
  return %r : tensor<?x4xf32>
}

// -----

// Master gates repeated over chunks (models/cells.mlir): the expand, the
// broadcast to an invariant per-step shape and the collapse batch with the
// step dim as a group of its own; the loop-invariant shape moves out.
// CHECK-LABEL: func.func @chunk_expansion
// CHECK: %[[F:.*]] = rvnn.cumax %{{.*}} {dim = 2 : i64} : (tensor<?x?x2xf32>) -> tensor<?x?x2xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[F]] {{\[\[}}0], [1], [2, 3]] output_shape [%{{.*}}, %{{.*}}, 2, 1] : tensor<?x?x2xf32> into tensor<?x?x2x1xf32>
// CHECK: %[[B:.*]] = rvnn.broadcast_like %[[E]], %{{.*}} : (tensor<?x?x2x1xf32>, tensor<?x?x2x3xf32>) -> tensor<?x?x2x3xf32>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[B]] {{\[\[}}0], [1], [2, 3]] : tensor<?x?x2x3xf32> into tensor<?x?x6xf32>
// CHECK: rvnn.recurse
// CHECK-NEXT: ^bb0(%[[T:.*]]: index, %[[H:.*]]: tensor<?x6xf32>):
// CHECK-NEXT: %[[CT:.*]] = tensor.extract_slice %[[C]][0, %[[T]], 0] [%{{.*}}, 1, 6] [1, 1, 1] : tensor<?x?x6xf32> to tensor<?x6xf32>
// CHECK-NEXT: arith.mulf %[[CT]], %[[H]]
func.func @chunk_expansion(%x: tensor<?x?x2xf32>, %n: index, %s: index,
                           %h0: tensor<?x6xf32>) -> tensor<?x6xf32> {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %r = rvnn.recurse (%h = %h0) : tensor<?x6xf32> halting <none> max_steps %s {
  ^bb0(%t: index, %h: tensor<?x6xf32>):
    %xt = tensor.extract_slice %x[0, %t, 0] [%n, 1, 2] [1, 1, 1]
        : tensor<?x?x2xf32> to tensor<?x2xf32>
    %f = rvnn.cumax %xt {dim = 1 : i64} : (tensor<?x2xf32>) -> tensor<?x2xf32>
    %shape = tensor.empty(%n) : tensor<?x2x3xf32>
    %f3 = tensor.expand_shape %f [[0], [1, 2]] output_shape [%n, 2, 1]
        : tensor<?x2xf32> into tensor<?x2x1xf32>
    %fb = rvnn.broadcast_like %f3, %shape
        : (tensor<?x2x1xf32>, tensor<?x2x3xf32>) -> tensor<?x2x3xf32>
    %fm = tensor.collapse_shape %fb [[0], [1, 2]]
        : tensor<?x2x3xf32> into tensor<?x6xf32>
    %next = arith.mulf %fm, %h : tensor<?x6xf32>
    rvnn.yield %next : tensor<?x6xf32>
  }
  return %r : tensor<?x6xf32>
}

// -----

// What cannot leave: a dropout (it draws random numbers) and everything after
// it, and a softmax along the step dim of a slice that keeps that dim. A
// slice with no batched user stays as written.
// CHECK-LABEL: func.func @stays
// CHECK-NOT: tensor.extract_slice
// CHECK: rvnn.recurse
// CHECK: tensor.extract_slice %{{.*}}[0, %{{.*}}, 0] [%{{.*}}, 1, 4] [1, 1, 1] : tensor<?x?x4xf32> to tensor<?x4xf32>
// CHECK-NEXT: rvnn.dropout
// CHECK-NEXT: rvnn.sigmoid
// CHECK-NEXT: tensor.extract_slice %{{.*}}[0, %{{.*}}, 0] [%{{.*}}, 1, 4] [1, 1, 1] : tensor<?x?x4xf32> to tensor<?x1x4xf32>
// CHECK-NEXT: rvnn.softmax %{{.*}} {dim = 1 : i64}
func.func @stays(%x: tensor<?x?x4xf32>, %n: index, %s: index,
                 %h0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = rvnn.recurse (%h = %h0) : tensor<?x4xf32> halting <none> max_steps %s {
  ^bb0(%t: index, %h: tensor<?x4xf32>):
    %xt = tensor.extract_slice %x[0, %t, 0] [%n, 1, 4] [1, 1, 1]
        : tensor<?x?x4xf32> to tensor<?x4xf32>
    %d = rvnn.dropout %xt {rate = 1.000000e-01 : f64} : tensor<?x4xf32>
    %g = rvnn.sigmoid %d : tensor<?x4xf32>
    %x3 = tensor.extract_slice %x[0, %t, 0] [%n, 1, 4] [1, 1, 1]
        : tensor<?x?x4xf32> to tensor<?x1x4xf32>
    %p = rvnn.softmax %x3 {dim = 1 : i64} : tensor<?x1x4xf32>
    %p2 = tensor.collapse_shape %p [[0, 1], [2]]
        : tensor<?x1x4xf32> into tensor<?x4xf32>
    %a = arith.mulf %g, %h : tensor<?x4xf32>
    %next = arith.addf %a, %p2 : tensor<?x4xf32>
    rvnn.yield %next : tensor<?x4xf32>
  }
  return %r : tensor<?x4xf32>
}

// -----

// Loop-invariant code moves out; a slice at a value other than the step
// counter is not a step slice.
// CHECK-LABEL: func.func @invariant
// CHECK: %[[SW:.*]] = rvnn.sigmoid %{{.*}} : tensor<4xf32>
// CHECK: rvnn.recurse
// CHECK: tensor.extract_slice %{{.*}}[0, %{{.*}}, 0] [%{{.*}}, 1, 4] [1, 1, 1]
// CHECK-NEXT: math.tanh
// CHECK-NOT: rvnn.sigmoid
// CHECK: rvnn.yield
func.func @invariant(%x: tensor<?x?x4xf32>, %n: index, %s: index,
                     %w: tensor<4xf32>, %h0: tensor<?x4xf32>)
    -> tensor<?x4xf32> {
  %c1 = arith.constant 1 : index
  %r = rvnn.recurse (%h = %h0) : tensor<?x4xf32> halting <none> max_steps %s {
  ^bb0(%t: index, %h: tensor<?x4xf32>):
    %sw = rvnn.sigmoid %w : tensor<4xf32>
    %next_t = arith.addi %t, %c1 : index
    %xt = tensor.extract_slice %x[0, %next_t, 0] [%n, 1, 4] [1, 1, 1]
        : tensor<?x?x4xf32> to tensor<?x4xf32>
    %a = math.tanh %xt : tensor<?x4xf32>
    %swb = rvnn.broadcast_like %sw, %h
        : (tensor<4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    %b = arith.mulf %swb, %h : tensor<?x4xf32>
    %next = arith.addf %a, %b : tensor<?x4xf32>
    rvnn.yield %next : tensor<?x4xf32>
  }
  return %r : tensor<?x4xf32>
}

// -----

// FastTrees' structured gating: the three products of the two master gates
// are read only by the body, and kept there they leave two values to slice
// a step instead of three; the sigmoid of a gate that now crosses anyway
// stays too. The sigmoid of a tanh of x_t leaves the body: kept, x_t would
// cross instead of it.
// CHECK-LABEL: func.func @fewer_crossing
// CHECK: %[[F:.*]] = rvnn.cumax %{{.*}} {dim = 2 : i64} : (tensor<?x?x4xf32>) -> tensor<?x?x4xf32>
// CHECK: %[[I:.*]] = rvnn.cumax %{{.*}} {dim = 2 : i64} : (tensor<?x?x4xf32>) -> tensor<?x?x4xf32>
// CHECK: %[[K:.*]] = math.tanh %{{.*}} : tensor<?x?x4xf32>
// CHECK: %[[S:.*]] = rvnn.sigmoid %[[K]] : tensor<?x?x4xf32>
// CHECK-NOT: arith.mulf
// CHECK: rvnn.recurse
// CHECK-DAG: %[[FT:.*]] = tensor.extract_slice %[[F]][0, %{{.*}}, 0] [%{{.*}}, 1, 4]
// CHECK-DAG: %[[IT:.*]] = tensor.extract_slice %[[I]][0, %{{.*}}, 0] [%{{.*}}, 1, 4]
// CHECK: %[[OMEGA:.*]] = arith.mulf %[[FT]], %[[IT]]
// CHECK: arith.subf %[[FT]], %[[OMEGA]]
// CHECK: arith.subf %[[IT]], %[[OMEGA]]
// CHECK: %[[G:.*]] = rvnn.sigmoid %[[FT]]
// CHECK: arith.mulf %[[G]], %{{.*}}
// CHECK: %[[ST:.*]] = tensor.extract_slice %[[S]][0, %{{.*}}, 0] [%{{.*}}, 1, 4]
// CHECK: arith.mulf %[[ST]], %{{.*}}
// CHECK-NOT: math.tanh
// CHECK: rvnn.yield
func.func @fewer_crossing(%x: tensor<?x?x4xf32>, %y: tensor<?x?x4xf32>,
                          %n: index, %s: index, %h0: tensor<?x4xf32>)
    -> tensor<?x4xf32> {
  %r = rvnn.recurse (%h = %h0) : tensor<?x4xf32> halting <none> max_steps %s {
  ^bb0(%t: index, %h: tensor<?x4xf32>):
    %xt = tensor.extract_slice %x[0, %t, 0] [%n, 1, 4] [1, 1, 1]
        : tensor<?x?x4xf32> to tensor<?x4xf32>
    %yt = tensor.extract_slice %y[0, %t, 0] [%n, 1, 4] [1, 1, 1]
        : tensor<?x?x4xf32> to tensor<?x4xf32>
    %f = rvnn.cumax %xt {dim = 1 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
    %i = rvnn.cumax %yt {dim = 1 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
    %omega = arith.mulf %f, %i : tensor<?x4xf32>
    %f_rest = arith.subf %f, %omega : tensor<?x4xf32>
    %i_rest = arith.subf %i, %omega : tensor<?x4xf32>
    %a = arith.mulf %omega, %h : tensor<?x4xf32>
    %b = arith.addf %a, %f_rest : tensor<?x4xf32>
    %c = arith.addf %b, %i_rest : tensor<?x4xf32>
    %g = rvnn.sigmoid %f : tensor<?x4xf32>
    %d = arith.mulf %g, %c : tensor<?x4xf32>
    %k = math.tanh %xt : tensor<?x4xf32>
    %o = rvnn.sigmoid %k : tensor<?x4xf32>
    %next = arith.mulf %o, %d : tensor<?x4xf32>
    rvnn.yield %next : tensor<?x4xf32>
  }
  return %r : tensor<?x4xf32>
}
