// RUN: rvnn-opt %s -split-input-file -verify-diagnostics

func.func @geometric_q_rank(%q: tensor<2x4x32xf32>, %k: tensor<2x4x7x32xf32>, %v: tensor<2x4x7x32xf32>, %back: tensor<2x4x7xf32>, %front: tensor<2x4x7xf32>, %mask: tensor<2x7xf32>, %scale: tensor<f32>, %bias: tensor<f32>) -> tensor<2x4x7x32xf32> {
  // expected-error @below {{'q' must have rank 4 ([N, H, S, Dh]), got 'tensor<2x4x32xf32>'}}
  %o = rvnn.geometric_attention %q, %k, %v, %back, %front, %mask, %scale, %bias : (tensor<2x4x32xf32>, tensor<2x4x7x32xf32>, tensor<2x4x7x32xf32>, tensor<2x4x7xf32>, tensor<2x4x7xf32>, tensor<2x7xf32>, tensor<f32>, tensor<f32>) -> tensor<2x4x7x32xf32>
  return %o : tensor<2x4x7x32xf32>
}

// -----

func.func @geometric_back_rank(%q: tensor<2x4x7x32xf32>, %k: tensor<2x4x7x32xf32>, %v: tensor<2x4x7x32xf32>, %back: tensor<2x7xf32>, %front: tensor<2x4x7xf32>, %mask: tensor<2x7xf32>, %scale: tensor<f32>, %bias: tensor<f32>) -> tensor<2x4x7x32xf32> {
  // expected-error @below {{'back' must have rank 3 ([N, H, S]), got 'tensor<2x7xf32>'}}
  %o = rvnn.geometric_attention %q, %k, %v, %back, %front, %mask, %scale, %bias : (tensor<2x4x7x32xf32>, tensor<2x4x7x32xf32>, tensor<2x4x7x32xf32>, tensor<2x7xf32>, tensor<2x4x7xf32>, tensor<2x7xf32>, tensor<f32>, tensor<f32>) -> tensor<2x4x7x32xf32>
  return %o : tensor<2x4x7x32xf32>
}

// -----

func.func @geometric_mask_rank(%q: tensor<2x4x7x32xf32>, %k: tensor<2x4x7x32xf32>, %v: tensor<2x4x7x32xf32>, %back: tensor<2x4x7xf32>, %front: tensor<2x4x7xf32>, %mask: tensor<2x4x7xf32>, %scale: tensor<f32>, %bias: tensor<f32>) -> tensor<2x4x7x32xf32> {
  // expected-error @below {{'mask' must have rank 2 ([N, S]), got 'tensor<2x4x7xf32>'}}
  %o = rvnn.geometric_attention %q, %k, %v, %back, %front, %mask, %scale, %bias : (tensor<2x4x7x32xf32>, tensor<2x4x7x32xf32>, tensor<2x4x7x32xf32>, tensor<2x4x7xf32>, tensor<2x4x7xf32>, tensor<2x4x7xf32>, tensor<f32>, tensor<f32>) -> tensor<2x4x7x32xf32>
  return %o : tensor<2x4x7x32xf32>
}

// -----

func.func @geometric_head_size(%q: tensor<2x4x7x32xf32>, %k: tensor<2x4x7x32xf32>, %v: tensor<2x4x7x16xf32>, %back: tensor<2x4x7xf32>, %front: tensor<2x4x7xf32>, %mask: tensor<2x7xf32>, %scale: tensor<f32>, %bias: tensor<f32>) -> tensor<2x4x7x32xf32> {
  // expected-error @below {{'v' dim 3 (Dh) is 16, but Dh = 32 from 'q'}}
  %o = rvnn.geometric_attention %q, %k, %v, %back, %front, %mask, %scale, %bias : (tensor<2x4x7x32xf32>, tensor<2x4x7x32xf32>, tensor<2x4x7x16xf32>, tensor<2x4x7xf32>, tensor<2x4x7xf32>, tensor<2x7xf32>, tensor<f32>, tensor<f32>) -> tensor<2x4x7x32xf32>
  return %o : tensor<2x4x7x32xf32>
}

// -----

// A size fixed by one operand binds all later ones, even where q is dynamic.
func.func @geometric_length(%q: tensor<?x4x?x32xf32>, %k: tensor<?x4x7x32xf32>, %v: tensor<?x4x?x32xf32>, %back: tensor<?x4x?xf32>, %front: tensor<?x4x8xf32>, %mask: tensor<?x?xf32>, %scale: tensor<f32>, %bias: tensor<f32>) -> tensor<?x4x?x32xf32> {
  // expected-error @below {{'front' dim 2 (S) is 8, but S = 7 from 'k'}}
  %o = rvnn.geometric_attention %q, %k, %v, %back, %front, %mask, %scale, %bias : (tensor<?x4x?x32xf32>, tensor<?x4x7x32xf32>, tensor<?x4x?x32xf32>, tensor<?x4x?xf32>, tensor<?x4x8xf32>, tensor<?x?xf32>, tensor<f32>, tensor<f32>) -> tensor<?x4x?x32xf32>
  return %o : tensor<?x4x?x32xf32>
}

// -----

func.func @geometric_mask_batch(%q: tensor<2x4x7x32xf32>, %k: tensor<2x4x7x32xf32>, %v: tensor<2x4x7x32xf32>, %back: tensor<2x4x7xf32>, %front: tensor<2x4x7xf32>, %mask: tensor<3x7xf32>, %scale: tensor<f32>, %bias: tensor<f32>) -> tensor<2x4x7x32xf32> {
  // expected-error @below {{'mask' dim 0 (N) is 3, but N = 2 from 'q'}}
  %o = rvnn.geometric_attention %q, %k, %v, %back, %front, %mask, %scale, %bias : (tensor<2x4x7x32xf32>, tensor<2x4x7x32xf32>, tensor<2x4x7x32xf32>, tensor<2x4x7xf32>, tensor<2x4x7xf32>, tensor<3x7xf32>, tensor<f32>, tensor<f32>) -> tensor<2x4x7x32xf32>
  return %o : tensor<2x4x7x32xf32>
}

// -----

func.func @geometric_element_type(%q: tensor<2x4x7x32xf32>, %k: tensor<2x4x7x32xf64>, %v: tensor<2x4x7x32xf32>, %back: tensor<2x4x7xf32>, %front: tensor<2x4x7xf32>, %mask: tensor<2x7xf32>, %scale: tensor<f32>, %bias: tensor<f32>) -> tensor<2x4x7x32xf32> {
  // expected-error @below {{'k' element type 'f64' does not match 'q' element type 'f32'}}
  %o = rvnn.geometric_attention %q, %k, %v, %back, %front, %mask, %scale, %bias : (tensor<2x4x7x32xf32>, tensor<2x4x7x32xf64>, tensor<2x4x7x32xf32>, tensor<2x4x7xf32>, tensor<2x4x7xf32>, tensor<2x7xf32>, tensor<f32>, tensor<f32>) -> tensor<2x4x7x32xf32>
  return %o : tensor<2x4x7x32xf32>
}

// -----

func.func @geometric_scale_type(%q: tensor<2x4x7x32xf32>, %k: tensor<2x4x7x32xf32>, %v: tensor<2x4x7x32xf32>, %back: tensor<2x4x7xf32>, %front: tensor<2x4x7xf32>, %mask: tensor<2x7xf32>, %scale: tensor<f64>, %bias: tensor<f32>) -> tensor<2x4x7x32xf32> {
  // expected-error @below {{'scale' element type 'f64' does not match 'q' element type 'f32'}}
  %o = rvnn.geometric_attention %q, %k, %v, %back, %front, %mask, %scale, %bias : (tensor<2x4x7x32xf32>, tensor<2x4x7x32xf32>, tensor<2x4x7x32xf32>, tensor<2x4x7xf32>, tensor<2x4x7xf32>, tensor<2x7xf32>, tensor<f64>, tensor<f32>) -> tensor<2x4x7x32xf32>
  return %o : tensor<2x4x7x32xf32>
}

// -----

func.func @geometric_scale_rank(%q: tensor<2x4x7x32xf32>, %k: tensor<2x4x7x32xf32>, %v: tensor<2x4x7x32xf32>, %back: tensor<2x4x7xf32>, %front: tensor<2x4x7xf32>, %mask: tensor<2x7xf32>, %scale: tensor<1xf32>, %bias: tensor<f32>) -> tensor<2x4x7x32xf32> {
  // expected-error @below {{operand #6 must be 0D tensor of 32-bit float or 64-bit float values}}
  %o = rvnn.geometric_attention %q, %k, %v, %back, %front, %mask, %scale, %bias : (tensor<2x4x7x32xf32>, tensor<2x4x7x32xf32>, tensor<2x4x7x32xf32>, tensor<2x4x7xf32>, tensor<2x4x7xf32>, tensor<2x7xf32>, tensor<1xf32>, tensor<f32>) -> tensor<2x4x7x32xf32>
  return %o : tensor<2x4x7x32xf32>
}

// -----

func.func @geometric_result(%q: tensor<2x4x7x32xf32>, %k: tensor<2x4x7x32xf32>, %v: tensor<2x4x7x32xf32>, %back: tensor<2x4x7xf32>, %front: tensor<2x4x7xf32>, %mask: tensor<2x7xf32>, %scale: tensor<f32>, %bias: tensor<f32>) -> tensor<2x4x7x16xf32> {
  // expected-error @below {{result #0 type 'tensor<2x4x7x16xf32>' is incompatible with the inferred shape 2x4x7x32}}
  %o = rvnn.geometric_attention %q, %k, %v, %back, %front, %mask, %scale, %bias : (tensor<2x4x7x32xf32>, tensor<2x4x7x32xf32>, tensor<2x4x7x32xf32>, tensor<2x4x7xf32>, tensor<2x4x7xf32>, tensor<2x7xf32>, tensor<f32>, tensor<f32>) -> tensor<2x4x7x16xf32>
  return %o : tensor<2x4x7x16xf32>
}

// -----

func.func @masked_attention_k_rank(%q: tensor<2x8x7x64xf32>, %k: tensor<2x7x64xf32>, %v: tensor<2x8x7x64xf32>, %mask: tensor<2x7xf32>) -> tensor<2x8x7x64xf32> {
  // expected-error @below {{'k' must have rank 4 ([N, H, S, Dh]), got 'tensor<2x7x64xf32>'}}
  %o = rvnn.masked_attention %q, %k, %v, %mask : (tensor<2x8x7x64xf32>, tensor<2x7x64xf32>, tensor<2x8x7x64xf32>, tensor<2x7xf32>) -> tensor<2x8x7x64xf32>
  return %o : tensor<2x8x7x64xf32>
}

// -----

func.func @masked_attention_heads(%q: tensor<2x8x7x64xf32>, %k: tensor<2x4x7x64xf32>, %v: tensor<2x8x7x64xf32>, %mask: tensor<2x7xf32>) -> tensor<2x8x7x64xf32> {
  // expected-error @below {{'k' dim 1 (H) is 4, but H = 8 from 'q'}}
  %o = rvnn.masked_attention %q, %k, %v, %mask : (tensor<2x8x7x64xf32>, tensor<2x4x7x64xf32>, tensor<2x8x7x64xf32>, tensor<2x7xf32>) -> tensor<2x8x7x64xf32>
  return %o : tensor<2x8x7x64xf32>
}

// -----

func.func @masked_attention_mask_length(%q: tensor<?x8x?x64xf32>, %k: tensor<?x8x?x64xf32>, %v: tensor<?x8x5x64xf32>, %mask: tensor<?x6xf32>) -> tensor<?x8x?x64xf32> {
  // expected-error @below {{'mask' dim 1 (S) is 6, but S = 5 from 'v'}}
  %o = rvnn.masked_attention %q, %k, %v, %mask : (tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x5x64xf32>, tensor<?x6xf32>) -> tensor<?x8x?x64xf32>
  return %o : tensor<?x8x?x64xf32>
}

// -----

func.func @masked_attention_result_type(%q: tensor<2x8x7x64xf32>, %k: tensor<2x8x7x64xf32>, %v: tensor<2x8x7x64xf32>, %mask: tensor<2x7xf32>) -> tensor<2x8x7x64xf64> {
  // expected-error @below {{result #0 element type 'f64' should be 'f32'}}
  %o = rvnn.masked_attention %q, %k, %v, %mask : (tensor<2x8x7x64xf32>, tensor<2x8x7x64xf32>, tensor<2x8x7x64xf32>, tensor<2x7xf32>) -> tensor<2x8x7x64xf64>
  return %o : tensor<2x8x7x64xf64>
}

// -----

func.func @neighbour_exist_rank(%exist: tensor<2x7x1xf32>, %mask: tensor<2x7xf32>) -> tensor<2x7x7xf32> {
  // expected-error @below {{'exist' must have rank 2 ([N, S]), got 'tensor<2x7x1xf32>'}}
  %r = rvnn.neighbour_retrieve %exist, %mask {direction = #rvnn.direction<right>} : (tensor<2x7x1xf32>, tensor<2x7xf32>) -> tensor<2x7x7xf32>
  return %r : tensor<2x7x7xf32>
}

// -----

func.func @neighbour_mask_length(%exist: tensor<2x7xf32>, %mask: tensor<2x8xf32>) -> tensor<2x7x7xf32> {
  // expected-error @below {{'mask' dim 1 (S) is 8, but S = 7 from 'exist'}}
  %r = rvnn.neighbour_retrieve %exist, %mask {direction = #rvnn.direction<left>} : (tensor<2x7xf32>, tensor<2x8xf32>) -> tensor<2x7x7xf32>
  return %r : tensor<2x7x7xf32>
}

// -----

func.func @neighbour_result(%exist: tensor<?x7xf32>, %mask: tensor<?x?xf32>) -> tensor<?x7x8xf32> {
  // expected-error @below {{result #0 type 'tensor<?x7x8xf32>' is incompatible with the inferred shape ?x7x7}}
  %r = rvnn.neighbour_retrieve %exist, %mask {direction = #rvnn.direction<right>} : (tensor<?x7xf32>, tensor<?x?xf32>) -> tensor<?x7x8xf32>
  return %r : tensor<?x7x8xf32>
}

// -----

func.func @neighbour_no_direction(%exist: tensor<?x?xf32>, %mask: tensor<?x?xf32>) -> tensor<?x?x?xf32> {
  // expected-error @below {{requires attribute 'direction'}}
  %r = rvnn.neighbour_retrieve %exist, %mask : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// -----

func.func @scan_u_rank(%u: tensor<2x7xf32>, %p: tensor<4x3xf32>, %mask: tensor<2x7xf32>) -> tensor<2x7x4xf32> {
  // expected-error @below {{'u' must have rank 3 ([N, S, D]), got 'tensor<2x7xf32>'}}
  %y = rvnn.diagonal_scan %u, %p, %p, %p, %p, %p, %p, %mask : (tensor<2x7xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x7xf32>) -> tensor<2x7x4xf32>
  return %y : tensor<2x7x4xf32>
}

// -----

func.func @scan_channels(%u: tensor<2x7x5xf32>, %p: tensor<4x3xf32>, %mask: tensor<2x7xf32>) -> tensor<2x7x5xf32> {
  // expected-error @below {{'a_re' dim 0 (D) is 4, but D = 5 from 'u'}}
  %y = rvnn.diagonal_scan %u, %p, %p, %p, %p, %p, %p, %mask : (tensor<2x7x5xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x7xf32>) -> tensor<2x7x5xf32>
  return %y : tensor<2x7x5xf32>
}

// -----

func.func @scan_states(%u: tensor<2x7x4xf32>, %p: tensor<4x3xf32>, %q: tensor<4x2xf32>, %mask: tensor<2x7xf32>) -> tensor<2x7x4xf32> {
  // expected-error @below {{'c_im' dim 1 (P) is 2, but P = 3 from 'a_re'}}
  %y = rvnn.diagonal_scan %u, %p, %p, %p, %p, %p, %q, %mask : (tensor<2x7x4xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x2xf32>, tensor<2x7xf32>) -> tensor<2x7x4xf32>
  return %y : tensor<2x7x4xf32>
}

// -----

func.func @scan_mask_length(%u: tensor<2x7x4xf32>, %p: tensor<4x3xf32>, %mask: tensor<2x8xf32>) -> tensor<2x7x4xf32> {
  // expected-error @below {{'mask' dim 1 (S) is 8, but S = 7 from 'u'}}
  %y = rvnn.diagonal_scan %u, %p, %p, %p, %p, %p, %p, %mask : (tensor<2x7x4xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x8xf32>) -> tensor<2x7x4xf32>
  return %y : tensor<2x7x4xf32>
}

// -----

func.func @scan_element_type(%u: tensor<2x7x4xf32>, %p: tensor<4x3xf32>, %q: tensor<4x3xf64>, %mask: tensor<2x7xf32>) -> tensor<2x7x4xf32> {
  // expected-error @below {{'b_im' element type 'f64' does not match 'u' element type 'f32'}}
  %y = rvnn.diagonal_scan %u, %p, %p, %p, %q, %p, %p, %mask : (tensor<2x7x4xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf64>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x7xf32>) -> tensor<2x7x4xf32>
  return %y : tensor<2x7x4xf32>
}

// -----

func.func @scan_result(%u: tensor<?x?x4xf32>, %p: tensor<4x3xf32>, %mask: tensor<?x?xf32>) -> tensor<?x?x3xf32> {
  // expected-error @below {{result #0 type 'tensor<?x?x3xf32>' is incompatible with the inferred shape ?x?x4}}
  %y = rvnn.diagonal_scan %u, %p, %p, %p, %p, %p, %p, %mask : (tensor<?x?x4xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<?x?xf32>) -> tensor<?x?x3xf32>
  return %y : tensor<?x?x3xf32>
}
