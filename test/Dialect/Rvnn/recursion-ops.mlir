// RUN: rvnn-opt %s -split-input-file | rvnn-opt -split-input-file | FileCheck %s

// rvnn.recurse, halting <none>, bounded by the max_steps operand; the body
// uses the step counter and a value defined above.
// CHECK-LABEL: func.func @recurse_none_max_steps
func.func @recurse_none_max_steps(%x0: tensor<?x?x64xf32>, %c0: index, %n: index, %w: tensor<?x?x64xf32>) -> (tensor<?x?x64xf32>, index) {
  // CHECK: %[[R:.*]]:2 = rvnn.recurse (%[[X:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}}) : tensor<?x?x64xf32>, index halting <none> max_steps %{{.*}} {
  // CHECK-NEXT: ^bb0(%[[T:.*]]: index, %[[X]]: tensor<?x?x64xf32>, %[[C]]: index):
  // CHECK: arith.addi %[[C]], %[[T]] : index
  // CHECK: rvnn.yield %{{.*}}, %{{.*}} : tensor<?x?x64xf32>, index
  // CHECK-NEXT: }
  %r:2 = rvnn.recurse (%x = %x0, %c = %c0) : tensor<?x?x64xf32>, index halting <none> max_steps %n {
  ^bb0(%t: index, %x: tensor<?x?x64xf32>, %c: index):
    %x2 = arith.addf %x, %w : tensor<?x?x64xf32>
    %c2 = arith.addi %c, %t : index
    rvnn.yield %x2, %c2 : tensor<?x?x64xf32>, index
  }
  return %r#0, %r#1 : tensor<?x?x64xf32>, index
}

// -----

// rvnn.recurse, halting <none>, bounded by the steps attribute; a discardable
// attribute follows the region.
// CHECK-LABEL: func.func @recurse_none_steps
func.func @recurse_none_steps(%x0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: rvnn.recurse (%{{.*}} = %{{.*}}) : tensor<4x8xf32> halting <none> steps = 3 {
  // CHECK: rvnn.yield %{{.*}} : tensor<4x8xf32>
  // CHECK-NEXT: } {rvnn.note = "x"}
  %r = rvnn.recurse (%x = %x0) : tensor<4x8xf32> halting <none> steps = 3 {
  ^bb0(%t: index, %x: tensor<4x8xf32>):
    %y = math.tanh %x : tensor<4x8xf32>
    rvnn.yield %y : tensor<4x8xf32>
  } {rvnn.note = "x"}
  return %r : tensor<4x8xf32>
}

// -----

// rvnn.recurse, halting <fixed>: NDR's 20 training / 24 evaluation steps.
// CHECK-LABEL: func.func @recurse_fixed_eval_steps
func.func @recurse_fixed_eval_steps(%x0: tensor<?x?x512xf32>) -> tensor<?x?x512xf32> {
  // CHECK: rvnn.recurse (%{{.*}} = %{{.*}}) : tensor<?x?x512xf32> halting <fixed> steps = 20 eval_steps = 24 {
  // CHECK: rvnn.yield %{{.*}} : tensor<?x?x512xf32>
  %r = rvnn.recurse (%x = %x0) : tensor<?x?x512xf32> halting <fixed> steps = 20 eval_steps = 24 {
  ^bb0(%t: index, %x: tensor<?x?x512xf32>):
    %y = math.tanh %x : tensor<?x?x512xf32>
    rvnn.yield %y : tensor<?x?x512xf32>
  }
  return %r : tensor<?x?x512xf32>
}

// -----

// rvnn.recurse, halting <fixed> without eval_steps.
// CHECK-LABEL: func.func @recurse_fixed
func.func @recurse_fixed(%x0: tensor<2x3xf64>) -> tensor<2x3xf64> {
  // CHECK: rvnn.recurse (%{{.*}} = %{{.*}}) : tensor<2x3xf64> halting <fixed> steps = 1 {
  // CHECK-NOT: eval_steps
  %r = rvnn.recurse (%x = %x0) : tensor<2x3xf64> halting <fixed> steps = 1 {
  ^bb0(%t: index, %x: tensor<2x3xf64>):
    rvnn.yield %x : tensor<2x3xf64>
  }
  return %r : tensor<2x3xf64>
}

// -----

// rvnn.recurse, halting <per_sample>: CRvNN's loop with a halt vector and a
// dynamic bound.
// CHECK-LABEL: func.func @recurse_per_sample_max_steps
func.func @recurse_per_sample_max_steps(%h0: tensor<?x?x128xf32>, %e0: tensor<?x?xf32>, %n: index, %tau: tensor<?xf32>) -> (tensor<?x?x128xf32>, tensor<?x?xf32>) {
  // CHECK: %{{.*}}:2 = rvnn.recurse (%[[H:.*]] = %{{.*}}, %[[E:.*]] = %{{.*}}) : tensor<?x?x128xf32>, tensor<?x?xf32> halting <per_sample> max_steps %{{.*}} {
  // CHECK-NEXT: ^bb0(%{{.*}}: index, %[[H]]: tensor<?x?x128xf32>, %[[E]]: tensor<?x?xf32>):
  // CHECK: %[[DONE:.*]] = arith.cmpf
  // CHECK: rvnn.yield %[[H]], %[[E]] halt %[[DONE]] : tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?xi1>
  %r:2 = rvnn.recurse (%h = %h0, %e = %e0) : tensor<?x?x128xf32>, tensor<?x?xf32> halting <per_sample> max_steps %n {
  ^bb0(%t: index, %h: tensor<?x?x128xf32>, %e: tensor<?x?xf32>):
    %done = arith.cmpf olt, %tau, %tau : tensor<?xf32>
    rvnn.yield %h, %e halt %done : tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?xi1>
  }
  return %r#0, %r#1 : tensor<?x?x128xf32>, tensor<?x?xf32>
}

// -----

// rvnn.recurse, halting <per_sample> with a static bound and static batch.
// CHECK-LABEL: func.func @recurse_per_sample_steps
func.func @recurse_per_sample_steps(%h0: tensor<4x?x16xf32>, %halt: tensor<4xi1>) -> tensor<4x?x16xf32> {
  // CHECK: rvnn.recurse (%{{.*}} = %{{.*}}) : tensor<4x?x16xf32> halting <per_sample> steps = 50 {
  // CHECK: rvnn.yield %{{.*}} halt %{{.*}} : tensor<4x?x16xf32>, tensor<4xi1>
  %r = rvnn.recurse (%h = %h0) : tensor<4x?x16xf32> halting <per_sample> steps = 50 {
  ^bb0(%t: index, %h: tensor<4x?x16xf32>):
    rvnn.yield %h halt %halt : tensor<4x?x16xf32>, tensor<4xi1>
  }
  return %r : tensor<4x?x16xf32>
}

// -----

// rvnn.recurse without state (a loop run for its body's effects).
// CHECK-LABEL: func.func @recurse_no_state
func.func @recurse_no_state() {
  // CHECK: rvnn.recurse () halting <none> steps = 2 {
  // CHECK-NEXT: ^bb0(%{{.*}}: index):
  // CHECK-NEXT: rvnn.yield{{$}}
  rvnn.recurse () halting <none> steps = 2 {
  ^bb0(%t: index):
    rvnn.yield
  }
  return
}

// -----

// rvnn.balanced_reduce: BBT's binary reduction.
// CHECK-LABEL: func.func @balanced_reduce_binary
func.func @balanced_reduce_binary(%h: tensor<?x?x128xf32>, %mask: tensor<?x?xf32>) -> tensor<?x128xf32> {
  // CHECK: rvnn.balanced_reduce %{{.*}}, %{{.*}} {arity = 2 : i64} : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32> {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<?x2x128xf32>, %{{.*}}: tensor<?x2xf32>):
  // CHECK: rvnn.yield %{{.*}} : tensor<?x128xf32>
  %root = rvnn.balanced_reduce %h, %mask {arity = 2} : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32> {
  ^bb0(%children: tensor<?x2x128xf32>, %m: tensor<?x2xf32>):
    %l = tensor.extract_slice %children[0, 0, 0] [1, 1, 128] [1, 1, 1] : tensor<?x2x128xf32> to tensor<1x128xf32>
    %p = tensor.cast %l : tensor<1x128xf32> to tensor<?x128xf32>
    rvnn.yield %p : tensor<?x128xf32>
  }
  return %root : tensor<?x128xf32>
}

// -----

// rvnn.balanced_reduce: a k-ary (BKT) reduction with static shapes.
// CHECK-LABEL: func.func @balanced_reduce_ternary
func.func @balanced_reduce_ternary(%h: tensor<8x10x16xf32>, %mask: tensor<8x10xf32>, %p: tensor<?x16xf32>) -> tensor<8x16xf32> {
  // CHECK: rvnn.balanced_reduce %{{.*}}, %{{.*}} {arity = 3 : i64} : (tensor<8x10x16xf32>, tensor<8x10xf32>) -> tensor<8x16xf32> {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<?x3x16xf32>, %{{.*}}: tensor<?x3xf32>):
  %root = rvnn.balanced_reduce %h, %mask {arity = 3} : (tensor<8x10x16xf32>, tensor<8x10xf32>) -> tensor<8x16xf32> {
  ^bb0(%children: tensor<?x3x16xf32>, %m: tensor<?x3xf32>):
    rvnn.yield %p : tensor<?x16xf32>
  }
  return %root : tensor<8x16xf32>
}

// -----

// rvnn.chunk along dim 1 (the default, elided), static: 100 tokens in
// chunks of 30 pad to 120, 4 chunks per sample.
// CHECK-LABEL: func.func @chunk_static
func.func @chunk_static(%x: tensor<2x100x64xf32>, %mask: tensor<2x100xf32>) -> (tensor<8x30x64xf32>, tensor<8x30xf32>) {
  // CHECK: rvnn.chunk %{{.*}}, %{{.*}} {size = 30 : i64} : (tensor<2x100x64xf32>, tensor<2x100xf32>) -> (tensor<8x30x64xf32>, tensor<8x30xf32>)
  %c, %cm = rvnn.chunk %x, %mask {size = 30, dim = 1} : (tensor<2x100x64xf32>, tensor<2x100xf32>) -> (tensor<8x30x64xf32>, tensor<8x30xf32>)
  return %c, %cm : tensor<8x30x64xf32>, tensor<8x30xf32>
}

// -----

// rvnn.chunk of the beam state [N, B, S, D] along dim 2, dynamic length.
// CHECK-LABEL: func.func @chunk_dynamic
func.func @chunk_dynamic(%x: tensor<?x7x?x128xf32>, %mask: tensor<?x?xf32>) -> (tensor<?x7x?x128xf32>, tensor<?x?xf32>) {
  // CHECK: rvnn.chunk %{{.*}}, %{{.*}} {dim = 2 : i64, size = 30 : i64} : (tensor<?x7x?x128xf32>, tensor<?x?xf32>) -> (tensor<?x7x?x128xf32>, tensor<?x?xf32>)
  %c, %cm = rvnn.chunk %x, %mask {size = 30, dim = 2} : (tensor<?x7x?x128xf32>, tensor<?x?xf32>) -> (tensor<?x7x?x128xf32>, tensor<?x?xf32>)
  return %c, %cm : tensor<?x7x?x128xf32>, tensor<?x?xf32>
}

// -----

// rvnn.chunk_depth: the outer recursion's level count, the bound of the
// recurse that runs it.
// CHECK-LABEL: func.func @chunk_depth
func.func @chunk_depth(%s: index) -> index {
  // CHECK: %[[D:.*]] = rvnn.chunk_depth %{{.*}} {size = 30 : i64}
  // CHECK-NEXT: return %[[D]] : index
  %d = rvnn.chunk_depth %s {size = 30 : i64}
  return %d : index
}

// -----

// rvnn.unchunk: roots [N·S1, B, D] back to [N, B, S1, D].
// CHECK-LABEL: func.func @unchunk_beams
func.func @unchunk_beams(%roots: tensor<?x7x128xf32>, %mask: tensor<?x?xf32>) -> tensor<?x7x?x128xf32> {
  // CHECK: rvnn.unchunk %{{.*}}, %{{.*}} {dim = 2 : i64} : (tensor<?x7x128xf32>, tensor<?x?xf32>) -> tensor<?x7x?x128xf32>
  %r = rvnn.unchunk %roots, %mask {dim = 2} : (tensor<?x7x128xf32>, tensor<?x?xf32>) -> tensor<?x7x?x128xf32>
  return %r : tensor<?x7x?x128xf32>
}

// -----

// rvnn.unchunk of a per-chunk mask [N·S1] to [N, S1], static.
// CHECK-LABEL: func.func @unchunk_mask
func.func @unchunk_mask(%m: tensor<8xf32>, %ref: tensor<2x100xf32>) -> tensor<2x4xf32> {
  // CHECK: rvnn.unchunk %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<8xf32>, tensor<2x100xf32>) -> tensor<2x4xf32>
  %r = rvnn.unchunk %m, %ref {dim = 1} : (tensor<8xf32>, tensor<2x100xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// rvnn.pair_merge with every pair composed (BT-GRC).
// CHECK-LABEL: func.func @pair_merge_all
func.func @pair_merge_all(%h: tensor<?x5x?x128xf32>, %cand: tensor<?x5x?x128xf32>, %sel: tensor<?x5x?xf32>) -> tensor<?x5x?x128xf32> {
  // CHECK: rvnn.pair_merge %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x5x?x128xf32>, tensor<?x5x?x128xf32>, tensor<?x5x?xf32>) -> tensor<?x5x?x128xf32>
  %r = rvnn.pair_merge %h, %cand, %sel : (tensor<?x5x?x128xf32>, tensor<?x5x?x128xf32>, tensor<?x5x?xf32>) -> tensor<?x5x?x128xf32>
  return %r : tensor<?x5x?x128xf32>
}

// -----

// rvnn.pair_merge with only the selected pair composed (EBT-GRC), static.
// CHECK-LABEL: func.func @pair_merge_selected
func.func @pair_merge_selected(%h: tensor<2x5x6x16xf32>, %cand: tensor<2x5x1x16xf32>, %sel: tensor<2x5x5xf32>) -> tensor<2x5x5x16xf32> {
  // CHECK: rvnn.pair_merge %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x5x6x16xf32>, tensor<2x5x1x16xf32>, tensor<2x5x5xf32>) -> tensor<2x5x5x16xf32>
  %r = rvnn.pair_merge %h, %cand, %sel : (tensor<2x5x6x16xf32>, tensor<2x5x1x16xf32>, tensor<2x5x5xf32>) -> tensor<2x5x5x16xf32>
  return %r : tensor<2x5x5x16xf32>
}
