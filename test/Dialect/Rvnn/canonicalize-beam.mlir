// RUN: rvnn-opt %s -canonicalize -split-input-file | FileCheck %s
// RUN: rvnn-opt %s -cse -split-input-file | FileCheck %s --check-prefix=CSE

// Beam width 1 without noise is greedy selection.
// CHECK-LABEL: func.func @topk_k1_to_argmax
//  CHECK-SAME: (%[[X:.*]]: tensor<?x1x?xf32>, %[[M:.*]]: tensor<?x1x?xf32>)
//   CHECK-NOT: rvnn.topk
//       CHECK: %[[I:.*]] = rvnn.argmax %[[X]], %[[M]] : (tensor<?x1x?xf32>, tensor<?x1x?xf32>) -> tensor<?x1x1xi64>
//       CHECK: return %[[I]]
func.func @topk_k1_to_argmax(%x: tensor<?x1x?xf32>, %m: tensor<?x1x?xf32>) -> tensor<?x1x1xi64> {
  %v, %i = rvnn.topk %x, %m {k = 1 : i64} : (tensor<?x1x?xf32>, tensor<?x1x?xf32>) -> (tensor<?x1x1xf32>, tensor<?x1x1xi64>)
  return %i : tensor<?x1x1xi64>
}

// -----

// The rewrite keeps the declared (here more static) index type.
// CHECK-LABEL: func.func @topk_k1_to_argmax_static
//       CHECK: rvnn.argmax %{{.*}}, %{{.*}} : (tensor<?x7xf64>, tensor<?x7xf64>) -> tensor<3x1xi64>
//   CHECK-NOT: rvnn.topk
func.func @topk_k1_to_argmax_static(%x: tensor<?x7xf64>, %m: tensor<?x7xf64>) -> tensor<3x1xi64> {
  %v, %i = rvnn.topk %x, %m {k = 1 : i64, gumbel = false} : (tensor<?x7xf64>, tensor<?x7xf64>) -> (tensor<?x1xf64>, tensor<3x1xi64>)
  return %i : tensor<3x1xi64>
}

// -----

// Used values keep the topk (argmax has no values result).
// CHECK-LABEL: func.func @topk_k1_values_used
//       CHECK: rvnn.topk %{{.*}}, %{{.*}} {k = 1 : i64}
//   CHECK-NOT: rvnn.argmax
func.func @topk_k1_values_used(%x: tensor<?x5xf32>, %m: tensor<?x5xf32>) -> (tensor<?x1xf32>, tensor<?x1xi64>) {
  %v, %i = rvnn.topk %x, %m {k = 1 : i64} : (tensor<?x5xf32>, tensor<?x5xf32>) -> (tensor<?x1xf32>, tensor<?x1xi64>)
  return %v, %i : tensor<?x1xf32>, tensor<?x1xi64>
}

// -----

// CHECK-LABEL: func.func @topk_k2_kept
//       CHECK: rvnn.topk %{{.*}}, %{{.*}} {k = 2 : i64}
//   CHECK-NOT: rvnn.argmax
func.func @topk_k2_kept(%x: tensor<?x5xf32>, %m: tensor<?x5xf32>) -> tensor<?x2xi64> {
  %v, %i = rvnn.topk %x, %m {k = 2 : i64} : (tensor<?x5xf32>, tensor<?x5xf32>) -> (tensor<?x2xf32>, tensor<?x2xi64>)
  return %i : tensor<?x2xi64>
}

// -----

// Gumbel noise makes even a width-1 top-k random: no greedy rewrite.
// CHECK-LABEL: func.func @topk_k1_gumbel_kept
//       CHECK: rvnn.topk %{{.*}}, %{{.*}} {gumbel = true, k = 1 : i64}
//   CHECK-NOT: rvnn.argmax
func.func @topk_k1_gumbel_kept(%x: tensor<?x5xf32>, %m: tensor<?x5xf32>) -> tensor<?x1xi64> {
  %v, %i = rvnn.topk %x, %m {k = 1 : i64, gumbel = true} : (tensor<?x5xf32>, tensor<?x5xf32>) -> (tensor<?x1xf32>, tensor<?x1xi64>)
  return %i : tensor<?x1xi64>
}

// -----

// Noise-free top-k is pure and dies when unused; a Gumbel draw stays.
// CHECK-LABEL: func.func @topk_dead
//   CHECK-NOT: rvnn.topk %{{.*}}, %{{.*}} {k = 2 : i64}
//       CHECK: rvnn.topk %{{.*}}, %{{.*}} {gumbel = true, k = 2 : i64}
//   CHECK-NOT: rvnn.topk
//       CHECK: return
func.func @topk_dead(%x: tensor<?x5xf32>, %m: tensor<?x5xf32>) {
  %v0, %i0 = rvnn.topk %x, %m {k = 2 : i64} : (tensor<?x5xf32>, tensor<?x5xf32>) -> (tensor<?x2xf32>, tensor<?x2xi64>)
  %v1, %i1 = rvnn.topk %x, %m {k = 2 : i64, gumbel = true} : (tensor<?x5xf32>, tensor<?x5xf32>) -> (tensor<?x2xf32>, tensor<?x2xi64>)
  return
}

// -----

// CHECK-LABEL: func.func @beam_expand_one
//  CHECK-SAME: (%[[H:.*]]: tensor<?x5x8xf32>)
//   CHECK-NOT: rvnn.beam_expand
//       CHECK: return %[[H]]
func.func @beam_expand_one(%h: tensor<?x5x8xf32>) -> tensor<?x5x8xf32> {
  %e = rvnn.beam_expand %h {factor = 1 : i64} : (tensor<?x5x8xf32>) -> tensor<?x5x8xf32>
  return %e : tensor<?x5x8xf32>
}

// -----

// A factor-1 expand that changes the static information is a cast.
// CHECK-LABEL: func.func @beam_expand_one_cast
//  CHECK-SAME: (%[[H:.*]]: tensor<?x5x8xf32>)
//       CHECK: %[[C:.*]] = tensor.cast %[[H]] : tensor<?x5x8xf32> to tensor<?x?x8xf32>
//       CHECK: return %[[C]]
func.func @beam_expand_one_cast(%h: tensor<?x5x8xf32>) -> tensor<?x?x8xf32> {
  %e = rvnn.beam_expand %h {factor = 1 : i64} : (tensor<?x5x8xf32>) -> tensor<?x?x8xf32>
  return %e : tensor<?x?x8xf32>
}

// -----

// A gather from an expansion reads the expansion's input: the expanded
// tensor is never built (EBT-GRC's beam state, 5x per step).
// CHECK-LABEL: func.func @beam_gather_of_expand
//  CHECK-SAME: (%[[H:.*]]: tensor<?x5x8xf32>, %[[K:.*]]: tensor<?x5xi64>)
//   CHECK-NOT: rvnn.beam_expand
//       CHECK: %[[G:.*]] = rvnn.beam_gather %[[H]], %[[K]] {factor = 5 : i64} : (tensor<?x5x8xf32>, tensor<?x5xi64>) -> tensor<?x5x8xf32>
//       CHECK: return %[[G]]
func.func @beam_gather_of_expand(%h: tensor<?x5x8xf32>, %keep: tensor<?x5xi64>) -> tensor<?x5x8xf32> {
  %e = rvnn.beam_expand %h {factor = 5 : i64} : (tensor<?x5x8xf32>) -> tensor<?x25x8xf32>
  %g = rvnn.beam_gather %e, %keep : (tensor<?x25x8xf32>, tensor<?x5xi64>) -> tensor<?x5x8xf32>
  return %g : tensor<?x5x8xf32>
}

// -----

// Factors multiply through a chain of expansions and factored gathers.
// CHECK-LABEL: func.func @beam_gather_of_expand_chain
//       CHECK: rvnn.beam_gather %{{.*}}, %{{.*}} {factor = 6 : i64}
//   CHECK-NOT: rvnn.beam_expand
func.func @beam_gather_of_expand_chain(%h: tensor<?x2x8xf32>, %keep: tensor<?x3xi64>) -> tensor<?x3x8xf32> {
  %e = rvnn.beam_expand %h {factor = 3 : i64} : (tensor<?x2x8xf32>) -> tensor<?x6x8xf32>
  %g = rvnn.beam_gather %e, %keep {factor = 2 : i64} : (tensor<?x6x8xf32>, tensor<?x3xi64>) -> tensor<?x3x8xf32>
  return %g : tensor<?x3x8xf32>
}

// -----

// An expansion with another use is still built for it, but the gather
// reads the smaller input.
// CHECK-LABEL: func.func @beam_gather_of_shared_expand
//  CHECK-SAME: (%[[H:.*]]: tensor<?x5x8xf32>, %[[K:.*]]: tensor<?x5xi64>)
//       CHECK: %[[E:.*]] = rvnn.beam_expand %[[H]] {factor = 5 : i64}
//       CHECK: %[[G:.*]] = rvnn.beam_gather %[[H]], %[[K]] {factor = 5 : i64}
//       CHECK: return %[[E]], %[[G]]
func.func @beam_gather_of_shared_expand(%h: tensor<?x5x8xf32>, %keep: tensor<?x5xi64>) -> (tensor<?x25x8xf32>, tensor<?x5x8xf32>) {
  %e = rvnn.beam_expand %h {factor = 5 : i64} : (tensor<?x5x8xf32>) -> tensor<?x25x8xf32>
  %g = rvnn.beam_gather %e, %keep : (tensor<?x25x8xf32>, tensor<?x5xi64>) -> tensor<?x5x8xf32>
  return %e, %g : tensor<?x25x8xf32>, tensor<?x5x8xf32>
}

// -----

// CHECK-LABEL: func.func @beam_expand_two_kept
//       CHECK: rvnn.beam_expand %{{.*}} {factor = 2 : i64}
func.func @beam_expand_two_kept(%h: tensor<?x5x8xf32>) -> tensor<?x10x8xf32> {
  %e = rvnn.beam_expand %h {factor = 2 : i64} : (tensor<?x5x8xf32>) -> tensor<?x10x8xf32>
  return %e : tensor<?x10x8xf32>
}

// -----

// Two alignments of the same scores are independent draws: CSE keeps both,
// and an unused one is not dropped (it advances the seeded generator).
// CSE-LABEL: func.func @beam_align_not_merged
//       CSE: rvnn.beam_align
//       CSE: rvnn.beam_align
//       CSE: rvnn.beam_align
// CHECK-LABEL: func.func @beam_align_not_merged
//       CHECK: rvnn.beam_align
//       CHECK: rvnn.beam_align
//       CHECK: rvnn.beam_align
func.func @beam_align_not_merged(%a: tensor<?x7xf32>, %m: tensor<?x7xf32>) -> (tensor<?x7xi64>, tensor<?x7xi64>) {
  %k0 = rvnn.beam_align %a, %m : (tensor<?x7xf32>, tensor<?x7xf32>) -> tensor<?x7xi64>
  %k1 = rvnn.beam_align %a, %m : (tensor<?x7xf32>, tensor<?x7xf32>) -> tensor<?x7xi64>
  %k2 = rvnn.beam_align %a, %m : (tensor<?x7xf32>, tensor<?x7xf32>) -> tensor<?x7xi64>
  return %k0, %k1 : tensor<?x7xi64>, tensor<?x7xi64>
}

// -----

// Gumbel top-k draws are not merged either; noise-free ones are.
// CSE-LABEL: func.func @topk_cse
//       CSE: rvnn.topk %{{.*}}, %{{.*}} {k = 2 : i64}
//   CSE-NOT: rvnn.topk %{{.*}}, %{{.*}} {k = 2 : i64}
//       CSE: rvnn.topk %{{.*}}, %{{.*}} {gumbel = true, k = 2 : i64}
//       CSE: rvnn.topk %{{.*}}, %{{.*}} {gumbel = true, k = 2 : i64}
func.func @topk_cse(%x: tensor<?x5xf32>, %m: tensor<?x5xf32>) -> (tensor<?x2xi64>, tensor<?x2xi64>, tensor<?x2xi64>, tensor<?x2xi64>) {
  %v0, %i0 = rvnn.topk %x, %m {k = 2 : i64} : (tensor<?x5xf32>, tensor<?x5xf32>) -> (tensor<?x2xf32>, tensor<?x2xi64>)
  %v1, %i1 = rvnn.topk %x, %m {k = 2 : i64} : (tensor<?x5xf32>, tensor<?x5xf32>) -> (tensor<?x2xf32>, tensor<?x2xi64>)
  %v2, %i2 = rvnn.topk %x, %m {k = 2 : i64, gumbel = true} : (tensor<?x5xf32>, tensor<?x5xf32>) -> (tensor<?x2xf32>, tensor<?x2xi64>)
  %v3, %i3 = rvnn.topk %x, %m {k = 2 : i64, gumbel = true} : (tensor<?x5xf32>, tensor<?x5xf32>) -> (tensor<?x2xf32>, tensor<?x2xi64>)
  return %i0, %i1, %i2, %i3 : tensor<?x2xi64>, tensor<?x2xi64>, tensor<?x2xi64>, tensor<?x2xi64>
}
