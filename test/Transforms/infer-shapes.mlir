// RUN: rvnn-opt %s -rvnn-infer-shapes -split-input-file -verify-diagnostics | FileCheck %s
// RUN: rvnn-opt %s -rvnn-infer-shapes -canonicalize -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=CANON

// A chain of linears: the last dim follows from each weight. The function has
// no symbol uses, so its result type is refined too.
// CHECK-LABEL: func.func @linear_chain
// CHECK-SAME: -> tensor<?x?x4xf32>
// CHECK: rvnn.linear {{.*}} -> tensor<?x?x16xf32>
// CHECK: math.tanh {{.*}} : tensor<?x?x16xf32>
// CHECK: rvnn.linear {{.*}} -> tensor<?x?x4xf32>
// CHECK: return {{.*}} : tensor<?x?x4xf32>
func.func @linear_chain(%x: tensor<?x?x?xf32>, %w1: tensor<16x8xf32>, %b1: tensor<16xf32>,
                        %w2: tensor<4x16xf32>) -> tensor<?x?x?xf32> {
  %h = rvnn.linear %x, %w1, %b1 : (tensor<?x?x?xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<?x?x?xf32>
  %t = math.tanh %h : tensor<?x?x?xf32>
  %y = rvnn.linear %t, %w2 : (tensor<?x?x?xf32>, tensor<4x16xf32>) -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// -----

// An elementwise op between a refined and an unrefined value: the unrefined
// operand is cast up to the join.
// CHECK-LABEL: func.func @add_mixed
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[U:.*]]: tensor<?x?xf32>) -> tensor<?x16xf32>
// CHECK: %[[H:.*]] = rvnn.linear %[[X]], %[[W]] : (tensor<?x8xf32>, tensor<16x8xf32>) -> tensor<?x16xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[U]] : tensor<?x?xf32> to tensor<?x16xf32>
// CHECK: %[[S:.*]] = arith.addf %[[H]], %[[C]] : tensor<?x16xf32>
// CHECK: return %[[S]] : tensor<?x16xf32>
func.func @add_mixed(%x: tensor<?x8xf32>, %w: tensor<16x8xf32>, %u: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %h = rvnn.linear %x, %w : (tensor<?x8xf32>, tensor<16x8xf32>) -> tensor<?x?xf32>
  %s = arith.addf %h, %u : tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// -----

// A call keeps its operand types (cast back), and a function with symbol uses
// keeps its signature (cast before return).
// CHECK-LABEL: func.func @caller
// CHECK: %[[H:.*]] = rvnn.linear {{.*}} -> tensor<?x16xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[H]] : tensor<?x16xf32> to tensor<?x?xf32>
// CHECK: call @cell(%[[C]], %{{.*}}) : (tensor<?x?xf32>, tensor<4x16xf32>) -> tensor<?x?xf32>
// CHECK-LABEL: func.func private @cell
// CHECK-SAME: -> tensor<?x?xf32>
// CHECK: %[[Y:.*]] = rvnn.linear {{.*}} -> tensor<?x4xf32>
// CHECK: %[[R:.*]] = tensor.cast %[[Y]] : tensor<?x4xf32> to tensor<?x?xf32>
// CHECK: return %[[R]] : tensor<?x?xf32>
func.func @caller(%x: tensor<?x8xf32>, %w: tensor<16x8xf32>, %v: tensor<4x16xf32>) -> tensor<?x?xf32> {
  %h = rvnn.linear %x, %w : (tensor<?x8xf32>, tensor<16x8xf32>) -> tensor<?x?xf32>
  %y = func.call @cell(%h, %v) : (tensor<?x?xf32>, tensor<4x16xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
func.func private @cell(%a: tensor<?x?xf32>, %v: tensor<4x16xf32>) -> tensor<?x?xf32> {
  %y = rvnn.linear %a, %v : (tensor<?x?xf32>, tensor<4x16xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// A pre-existing cast to the refined type becomes an identity and folds.
// CHECK-LABEL: func.func @cast_folds
// CHECK: %[[H:.*]] = rvnn.linear {{.*}} -> tensor<?x16xf32>
// CHECK: tensor.cast %[[H]] : tensor<?x16xf32> to tensor<?x16xf32>
// CANON-LABEL: func.func @cast_folds
// CANON: %[[H:.*]] = rvnn.linear {{.*}} -> tensor<?x16xf32>
// CANON-NOT: tensor.cast
// CANON: return %[[H]] : tensor<?x16xf32>
func.func @cast_folds(%x: tensor<?x8xf32>, %w: tensor<16x8xf32>) -> tensor<?x16xf32> {
  %h = rvnn.linear %x, %w : (tensor<?x8xf32>, tensor<16x8xf32>) -> tensor<?x?xf32>
  %c = tensor.cast %h : tensor<?x?xf32> to tensor<?x16xf32>
  return %c : tensor<?x16xf32>
}

// -----

// Loop state keeps its types: the init and the yielded value are cast back,
// while the body is refined.
// CHECK-LABEL: func.func @recurse_body
// CHECK: %[[H0:.*]] = rvnn.linear {{.*}} -> tensor<?x8xf32>
// CHECK: %[[I:.*]] = tensor.cast %[[H0]] : tensor<?x8xf32> to tensor<?x?xf32>
// CHECK: rvnn.recurse (%[[S:.*]] = %[[I]]) : tensor<?x?xf32>
// CHECK: %[[H:.*]] = rvnn.linear %[[S]], {{.*}} -> tensor<?x8xf32>
// CHECK: %[[T:.*]] = math.tanh %[[H]] : tensor<?x8xf32>
// CHECK: %[[Y:.*]] = tensor.cast %[[T]] : tensor<?x8xf32> to tensor<?x?xf32>
// CHECK: rvnn.yield %[[Y]] : tensor<?x?xf32>
func.func @recurse_body(%x: tensor<?x8xf32>, %w: tensor<8x8xf32>) -> tensor<?x?xf32> {
  %h0 = rvnn.linear %x, %w : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x?xf32>
  %r = rvnn.recurse (%s = %h0) : tensor<?x?xf32> halting <fixed> steps = 3 {
  ^bb0(%t: index, %s: tensor<?x?xf32>):
    %h = rvnn.linear %s, %w : (tensor<?x?xf32>, tensor<8x8xf32>) -> tensor<?x?xf32>
    %n = math.tanh %h : tensor<?x?xf32>
    rvnn.yield %n : tensor<?x?xf32>
  }
  return %r : tensor<?x?xf32>
}

// -----

// Upstream tensor ops through their interfaces: collapse_shape is refined by
// reification; expand_shape cannot take a static operand with these
// output_shape operands, so it gets a cast back.
// CHECK-LABEL: func.func @reshape
// CHECK-SAME: -> (tensor<6x4xf32>, tensor<2x?x?xf32>, tensor<?x4xf32>)
// CHECK: %[[H:.*]] = rvnn.linear {{.*}} -> tensor<2x3x4xf32>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[H]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[B:.*]] = tensor.cast %[[C]] : tensor<6x4xf32> to tensor<?x?xf32>
// CHECK: tensor.expand_shape %[[B]]
// CHECK: tensor.concat dim(0) {{.*}} -> tensor<?x4xf32>
func.func @reshape(%x: tensor<2x3x8xf32>, %w: tensor<4x8xf32>, %u: tensor<?x?xf32>, %n: index)
    -> (tensor<?x?xf32>, tensor<2x?x?xf32>, tensor<?x?xf32>) {
  %h = rvnn.linear %x, %w : (tensor<2x3x8xf32>, tensor<4x8xf32>) -> tensor<?x?x?xf32>
  %c = tensor.collapse_shape %h [[0, 1], [2]] : tensor<?x?x?xf32> into tensor<?x?xf32>
  %e = tensor.expand_shape %c [[0, 1], [2]] output_shape [2, %n, 4] : tensor<?x?xf32> into tensor<2x?x?xf32>
  %d = tensor.concat dim(0) %c, %u : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %c, %e, %d : tensor<?x?xf32>, tensor<2x?x?xf32>, tensor<?x?xf32>
}

// -----

// Returns that disagree keep the declared result type.
// CHECK-LABEL: func.func @two_returns
// CHECK-SAME: -> tensor<?x?xf32>
// CHECK: %[[H:.*]] = rvnn.linear {{.*}} -> tensor<?x4xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[H]] : tensor<?x4xf32> to tensor<?x?xf32>
// CHECK: return %[[C]] : tensor<?x?xf32>
// CHECK: return %{{.*}} : tensor<?x?xf32>
func.func @two_returns(%x: tensor<?x8xf32>, %w: tensor<4x8xf32>, %u: tensor<?x?xf32>, %c: i1) -> tensor<?x?xf32> {
  %h = rvnn.linear %x, %w : (tensor<?x8xf32>, tensor<4x8xf32>) -> tensor<?x?xf32>
  cf.cond_br %c, ^a, ^b
^a:
  return %h : tensor<?x?xf32>
^b:
  return %u : tensor<?x?xf32>
}

// -----

// Conflict: the operands of an elementwise op become provably different.
func.func @elementwise_conflict(%x: tensor<?x8xf32>, %w1: tensor<16x8xf32>, %w2: tensor<32x8xf32>) -> tensor<?x?xf32> {
  %a = rvnn.linear %x, %w1 : (tensor<?x8xf32>, tensor<16x8xf32>) -> tensor<?x?xf32>
  %b = rvnn.linear %x, %w2 : (tensor<?x8xf32>, tensor<32x8xf32>) -> tensor<?x?xf32>
  // expected-error @+1 {{'arith.addf' op rvnn-infer-shapes: operand types 'tensor<?x16xf32>', 'tensor<?x32xf32>' conflict}}
  %s = arith.addf %a, %b : tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// -----

// Conflict: the inferred batch size contradicts the declared one.
func.func @result_conflict(%x: tensor<3x8xf32>, %w: tensor<16x8xf32>, %v: tensor<4x16xf32>) -> tensor<5x4xf32> {
  %a = rvnn.linear %x, %w : (tensor<3x8xf32>, tensor<16x8xf32>) -> tensor<?x?xf32>
  // expected-error @+1 {{'rvnn.linear' op rvnn-infer-shapes: result #0 has type 'tensor<5x4xf32>' but its operands imply 'tensor<3x4xf32>'}}
  %y = rvnn.linear %a, %v : (tensor<?x?xf32>, tensor<4x16xf32>) -> tensor<5x4xf32>
  return %y : tensor<5x4xf32>
}

// -----

// A refined operand that breaks the op's verifier (16 features into a weight
// taking 7) is reported and cast back, so the module still verifies.
// CHECK-LABEL: func.func @verifier_mismatch
// CHECK: %[[A:.*]] = rvnn.linear {{.*}} -> tensor<?x16xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[A]] : tensor<?x16xf32> to tensor<?x?xf32>
// CHECK: rvnn.linear %[[C]], {{.*}} : (tensor<?x?xf32>, tensor<4x7xf32>) -> tensor<?x4xf32>
func.func @verifier_mismatch(%x: tensor<?x8xf32>, %w: tensor<16x8xf32>, %v: tensor<4x7xf32>) -> tensor<?x4xf32> {
  %a = rvnn.linear %x, %w : (tensor<?x8xf32>, tensor<16x8xf32>) -> tensor<?x?xf32>
  // expected-warning @+1 {{refined operand types 'tensor<?x16xf32>', 'tensor<4x7xf32>' do not verify ('rvnn.linear' op in-size mismatch: 'input' dim 1 is 16 but 'weight' dim 1 is 7)}}
  %y = rvnn.linear %a, %v : (tensor<?x?xf32>, tensor<4x7xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// An expand_shape's constant output sizes make its result static (a shared
// cell's sizes, once tensor.dim of its refined arguments has folded), in the
// op's static sizes too: the constant size operands are dropped.
// CHECK-LABEL: func.func @expand_constant_sizes
// CHECK-SAME: -> tensor<?x5x128xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [%{{.*}}, 5, 128] : tensor<?x128xf32> into tensor<?x5x128xf32>
func.func @expand_constant_sizes(%x: tensor<?x128xf32>, %n: index) -> tensor<?x?x?xf32> {
  %c5 = arith.constant 5 : index
  %c128 = arith.constant 128 : index
  %xd = tensor.cast %x : tensor<?x128xf32> to tensor<?x?xf32>
  %e = tensor.expand_shape %xd [[0, 1], [2]] output_shape [%n, %c5, %c128] : tensor<?x?xf32> into tensor<?x?x?xf32>
  return %e : tensor<?x?x?xf32>
}
