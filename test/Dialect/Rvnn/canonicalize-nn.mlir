// RUN: rvnn-opt %s -split-input-file -canonicalize | FileCheck %s
// RUN: rvnn-opt %s -split-input-file -cse | FileCheck %s --check-prefix=CSE

// CHECK-LABEL: func.func @dropout_zero_rate
// CHECK-SAME: (%[[X:.*]]: tensor<?x128xf32>)
// CHECK-NOT: rvnn.dropout
// CHECK: return %[[X]]
func.func @dropout_zero_rate(%x: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %y = rvnn.dropout %x {rate = 0.0 : f64, rescale = false, shared_dims = array<i64: 1>} : tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

// A non-zero rate stays, and two identical dropouts are not merged: each
// draws its own mask from the random generator.
// CHECK-LABEL: func.func @dropout_kept
// CHECK-COUNT-2: rvnn.dropout
// CSE-LABEL: func.func @dropout_kept
// CSE-COUNT-2: rvnn.dropout
func.func @dropout_kept(%x: tensor<?x128xf32>) -> (tensor<?x128xf32>, tensor<?x128xf32>) {
  %a = rvnn.dropout %x {rate = 0.1 : f64} : tensor<?x128xf32>
  %b = rvnn.dropout %x {rate = 0.1 : f64} : tensor<?x128xf32>
  return %a, %b : tensor<?x128xf32>, tensor<?x128xf32>
}

// -----

// Reads of one parameter are pure and merge.
rvnn.param @w : tensor<4x4xf32> init xavier_uniform
// CSE-LABEL: func.func @param_get_cse
// CSE: %[[W:.*]] = rvnn.param_get @w
// CSE-NOT: rvnn.param_get
// CSE: return %[[W]], %[[W]]
func.func @param_get_cse() -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %a = rvnn.param_get @w : tensor<4x4xf32>
  %b = rvnn.param_get @w : tensor<4x4xf32>
  return %a, %b : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_like_static_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4x5xf32>, %{{.*}}: tensor<?x5xf32>)
// CHECK-NOT: rvnn.broadcast_like
// CHECK: return %[[X]]
func.func @broadcast_like_static_same_type(%x: tensor<4x5xf32>, %r: tensor<?x5xf32>) -> tensor<4x5xf32> {
  %y = rvnn.broadcast_like %x, %r : (tensor<4x5xf32>, tensor<?x5xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_like_self
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>)
// CHECK-NOT: rvnn.broadcast_like
// CHECK: return %[[X]]
func.func @broadcast_like_self(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %y = rvnn.broadcast_like %x, %x : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// A dynamic dim of x may be 1 and broadcast: no fold.
// CHECK-LABEL: func.func @broadcast_like_dynamic_kept
// CHECK: rvnn.broadcast_like
func.func @broadcast_like_dynamic_kept(%x: tensor<?x5xf32>, %r: tensor<?x5xf32>) -> tensor<?x5xf32> {
  %y = rvnn.broadcast_like %x, %r : (tensor<?x5xf32>, tensor<?x5xf32>) -> tensor<?x5xf32>
  return %y : tensor<?x5xf32>
}

// -----

// A real broadcast stays.
// CHECK-LABEL: func.func @broadcast_like_kept
// CHECK: rvnn.broadcast_like
func.func @broadcast_like_kept(%x: tensor<4x1xf32>, %r: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %y = rvnn.broadcast_like %x, %r : (tensor<4x1xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

// Selecting one value in both modes is that value.
// CHECK-LABEL: func.func @mode_select_same
// CHECK-SAME: (%[[X:.*]]: tensor<?x5xf32>
// CHECK-NOT: rvnn.mode_select
// CHECK: return %[[X]]
func.func @mode_select_same(%x: tensor<?x5xf32>) -> tensor<?x5xf32> {
  %y = rvnn.mode_select %x, %x : tensor<?x5xf32>, tensor<?x5xf32> -> tensor<?x5xf32>
  return %y : tensor<?x5xf32>
}

// -----

// Different values stay; two selections of the same values merge.
// CHECK-LABEL: func.func @mode_select_kept
// CHECK: rvnn.mode_select
// CSE-LABEL: func.func @mode_select_kept
// CSE-COUNT-1: rvnn.mode_select
// CSE-NOT: rvnn.mode_select
func.func @mode_select_kept(%a: tensor<?x5xf32>, %b: tensor<?x5xf32>) -> (tensor<?x5xf32>, tensor<?x5xf32>) {
  %x = rvnn.mode_select %a, %b : tensor<?x5xf32>, tensor<?x5xf32> -> tensor<?x5xf32>
  %y = rvnn.mode_select %a, %b : tensor<?x5xf32>, tensor<?x5xf32> -> tensor<?x5xf32>
  return %x, %y : tensor<?x5xf32>, tensor<?x5xf32>
}

// -----

// An evaluation option is only known at run time: it never folds, and two
// reads of one option merge.
// CHECK-LABEL: func.func @eval_option_kept
// CHECK: rvnn.eval_option "rir_inference"
// CHECK: arith.muli
// CSE-LABEL: func.func @eval_option_kept
// CSE-COUNT-1: rvnn.eval_option
// CSE-NOT: rvnn.eval_option
func.func @eval_option_kept(%n: index) -> (index, index) {
  %a = rvnn.eval_option "rir_inference" {training = 1 : i64, evaluation = 0 : i64}
  %b = rvnn.eval_option "rir_inference" {training = 1 : i64, evaluation = 0 : i64}
  %x = arith.muli %n, %a : index
  %y = arith.muli %n, %b : index
  return %x, %y : index, index
}
