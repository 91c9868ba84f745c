// RUN: rvnn-opt %s -split-input-file | rvnn-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @topk
func.func @topk(%x: tensor<?x1x?xf32>, %m: tensor<?x1x?xf32>) -> (tensor<?x1x5xf32>, tensor<?x1x5xi64>) {
  // CHECK: %{{.*}}, %{{.*}} = rvnn.topk %{{.*}}, %{{.*}} {k = 5 : i64} : (tensor<?x1x?xf32>, tensor<?x1x?xf32>) -> (tensor<?x1x5xf32>, tensor<?x1x5xi64>)
  %v, %i = rvnn.topk %x, %m {k = 5 : i64} : (tensor<?x1x?xf32>, tensor<?x1x?xf32>) -> (tensor<?x1x5xf32>, tensor<?x1x5xi64>)
  return %v, %i : tensor<?x1x5xf32>, tensor<?x1x5xi64>
}

// -----

// CHECK-LABEL: func.func @topk_gumbel
func.func @topk_gumbel(%x: tensor<4x9xf64>, %m: tensor<4x9xf64>) -> tensor<4x9xi64> {
  // CHECK: rvnn.topk %{{.*}}, %{{.*}} {gumbel = true, k = 9 : i64} : (tensor<4x9xf64>, tensor<4x9xf64>) -> (tensor<4x9xf64>, tensor<4x9xi64>)
  %v, %i = rvnn.topk %x, %m {k = 9 : i64, gumbel = true} : (tensor<4x9xf64>, tensor<4x9xf64>) -> (tensor<4x9xf64>, tensor<4x9xi64>)
  return %i : tensor<4x9xi64>
}

// -----

// The default gumbel = false is elided.
// CHECK-LABEL: func.func @topk_default_gumbel
func.func @topk_default_gumbel(%x: tensor<?xf32>, %m: tensor<?xf32>) -> tensor<2xf32> {
  // CHECK: rvnn.topk %{{.*}}, %{{.*}} {k = 2 : i64} : (tensor<?xf32>, tensor<?xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  %v, %i = rvnn.topk %x, %m {k = 2 : i64, gumbel = false} : (tensor<?xf32>, tensor<?xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  return %v : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @argmax
func.func @argmax(%x: tensor<?x1x?xf32>, %m: tensor<?x1x?xf32>) -> tensor<?x1x1xi64> {
  // CHECK: rvnn.argmax %{{.*}}, %{{.*}} : (tensor<?x1x?xf32>, tensor<?x1x?xf32>) -> tensor<?x1x1xi64>
  %i = rvnn.argmax %x, %m : (tensor<?x1x?xf32>, tensor<?x1x?xf32>) -> tensor<?x1x1xi64>
  return %i : tensor<?x1x1xi64>
}

// -----

// CHECK-LABEL: func.func @one_hot
func.func @one_hot(%i: tensor<?x5x1xi64>, %ref: tensor<?x5x?xf32>) -> tensor<?x5x1x?xf32> {
  // CHECK: rvnn.one_hot %{{.*}}, %{{.*}} : (tensor<?x5x1xi64>, tensor<?x5x?xf32>) -> tensor<?x5x1x?xf32>
  %o = rvnn.one_hot %i, %ref : (tensor<?x5x1xi64>, tensor<?x5x?xf32>) -> tensor<?x5x1x?xf32>
  return %o : tensor<?x5x1x?xf32>
}

// -----

// Leading dims are refined from either operand.
// CHECK-LABEL: func.func @one_hot_refined
func.func @one_hot_refined(%i: tensor<?x3xi64>, %ref: tensor<8x7xf64>) -> tensor<8x3x7xf64> {
  // CHECK: rvnn.one_hot %{{.*}}, %{{.*}} : (tensor<?x3xi64>, tensor<8x7xf64>) -> tensor<8x3x7xf64>
  %o = rvnn.one_hot %i, %ref : (tensor<?x3xi64>, tensor<8x7xf64>) -> tensor<8x3x7xf64>
  return %o : tensor<8x3x7xf64>
}

// -----

// CHECK-LABEL: func.func @beam_gather
func.func @beam_gather(%h: tensor<?x25x?x128xf32>, %keep: tensor<?x5xi64>) -> tensor<?x5x?x128xf32> {
  // CHECK: rvnn.beam_gather %{{.*}}, %{{.*}} : (tensor<?x25x?x128xf32>, tensor<?x5xi64>) -> tensor<?x5x?x128xf32>
  %g = rvnn.beam_gather %h, %keep : (tensor<?x25x?x128xf32>, tensor<?x5xi64>) -> tensor<?x5x?x128xf32>
  return %g : tensor<?x5x?x128xf32>
}

// -----

// A gather of candidates straight from their parent beams.
// CHECK-LABEL: func.func @beam_gather_factor
func.func @beam_gather_factor(%h: tensor<?x5x?x128xf32>, %keep: tensor<?x5xi64>) -> tensor<?x5x?x128xf32> {
  // CHECK: rvnn.beam_gather %{{.*}}, %{{.*}} {factor = 5 : i64} : (tensor<?x5x?x128xf32>, tensor<?x5xi64>) -> tensor<?x5x?x128xf32>
  %g = rvnn.beam_gather %h, %keep {factor = 5 : i64} : (tensor<?x5x?x128xf32>, tensor<?x5xi64>) -> tensor<?x5x?x128xf32>
  return %g : tensor<?x5x?x128xf32>
}

// -----

// CHECK-LABEL: func.func @beam_gather_scores
func.func @beam_gather_scores(%accu: tensor<?x7xf32>, %keep: tensor<?x7xi64>) -> tensor<?x7xf32> {
  // CHECK: rvnn.beam_gather %{{.*}}, %{{.*}} : (tensor<?x7xf32>, tensor<?x7xi64>) -> tensor<?x7xf32>
  %g = rvnn.beam_gather %accu, %keep : (tensor<?x7xf32>, tensor<?x7xi64>) -> tensor<?x7xf32>
  return %g : tensor<?x7xf32>
}

// -----

// CHECK-LABEL: func.func @beam_expand
func.func @beam_expand(%h: tensor<?x5x?x128xf32>) -> tensor<?x25x?x128xf32> {
  // CHECK: rvnn.beam_expand %{{.*}} {factor = 5 : i64} : (tensor<?x5x?x128xf32>) -> tensor<?x25x?x128xf32>
  %e = rvnn.beam_expand %h {factor = 5 : i64} : (tensor<?x5x?x128xf32>) -> tensor<?x25x?x128xf32>
  return %e : tensor<?x25x?x128xf32>
}

// -----

// A dynamic beam dim stays dynamic.
// CHECK-LABEL: func.func @beam_expand_dynamic
func.func @beam_expand_dynamic(%h: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // CHECK: rvnn.beam_expand %{{.*}} {factor = 3 : i64} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %e = rvnn.beam_expand %h {factor = 3 : i64} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %e : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @beam_accumulate
func.func @beam_accumulate(%accu: tensor<?x5xf32>, %p: tensor<?x5x?xf32>, %i: tensor<?x5x5xi64>) -> tensor<?x25xf32> {
  // CHECK: rvnn.beam_accumulate %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x5xf32>, tensor<?x5x?xf32>, tensor<?x5x5xi64>) -> tensor<?x25xf32>
  %a = rvnn.beam_accumulate %accu, %p, %i : (tensor<?x5xf32>, tensor<?x5x?xf32>, tensor<?x5x5xi64>) -> tensor<?x25xf32>
  return %a : tensor<?x25xf32>
}

// -----

// B·K is dynamic unless both are static.
// CHECK-LABEL: func.func @beam_accumulate_dynamic
func.func @beam_accumulate_dynamic(%accu: tensor<?x?xf32>, %p: tensor<?x?x?xf32>, %i: tensor<?x?x2xi64>) -> tensor<?x?xf32> {
  // CHECK: rvnn.beam_accumulate %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x2xi64>) -> tensor<?x?xf32>
  %a = rvnn.beam_accumulate %accu, %p, %i : (tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x2xi64>) -> tensor<?x?xf32>
  return %a : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @beam_align
func.func @beam_align(%accu: tensor<?x7xf32>, %bm: tensor<?x7xf32>) -> tensor<?x7xi64> {
  // CHECK: rvnn.beam_align %{{.*}}, %{{.*}} : (tensor<?x7xf32>, tensor<?x7xf32>) -> tensor<?x7xi64>
  %k = rvnn.beam_align %accu, %bm : (tensor<?x7xf32>, tensor<?x7xf32>) -> tensor<?x7xi64>
  return %k : tensor<?x7xi64>
}

// -----

// CHECK-LABEL: func.func @beam_align_attrs
func.func @beam_align_attrs(%accu: tensor<?x7xf32>, %bm: tensor<?x7xf32>) -> tensor<?x7xi64> {
  // CHECK: rvnn.beam_align %{{.*}}, %{{.*}} {mode = #rvnn.align<uniform>, temperature = 5.000000e-01 : f64} : (tensor<?x7xf32>, tensor<?x7xf32>) -> tensor<?x7xi64>
  %k = rvnn.beam_align %accu, %bm {temperature = 0.5 : f64, mode = #rvnn.align<uniform>} : (tensor<?x7xf32>, tensor<?x7xf32>) -> tensor<?x7xi64>
  return %k : tensor<?x7xi64>
}

// -----

// CHECK-LABEL: func.func @beam_marginalize
func.func @beam_marginalize(%roots: tensor<?x5x128xf32>, %accu: tensor<?x5xf32>, %bm: tensor<?x5xf32>) -> tensor<?x128xf32> {
  // CHECK: rvnn.beam_marginalize %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x5x128xf32>, tensor<?x5xf32>, tensor<?x5xf32>) -> tensor<?x128xf32>
  %r = rvnn.beam_marginalize %roots, %accu, %bm : (tensor<?x5x128xf32>, tensor<?x5xf32>, tensor<?x5xf32>) -> tensor<?x128xf32>
  return %r : tensor<?x128xf32>
}
