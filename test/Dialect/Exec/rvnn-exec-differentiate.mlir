// RUN: rvnn-opt %s -rvnn-exec-differentiate -split-input-file -verify-diagnostics | FileCheck %s

// A recursion step: its state and the parameter get cotangents, the step
// counter does not; dropout is split into its mask and a product, the
// backward draws the mask again from the forward's draw position (residuals:
// the position and a shape witness, not the mask), and the square
// accumulates two cotangents.
rvnn_exec.param @w : tensor<4x4xf32> init <xavier_uniform>
rvnn_exec.func @forward(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %w = rvnn_exec.param_get @w : tensor<4x4xf32>
  %h = rvnn_exec.recurse <fixed> (%x) {steps = 3 : i64}
      : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%t: index, %s: tensor<?x4xf32>):
    %y = rvnn_exec.gemm %s, %w {transpose_rhs}
        : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    %d = rvnn_exec.dropout %y {rate = 1.000000e-01 : f64} : tensor<?x4xf32>
    %p = rvnn_exec.elementwise <mul> %d, %d : tensor<?x4xf32>
    rvnn_exec.yield %p : tensor<?x4xf32>
  }
  rvnn_exec.return %h : tensor<?x4xf32>
}

// CHECK-LABEL: rvnn_exec.func @forward(
// CHECK:         rvnn_exec.recurse
// CHECK-NEXT:    ^bb0(%[[T:.*]]: index, %[[S:.*]]: tensor<?x4xf32>):
// CHECK-NEXT:      %[[H:.*]] = rvnn_exec.call @forward_body(%[[T]], %[[S]], %{{.*}}) forward @forward_body_fwd backward @forward_body_bwd grad_inputs [1, 2]
// CHECK-NEXT:      rvnn_exec.yield %[[H]]
// CHECK-LABEL: rvnn_exec.func @forward_body(
// CHECK:         rvnn_exec.dropout
// CHECK-LABEL: rvnn_exec.func @forward_body_fwd(
// CHECK-SAME:      -> (tensor<?x4xf32>, tensor<?x4xf32>, index, tensor<?x4xf32>, tensor<?x4xf32>, tensor<4x4xf32>)
// CHECK:         %[[Y:.*]] = rvnn_exec.gemm
// CHECK-NEXT:    %[[POS:.*]] = rvnn_exec.draw_position
// CHECK-NEXT:    %[[SHAPE:.*]] = rvnn_exec.shape_witness %[[Y]]
// CHECK-NEXT:    %[[MASK:.*]] = rvnn_exec.dropout_mask %[[Y]] {rate = 1.000000e-01 : f64}
// CHECK-NEXT:    %[[D:.*]] = rvnn_exec.elementwise <mul> %[[Y]], %[[MASK]]
// CHECK-NEXT:    %[[P:.*]] = rvnn_exec.elementwise <mul> %[[D]], %[[D]]
// CHECK-NEXT:    rvnn_exec.return %[[P]], %[[SHAPE]], %[[POS]], %[[D]], %arg1, %arg2
// CHECK-LABEL: rvnn_exec.func @forward_body_bwd(
// CHECK-SAME:      %[[RSHAPE:[^:]*]]: tensor<?x4xf32>, %[[RPOS:[^:]*]]: index, %[[RD:[^:]*]]: tensor<?x4xf32>, %[[RS:[^:]*]]: tensor<?x4xf32>, %[[RW:[^:]*]]: tensor<4x4xf32>, %[[CT:[^:]*]]: tensor<?x4xf32>)
// CHECK-SAME:      -> (tensor<?x4xf32>, tensor<4x4xf32>)
// CHECK-NEXT:    %[[RMASK:.*]] = rvnn_exec.redraw_dropout_mask %[[RSHAPE]] at %[[RPOS]] {rate = 1.000000e-01 : f64}
// CHECK-NEXT:    %[[A:.*]] = rvnn_exec.elementwise <mul> %[[CT]], %[[RD]]
// CHECK-NEXT:    %[[B:.*]] = rvnn_exec.elementwise <mul> %[[CT]], %[[RD]]
// CHECK-NEXT:    %[[SUM:.*]] = rvnn_exec.elementwise <add> %[[A]], %[[B]]
// CHECK-NEXT:    %[[DY:.*]] = rvnn_exec.elementwise <mul> %[[SUM]], %[[RMASK]]
// CHECK-NEXT:    %[[G:.*]]:2 = rvnn_exec.vjp(%[[RS]], %[[RW]]) cotangents(%[[DY]]) grad_inputs [0, 1]
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<?x4xf32>, %[[W:.*]]: tensor<4x4xf32>):
// CHECK-NEXT:      %[[GEMM:.*]] = rvnn_exec.gemm %[[X]], %[[W]] {transpose_rhs}
// CHECK-NEXT:      rvnn_exec.yield %[[GEMM]]
// CHECK:         rvnn_exec.return %[[G]]#0, %[[G]]#1 : tensor<?x4xf32>, tensor<4x4xf32>

// -----

// A tree level: concat, reshape and broadcast get their adjoints as
// contract ops; the mask input is not differentiable. The slice's derivative
// reads only its source's shape: the residual is a shape witness, not the
// concatenation.
rvnn_exec.param @v : tensor<8xf32> init <ones>
rvnn_exec.func @reduce(%x: tensor<?x?x4xf32>, %m: tensor<?x?xf32>) -> tensor<?x4xf32> {
  %v = rvnn_exec.param_get @v : tensor<8xf32>
  %r = rvnn_exec.balanced_reduce %x, %m {arity = 2 : i64}
      : (tensor<?x?x4xf32>, tensor<?x?xf32>) -> tensor<?x4xf32> {
  ^bb0(%c: tensor<?x2x4xf32>, %k: tensor<?x2xf32>):
    %c0 = rvnn_exec.constant 0 : index
    %n = rvnn_exec.dim %c, %c0 : tensor<?x2x4xf32>
    %flat = rvnn_exec.reshape %c (%n) : tensor<?x2x4xf32> to tensor<?x8xf32>
    %vb = rvnn_exec.broadcast_like %v, %flat
        : (tensor<8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
    %e = rvnn_exec.elementwise <exp> %vb : tensor<?x8xf32>
    %q = rvnn_exec.elementwise <div> %flat, %e : tensor<?x8xf32>
    %both = rvnn_exec.concat %q, %flat {dim = 1 : i64}
        : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x16xf32>
    %l = rvnn_exec.slice %both [] [%n] [] {dropped_dims = array<i64>,
        static_offsets = array<i64: 0, 0>,
        static_sizes = array<i64: -9223372036854775808, 4>,
        static_strides = array<i64: 1, 1>} : tensor<?x16xf32> to tensor<?x4xf32>
    rvnn_exec.yield %l : tensor<?x4xf32>
  }
  rvnn_exec.return %r : tensor<?x4xf32>
}

// CHECK-LABEL: rvnn_exec.func @reduce(
// CHECK:         rvnn_exec.call @reduce_body(%{{.*}}, %{{.*}}, %{{.*}}) forward @reduce_body_fwd backward @reduce_body_bwd grad_inputs [2]
// CHECK-LABEL: rvnn_exec.func @reduce_body_fwd(
// CHECK-SAME:      -> (tensor<?x4xf32>, tensor<?x16xf32>, index, index, tensor<?x8xf32>, tensor<?x8xf32>, tensor<8xf32>)
// CHECK:         %[[N:.*]] = rvnn_exec.dim %arg0
// CHECK:         %[[E:.*]] = rvnn_exec.elementwise <exp>
// CHECK-NEXT:    %[[Q:.*]] = rvnn_exec.elementwise <div>
// CHECK-NEXT:    %[[C0:.*]] = rvnn_exec.constant 0 : index
// CHECK-NEXT:    %[[QN:.*]] = rvnn_exec.dim %[[Q]], %[[C0]]
// CHECK-NEXT:    %[[BOTH:.*]] = rvnn_exec.concat
// CHECK-NEXT:    %[[SHAPE:.*]] = rvnn_exec.shape_witness %[[BOTH]] : tensor<?x16xf32>
// CHECK-NEXT:    rvnn_exec.slice %[[BOTH]]
// CHECK-NEXT:    rvnn_exec.return %{{.*}}, %[[SHAPE]], %[[N]], %[[QN]], %[[E]], %[[Q]], %arg2
// CHECK-LABEL: rvnn_exec.func @reduce_body_bwd(
// CHECK-SAME:      %[[RBOTH:[^:]*]]: tensor<?x16xf32>, %[[RN:[^:]*]]: index, %[[RQN:[^:]*]]: index, %[[RE:[^:]*]]: tensor<?x8xf32>, %[[RQ:[^:]*]]: tensor<?x8xf32>, %[[RV:[^:]*]]: tensor<8xf32>, %[[CT:[^:]*]]: tensor<?x4xf32>) -> tensor<8xf32>
// CHECK-NEXT:    %[[DBOTH:.*]] = rvnn_exec.vjp(%[[RBOTH]], %[[RN]]) cotangents(%[[CT]]) grad_inputs [0]
// CHECK:           rvnn_exec.slice
// CHECK:         %[[OFF:.*]] = rvnn_exec.constant 0 : index
// CHECK-NEXT:    %[[DQ:.*]] = rvnn_exec.slice %[[DBOTH]][%[[OFF]]] [%[[RQN]]] [] {dropped_dims = array<i64>, static_offsets = array<i64: 0, -9223372036854775808>, static_sizes = array<i64: -9223372036854775808, 8>, static_strides = array<i64: 1, 1>} : tensor<?x16xf32> to tensor<?x8xf32>
// CHECK:         %[[SCALED:.*]] = rvnn_exec.elementwise <div> %[[DQ]], %[[RE]]
// CHECK-NEXT:    %[[PROD:.*]] = rvnn_exec.elementwise <mul> %[[SCALED]], %[[RQ]]
// CHECK-NEXT:    %[[DE:.*]] = rvnn_exec.elementwise <neg> %[[PROD]]
// CHECK-NEXT:    %[[DVB:.*]] = rvnn_exec.elementwise <mul> %[[DE]], %[[RE]]
// CHECK-NEXT:    %[[DV:.*]] = rvnn_exec.sum_to_like %[[DVB]], %[[RV]] : tensor<?x8xf32>, tensor<8xf32>
// CHECK-NEXT:    rvnn_exec.return %[[DV]] : tensor<8xf32>

// -----

// What a vjp's derivative reads of its primal op's operands depends on the
// op and on which cotangents it computes: with `sel` inactive, pair_merge is
// linear in h and cand, and a gemm whose lhs is inactive needs the lhs but
// not the rhs. Those operands are passed as shape witnesses, so h is no
// residual: the residuals are the witnesses, sel and x, and the
// parameter itself (alive anyway: no witness). The slice's cotangent is
// added into its window of h's other one (no zeros of h's shape, no add).
rvnn_exec.param @w : tensor<4x4xf32> init <xavier_uniform>
rvnn_exec.func @merge(%x: tensor<?x3x4xf32>, %sel: tensor<?x2xf32>) -> tensor<?x2x4xf32> {
  %w = rvnn_exec.param_get @w : tensor<4x4xf32>
  %h = rvnn_exec.gemm %x, %w {transpose_rhs}
      : (tensor<?x3x4xf32>, tensor<4x4xf32>) -> tensor<?x3x4xf32>
  %c0 = rvnn_exec.constant 0 : index
  %n = rvnn_exec.dim %x, %c0 : tensor<?x3x4xf32>
  %cand = rvnn_exec.slice %h [] [%n] [] {dropped_dims = array<i64>,
      static_offsets = array<i64: 0, 0, 0>,
      static_sizes = array<i64: -9223372036854775808, 1, 4>,
      static_strides = array<i64: 1, 1, 1>} : tensor<?x3x4xf32> to tensor<?x1x4xf32>
  %m = rvnn_exec.pair_merge %h, %cand, %sel
      : (tensor<?x3x4xf32>, tensor<?x1x4xf32>, tensor<?x2xf32>) -> tensor<?x2x4xf32>
  rvnn_exec.return %m : tensor<?x2x4xf32>
}
// CHECK-LABEL: rvnn_exec.func @merge_part_fwd(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<?x3x4xf32>, %[[W:[^:]*]]: tensor<4x4xf32>, %[[N:[^:]*]]: index, %[[SEL:[^:]*]]: tensor<?x2xf32>)
// CHECK-SAME:      -> (tensor<?x2x4xf32>, tensor<?x3x4xf32>, tensor<?x1x4xf32>, tensor<?x2xf32>, index, tensor<?x3x4xf32>, tensor<4x4xf32>)
// CHECK-NEXT:    %[[H:.*]] = rvnn_exec.gemm %[[X]], %[[W]]
// CHECK-NEXT:    %[[HSHAPE:.*]] = rvnn_exec.shape_witness %[[H]]
// CHECK-NEXT:    %[[CAND:.*]] = rvnn_exec.slice %[[H]]
// CHECK-NEXT:    %[[CSHAPE:.*]] = rvnn_exec.shape_witness %[[CAND]]
// CHECK-NEXT:    %[[M:.*]] = rvnn_exec.pair_merge %[[H]], %[[CAND]], %[[SEL]]
// CHECK-NEXT:    rvnn_exec.return %[[M]], %[[HSHAPE]], %[[CSHAPE]], %[[SEL]], %[[N]], %[[X]], %[[W]] :
// CHECK-LABEL: rvnn_exec.func @merge_part_bwd(
// CHECK-SAME:      %[[RH:[^:]*]]: tensor<?x3x4xf32>, %[[RC:[^:]*]]: tensor<?x1x4xf32>, %[[RSEL:[^:]*]]: tensor<?x2xf32>, %[[RN:[^:]*]]: index, %[[RX:[^:]*]]: tensor<?x3x4xf32>, %[[RW:[^:]*]]: tensor<4x4xf32>, %[[CT:[^:]*]]: tensor<?x2x4xf32>)
// CHECK-NEXT:    %[[DM:.*]]:2 = rvnn_exec.vjp(%[[RH]], %[[RC]], %[[RSEL]]) cotangents(%[[CT]]) grad_inputs [0, 1]
// CHECK:         %[[DH:.*]] = rvnn_exec.add_into_window %[[DM]]#1 into %[[DM]]#0[] [%[[RN]]] []
// CHECK-NEXT:    %[[DW:.*]] = rvnn_exec.vjp(%[[RX]], %[[RW]]) cotangents(%[[DH]]) grad_inputs [1]
// CHECK:         rvnn_exec.return %[[DW]] : tensor<4x4xf32>

// -----

// Gumbel top-k on a differentiable path cannot be replayed in a vjp: the
// body is left alone.
rvnn_exec.param @u : tensor<1x1x4xf32> init <ones>
rvnn_exec.func @beam(%x: tensor<?x1x4xf32>, %m: tensor<?x1x4xf32>) -> tensor<?x1x4xf32> {
  %u = rvnn_exec.param_get @u : tensor<1x1x4xf32>
  // expected-remark @below {{stays on ATen autograd: 'rvnn_exec.topk' draws random numbers}}
  %h = rvnn_exec.recurse <fixed> (%x) {steps = 2 : i64}
      : (tensor<?x1x4xf32>) -> tensor<?x1x4xf32> {
  ^bb0(%t: index, %s: tensor<?x1x4xf32>):
    %ub = rvnn_exec.broadcast_like %u, %s
        : (tensor<1x1x4xf32>, tensor<?x1x4xf32>) -> tensor<?x1x4xf32>
    %y = rvnn_exec.elementwise <mul> %s, %ub : tensor<?x1x4xf32>
    %v, %i = rvnn_exec.topk %y, %m {k = 4 : i64, gumbel = true}
        : (tensor<?x1x4xf32>, tensor<?x1x4xf32>)
        -> (tensor<?x1x4xf32>, tensor<?x1x4xi64>)
    rvnn_exec.yield %v : tensor<?x1x4xf32>
  }
  rvnn_exec.return %h : tensor<?x1x4xf32>
}
// CHECK-LABEL: rvnn_exec.func @beam(
// CHECK:         rvnn_exec.topk
// CHECK-NOT:     rvnn_exec.call
// CHECK-NOT:     rvnn_exec.func

// -----// Straight-line code between loops becomes calls too: parameter reads and
// sizes of the arguments are hoisted out of the runs first.
rvnn_exec.param @w : tensor<4x4xf32> init <xavier_uniform>
rvnn_exec.func @parts(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = rvnn_exec.relu %x : tensor<?x4xf32>
  %w = rvnn_exec.param_get @w : tensor<4x4xf32>
  %z = rvnn_exec.gemm %y, %w {transpose_rhs}
      : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  %c0 = rvnn_exec.constant 0 : index
  %n = rvnn_exec.dim %x, %c0 : tensor<?x4xf32>
  %h = rvnn_exec.recurse <fixed> (%z) {steps = 2 : i64}
      : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%t: index, %s: tensor<?x4xf32>):
    %g = rvnn_exec.gelu %s : tensor<?x4xf32>
    rvnn_exec.yield %g : tensor<?x4xf32>
  }
  %a = rvnn_exec.alloc (%n) : tensor<?x4xf32>
  %o = rvnn_exec.elementwise <sub> %a, %h : tensor<?x4xf32>
  rvnn_exec.return %o : tensor<?x4xf32>
}
// CHECK-LABEL: rvnn_exec.func @parts(
// CHECK-NEXT:    %[[W:.*]] = rvnn_exec.param_get @w
// CHECK-NEXT:    %[[C0:.*]] = rvnn_exec.constant 0 : index
// CHECK-NEXT:    %[[N:.*]] = rvnn_exec.dim %arg0, %[[C0]]
// CHECK-NEXT:    %[[Z:.*]] = rvnn_exec.call @parts_part_0(%arg0, %[[W]]) forward @parts_part_0_fwd backward @parts_part_0_bwd grad_inputs [1]
// CHECK-NEXT:    %[[H:.*]] = rvnn_exec.recurse <fixed>(%[[Z]])
// CHECK:           rvnn_exec.call @parts_body(
// CHECK:         %[[O:.*]] = rvnn_exec.call @parts_part(%[[N]], %[[H]]) forward @parts_part_fwd backward @parts_part_bwd grad_inputs [1]
// CHECK-NEXT:    rvnn_exec.return %[[O]]
// CHECK-LABEL: rvnn_exec.func @parts_part_0_bwd(
// CHECK-SAME:      -> tensor<4x4xf32>
// CHECK-NEXT:    rvnn_exec.vjp(%arg0, %arg1) cotangents(%arg2) grad_inputs [1]
// CHECK-LABEL: rvnn_exec.func @parts_part_bwd(
// CHECK-NEXT:    %[[NEG:.*]] = rvnn_exec.elementwise <neg> %arg0
// CHECK-NEXT:    rvnn_exec.return %[[NEG]]

// -----

// A size computed inside a run and read after it is computed again after
// the run, from the call's result (a call hands on tensors only), so the run
// still becomes a call; the primal keeps no copy of the size.
rvnn_exec.param @w : tensor<4x4xf32> init <xavier_uniform>
rvnn_exec.func @scalar_out(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %w = rvnn_exec.param_get @w : tensor<4x4xf32>
  %c0 = rvnn_exec.constant 0 : index
  %z = rvnn_exec.gemm %x, %w {transpose_rhs}
      : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  %n = rvnn_exec.dim %z, %c0 : tensor<?x4xf32>
  %n2 = rvnn_exec.index_arith <mul> %n, %n : index
  %h = rvnn_exec.recurse <fixed> (%z) {steps = 2 : i64}
      : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%t: index, %s: tensor<?x4xf32>):
    %g = rvnn_exec.gelu %s : tensor<?x4xf32>
    rvnn_exec.yield %g : tensor<?x4xf32>
  }
  %a = rvnn_exec.alloc (%n2) : tensor<?x4xf32>
  %o = rvnn_exec.elementwise <sub> %a, %h : tensor<?x4xf32>
  rvnn_exec.return %o : tensor<?x4xf32>
}
// CHECK-LABEL: rvnn_exec.func @scalar_out(
// CHECK:         %[[C0:.*]] = rvnn_exec.constant 0 : index
// CHECK-NEXT:    %[[Z:.*]] = rvnn_exec.call @scalar_out_part_0(%arg0, %{{.*}}) forward @scalar_out_part_0_fwd
// CHECK-NEXT:    %[[N:.*]] = rvnn_exec.dim %[[Z]], %[[C0]]
// CHECK-NEXT:    %[[N2:.*]] = rvnn_exec.index_arith <mul> %[[N]], %[[N]]
// CHECK-NEXT:    %[[H:.*]] = rvnn_exec.recurse <fixed>(%[[Z]])
// CHECK:           rvnn_exec.call @scalar_out_body(
// CHECK:         rvnn_exec.call @scalar_out_part(%[[N2]], %[[H]])
// CHECK-LABEL: rvnn_exec.func @scalar_out_part_0(
// CHECK-NEXT:    %[[G:.*]] = rvnn_exec.gemm
// CHECK-NEXT:    rvnn_exec.return %[[G]]

// -----

// A parameter read inside a loop body is hoisted to the function's entry and
// passed in, so the call's backward returns its gradient.
rvnn_exec.param @v : tensor<4x4xf32> init <xavier_uniform>
rvnn_exec.func @inner_param(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %h = rvnn_exec.recurse <fixed> (%x) {steps = 2 : i64}
      : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%t: index, %s: tensor<?x4xf32>):
    %v = rvnn_exec.param_get @v : tensor<4x4xf32>
    %y = rvnn_exec.gemm %s, %v {transpose_rhs}
        : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    rvnn_exec.yield %y : tensor<?x4xf32>
  }
  rvnn_exec.return %h : tensor<?x4xf32>
}
// CHECK-LABEL: rvnn_exec.func @inner_param(
// CHECK-NEXT:    %[[V:.*]] = rvnn_exec.param_get @v
// CHECK-NEXT:    rvnn_exec.recurse
// CHECK-NEXT:    ^bb0(%[[T:.*]]: index, %[[S:.*]]: tensor<?x4xf32>):
// CHECK-NEXT:      rvnn_exec.call @inner_param_body(%[[T]], %[[S]], %[[V]]) forward @inner_param_body_fwd backward @inner_param_body_bwd grad_inputs [1, 2]
// CHECK-LABEL: rvnn_exec.func @inner_param_body(
// CHECK-NOT:     rvnn_exec.param_get
// CHECK:         rvnn_exec.return

// -----

// Slices that tile their source along one dim (the GRC cell's gate split,
// a pair's two children) get one concat of their cotangents, dropped unit
// dims put back, not a zero-filled source and an add per slice. The row
// count of every slice is provably the source's (dim queries through the
// gemm and the slices), and no slice source is a residual.
rvnn_exec.param @w : tensor<4x4xf32> init <xavier_uniform>
rvnn_exec.param @u : tensor<8x4xf32> init <xavier_uniform>
rvnn_exec.func @split(%in: tensor<?x2x4xf32>) -> tensor<?x4xf32> {
  %w = rvnn_exec.param_get @w : tensor<4x4xf32>
  %u = rvnn_exec.param_get @u : tensor<8x4xf32>
  %x = rvnn_exec.gemm %in, %w {transpose_rhs}
      : (tensor<?x2x4xf32>, tensor<4x4xf32>) -> tensor<?x2x4xf32>
  %c0 = rvnn_exec.constant 0 : index
  %n = rvnn_exec.dim %x, %c0 : tensor<?x2x4xf32>
  %l = rvnn_exec.slice %x [] [%n] [] {dropped_dims = array<i64: 1>,
      static_offsets = array<i64: 0, 0, 0>,
      static_sizes = array<i64: -9223372036854775808, 1, 4>,
      static_strides = array<i64: 1, 1, 1>} : tensor<?x2x4xf32> to tensor<?x4xf32>
  %r = rvnn_exec.slice %x [] [%n] [] {dropped_dims = array<i64: 1>,
      static_offsets = array<i64: 0, 1, 0>,
      static_sizes = array<i64: -9223372036854775808, 1, 4>,
      static_strides = array<i64: 1, 1, 1>} : tensor<?x2x4xf32> to tensor<?x4xf32>
  %g = rvnn_exec.gemm %l, %u {transpose_rhs}
      : (tensor<?x4xf32>, tensor<8x4xf32>) -> tensor<?x8xf32>
  %m = rvnn_exec.dim %l, %c0 : tensor<?x4xf32>
  %g0 = rvnn_exec.slice %g [] [%m] [] {dropped_dims = array<i64>,
      static_offsets = array<i64: 0, 0>,
      static_sizes = array<i64: -9223372036854775808, 4>,
      static_strides = array<i64: 1, 1>} : tensor<?x8xf32> to tensor<?x4xf32>
  %g1 = rvnn_exec.slice %g [] [%m] [] {dropped_dims = array<i64>,
      static_offsets = array<i64: 0, 4>,
      static_sizes = array<i64: -9223372036854775808, 4>,
      static_strides = array<i64: 1, 1>} : tensor<?x8xf32> to tensor<?x4xf32>
  %a = rvnn_exec.elementwise <mul> %g0, %r : tensor<?x4xf32>
  %b = rvnn_exec.elementwise <add> %a, %g1 : tensor<?x4xf32>
  rvnn_exec.return %b : tensor<?x4xf32>
}

// CHECK-LABEL: rvnn_exec.func @split_part_bwd(
// CHECK-SAME:      %[[RR:[^:]*]]: tensor<?x4xf32>, %[[RG0:[^:]*]]: tensor<?x4xf32>, %[[RL:[^:]*]]: tensor<?x4xf32>, %[[RU:[^:]*]]: tensor<8x4xf32>, %[[NL:[^:]*]]: index, %[[NR:[^:]*]]: index, %{{[^:]*}}: tensor<?x2x4xf32>, %{{[^:]*}}: tensor<4x4xf32>, %[[CT:[^:]*]]: tensor<?x4xf32>)
// CHECK-NOT:     rvnn_exec.alloc
// CHECK:         %[[DG0:.*]] = rvnn_exec.elementwise <mul> %[[CT]], %[[RR]]
// CHECK-NEXT:    %[[DR:.*]] = rvnn_exec.elementwise <mul> %[[CT]], %[[RG0]]
// CHECK-NEXT:    %[[DG:.*]] = rvnn_exec.concat %[[DG0]], %[[CT]] {dim = 1 : i64} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x8xf32>
// CHECK-NEXT:    %[[DGEMM:.*]]:2 = rvnn_exec.vjp(%[[RL]], %[[RU]]) cotangents(%[[DG]]) grad_inputs [0, 1]
// CHECK:         %[[PL:.*]] = rvnn_exec.reshape %[[DGEMM]]#0(%[[NL]]) : tensor<?x4xf32> to tensor<?x1x4xf32>
// CHECK-NEXT:    %[[PR:.*]] = rvnn_exec.reshape %[[DR]](%[[NR]]) : tensor<?x4xf32> to tensor<?x1x4xf32>
// CHECK-NEXT:    %[[DX:.*]] = rvnn_exec.concat %[[PL]], %[[PR]] {dim = 1 : i64} : (tensor<?x1x4xf32>, tensor<?x1x4xf32>) -> tensor<?x2x4xf32>
// CHECK-NEXT:    rvnn_exec.vjp(%{{.*}}, %{{.*}}) cotangents(%[[DX]]) grad_inputs [1]
// CHECK-NOT:     rvnn_exec.alloc
// CHECK:         rvnn_exec.return


// -----

// Overlapping slices (a pair's left and right neighbours) do not tile their
// source: one vjp of both, whose cotangents the runtime adds into one
// zero tensor.
rvnn_exec.param @v : tensor<3x4xf32> init <xavier_uniform>
rvnn_exec.func @overlap(%in: tensor<?x4xf32>) -> tensor<?x2xf32> {
  %v = rvnn_exec.param_get @v : tensor<3x4xf32>
  %x = rvnn_exec.gemm %in, %v {transpose_rhs}
      : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x3xf32>
  %c0 = rvnn_exec.constant 0 : index
  %n = rvnn_exec.dim %x, %c0 : tensor<?x3xf32>
  %l = rvnn_exec.slice %x [] [%n] [] {dropped_dims = array<i64>,
      static_offsets = array<i64: 0, 0>,
      static_sizes = array<i64: -9223372036854775808, 2>,
      static_strides = array<i64: 1, 1>} : tensor<?x3xf32> to tensor<?x2xf32>
  %r = rvnn_exec.slice %x [] [%n] [] {dropped_dims = array<i64>,
      static_offsets = array<i64: 0, 1>,
      static_sizes = array<i64: -9223372036854775808, 2>,
      static_strides = array<i64: 1, 1>} : tensor<?x3xf32> to tensor<?x2xf32>
  %p = rvnn_exec.elementwise <mul> %l, %r : tensor<?x2xf32>
  rvnn_exec.return %p : tensor<?x2xf32>
}

// CHECK-LABEL: rvnn_exec.func @overlap_part_bwd(
// CHECK-NOT:     rvnn_exec.concat
// CHECK:         %[[DX:.*]] = rvnn_exec.vjp(%{{.*}}, %{{.*}}) cotangents(%[[DL:.*]], %[[DR:.*]]) grad_inputs [0]
// CHECK-NEXT:    ^bb0(%[[SRC:.*]]: tensor<?x3xf32>, %[[N:.*]]: index):
// CHECK-NEXT:      %[[L:.*]] = rvnn_exec.slice %[[SRC]][] [%[[N]]] []{{.*}}static_offsets = array<i64: 0, 0>
// CHECK-NEXT:      %[[R:.*]] = rvnn_exec.slice %[[SRC]][] [%[[N]]] []{{.*}}static_offsets = array<i64: 0, 1>
// CHECK-NEXT:      rvnn_exec.yield %[[L]], %[[R]]
// CHECK-NOT:     rvnn_exec.elementwise <add>
// CHECK:         rvnn_exec.vjp(%{{.*}}, %{{.*}}) cotangents(%[[DX]]) grad_inputs [1]

// -----

// The same slices of a value that has a cotangent from another use (the
// second gemm): each slice's cotangent is added into its window of that one,
// in turn; no zero tensor of the source's shape, no add.
rvnn_exec.param @v : tensor<3x4xf32> init <xavier_uniform>
rvnn_exec.param @u : tensor<2x3xf32> init <xavier_uniform>
rvnn_exec.func @overlap_into(%in: tensor<?x4xf32>) -> tensor<?x2xf32> {
  %v = rvnn_exec.param_get @v : tensor<3x4xf32>
  %u = rvnn_exec.param_get @u : tensor<2x3xf32>
  %x = rvnn_exec.gemm %in, %v {transpose_rhs}
      : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x3xf32>
  %c0 = rvnn_exec.constant 0 : index
  %n = rvnn_exec.dim %x, %c0 : tensor<?x3xf32>
  %l = rvnn_exec.slice %x [] [%n] [] {dropped_dims = array<i64>,
      static_offsets = array<i64: 0, 0>,
      static_sizes = array<i64: -9223372036854775808, 2>,
      static_strides = array<i64: 1, 1>} : tensor<?x3xf32> to tensor<?x2xf32>
  %r = rvnn_exec.slice %x [] [%n] [] {dropped_dims = array<i64>,
      static_offsets = array<i64: 0, 1>,
      static_sizes = array<i64: -9223372036854775808, 2>,
      static_strides = array<i64: 1, 1>} : tensor<?x3xf32> to tensor<?x2xf32>
  %p = rvnn_exec.elementwise <mul> %l, %r : tensor<?x2xf32>
  %z = rvnn_exec.gemm %x, %u {transpose_rhs}
      : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x2xf32>
  %q = rvnn_exec.elementwise <add> %p, %z : tensor<?x2xf32>
  rvnn_exec.return %q : tensor<?x2xf32>
}

// CHECK-LABEL: rvnn_exec.func @overlap_into_part_bwd(
// CHECK-SAME:      %[[N:[^:]*]]: index, %{{[^:]*}}: tensor<?x4xf32>, %{{[^:]*}}: tensor<3x4xf32>, %[[CT:[^:]*]]: tensor<?x2xf32>)
// CHECK-NEXT:    %[[DZ:.*]]:2 = rvnn_exec.vjp({{.*}}) cotangents(%[[CT]]) grad_inputs [0, 1]
// CHECK:         %[[DL:.*]] = rvnn_exec.elementwise <mul> %[[CT]]
// CHECK-NEXT:    %[[DR:.*]] = rvnn_exec.elementwise <mul> %[[CT]]
// CHECK-NEXT:    %[[SUM:.*]] = rvnn_exec.add_into_window %[[DL]] into %[[DZ]]#0[] [%[[N]]] []{{.*}}static_offsets = array<i64: 0, 0>{{.*}} : tensor<?x2xf32> into tensor<?x3xf32>
// CHECK-NEXT:    %[[DX:.*]] = rvnn_exec.add_into_window %[[DR]] into %[[SUM]][] [%[[N]]] []{{.*}}static_offsets = array<i64: 0, 1>
// CHECK-NEXT:    rvnn_exec.vjp(%{{.*}}, %{{.*}}) cotangents(%[[DX]]) grad_inputs [1]
// CHECK-NOT:     rvnn_exec.alloc
// CHECK-NOT:     rvnn_exec.elementwise <add>
// CHECK:         rvnn_exec.return

// -----

// A value the backward reads that is cheap to recompute from what it reads
// anyway is recomputed, not kept: gelu(y) is the second gemm's lhs (read for
// the weight's cotangent), y is read by gelu's own derivative.
rvnn_exec.param @w : tensor<4x4xf32> init <xavier_uniform>
rvnn_exec.func @remat(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %w = rvnn_exec.param_get @w : tensor<4x4xf32>
  %y = rvnn_exec.gemm %x, %w {transpose_rhs}
      : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  %g = rvnn_exec.gelu %y : tensor<?x4xf32>
  %z = rvnn_exec.gemm %g, %w {transpose_rhs}
      : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  rvnn_exec.return %z : tensor<?x4xf32>
}

// CHECK-LABEL: rvnn_exec.func @remat_part_fwd(
// CHECK-SAME:      -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<4x4xf32>, tensor<?x4xf32>)
// CHECK:         %[[Y:.*]] = rvnn_exec.gemm %arg0
// CHECK:         rvnn_exec.return %{{.*}}, %[[Y]], %arg1, %arg0 :
// CHECK-LABEL: rvnn_exec.func @remat_part_bwd(
// CHECK-SAME:      %[[RY:[^:]*]]: tensor<?x4xf32>, %[[RW:[^:]*]]: tensor<4x4xf32>, %[[RX:[^:]*]]: tensor<?x4xf32>, %[[CT:[^:]*]]: tensor<?x4xf32>)
// CHECK-NEXT:    %[[G:.*]] = rvnn_exec.gelu %[[RY]]
// CHECK-NEXT:    rvnn_exec.vjp(%[[G]], %[[RW]]) cotangents(%[[CT]]) grad_inputs [0, 1]

// -----

// In a balanced_reduce body, which runs once per tree node, a value that
// takes a transcendental function per element is kept, not recomputed:
// gelu(y), the second gemm's lhs, is a residual of the forward.
rvnn_exec.param @w : tensor<4x4xf32> init <xavier_uniform>
rvnn_exec.func @keep_gelu(%x: tensor<?x?x2xf32>, %m: tensor<?x?xf32>) -> tensor<?x2xf32> {
  %w = rvnn_exec.param_get @w : tensor<4x4xf32>
  %r = rvnn_exec.balanced_reduce %x, %m {arity = 2 : i64}
      : (tensor<?x?x2xf32>, tensor<?x?xf32>) -> tensor<?x2xf32> {
  ^bb0(%c: tensor<?x2x2xf32>, %k: tensor<?x2xf32>):
    %c0 = rvnn_exec.constant 0 : index
    %n = rvnn_exec.dim %c, %c0 : tensor<?x2x2xf32>
    %flat = rvnn_exec.reshape %c (%n) : tensor<?x2x2xf32> to tensor<?x4xf32>
    %y = rvnn_exec.gemm %flat, %w {transpose_rhs}
        : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    %g = rvnn_exec.gelu %y : tensor<?x4xf32>
    %z = rvnn_exec.gemm %g, %w {transpose_rhs}
        : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    %l = rvnn_exec.slice %z [] [%n] [] {dropped_dims = array<i64>,
        static_offsets = array<i64: 0, 0>,
        static_sizes = array<i64: -9223372036854775808, 2>,
        static_strides = array<i64: 1, 1>} : tensor<?x4xf32> to tensor<?x2xf32>
    rvnn_exec.yield %l : tensor<?x2xf32>
  }
  rvnn_exec.return %r : tensor<?x2xf32>
}

// CHECK-LABEL: rvnn_exec.func @keep_gelu_body_fwd(
// CHECK:         %[[Y:.*]] = rvnn_exec.gemm
// CHECK:         %[[G:.*]] = rvnn_exec.gelu %[[Y]]
// CHECK:         rvnn_exec.return {{.*}}%[[G]]
// CHECK-LABEL: rvnn_exec.func @keep_gelu_body_bwd(
// CHECK-NOT:     rvnn_exec.gelu
// CHECK:         rvnn_exec.vjp

// -----

// A body that holds a loop (RIR's outer loop around its inner recursion) is
// differentiated like a function's body: the inner body becomes a call, and
// so does each straight-line run of the outer body around the inner loop.
rvnn_exec.param @w : tensor<4x4xf32> init <xavier_uniform>
rvnn_exec.func @nested(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %w = rvnn_exec.param_get @w : tensor<4x4xf32>
  %h = rvnn_exec.recurse <fixed> (%x) {steps = 2 : i64}
      : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%t: index, %s: tensor<?x4xf32>):
    %a = rvnn_exec.gemm %s, %w {transpose_rhs}
        : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    %inner = rvnn_exec.recurse <fixed> (%a) {steps = 3 : i64}
        : (tensor<?x4xf32>) -> tensor<?x4xf32> {
    ^bb1(%u: index, %v: tensor<?x4xf32>):
      %g = rvnn_exec.gelu %v : tensor<?x4xf32>
      rvnn_exec.yield %g : tensor<?x4xf32>
    }
    %b = rvnn_exec.elementwise <mul> %inner, %s : tensor<?x4xf32>
    rvnn_exec.yield %b : tensor<?x4xf32>
  }
  rvnn_exec.return %h : tensor<?x4xf32>
}
// CHECK-LABEL: rvnn_exec.func @nested(
// CHECK-NEXT:    %[[W:.*]] = rvnn_exec.param_get @w
// CHECK-NEXT:    %[[H:.*]] = rvnn_exec.recurse <fixed>(%arg0)
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %[[S:.*]]: tensor<?x4xf32>):
// CHECK-NEXT:      %[[A:.*]] = rvnn_exec.call @nested_body_part_0(%[[S]], %[[W]]) forward @nested_body_part_0_fwd backward @nested_body_part_0_bwd grad_inputs [0, 1]
// CHECK-NEXT:      %[[INNER:.*]] = rvnn_exec.recurse <fixed>(%[[A]])
// CHECK:             rvnn_exec.call @nested_body(
// CHECK:           %[[B:.*]] = rvnn_exec.call @nested_body_part(%[[INNER]], %[[S]]) forward @nested_body_part_fwd backward @nested_body_part_bwd grad_inputs [0, 1]
// CHECK-NEXT:      rvnn_exec.yield %[[B]]
// CHECK:         rvnn_exec.return %[[H]]
// CHECK-LABEL: rvnn_exec.func @nested_body_part_0_bwd(
// CHECK-SAME:      -> (tensor<?x4xf32>, tensor<4x4xf32>)
// CHECK-LABEL: rvnn_exec.func @nested_body_part_bwd(
// CHECK-SAME:      -> (tensor<?x4xf32>, tensor<?x4xf32>)

// -----

// An operand's cotangent may come out less static than the operand (gate's
// rule computes in the type of its `new` operand): the backward casts it to
// the type the call hands on.
rvnn_exec.param @w : tensor<4x4xf32> init <xavier_uniform>
rvnn_exec.func @gated(%x: tensor<?x4xf32>, %g: tensor<?x1xf32>, %y: tensor<?x?xf32>) -> tensor<?x4xf32> {
  %w = rvnn_exec.param_get @w : tensor<4x4xf32>
  %h = rvnn_exec.recurse <fixed> (%x) {steps = 2 : i64}
      : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%t: index, %s: tensor<?x4xf32>):
    %a = rvnn_exec.gemm %s, %w {transpose_rhs}
        : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    rvnn_exec.yield %a : tensor<?x4xf32>
  }
  %o = rvnn_exec.gate %g, %y, %h : (tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  rvnn_exec.return %o : tensor<?x4xf32>
}
// CHECK-LABEL: rvnn_exec.func @gated_part_bwd(
// CHECK-SAME:      -> tensor<?x4xf32>
// CHECK:         %[[OLD:.*]] = rvnn_exec.elementwise <sub> {{.*}} : tensor<?x?xf32>
// CHECK-NEXT:    %[[CAST:.*]] = rvnn_exec.cast %[[OLD]] : tensor<?x?xf32> to tensor<?x4xf32>
// CHECK-NEXT:    rvnn_exec.return %[[CAST]] : tensor<?x4xf32>
