// RUN: rvnn-opt %s -split-input-file -verify-diagnostics

func.func @topk_k_zero(%x: tensor<4x5xf32>, %m: tensor<4x5xf32>) {
  // expected-error @below {{beam width k must be >= 1, got 0}}
  %v, %i = rvnn.topk %x, %m {k = 0 : i64} : (tensor<4x5xf32>, tensor<4x5xf32>) -> (tensor<4x0xf32>, tensor<4x0xi64>)
  return
}

// -----

func.func @topk_k_negative(%x: tensor<4x5xf32>, %m: tensor<4x5xf32>) {
  // expected-error @below {{beam width k must be >= 1, got -1}}
  %v, %i = rvnn.topk %x, %m {k = -1 : i64} : (tensor<4x5xf32>, tensor<4x5xf32>) -> (tensor<4x?xf32>, tensor<4x?xi64>)
  return
}

// -----

func.func @topk_k_too_large(%x: tensor<4x5xf32>, %m: tensor<4x5xf32>) {
  // expected-error @below {{k = 6 exceeds the size of the last dim of 'input' (5)}}
  %v, %i = rvnn.topk %x, %m {k = 6 : i64} : (tensor<4x5xf32>, tensor<4x5xf32>) -> (tensor<4x6xf32>, tensor<4x6xi64>)
  return
}

// -----

func.func @topk_k_too_large_mask(%x: tensor<4x?xf32>, %m: tensor<4x3xf32>) {
  // expected-error @below {{k = 4 exceeds the size of the last dim of 'input' (3)}}
  %v, %i = rvnn.topk %x, %m {k = 4 : i64} : (tensor<4x?xf32>, tensor<4x3xf32>) -> (tensor<4x4xf32>, tensor<4x4xi64>)
  return
}

// -----

func.func @topk_rank0(%x: tensor<f32>, %m: tensor<f32>) {
  // expected-error @below {{'input' must be [..., S] (rank >= 1), got rank 0}}
  %v, %i = rvnn.topk %x, %m {k = 1 : i64} : (tensor<f32>, tensor<f32>) -> (tensor<1xf32>, tensor<1xi64>)
  return
}

// -----

func.func @topk_mask_shape(%x: tensor<4x5xf32>, %m: tensor<4x6xf32>) {
  // expected-error @below {{'mask' type 'tensor<4x6xf32>' must have the shape of 'input' type 'tensor<4x5xf32>'}}
  %v, %i = rvnn.topk %x, %m {k = 2 : i64} : (tensor<4x5xf32>, tensor<4x6xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  return
}

// -----

func.func @topk_mask_rank(%x: tensor<4x5xf32>, %m: tensor<5xf32>) {
  // expected-error @below {{'mask' type 'tensor<5xf32>' must have the shape of 'input' type 'tensor<4x5xf32>'}}
  %v, %i = rvnn.topk %x, %m {k = 2 : i64} : (tensor<4x5xf32>, tensor<5xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  return
}

// -----

func.func @topk_mask_element(%x: tensor<4x5xf32>, %m: tensor<4x5xf64>) {
  // expected-error @below {{'mask' element type 'f64' must match 'input' element type 'f32'}}
  %v, %i = rvnn.topk %x, %m {k = 2 : i64} : (tensor<4x5xf32>, tensor<4x5xf64>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  return
}

// -----

func.func @topk_result(%x: tensor<4x5xf32>, %m: tensor<4x5xf32>) {
  // expected-error @below {{result #1 type 'tensor<4x3xi64>' is incompatible with the inferred shape 4x2}}
  %v, %i = rvnn.topk %x, %m {k = 2 : i64} : (tensor<4x5xf32>, tensor<4x5xf32>) -> (tensor<4x2xf32>, tensor<4x3xi64>)
  return
}

// -----

func.func @topk_values_element(%x: tensor<4x5xf32>, %m: tensor<4x5xf32>) {
  // expected-error @below {{result #0 element type 'f64' should be 'f32'}}
  %v, %i = rvnn.topk %x, %m {k = 2 : i64} : (tensor<4x5xf32>, tensor<4x5xf32>) -> (tensor<4x2xf64>, tensor<4x2xi64>)
  return
}

// -----

func.func @argmax_rank0(%x: tensor<f32>, %m: tensor<f32>) {
  // expected-error @below {{'input' must be [..., S] (rank >= 1), got rank 0}}
  %i = rvnn.argmax %x, %m : (tensor<f32>, tensor<f32>) -> tensor<1xi64>
  return
}

// -----

func.func @argmax_mask_shape(%x: tensor<4x5xf32>, %m: tensor<3x5xf32>) {
  // expected-error @below {{'mask' type 'tensor<3x5xf32>' must have the shape of 'input' type 'tensor<4x5xf32>'}}
  %i = rvnn.argmax %x, %m : (tensor<4x5xf32>, tensor<3x5xf32>) -> tensor<4x1xi64>
  return
}

// -----

func.func @argmax_mask_element(%x: tensor<4x5xf32>, %m: tensor<4x5xf64>) {
  // expected-error @below {{'mask' element type 'f64' must match 'input' element type 'f32'}}
  %i = rvnn.argmax %x, %m : (tensor<4x5xf32>, tensor<4x5xf64>) -> tensor<4x1xi64>
  return
}

// -----

func.func @argmax_result(%x: tensor<4x5xf32>, %m: tensor<4x5xf32>) {
  // expected-error @below {{result #0 type 'tensor<4x2xi64>' is incompatible with the inferred shape 4x1}}
  %i = rvnn.argmax %x, %m : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x2xi64>
  return
}

// -----

func.func @one_hot_rank0(%i: tensor<i64>, %r: tensor<5xf32>) {
  // expected-error @below {{'indices' must be [..., K] (rank >= 1), got rank 0}}
  %o = rvnn.one_hot %i, %r : (tensor<i64>, tensor<5xf32>) -> tensor<1x5xf32>
  return
}

// -----

func.func @one_hot_ref_rank(%i: tensor<4x5x1xi64>, %r: tensor<4x9xf32>) {
  // expected-error @below {{'ref' must be [..., S] with the rank of 'indices' (rank 3), got rank 2}}
  %o = rvnn.one_hot %i, %r : (tensor<4x5x1xi64>, tensor<4x9xf32>) -> tensor<4x5x1x9xf32>
  return
}

// -----

func.func @one_hot_leading(%i: tensor<4x5x1xi64>, %r: tensor<4x3x9xf32>) {
  // expected-error @below {{leading dim mismatch: 'ref' dim 1 is 3 but 'indices' dim 1 is 5}}
  %o = rvnn.one_hot %i, %r : (tensor<4x5x1xi64>, tensor<4x3x9xf32>) -> tensor<4x5x1x9xf32>
  return
}

// -----

func.func @one_hot_result(%i: tensor<4x2xi64>, %r: tensor<4x9xf32>) {
  // expected-error @below {{result #0 type 'tensor<4x2x8xf32>' is incompatible with the inferred shape 4x2x9}}
  %o = rvnn.one_hot %i, %r : (tensor<4x2xi64>, tensor<4x9xf32>) -> tensor<4x2x8xf32>
  return
}

// -----

func.func @one_hot_result_element(%i: tensor<4x2xi64>, %r: tensor<4x9xf32>) {
  // expected-error @below {{result #0 element type 'f64' should be 'f32'}}
  %o = rvnn.one_hot %i, %r : (tensor<4x2xi64>, tensor<4x9xf32>) -> tensor<4x2x9xf64>
  return
}

// -----

func.func @beam_gather_input_rank(%x: tensor<4xf32>, %i: tensor<4x2xi64>) {
  // expected-error @below {{'input' must be [N, B, ...] (rank >= 2), got rank 1}}
  %g = rvnn.beam_gather %x, %i : (tensor<4xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @beam_gather_indices_rank(%x: tensor<4x5x8xf32>, %i: tensor<4x2x1xi64>) {
  // expected-error @below {{'indices' must be [N, K] (rank 2), got rank 3}}
  %g = rvnn.beam_gather %x, %i : (tensor<4x5x8xf32>, tensor<4x2x1xi64>) -> tensor<4x2x8xf32>
  return
}

// -----

func.func @beam_gather_batch(%x: tensor<4x5x8xf32>, %i: tensor<3x2xi64>) {
  // expected-error @below {{batch dim N mismatch: 'indices' dim 0 is 3 but 'input' dim 0 is 4}}
  %g = rvnn.beam_gather %x, %i : (tensor<4x5x8xf32>, tensor<3x2xi64>) -> tensor<4x2x8xf32>
  return
}

// -----

func.func @beam_gather_input_width(%x: tensor<4x0x8xf32>, %i: tensor<4x2xi64>) {
  // expected-error @below {{beam width must be >= 1, but 'input' dim 1 is 0}}
  %g = rvnn.beam_gather %x, %i : (tensor<4x0x8xf32>, tensor<4x2xi64>) -> tensor<4x2x8xf32>
  return
}

// -----

func.func @beam_gather_indices_width(%x: tensor<4x5x8xf32>, %i: tensor<4x0xi64>) {
  // expected-error @below {{beam width must be >= 1, but 'indices' dim 1 is 0}}
  %g = rvnn.beam_gather %x, %i : (tensor<4x5x8xf32>, tensor<4x0xi64>) -> tensor<4x0x8xf32>
  return
}

// -----

func.func @beam_gather_result(%x: tensor<4x5x8xf32>, %i: tensor<4x2xi64>) {
  // expected-error @below {{result #0 type 'tensor<4x5x8xf32>' is incompatible with the inferred shape 4x2x8}}
  %g = rvnn.beam_gather %x, %i : (tensor<4x5x8xf32>, tensor<4x2xi64>) -> tensor<4x5x8xf32>
  return
}

// -----

func.func @beam_gather_factor(%x: tensor<4x5xf32>, %i: tensor<4x3xi64>) {
  // expected-error @below {{factor must be >= 1, got 0}}
  %g = rvnn.beam_gather %x, %i {factor = 0 : i64} : (tensor<4x5xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @beam_expand_factor(%x: tensor<4x5xf32>) {
  // expected-error @below {{factor must be >= 1, got 0}}
  %e = rvnn.beam_expand %x {factor = 0 : i64} : (tensor<4x5xf32>) -> tensor<4x0xf32>
  return
}

// -----

func.func @beam_expand_rank(%x: tensor<4xf32>) {
  // expected-error @below {{'input' must be [N, B, ...] (rank >= 2), got rank 1}}
  %e = rvnn.beam_expand %x {factor = 2 : i64} : (tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @beam_expand_width(%x: tensor<4x0xf32>) {
  // expected-error @below {{beam width must be >= 1, but 'input' dim 1 is 0}}
  %e = rvnn.beam_expand %x {factor = 2 : i64} : (tensor<4x0xf32>) -> tensor<4x0xf32>
  return
}

// -----

func.func @beam_expand_result(%x: tensor<?x5x3xf32>) {
  // expected-error @below {{result #0 type 'tensor<?x24x3xf32>' is incompatible with the inferred shape ?x25x3}}
  %e = rvnn.beam_expand %x {factor = 5 : i64} : (tensor<?x5x3xf32>) -> tensor<?x24x3xf32>
  return
}

// -----

func.func @beam_accumulate_accu_rank(%a: tensor<4x5x1xf32>, %p: tensor<4x5x9xf32>, %i: tensor<4x5x2xi64>) {
  // expected-error @below {{'accu' must be [N, B] (rank 2), got rank 3}}
  %r = rvnn.beam_accumulate %a, %p, %i : (tensor<4x5x1xf32>, tensor<4x5x9xf32>, tensor<4x5x2xi64>) -> tensor<4x10xf32>
  return
}

// -----

func.func @beam_accumulate_probs_rank(%a: tensor<4x5xf32>, %p: tensor<4x5xf32>, %i: tensor<4x5x2xi64>) {
  // expected-error @below {{'probs' must be [N, B, S] (rank 3), got rank 2}}
  %r = rvnn.beam_accumulate %a, %p, %i : (tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5x2xi64>) -> tensor<4x10xf32>
  return
}

// -----

func.func @beam_accumulate_indices_rank(%a: tensor<4x5xf32>, %p: tensor<4x5x9xf32>, %i: tensor<4x5xi64>) {
  // expected-error @below {{'indices' must be [N, B, K] (rank 3), got rank 2}}
  %r = rvnn.beam_accumulate %a, %p, %i : (tensor<4x5xf32>, tensor<4x5x9xf32>, tensor<4x5xi64>) -> tensor<4x10xf32>
  return
}

// -----

func.func @beam_accumulate_batch(%a: tensor<4x5xf32>, %p: tensor<3x5x9xf32>, %i: tensor<4x5x2xi64>) {
  // expected-error @below {{batch dim N mismatch: 'probs' dim 0 is 3 but 'accu' dim 0 is 4}}
  %r = rvnn.beam_accumulate %a, %p, %i : (tensor<4x5xf32>, tensor<3x5x9xf32>, tensor<4x5x2xi64>) -> tensor<4x10xf32>
  return
}

// -----

func.func @beam_accumulate_beam(%a: tensor<4x5xf32>, %p: tensor<4x5x9xf32>, %i: tensor<4x6x2xi64>) {
  // expected-error @below {{beam dim B mismatch: 'indices' dim 1 is 6 but 'accu' dim 1 is 5}}
  %r = rvnn.beam_accumulate %a, %p, %i : (tensor<4x5xf32>, tensor<4x5x9xf32>, tensor<4x6x2xi64>) -> tensor<4x10xf32>
  return
}

// -----

func.func @beam_accumulate_width(%a: tensor<4x0xf32>, %p: tensor<4x0x9xf32>, %i: tensor<4x0x2xi64>) {
  // expected-error @below {{beam width must be >= 1, but 'accu' dim 1 is 0}}
  %r = rvnn.beam_accumulate %a, %p, %i : (tensor<4x0xf32>, tensor<4x0x9xf32>, tensor<4x0x2xi64>) -> tensor<4x0xf32>
  return
}

// -----

func.func @beam_accumulate_k_width(%a: tensor<4x5xf32>, %p: tensor<4x5x9xf32>, %i: tensor<4x5x0xi64>) {
  // expected-error @below {{beam width must be >= 1, but 'indices' dim 2 is 0}}
  %r = rvnn.beam_accumulate %a, %p, %i : (tensor<4x5xf32>, tensor<4x5x9xf32>, tensor<4x5x0xi64>) -> tensor<4x0xf32>
  return
}

// -----

func.func @beam_accumulate_element(%a: tensor<4x5xf32>, %p: tensor<4x5x9xf64>, %i: tensor<4x5x2xi64>) {
  // expected-error @below {{'probs' element type 'f64' must match 'accu' element type 'f32'}}
  %r = rvnn.beam_accumulate %a, %p, %i : (tensor<4x5xf32>, tensor<4x5x9xf64>, tensor<4x5x2xi64>) -> tensor<4x10xf32>
  return
}

// -----

func.func @beam_accumulate_result(%a: tensor<4x5xf32>, %p: tensor<4x5x9xf32>, %i: tensor<4x5x2xi64>) {
  // expected-error @below {{result #0 type 'tensor<4x5xf32>' is incompatible with the inferred shape 4x10}}
  %r = rvnn.beam_accumulate %a, %p, %i : (tensor<4x5xf32>, tensor<4x5x9xf32>, tensor<4x5x2xi64>) -> tensor<4x5xf32>
  return
}

// -----

func.func @beam_align_temperature_zero(%a: tensor<4x7xf32>, %m: tensor<4x7xf32>) {
  // expected-error @below {{temperature must be finite and > 0, got 0.000000e+00}}
  %k = rvnn.beam_align %a, %m {temperature = 0.0 : f64} : (tensor<4x7xf32>, tensor<4x7xf32>) -> tensor<4x7xi64>
  return
}

// -----

func.func @beam_align_temperature_negative(%a: tensor<4x7xf32>, %m: tensor<4x7xf32>) {
  // expected-error @below {{temperature must be finite and > 0, got -1.000000e+00}}
  %k = rvnn.beam_align %a, %m {temperature = -1.0 : f64} : (tensor<4x7xf32>, tensor<4x7xf32>) -> tensor<4x7xi64>
  return
}

// -----

func.func @beam_align_temperature_inf(%a: tensor<4x7xf32>, %m: tensor<4x7xf32>) {
  // expected-error @below {{temperature must be finite and > 0, got INF}}
  %k = rvnn.beam_align %a, %m {temperature = 0x7FF0000000000000 : f64} : (tensor<4x7xf32>, tensor<4x7xf32>) -> tensor<4x7xi64>
  return
}

// -----

func.func @beam_align_accu_rank(%a: tensor<4x7x1xf32>, %m: tensor<4x7xf32>) {
  // expected-error @below {{'accu' must be [N, B] (rank 2), got rank 3}}
  %k = rvnn.beam_align %a, %m : (tensor<4x7x1xf32>, tensor<4x7xf32>) -> tensor<4x7xi64>
  return
}

// -----

func.func @beam_align_mask_rank(%a: tensor<4x7xf32>, %m: tensor<4xf32>) {
  // expected-error @below {{'beam_mask' must be [N, B] (rank 2), got rank 1}}
  %k = rvnn.beam_align %a, %m : (tensor<4x7xf32>, tensor<4xf32>) -> tensor<4x7xi64>
  return
}

// -----

func.func @beam_align_batch(%a: tensor<4x7xf32>, %m: tensor<3x7xf32>) {
  // expected-error @below {{batch dim N mismatch: 'beam_mask' dim 0 is 3 but 'accu' dim 0 is 4}}
  %k = rvnn.beam_align %a, %m : (tensor<4x7xf32>, tensor<3x7xf32>) -> tensor<4x7xi64>
  return
}

// -----

func.func @beam_align_beam(%a: tensor<4x7xf32>, %m: tensor<4x6xf32>) {
  // expected-error @below {{beam dim B mismatch: 'beam_mask' dim 1 is 6 but 'accu' dim 1 is 7}}
  %k = rvnn.beam_align %a, %m : (tensor<4x7xf32>, tensor<4x6xf32>) -> tensor<4x7xi64>
  return
}

// -----

func.func @beam_align_width(%a: tensor<4x0xf32>, %m: tensor<4x0xf32>) {
  // expected-error @below {{beam width must be >= 1, but 'accu' dim 1 is 0}}
  %k = rvnn.beam_align %a, %m : (tensor<4x0xf32>, tensor<4x0xf32>) -> tensor<4x0xi64>
  return
}

// -----

func.func @beam_align_element(%a: tensor<4x7xf32>, %m: tensor<4x7xf64>) {
  // expected-error @below {{'beam_mask' element type 'f64' must match 'accu' element type 'f32'}}
  %k = rvnn.beam_align %a, %m : (tensor<4x7xf32>, tensor<4x7xf64>) -> tensor<4x7xi64>
  return
}

// -----

func.func @beam_align_result(%a: tensor<4x7xf32>, %m: tensor<4x7xf32>) {
  // expected-error @below {{result #0 type 'tensor<4x5xi64>' is incompatible with the inferred shape 4x7}}
  %k = rvnn.beam_align %a, %m : (tensor<4x7xf32>, tensor<4x7xf32>) -> tensor<4x5xi64>
  return
}

// -----

func.func @beam_marginalize_roots_rank(%r: tensor<4x5xf32>, %a: tensor<4x5xf32>, %m: tensor<4x5xf32>) {
  // expected-error @below {{'roots' must be [N, B, D] (rank 3), got rank 2}}
  %o = rvnn.beam_marginalize %r, %a, %m : (tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @beam_marginalize_accu_rank(%r: tensor<4x5x8xf32>, %a: tensor<4xf32>, %m: tensor<4x5xf32>) {
  // expected-error @below {{'accu' must be [N, B] (rank 2), got rank 1}}
  %o = rvnn.beam_marginalize %r, %a, %m : (tensor<4x5x8xf32>, tensor<4xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @beam_marginalize_mask_rank(%r: tensor<4x5x8xf32>, %a: tensor<4x5xf32>, %m: tensor<4x5x1xf32>) {
  // expected-error @below {{'beam_mask' must be [N, B] (rank 2), got rank 3}}
  %o = rvnn.beam_marginalize %r, %a, %m : (tensor<4x5x8xf32>, tensor<4x5xf32>, tensor<4x5x1xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @beam_marginalize_batch(%r: tensor<4x5x8xf32>, %a: tensor<2x5xf32>, %m: tensor<4x5xf32>) {
  // expected-error @below {{batch dim N mismatch: 'accu' dim 0 is 2 but 'roots' dim 0 is 4}}
  %o = rvnn.beam_marginalize %r, %a, %m : (tensor<4x5x8xf32>, tensor<2x5xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @beam_marginalize_beam(%r: tensor<4x5x8xf32>, %a: tensor<4x5xf32>, %m: tensor<4x3xf32>) {
  // expected-error @below {{beam dim B mismatch: 'beam_mask' dim 1 is 3 but 'roots' dim 1 is 5}}
  %o = rvnn.beam_marginalize %r, %a, %m : (tensor<4x5x8xf32>, tensor<4x5xf32>, tensor<4x3xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @beam_marginalize_width(%r: tensor<4x0x8xf32>, %a: tensor<4x0xf32>, %m: tensor<4x0xf32>) {
  // expected-error @below {{beam width must be >= 1, but 'roots' dim 1 is 0}}
  %o = rvnn.beam_marginalize %r, %a, %m : (tensor<4x0x8xf32>, tensor<4x0xf32>, tensor<4x0xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @beam_marginalize_element(%r: tensor<4x5x8xf32>, %a: tensor<4x5xf64>, %m: tensor<4x5xf32>) {
  // expected-error @below {{'accu' element type 'f64' must match 'roots' element type 'f32'}}
  %o = rvnn.beam_marginalize %r, %a, %m : (tensor<4x5x8xf32>, tensor<4x5xf64>, tensor<4x5xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @beam_marginalize_result(%r: tensor<4x5x8xf32>, %a: tensor<4x5xf32>, %m: tensor<4x5xf32>) {
  // expected-error @below {{result #0 type 'tensor<4x5xf32>' is incompatible with the inferred shape 4x8}}
  %o = rvnn.beam_marginalize %r, %a, %m : (tensor<4x5x8xf32>, tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}
