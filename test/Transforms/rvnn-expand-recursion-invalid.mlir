// RUN: rvnn-opt %s -rvnn-expand-recursion -split-input-file -verify-diagnostics

func.func private @rec(%depth: index {rvnn.recursion_depth},
                       %x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %is_base = arith.cmpi eq, %depth, %c0 : index
  %r = scf.if %is_base -> tensor<4xf32> {
    scf.yield %x : tensor<4xf32>
  } else {
    %child = arith.subi %depth, %c1 : index
    %below = func.call @rec(%child, %x)
        : (index, tensor<4xf32>) -> tensor<4xf32>
    scf.yield %below : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

func.func @not_constant(%a: tensor<4xf32>, %d: index) -> tensor<4xf32> {
  // expected-error @+1 {{recursion depth of the call to @rec is not a compile-time constant}}
  %y = func.call @rec(%d, %a) : (index, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func private @rec(%depth: index {rvnn.recursion_depth},
                       %x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %is_base = arith.cmpi eq, %depth, %c0 : index
  %r = scf.if %is_base -> tensor<4xf32> {
    scf.yield %x : tensor<4xf32>
  } else {
    %child = arith.subi %depth, %c1 : index
    %below = func.call @rec(%child, %x)
        : (index, tensor<4xf32>) -> tensor<4xf32>
    scf.yield %below : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

func.func @too_deep(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c17 = arith.constant 17 : index
  // expected-error @+1 {{recursion depth 17 of the call to @rec exceeds the limit 16 (option max-depth)}}
  %y = func.call @rec(%c17, %a) : (index, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func private @rec(%depth: index {rvnn.recursion_depth},
                       %x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %is_base = arith.cmpi eq, %depth, %c0 : index
  %r = scf.if %is_base -> tensor<4xf32> {
    scf.yield %x : tensor<4xf32>
  } else {
    %child = arith.subi %depth, %c1 : index
    %below = func.call @rec(%child, %x)
        : (index, tensor<4xf32>) -> tensor<4xf32>
    scf.yield %below : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

func.func @negative(%a: tensor<4xf32>) -> tensor<4xf32> {
  %cm1 = arith.constant -1 : index
  // expected-error @+1 {{recursion depth -1 of the call to @rec is negative}}
  %y = func.call @rec(%cm1, %a) : (index, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// No base case: depth 0 still recurses.
func.func private @endless(%depth: index {rvnn.recursion_depth},
                           %x: tensor<4xf32>) -> tensor<4xf32> {
  %c1 = arith.constant 1 : index
  %child = arith.subi %depth, %c1 : index
  // expected-error @+1 {{recursion depth -1 of the call to @endless is negative: @endless at depth 0 still calls itself (no base case at depth 0)}}
  %below = func.call @endless(%child, %x)
      : (index, tensor<4xf32>) -> tensor<4xf32>
  return %below : tensor<4xf32>
}

func.func @caller(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c2 = arith.constant 2 : index
  %y = func.call @endless(%c2, %a) : (index, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// The recursive call does not decrease the depth.
func.func private @same(%depth: index {rvnn.recursion_depth},
                        %x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %is_base = arith.cmpi eq, %depth, %c0 : index
  %r = scf.if %is_base -> tensor<4xf32> {
    scf.yield %x : tensor<4xf32>
  } else {
    // expected-error @+1 {{unbounded recursion: @same at depth 1 calls itself at depth 1; each recursive call must decrease the depth}}
    %below = func.call @same(%depth, %x)
        : (index, tensor<4xf32>) -> tensor<4xf32>
    scf.yield %below : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

func.func @caller(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c1 = arith.constant 1 : index
  %y = func.call @same(%c1, %a) : (index, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// The depth of the recursive call depends on data.
func.func private @data(%depth: index {rvnn.recursion_depth},
                        %x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %is_base = arith.cmpi eq, %depth, %c0 : index
  %r = scf.if %is_base -> tensor<?xf32> {
    scf.yield %x : tensor<?xf32>
  } else {
    %n = tensor.dim %x, %c0 : tensor<?xf32>
    // expected-error @+1 {{recursion depth of the call to @data is not a compile-time constant (in @data at depth 3)}}
    %below = func.call @data(%n, %x)
        : (index, tensor<?xf32>) -> tensor<?xf32>
    scf.yield %below : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

func.func @caller(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c3 = arith.constant 3 : index
  %y = func.call @data(%c3, %a) : (index, tensor<?xf32>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// expected-error @+1 {{unbounded recursion: @unmarked calls itself but has no argument marked 'rvnn.recursion_depth'}}
func.func private @unmarked(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @unmarked(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{the 'rvnn.recursion_depth' argument of @wrong_type must be an index, not 'i64'}}
func.func private @wrong_type(%depth: i64 {rvnn.recursion_depth},
                              %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @wrong_type(%depth, %x) : (i64, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{self-recursive function @twice marks more than one argument 'rvnn.recursion_depth'}}
func.func private @twice(%a: index {rvnn.recursion_depth},
                         %b: index {rvnn.recursion_depth}) -> index {
  %y = func.call @twice(%a, %b) : (index, index) -> index
  return %y : index
}

// -----

// expected-error @+1 {{mutual recursion is not supported: @ping is in a call cycle with other functions}}
func.func private @ping(%depth: index {rvnn.recursion_depth}) -> index {
  %y = func.call @pong(%depth) : (index) -> index
  return %y : index
}

// expected-error @+1 {{mutual recursion is not supported: @pong is in a call cycle with other functions}}
func.func private @pong(%depth: index {rvnn.recursion_depth}) -> index {
  %y = func.call @ping(%depth) : (index) -> index
  return %y : index
}
