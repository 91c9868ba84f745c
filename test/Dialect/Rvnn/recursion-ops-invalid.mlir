// RUN: rvnn-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// rvnn.recurse: bounds and attributes
//===----------------------------------------------------------------------===//

func.func @recurse_steps_zero(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{steps must be >= 1, got 0}}
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <none> steps = 0 {
  ^bb0(%t: index, %s: tensor<4xf32>):
    rvnn.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recurse_eval_steps_not_fixed(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{eval_steps is only valid with halting <fixed>, not <none>}}
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <none> steps = 2 eval_steps = 3 {
  ^bb0(%t: index, %s: tensor<4xf32>):
    rvnn.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recurse_eval_steps_zero(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{eval_steps must be >= 1, got 0}}
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <fixed> steps = 2 eval_steps = 0 {
  ^bb0(%t: index, %s: tensor<4xf32>):
    rvnn.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recurse_fixed_no_steps(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{halting <fixed> needs the steps attribute}}
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <fixed> {
  ^bb0(%t: index, %s: tensor<4xf32>):
    rvnn.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recurse_fixed_max_steps(%a: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  // expected-error @below {{halting <fixed> takes no max_steps operand (its step count is the steps attribute)}}
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <fixed> max_steps %n steps = 2 {
  ^bb0(%t: index, %s: tensor<4xf32>):
    rvnn.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recurse_none_no_bound(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{halting <none> needs exactly one bound: the max_steps operand or the steps attribute}}
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <none> {
  ^bb0(%t: index, %s: tensor<4xf32>):
    rvnn.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recurse_per_sample_two_bounds(%a: tensor<4xf32>, %n: index, %done: tensor<4xi1>) -> tensor<4xf32> {
  // expected-error @below {{halting <per_sample> needs exactly one bound: the max_steps operand or the steps attribute}}
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <per_sample> max_steps %n steps = 5 {
  ^bb0(%t: index, %s: tensor<4xf32>):
    rvnn.yield %s halt %done : tensor<4xf32>, tensor<4xi1>
  }
  return %r : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// rvnn.recurse: state types (results, body arguments)
//===----------------------------------------------------------------------===//

func.func @recurse_result_count(%a: tensor<4xf32>) {
  // expected-error @below {{has 1 inits but 2 results}}
  %r:2 = "rvnn.recurse"(%a) <{halting = #rvnn.halting<none>, steps = 2 : i64, operandSegmentSizes = array<i32: 1, 0>}> ({
  ^bb0(%t: index, %s: tensor<4xf32>):
    rvnn.yield %s : tensor<4xf32>
  }) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @recurse_result_type(%a: tensor<4xf32>) {
  // expected-error @below {{result #0 type 'tensor<?xf32>' does not match init #0 type 'tensor<4xf32>'}}
  %r = "rvnn.recurse"(%a) <{halting = #rvnn.halting<none>, steps = 2 : i64, operandSegmentSizes = array<i32: 1, 0>}> ({
  ^bb0(%t: index, %s: tensor<4xf32>):
    rvnn.yield %s : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @recurse_arg_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{body must have 2 arguments (the step index, then one per state), got 1}}
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <none> steps = 2 {
  ^bb0(%s: tensor<4xf32>):
    rvnn.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recurse_step_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{body argument #0 (the step) must be index, got 'i64'}}
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <none> steps = 2 {
  ^bb0(%t: i64, %s: tensor<4xf32>):
    rvnn.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recurse_arg_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{body argument #1 type 'tensor<?xf32>' does not match state #0 type 'tensor<4xf32>'}}
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <none> steps = 2 {
  ^bb0(%t: index, %s: tensor<?xf32>):
    %c = tensor.cast %s : tensor<?xf32> to tensor<4xf32>
    rvnn.yield %c : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recurse_per_sample_scalar_state(%a: tensor<4xf32>, %i: index, %done: tensor<4xi1>) -> tensor<4xf32> {
  // expected-error @below {{halting <per_sample> needs every state to be a ranked tensor with the batch as dim 0; state #1 has type 'index'}}
  %r:2 = rvnn.recurse (%s = %a, %j = %i) : tensor<4xf32>, index halting <per_sample> steps = 3 {
  ^bb0(%t: index, %s: tensor<4xf32>, %j: index):
    rvnn.yield %s, %j halt %done : tensor<4xf32>, index, tensor<4xi1>
  }
  return %r#0 : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// rvnn.recurse: the yield
//===----------------------------------------------------------------------===//

func.func @recurse_no_yield(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{body must end with rvnn.yield}}
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <none> steps = 2 {
  ^bb0(%t: index, %s: tensor<4xf32>):
    func.return %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recurse_yield_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <none> steps = 2 {
  ^bb0(%t: index, %s: tensor<4xf32>):
    // expected-error @below {{gives 2 values but the rvnn.recurse has 1 states}}
    rvnn.yield %s, %s : tensor<4xf32>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recurse_yield_type(%a: tensor<4xf32>, %b: tensor<?xf32>) -> tensor<4xf32> {
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <none> steps = 2 {
  ^bb0(%t: index, %s: tensor<4xf32>):
    // expected-error @below {{value #0 type 'tensor<?xf32>' does not match state #0 type 'tensor<4xf32>'}}
    rvnn.yield %b : tensor<?xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recurse_halt_not_per_sample(%a: tensor<4xf32>, %done: tensor<4xi1>) -> tensor<4xf32> {
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <fixed> steps = 2 {
  ^bb0(%t: index, %s: tensor<4xf32>):
    // expected-error @below {{gives a halt value, but only halting <per_sample> takes one (this loop is <fixed>)}}
    rvnn.yield %s halt %done : tensor<4xf32>, tensor<4xi1>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recurse_per_sample_no_halt(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <per_sample> steps = 2 {
  ^bb0(%t: index, %s: tensor<4xf32>):
    // expected-error @below {{must give a halt value (`halt %h`) under halting <per_sample>}}
    rvnn.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recurse_halt_type(%a: tensor<4xf32>, %done: tensor<4xf32>) -> tensor<4xf32> {
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <per_sample> steps = 2 {
  ^bb0(%t: index, %s: tensor<4xf32>):
    // expected-error @below {{halt must be a rank-1 tensor of i1, got 'tensor<4xf32>'}}
    rvnn.yield %s halt %done : tensor<4xf32>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @recurse_halt_batch(%a: tensor<4x8xf32>, %b: tensor<?x2xf32>, %done: tensor<3xi1>) -> tensor<4x8xf32> {
  %r:2 = rvnn.recurse (%s = %b, %u = %a) : tensor<?x2xf32>, tensor<4x8xf32> halting <per_sample> steps = 2 {
  ^bb0(%t: index, %s: tensor<?x2xf32>, %u: tensor<4x8xf32>):
    // expected-error @below {{halt batch size 3 does not match dim 0 (4) of state #1}}
    rvnn.yield %s, %u halt %done : tensor<?x2xf32>, tensor<4x8xf32>, tensor<3xi1>
  }
  return %r#1 : tensor<4x8xf32>
}

// -----

func.func @yield_has_halt_without_operand() {
  rvnn.recurse () halting <none> steps = 1 {
  ^bb0(%t: index):
    // expected-error @below {{has_halt needs a trailing halt operand}}
    "rvnn.yield"() <{has_halt}> : () -> ()
  }
  return
}

// -----

func.func @yield_parent(%a: tensor<4xf32>) {
  // expected-error @below {{expects parent op to be one of 'rvnn.recurse, rvnn.balanced_reduce'}}
  rvnn.yield %a : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// rvnn.balanced_reduce
//===----------------------------------------------------------------------===//

func.func @balanced_reduce_arity(%h: tensor<?x?x8xf32>, %m: tensor<?x?xf32>, %p: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @below {{arity must be >= 2, got 1}}
  %r = rvnn.balanced_reduce %h, %m {arity = 1} : (tensor<?x?x8xf32>, tensor<?x?xf32>) -> tensor<?x8xf32> {
  ^bb0(%c: tensor<?x1x8xf32>, %cm: tensor<?x1xf32>):
    rvnn.yield %p : tensor<?x8xf32>
  }
  return %r : tensor<?x8xf32>
}

// -----

func.func @balanced_reduce_h_rank(%h: tensor<?x8xf32>, %m: tensor<?x?xf32>, %p: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @below {{'h' must be [N, S, D] (rank 3), got rank 2}}
  %r = rvnn.balanced_reduce %h, %m {arity = 2} : (tensor<?x8xf32>, tensor<?x?xf32>) -> tensor<?x8xf32> {
  ^bb0(%c: tensor<?x2x8xf32>, %cm: tensor<?x2xf32>):
    rvnn.yield %p : tensor<?x8xf32>
  }
  return %r : tensor<?x8xf32>
}

// -----

func.func @balanced_reduce_mask_rank(%h: tensor<?x?x8xf32>, %m: tensor<?x?x1xf32>, %p: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @below {{'mask' must be [N, S] (rank 2), got rank 3}}
  %r = rvnn.balanced_reduce %h, %m {arity = 2} : (tensor<?x?x8xf32>, tensor<?x?x1xf32>) -> tensor<?x8xf32> {
  ^bb0(%c: tensor<?x2x8xf32>, %cm: tensor<?x2xf32>):
    rvnn.yield %p : tensor<?x8xf32>
  }
  return %r : tensor<?x8xf32>
}

// -----

func.func @balanced_reduce_mask_dims(%h: tensor<4x10x8xf32>, %m: tensor<4x9xf32>, %p: tensor<?x8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{sequence dim S mismatch: 'mask' dim 1 is 9 but 'h' dim 1 is 10}}
  %r = rvnn.balanced_reduce %h, %m {arity = 2} : (tensor<4x10x8xf32>, tensor<4x9xf32>) -> tensor<4x8xf32> {
  ^bb0(%c: tensor<?x2x8xf32>, %cm: tensor<?x2xf32>):
    rvnn.yield %p : tensor<?x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

func.func @balanced_reduce_arg_count(%h: tensor<?x?x8xf32>, %m: tensor<?x?xf32>, %p: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @below {{body must have 2 arguments (children [?, k, D] and their mask [?, k]), got 1}}
  %r = rvnn.balanced_reduce %h, %m {arity = 2} : (tensor<?x?x8xf32>, tensor<?x?xf32>) -> tensor<?x8xf32> {
  ^bb0(%c: tensor<?x2x8xf32>):
    rvnn.yield %p : tensor<?x8xf32>
  }
  return %r : tensor<?x8xf32>
}

// -----

func.func @balanced_reduce_children_type(%h: tensor<?x?x8xf32>, %m: tensor<?x?xf32>, %p: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @below {{body argument #0 (children) must be compatible with 'tensor<?x2x8xf32>', got 'tensor<?x3x8xf32>'}}
  %r = rvnn.balanced_reduce %h, %m {arity = 2} : (tensor<?x?x8xf32>, tensor<?x?xf32>) -> tensor<?x8xf32> {
  ^bb0(%c: tensor<?x3x8xf32>, %cm: tensor<?x2xf32>):
    rvnn.yield %p : tensor<?x8xf32>
  }
  return %r : tensor<?x8xf32>
}

// -----

func.func @balanced_reduce_mask_arg_type(%h: tensor<?x?x8xf32>, %m: tensor<?x?xf32>, %p: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @below {{body argument #1 (mask) must be compatible with 'tensor<?x2xf32>', got 'tensor<?x2xf64>'}}
  %r = rvnn.balanced_reduce %h, %m {arity = 2} : (tensor<?x?x8xf32>, tensor<?x?xf32>) -> tensor<?x8xf32> {
  ^bb0(%c: tensor<?x2x8xf32>, %cm: tensor<?x2xf64>):
    rvnn.yield %p : tensor<?x8xf32>
  }
  return %r : tensor<?x8xf32>
}

// -----

func.func @balanced_reduce_no_yield(%h: tensor<?x?x8xf32>, %m: tensor<?x?xf32>, %p: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @below {{body must end with rvnn.yield}}
  %r = rvnn.balanced_reduce %h, %m {arity = 2} : (tensor<?x?x8xf32>, tensor<?x?xf32>) -> tensor<?x8xf32> {
  ^bb0(%c: tensor<?x2x8xf32>, %cm: tensor<?x2xf32>):
    func.return %p : tensor<?x8xf32>
  }
  return %r : tensor<?x8xf32>
}

// -----

func.func @balanced_reduce_halt(%h: tensor<?x?x8xf32>, %m: tensor<?x?xf32>, %p: tensor<?x8xf32>, %done: tensor<?xi1>) -> tensor<?x8xf32> {
  %r = rvnn.balanced_reduce %h, %m {arity = 2} : (tensor<?x?x8xf32>, tensor<?x?xf32>) -> tensor<?x8xf32> {
  ^bb0(%c: tensor<?x2x8xf32>, %cm: tensor<?x2xf32>):
    // expected-error @below {{halt is only valid in an rvnn.recurse body, not in rvnn.balanced_reduce}}
    rvnn.yield %p halt %done : tensor<?x8xf32>, tensor<?xi1>
  }
  return %r : tensor<?x8xf32>
}

// -----

func.func @balanced_reduce_yield_count(%h: tensor<?x?x8xf32>, %m: tensor<?x?xf32>, %p: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %r = rvnn.balanced_reduce %h, %m {arity = 2} : (tensor<?x?x8xf32>, tensor<?x?xf32>) -> tensor<?x8xf32> {
  ^bb0(%c: tensor<?x2x8xf32>, %cm: tensor<?x2xf32>):
    // expected-error @below {{must give one value (the parents [?, D]) in an rvnn.balanced_reduce body, got 2}}
    rvnn.yield %p, %p : tensor<?x8xf32>, tensor<?x8xf32>
  }
  return %r : tensor<?x8xf32>
}

// -----

func.func @balanced_reduce_parents_type(%h: tensor<?x?x8xf32>, %m: tensor<?x?xf32>, %p: tensor<?x4xf32>) -> tensor<?x8xf32> {
  %r = rvnn.balanced_reduce %h, %m {arity = 2} : (tensor<?x?x8xf32>, tensor<?x?xf32>) -> tensor<?x8xf32> {
  ^bb0(%c: tensor<?x2x8xf32>, %cm: tensor<?x2xf32>):
    // expected-error @below {{parents must be compatible with 'tensor<?x8xf32>', got 'tensor<?x4xf32>'}}
    rvnn.yield %p : tensor<?x4xf32>
  }
  return %r : tensor<?x8xf32>
}

// -----

func.func @balanced_reduce_result(%h: tensor<4x?x8xf32>, %m: tensor<4x?xf32>, %p: tensor<?x8xf32>) -> tensor<5x8xf32> {
  // expected-error @below {{result #0 type 'tensor<5x8xf32>' is incompatible with the inferred shape 4x8}}
  %r = rvnn.balanced_reduce %h, %m {arity = 2} : (tensor<4x?x8xf32>, tensor<4x?xf32>) -> tensor<5x8xf32> {
  ^bb0(%c: tensor<?x2x8xf32>, %cm: tensor<?x2xf32>):
    rvnn.yield %p : tensor<?x8xf32>
  }
  return %r : tensor<5x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// rvnn.chunk
//===----------------------------------------------------------------------===//

func.func @chunk_size(%x: tensor<?x?x8xf32>, %m: tensor<?x?xf32>) {
  // expected-error @below {{size must be >= 2, got 1}}
  %c, %cm = rvnn.chunk %x, %m {size = 1} : (tensor<?x?x8xf32>, tensor<?x?xf32>) -> (tensor<?x?x8xf32>, tensor<?x?xf32>)
  return
}

// -----

func.func @chunk_x_rank(%x: tensor<?xf32>, %m: tensor<?x?xf32>) {
  // expected-error @below {{'x' must be [N, ..., S, ...] (rank >= 2), got rank 1}}
  %c, %cm = rvnn.chunk %x, %m {size = 4} : (tensor<?xf32>, tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>)
  return
}

// -----

func.func @chunk_dim_batch(%x: tensor<?x?x8xf32>, %m: tensor<?x?xf32>) {
  // expected-error @below {{dim must be in [1, 3) (dim 0 is the batch), got 0}}
  %c, %cm = rvnn.chunk %x, %m {size = 4, dim = 0} : (tensor<?x?x8xf32>, tensor<?x?xf32>) -> (tensor<?x?x8xf32>, tensor<?x?xf32>)
  return
}

// -----

func.func @chunk_dim_range(%x: tensor<?x?x8xf32>, %m: tensor<?x?xf32>) {
  // expected-error @below {{dim must be in [1, 3) (dim 0 is the batch), got 3}}
  %c, %cm = rvnn.chunk %x, %m {size = 4, dim = 3} : (tensor<?x?x8xf32>, tensor<?x?xf32>) -> (tensor<?x?x8xf32>, tensor<?x?xf32>)
  return
}

// -----

func.func @chunk_mask_rank(%x: tensor<?x?x8xf32>, %m: tensor<?xf32>) {
  // expected-error @below {{'mask' must be [N, S] (rank 2), got rank 1}}
  %c, %cm = rvnn.chunk %x, %m {size = 4} : (tensor<?x?x8xf32>, tensor<?xf32>) -> (tensor<?x?x8xf32>, tensor<?xf32>)
  return
}

// -----

func.func @chunk_mask_dims(%x: tensor<2x7x10x8xf32>, %m: tensor<2x7xf32>) {
  // expected-error @below {{sequence dim S mismatch: 'mask' dim 1 is 7 but 'x' dim 2 is 10}}
  %c, %cm = rvnn.chunk %x, %m {size = 4, dim = 2} : (tensor<2x7x10x8xf32>, tensor<2x7xf32>) -> (tensor<?x7x?x8xf32>, tensor<?x?xf32>)
  return
}

// -----

func.func @chunk_result(%x: tensor<2x100x8xf32>, %m: tensor<2x100xf32>) {
  // expected-error @below {{result #0 type 'tensor<2x100x8xf32>' is incompatible with the inferred shape 8x30x8}}
  %c, %cm = rvnn.chunk %x, %m {size = 30} : (tensor<2x100x8xf32>, tensor<2x100xf32>) -> (tensor<2x100x8xf32>, tensor<2x100xf32>)
  return
}

// -----

func.func @chunk_mask_result(%x: tensor<2x100x8xf32>, %m: tensor<2x100xf32>) {
  // expected-error @below {{result #1 type 'tensor<8x20xf32>' is incompatible with the inferred shape 8x30}}
  %c, %cm = rvnn.chunk %x, %m {size = 30} : (tensor<2x100x8xf32>, tensor<2x100xf32>) -> (tensor<8x30x8xf32>, tensor<8x20xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// rvnn.chunk_depth
//===----------------------------------------------------------------------===//

func.func @chunk_depth_size(%s: index) -> index {
  // expected-error @below {{size must be >= 2, got 1}}
  %d = rvnn.chunk_depth %s {size = 1 : i64}
  return %d : index
}

// -----

func.func @chunk_depth_length_type(%s: i64) -> index {
  // expected-error @below {{'rvnn.chunk_depth' op operand #0 must be index, but got 'i64'}}
  %d = "rvnn.chunk_depth"(%s) {size = 30 : i64} : (i64) -> index
  return %d : index
}

// -----

//===----------------------------------------------------------------------===//
// rvnn.unchunk
//===----------------------------------------------------------------------===//

func.func @unchunk_x_rank(%x: tensor<f32>, %ref: tensor<?x?xf32>) {
  // expected-error @below {{'x' must be [N·S1, ...] (rank >= 1), got rank 0}}
  %r = rvnn.unchunk %x, %ref {dim = 1} : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @unchunk_ref_rank(%x: tensor<?x8xf32>, %ref: tensor<f32>) {
  // expected-error @below {{'ref' must be [N, ...] (rank >= 1), got rank 0}}
  %r = rvnn.unchunk %x, %ref {dim = 1} : (tensor<?x8xf32>, tensor<f32>) -> tensor<?x?x8xf32>
  return
}

// -----

func.func @unchunk_dim(%x: tensor<?x8xf32>, %ref: tensor<?x?xf32>) {
  // expected-error @below {{dim must be in [1, 2] (dim 0 is the batch), got 3}}
  %r = rvnn.unchunk %x, %ref {dim = 3} : (tensor<?x8xf32>, tensor<?x?xf32>) -> tensor<?x?x8xf32>
  return
}

// -----

func.func @unchunk_divisible(%x: tensor<7x8xf32>, %ref: tensor<2x?xf32>) {
  // expected-error @below {{x dim 0 (7) is not a multiple of the batch size 2 (dim 0 of ref)}}
  %r = rvnn.unchunk %x, %ref {dim = 1} : (tensor<7x8xf32>, tensor<2x?xf32>) -> tensor<2x?x8xf32>
  return
}

// -----

func.func @unchunk_result(%x: tensor<8x7x16xf32>, %ref: tensor<2x?xf32>) {
  // expected-error @below {{result #0 type 'tensor<2x4x7x16xf32>' is incompatible with the inferred shape 2x7x4x16}}
  %r = rvnn.unchunk %x, %ref {dim = 2} : (tensor<8x7x16xf32>, tensor<2x?xf32>) -> tensor<2x4x7x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// rvnn.pair_merge
//===----------------------------------------------------------------------===//

func.func @pair_merge_h_rank(%h: tensor<?xf32>, %c: tensor<?xf32>, %s: tensor<f32>) {
  // expected-error @below {{'h' must be [..., S, D] (rank >= 2), got rank 1}}
  %r = rvnn.pair_merge %h, %c, %s : (tensor<?xf32>, tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  return
}

// -----

func.func @pair_merge_cand_rank(%h: tensor<?x?x8xf32>, %c: tensor<?x8xf32>, %s: tensor<?x?xf32>) {
  // expected-error @below {{cand must have the rank of h (3), got rank 2}}
  %r = rvnn.pair_merge %h, %c, %s : (tensor<?x?x8xf32>, tensor<?x8xf32>, tensor<?x?xf32>) -> tensor<?x?x8xf32>
  return
}

// -----

func.func @pair_merge_sel_rank(%h: tensor<?x?x8xf32>, %c: tensor<?x?x8xf32>, %s: tensor<?x?x1xf32>) {
  // expected-error @below {{sel must be [..., S-1] with rank 2, got rank 3}}
  %r = rvnn.pair_merge %h, %c, %s : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x1xf32>) -> tensor<?x?x8xf32>
  return
}

// -----

func.func @pair_merge_element_type(%h: tensor<?x?x8xf32>, %c: tensor<?x?x8xf64>, %s: tensor<?x?xf32>) {
  // expected-error @below {{'cand' element type 'f64' must match 'h' element type 'f32'}}
  %r = rvnn.pair_merge %h, %c, %s : (tensor<?x?x8xf32>, tensor<?x?x8xf64>, tensor<?x?xf32>) -> tensor<?x?x8xf32>
  return
}

// -----

func.func @pair_merge_cand_leading(%h: tensor<2x5x?x8xf32>, %c: tensor<2x4x?x8xf32>, %s: tensor<2x5x?xf32>) {
  // expected-error @below {{leading dim mismatch: 'cand' dim 1 is 4 but 'h' dim 1 is 5}}
  %r = rvnn.pair_merge %h, %c, %s : (tensor<2x5x?x8xf32>, tensor<2x4x?x8xf32>, tensor<2x5x?xf32>) -> tensor<2x5x?x8xf32>
  return
}

// -----

func.func @pair_merge_sel_leading(%h: tensor<2x5x?x8xf32>, %c: tensor<2x5x?x8xf32>, %s: tensor<3x5x?xf32>) {
  // expected-error @below {{leading dim mismatch: 'sel' dim 0 is 3 but 'h' dim 0 is 2}}
  %r = rvnn.pair_merge %h, %c, %s : (tensor<2x5x?x8xf32>, tensor<2x5x?x8xf32>, tensor<3x5x?xf32>) -> tensor<2x5x?x8xf32>
  return
}

// -----

func.func @pair_merge_feature(%h: tensor<?x?x8xf32>, %c: tensor<?x?x4xf32>, %s: tensor<?x?xf32>) {
  // expected-error @below {{feature dim mismatch: 'cand' dim 2 is 4 but 'h' dim 2 is 8}}
  %r = rvnn.pair_merge %h, %c, %s : (tensor<?x?x8xf32>, tensor<?x?x4xf32>, tensor<?x?xf32>) -> tensor<?x?x8xf32>
  return
}

// -----

func.func @pair_merge_short(%h: tensor<?x1x8xf32>, %c: tensor<?x1x8xf32>, %s: tensor<?x?xf32>) {
  // expected-error @below {{h needs a sequence of length >= 2 to merge a pair, got 1}}
  %r = rvnn.pair_merge %h, %c, %s : (tensor<?x1x8xf32>, tensor<?x1x8xf32>, tensor<?x?xf32>) -> tensor<?x?x8xf32>
  return
}

// -----

func.func @pair_merge_cand_len(%h: tensor<?x6x8xf32>, %c: tensor<?x4x8xf32>, %s: tensor<?x5xf32>) {
  // expected-error @below {{cand sequence dim must be S-1 = 5 or 1, got 4}}
  %r = rvnn.pair_merge %h, %c, %s : (tensor<?x6x8xf32>, tensor<?x4x8xf32>, tensor<?x5xf32>) -> tensor<?x5x8xf32>
  return
}

// -----

func.func @pair_merge_sel_len(%h: tensor<?x6x8xf32>, %c: tensor<?x1x8xf32>, %s: tensor<?x6xf32>) {
  // expected-error @below {{sel must have S-1 = 5 pairs, got 6}}
  %r = rvnn.pair_merge %h, %c, %s : (tensor<?x6x8xf32>, tensor<?x1x8xf32>, tensor<?x6xf32>) -> tensor<?x5x8xf32>
  return
}

// -----

func.func @pair_merge_cand_sel(%h: tensor<?x?x8xf32>, %c: tensor<?x4x8xf32>, %s: tensor<?x5xf32>) {
  // expected-error @below {{cand sequence dim 4 does not match sel's pair count 5}}
  %r = rvnn.pair_merge %h, %c, %s : (tensor<?x?x8xf32>, tensor<?x4x8xf32>, tensor<?x5xf32>) -> tensor<?x?x8xf32>
  return
}

// -----

func.func @pair_merge_result(%h: tensor<?x6x8xf32>, %c: tensor<?x1x8xf32>, %s: tensor<?x5xf32>) {
  // expected-error @below {{result #0 type 'tensor<?x6x8xf32>' is incompatible with the inferred shape ?x5x8}}
  %r = rvnn.pair_merge %h, %c, %s : (tensor<?x6x8xf32>, tensor<?x1x8xf32>, tensor<?x5xf32>) -> tensor<?x6x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Custom assembly: inherent attributes have their own syntax
//===----------------------------------------------------------------------===//

func.func @recurse_steps_in_attr_dict(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <none> steps = 2 {
  ^bb0(%t: index, %s: tensor<4xf32>):
    rvnn.yield %s : tensor<4xf32>
  // expected-error @below {{'steps' must be written before the body, not in the attribute dictionary}}
  } {steps = 3}
  return %r : tensor<4xf32>
}

// -----

func.func @yield_has_halt_in_attr_dict(%a: tensor<4xf32>, %done: tensor<4xi1>) -> tensor<4xf32> {
  %r = rvnn.recurse (%s = %a) : tensor<4xf32> halting <per_sample> steps = 2 {
  ^bb0(%t: index, %s: tensor<4xf32>):
    // expected-error @below {{write the halt operand as `halt %h`, not as a has_halt attribute}}
    rvnn.yield %s, %done {has_halt} : tensor<4xf32>, tensor<4xi1>
  }
  return %r : tensor<4xf32>
}
