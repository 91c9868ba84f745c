// RUN: rvnn-opt %s -split-input-file | rvnn-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @geometric_attention
func.func @geometric_attention(%q: tensor<?x16x?x32xf32>, %k: tensor<?x16x?x32xf32>, %v: tensor<?x16x?x32xf32>, %back: tensor<?x16x?xf32>, %front: tensor<?x16x?xf32>, %mask: tensor<?x?xf32>, %scale: tensor<f32>, %bias: tensor<f32>) -> tensor<?x16x?x32xf32> {
  // CHECK: rvnn.geometric_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x16x?x32xf32>, tensor<?x16x?x32xf32>, tensor<?x16x?x32xf32>, tensor<?x16x?xf32>, tensor<?x16x?xf32>, tensor<?x?xf32>, tensor<f32>, tensor<f32>) -> tensor<?x16x?x32xf32>
  %o = rvnn.geometric_attention %q, %k, %v, %back, %front, %mask, %scale, %bias : (tensor<?x16x?x32xf32>, tensor<?x16x?x32xf32>, tensor<?x16x?x32xf32>, tensor<?x16x?xf32>, tensor<?x16x?xf32>, tensor<?x?xf32>, tensor<f32>, tensor<f32>) -> tensor<?x16x?x32xf32>
  return %o : tensor<?x16x?x32xf32>
}

// -----

// Static sizes may come from any operand; the result may be more static than q.
// CHECK-LABEL: func.func @geometric_attention_normalize
func.func @geometric_attention_normalize(%q: tensor<?x2x?x4xf64>, %k: tensor<3x2x?x4xf64>, %v: tensor<?x2x?x4xf64>, %back: tensor<?x2x5xf64>, %front: tensor<?x2x?xf64>, %mask: tensor<?x?xf64>, %scale: tensor<f64>, %bias: tensor<f64>) -> tensor<3x2x5x4xf64> {
  // CHECK: rvnn.geometric_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {normalize = true} : ({{.*}}) -> tensor<3x2x5x4xf64>
  %o = rvnn.geometric_attention %q, %k, %v, %back, %front, %mask, %scale, %bias {normalize = true} : (tensor<?x2x?x4xf64>, tensor<3x2x?x4xf64>, tensor<?x2x?x4xf64>, tensor<?x2x5xf64>, tensor<?x2x?xf64>, tensor<?x?xf64>, tensor<f64>, tensor<f64>) -> tensor<3x2x5x4xf64>
  return %o : tensor<3x2x5x4xf64>
}

// -----

// CHECK-LABEL: func.func @masked_attention
func.func @masked_attention(%q: tensor<?x8x?x64xf32>, %k: tensor<?x8x?x64xf32>, %v: tensor<?x8x?x64xf32>, %mask: tensor<?x?xf32>) -> tensor<?x8x?x64xf32> {
  // CHECK: rvnn.masked_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x?xf32>) -> tensor<?x8x?x64xf32>
  %o = rvnn.masked_attention %q, %k, %v, %mask : (tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x?xf32>) -> tensor<?x8x?x64xf32>
  return %o : tensor<?x8x?x64xf32>
}

// -----

// CHECK-LABEL: func.func @masked_attention_causal
func.func @masked_attention_causal(%q: tensor<2x8x7x64xf32>, %k: tensor<2x8x7x64xf32>, %v: tensor<2x8x7x64xf32>, %mask: tensor<2x7xf32>) -> tensor<2x8x7x64xf32> {
  // CHECK: rvnn.masked_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {causal = true} : (tensor<2x8x7x64xf32>, tensor<2x8x7x64xf32>, tensor<2x8x7x64xf32>, tensor<2x7xf32>) -> tensor<2x8x7x64xf32>
  %o = rvnn.masked_attention %q, %k, %v, %mask {causal = true} : (tensor<2x8x7x64xf32>, tensor<2x8x7x64xf32>, tensor<2x8x7x64xf32>, tensor<2x7xf32>) -> tensor<2x8x7x64xf32>
  return %o : tensor<2x8x7x64xf32>
}

// -----

// CHECK-LABEL: func.func @neighbour_retrieve_right
func.func @neighbour_retrieve_right(%exist: tensor<?x?xf32>, %mask: tensor<?x?xf32>) -> tensor<?x?x?xf32> {
  // CHECK: rvnn.neighbour_retrieve %{{.*}}, %{{.*}} {direction = #rvnn.direction<right>} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  %r = rvnn.neighbour_retrieve %exist, %mask {direction = #rvnn.direction<right>} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// -----

// CHECK-LABEL: func.func @neighbour_retrieve_left
func.func @neighbour_retrieve_left(%exist: tensor<4x?xf32>, %mask: tensor<?x9xf32>) -> tensor<4x9x9xf32> {
  // CHECK: rvnn.neighbour_retrieve %{{.*}}, %{{.*}} {direction = #rvnn.direction<left>} : (tensor<4x?xf32>, tensor<?x9xf32>) -> tensor<4x9x9xf32>
  %r = rvnn.neighbour_retrieve %exist, %mask {direction = #rvnn.direction<left>} : (tensor<4x?xf32>, tensor<?x9xf32>) -> tensor<4x9x9xf32>
  return %r : tensor<4x9x9xf32>
}

// -----

// CHECK-LABEL: func.func @diagonal_scan
func.func @diagonal_scan(%u: tensor<?x?x8xf32>, %are: tensor<8x64xf32>, %aim: tensor<8x64xf32>, %bre: tensor<8x64xf32>, %bim: tensor<8x64xf32>, %cre: tensor<8x64xf32>, %cim: tensor<8x64xf32>, %mask: tensor<?x?xf32>) -> tensor<?x?x8xf32> {
  // CHECK: rvnn.diagonal_scan %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x?x8xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<?x?xf32>) -> tensor<?x?x8xf32>
  %y = rvnn.diagonal_scan %u, %are, %aim, %bre, %bim, %cre, %cim, %mask : (tensor<?x?x8xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<?x?xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// Static sizes may come from any operand (D from the parameters, N and S
// from the mask); the result may be more static than u.
// CHECK-LABEL: func.func @diagonal_scan_reverse
func.func @diagonal_scan_reverse(%u: tensor<?x?x?xf64>, %are: tensor<4x?xf64>, %aim: tensor<?x3xf64>, %bre: tensor<?x?xf64>, %bim: tensor<?x?xf64>, %cre: tensor<?x?xf64>, %cim: tensor<?x?xf64>, %mask: tensor<2x5xf64>) -> tensor<2x5x4xf64> {
  // CHECK: rvnn.diagonal_scan %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {reverse = true} : (tensor<?x?x?xf64>, tensor<4x?xf64>, tensor<?x3xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<2x5xf64>) -> tensor<2x5x4xf64>
  %y = rvnn.diagonal_scan %u, %are, %aim, %bre, %bim, %cre, %cim, %mask {reverse = true} : (tensor<?x?x?xf64>, tensor<4x?xf64>, tensor<?x3xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<2x5xf64>) -> tensor<2x5x4xf64>
  return %y : tensor<2x5x4xf64>
}
