// RUN: rvnn-opt %s -rvnn-exec-fuse-elementwise -split-input-file | FileCheck %s
// RUN: rvnn-opt %s -rvnn-exec-fuse-elementwise=lone-kernels -split-input-file | FileCheck %s --check-prefix=LONE

// A GRC cell's gating (three sigmoid gates, products, sum), the layer norm
// after it and the masked merge after that become ONE dispatch: gamma and
// beta its row operands, the gate's [N, 1] mask a broadcast operand.
// CHECK-LABEL: rvnn_exec.func @grc
// CHECK-SAME: (%[[L:.*]]: tensor<?x128xf32>, %[[R:.*]]: tensor<?x128xf32>, %[[P:.*]]: tensor<?x512xf32>, %[[G:.*]]: tensor<128xf32>, %[[B:.*]]: tensor<128xf32>, %[[M:.*]]: tensor<?x1xf32>, %{{.*}}: index)
// CHECK: %[[P0:.*]] = rvnn_exec.slice %[[P]]
// CHECK: %[[P1:.*]] = rvnn_exec.slice %[[P]]
// CHECK: %[[P2:.*]] = rvnn_exec.slice %[[P]]
// CHECK: %[[P3:.*]] = rvnn_exec.slice %[[P]]
// CHECK-NOT: rvnn_exec.sigmoid
// CHECK: %[[N:.*]] = rvnn_exec.dispatch "grc_k0"(%[[P0]], %[[P1]], %[[P2]], %[[L]], %[[R]], %[[P3]], %[[G]], %[[B]], %[[M]]) : (tensor<?x128xf32>, tensor<?x128xf32>, tensor<?x128xf32>, tensor<?x128xf32>, tensor<?x128xf32>, tensor<?x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<?x1xf32>) -> tensor<?x128xf32> {
// CHECK-NEXT: ^bb0(%[[A0:.*]]: tensor<?x128xf32>, %[[A1:.*]]: tensor<?x128xf32>, %[[A2:.*]]: tensor<?x128xf32>, %[[A3:.*]]: tensor<?x128xf32>, %[[A4:.*]]: tensor<?x128xf32>, %[[A5:.*]]: tensor<?x128xf32>, %[[AG:.*]]: tensor<128xf32>, %[[AB:.*]]: tensor<128xf32>, %[[AM:.*]]: tensor<?x1xf32>):
// CHECK-NEXT: %[[S0:.*]] = rvnn_exec.sigmoid %[[A0]]
// CHECK-NEXT: %[[S1:.*]] = rvnn_exec.sigmoid %[[A1]]
// CHECK-NEXT: %[[S2:.*]] = rvnn_exec.sigmoid %[[A2]]
// CHECK-NEXT: %[[M0:.*]] = rvnn_exec.elementwise <mul> %[[S0]], %[[A3]]
// CHECK-NEXT: %[[M1:.*]] = rvnn_exec.elementwise <mul> %[[S1]], %[[A4]]
// CHECK-NEXT: %[[M2:.*]] = rvnn_exec.elementwise <mul> %[[S2]], %[[A5]]
// CHECK-NEXT: %[[S:.*]] = rvnn_exec.elementwise <add> %[[M0]], %[[M1]]
// CHECK-NEXT: %[[T:.*]] = rvnn_exec.elementwise <add> %[[S]], %[[M2]]
// CHECK-NEXT: %[[H:.*]] = rvnn_exec.layer_norm %[[T]], %[[AG]], %[[AB]]
// CHECK-NEXT: %[[O:.*]] = rvnn_exec.gate %[[AM]], %[[H]], %[[A3]]
// CHECK-NEXT: rvnn_exec.yield %[[O]] : tensor<?x128xf32>
// CHECK-NEXT: }
// CHECK-NEXT: rvnn_exec.return %[[N]]
rvnn_exec.func @grc(%l: tensor<?x128xf32>, %r: tensor<?x128xf32>,
                    %p: tensor<?x512xf32>, %gamma: tensor<128xf32>,
                    %beta: tensor<128xf32>, %mask: tensor<?x1xf32>,
                    %n: index) -> tensor<?x128xf32> {
  %p0 = rvnn_exec.slice %p[] [%n] [] {dropped_dims = array<i64>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 128>, static_strides = array<i64: 1, 1>} : tensor<?x512xf32> to tensor<?x128xf32>
  %p1 = rvnn_exec.slice %p[] [%n] [] {dropped_dims = array<i64>, static_offsets = array<i64: 0, 128>, static_sizes = array<i64: -9223372036854775808, 128>, static_strides = array<i64: 1, 1>} : tensor<?x512xf32> to tensor<?x128xf32>
  %p2 = rvnn_exec.slice %p[] [%n] [] {dropped_dims = array<i64>, static_offsets = array<i64: 0, 256>, static_sizes = array<i64: -9223372036854775808, 128>, static_strides = array<i64: 1, 1>} : tensor<?x512xf32> to tensor<?x128xf32>
  %p3 = rvnn_exec.slice %p[] [%n] [] {dropped_dims = array<i64>, static_offsets = array<i64: 0, 384>, static_sizes = array<i64: -9223372036854775808, 128>, static_strides = array<i64: 1, 1>} : tensor<?x512xf32> to tensor<?x128xf32>
  %s0 = rvnn_exec.sigmoid %p0 : tensor<?x128xf32>
  %s1 = rvnn_exec.sigmoid %p1 : tensor<?x128xf32>
  %s2 = rvnn_exec.sigmoid %p2 : tensor<?x128xf32>
  %m0 = rvnn_exec.elementwise <mul> %s0, %l : tensor<?x128xf32>
  %m1 = rvnn_exec.elementwise <mul> %s1, %r : tensor<?x128xf32>
  %m2 = rvnn_exec.elementwise <mul> %s2, %p3 : tensor<?x128xf32>
  %a0 = rvnn_exec.elementwise <add> %m0, %m1 : tensor<?x128xf32>
  %a1 = rvnn_exec.elementwise <add> %a0, %m2 : tensor<?x128xf32>
  %h = rvnn_exec.layer_norm %a1, %gamma, %beta : (tensor<?x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<?x128xf32>
  %o = rvnn_exec.gate %mask, %h, %l : (tensor<?x1xf32>, tensor<?x128xf32>, tensor<?x128xf32>) -> tensor<?x128xf32>
  rvnn_exec.return %o : tensor<?x128xf32>
}

// -----

// sigmoid -> mul -> gemm -> tanh -> add(tanh, mul) is one producer-consumer
// group, but the gemm between needs the mul before the group's last op:
// the group is cut after the mul, giving two dispatches around the gemm.
// CHECK-LABEL: rvnn_exec.func @cut
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>)
// CHECK: %[[D0:.*]] = rvnn_exec.dispatch "cut_k0"(%[[X]], %[[Y]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK: rvnn_exec.sigmoid
// CHECK: rvnn_exec.elementwise <mul>
// CHECK: rvnn_exec.yield
// CHECK: %[[MM:.*]] = rvnn_exec.gemm %[[D0]], %[[W]]
// CHECK: %[[D1:.*]] = rvnn_exec.dispatch "cut_k1"(%[[MM]], %[[D0]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[B0:.*]]: tensor<4x8xf32>, %[[B1:.*]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[T:.*]] = rvnn_exec.elementwise <tanh> %[[B0]]
// CHECK-NEXT: %[[A:.*]] = rvnn_exec.elementwise <add> %[[T]], %[[B1]]
// CHECK-NEXT: rvnn_exec.yield %[[A]]
// CHECK: rvnn_exec.return %[[D1]]
rvnn_exec.func @cut(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>,
                    %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %s = rvnn_exec.sigmoid %x : tensor<4x8xf32>
  %m = rvnn_exec.elementwise <mul> %s, %y : tensor<4x8xf32>
  %g = rvnn_exec.gemm %m, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %t = rvnn_exec.elementwise <tanh> %g : tensor<4x8xf32>
  %a = rvnn_exec.elementwise <add> %t, %m : tensor<4x8xf32>
  rvnn_exec.return %a : tensor<4x8xf32>
}

// -----

// The exp's result is needed by the gemm before the add: fusing exp+add
// would move the exp after its user. Nothing is fused.
// CHECK-LABEL: rvnn_exec.func @early_use
// CHECK-NOT: rvnn_exec.dispatch
// CHECK: %[[E:.*]] = rvnn_exec.elementwise <exp>
// CHECK-NEXT: %[[P:.*]] = rvnn_exec.gemm %[[E]]
// CHECK-NEXT: rvnn_exec.elementwise <add> %[[E]], %[[P]]
rvnn_exec.func @early_use(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>)
    -> tensor<4x8xf32> {
  %e = rvnn_exec.elementwise <exp> %x : tensor<4x8xf32>
  %p = rvnn_exec.gemm %e, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %a = rvnn_exec.elementwise <add> %e, %p : tensor<4x8xf32>
  rvnn_exec.return %a : tensor<4x8xf32>
}

// -----

// A layer norm joins the elementwise ops around it (a row reduction in the
// kernel): exp, the norm and the residual add are one dispatch, with the
// norm's gamma and beta as row operands; the exp, used before and after
// the norm, stays a member.
// CHECK-LABEL: rvnn_exec.func @norm_between
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[G:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[D:.*]] = rvnn_exec.dispatch "norm_between_k0"(%[[X]], %[[G]], %[[B]]) : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[AX:.*]]: tensor<4x8xf32>, %[[AG:.*]]: tensor<8xf32>, %[[AB:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[E:.*]] = rvnn_exec.elementwise <exp> %[[AX]]
// CHECK-NEXT: %[[N:.*]] = rvnn_exec.layer_norm %[[E]], %[[AG]], %[[AB]]
// CHECK-NEXT: %[[A:.*]] = rvnn_exec.elementwise <add> %[[E]], %[[N]]
// CHECK-NEXT: rvnn_exec.yield %[[A]]
// CHECK: rvnn_exec.return %[[D]]
rvnn_exec.func @norm_between(%x: tensor<4x8xf32>, %g: tensor<8xf32>,
                             %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = rvnn_exec.elementwise <exp> %x : tensor<4x8xf32>
  %n = rvnn_exec.layer_norm %e, %g, %b : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %a = rvnn_exec.elementwise <add> %e, %n : tensor<4x8xf32>
  rvnn_exec.return %a : tensor<4x8xf32>
}

// -----

// A softmax along the last dim is a row reduction too: the beam step's
// masked softmax and the log of its probabilities are one dispatch with both
// results, the mask a full-size input.
// CHECK-LABEL: rvnn_exec.func @masked_softmax_log
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x?xf32>, %[[M:.*]]: tensor<?x?x?xf32>)
// CHECK-NEXT: %[[D:.*]]:2 = rvnn_exec.dispatch "masked_softmax_log_k0"(%[[X]], %[[M]])
// CHECK-NEXT: ^bb0(%[[AX:.*]]: tensor<?x?x?xf32>, %[[AM:.*]]: tensor<?x?x?xf32>):
// CHECK-NEXT: %[[P:.*]] = rvnn_exec.masked_softmax %[[AX]], %[[AM]] {dim = 2 : i64}
// CHECK-NEXT: %[[L:.*]] = rvnn_exec.elementwise <log> %[[P]]
// CHECK-NEXT: rvnn_exec.yield %[[P]], %[[L]]
// CHECK: rvnn_exec.return %[[D]]#0, %[[D]]#1
rvnn_exec.func @masked_softmax_log(%x: tensor<?x?x?xf32>, %m: tensor<?x?x?xf32>)
    -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %p = rvnn_exec.masked_softmax %x, %m {dim = 2 : i64} : tensor<?x?x?xf32>, tensor<?x?x?xf32>
  %l = rvnn_exec.elementwise <log> %p : tensor<?x?x?xf32>
  rvnn_exec.return %p, %l : tensor<?x?x?xf32>, tensor<?x?x?xf32>
}

// -----

// A softmax along another dim is no row reduction: it splits the chain.
// CHECK-LABEL: rvnn_exec.func @softmax_first_dim
// CHECK-NOT: rvnn_exec.dispatch
// CHECK: rvnn_exec.softmax
rvnn_exec.func @softmax_first_dim(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %t = rvnn_exec.elementwise <tanh> %x : tensor<4x8xf32>
  %p = rvnn_exec.softmax %t {dim = 0 : i64} : tensor<4x8xf32>
  %y = rvnn_exec.elementwise <exp> %p : tensor<4x8xf32>
  rvnn_exec.return %y : tensor<4x8xf32>
}

// -----

// A kernel holds one row reduction: a chain through two layer norms is cut
// before the second; a lone layer norm (here the second, whose user is not
// fusable) is no dispatch.
// CHECK-LABEL: rvnn_exec.func @two_norms
// CHECK: %[[D:.*]] = rvnn_exec.dispatch "two_norms_k0"
// CHECK: rvnn_exec.elementwise <tanh>
// CHECK-NEXT: rvnn_exec.layer_norm
// CHECK-NEXT: rvnn_exec.yield
// CHECK: %[[N:.*]] = rvnn_exec.layer_norm %[[D]]
// CHECK-NEXT: rvnn_exec.compare <ogt> %[[N]]
rvnn_exec.func @two_norms(%x: tensor<4x8xf32>, %g: tensor<8xf32>,
                          %b: tensor<8xf32>) -> tensor<4x8xi1> {
  %t = rvnn_exec.elementwise <tanh> %x : tensor<4x8xf32>
  %n0 = rvnn_exec.layer_norm %t, %g, %b : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %n1 = rvnn_exec.layer_norm %n0, %g, %b : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %c = rvnn_exec.compare <ogt> %n1, %n1 : tensor<4x8xf32> -> tensor<4x8xi1>
  rvnn_exec.return %c : tensor<4x8xi1>
}

// -----

// A rank-1 layer norm (its gamma would have the same type as its input) is
// not fused.
// CHECK-LABEL: rvnn_exec.func @vector_norm
// CHECK: rvnn_exec.dispatch "vector_norm_k0"
// CHECK-NOT: rvnn_exec.layer_norm
// CHECK: rvnn_exec.yield
// CHECK: rvnn_exec.layer_norm
rvnn_exec.func @vector_norm(%x: tensor<8xf32>, %g: tensor<8xf32>,
                            %b: tensor<8xf32>) -> tensor<8xf32> {
  %t = rvnn_exec.elementwise <tanh> %x : tensor<8xf32>
  %e = rvnn_exec.elementwise <exp> %t : tensor<8xf32>
  %n = rvnn_exec.layer_norm %e, %g, %b : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  rvnn_exec.return %n : tensor<8xf32>
}

// A use inside a later op's region counts at that op: the recurse between
// the sigmoid and the mul reads the sigmoid, so they are not fused.
// CHECK-LABEL: rvnn_exec.func @nested_use
// CHECK-NOT: rvnn_exec.dispatch
// CHECK: rvnn_exec.sigmoid
// CHECK: rvnn_exec.recurse
// CHECK: rvnn_exec.elementwise <mul>
rvnn_exec.func @nested_use(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = rvnn_exec.sigmoid %x : tensor<4xf32>
  %h = rvnn_exec.recurse <fixed> (%x) {steps = 2 : i64}
      : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%t: index, %state: tensor<4xf32>):
    %g = rvnn_exec.gemm %s, %state : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    rvnn_exec.yield %g : tensor<4xf32>
  }
  %m = rvnn_exec.elementwise <mul> %s, %h : tensor<4xf32>
  rvnn_exec.return %m : tensor<4xf32>
}

// -----

// Different types never fuse: a cast between two shapes, a gate whose gate
// broadcasts, f16 elements, the logical `or` on i1.
// CHECK-LABEL: rvnn_exec.func @types
// CHECK-NOT: rvnn_exec.dispatch
// CHECK: return
rvnn_exec.func @types(%x: tensor<4xf32>, %g: tensor<4x1xf32>,
                      %n: tensor<4x8xf32>, %h: tensor<4xf16>,
                      %b: tensor<4xi1>) -> (tensor<?xf32>, tensor<4x8xf32>, tensor<4xf16>, tensor<4xi1>) {
  %e = rvnn_exec.elementwise <exp> %x : tensor<4xf32>
  %c = rvnn_exec.cast %e : tensor<4xf32> to tensor<?xf32>
  %ng = rvnn_exec.elementwise <neg> %c : tensor<?xf32>
  %s = rvnn_exec.sigmoid %g : tensor<4x1xf32>
  %o = rvnn_exec.gate %s, %n, %n : (tensor<4x1xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %he = rvnn_exec.elementwise <exp> %h : tensor<4xf16>
  %hn = rvnn_exec.elementwise <neg> %he : tensor<4xf16>
  %b1 = rvnn_exec.elementwise <or> %b, %b : tensor<4xi1>
  %b2 = rvnn_exec.elementwise <or> %b1, %b : tensor<4xi1>
  rvnn_exec.return %ng, %o, %hn, %b2 : tensor<?xf32>, tensor<4x8xf32>, tensor<4xf16>, tensor<4xi1>
}

// -----

// Inside a recursion step: the body's chain (gelu, relu, gate with a
// same-shaped gate) becomes a dispatch in the body; every member value used
// outside the group is a result (f64 here), and an input used twice is
// passed once. Kernel numbers count per module, in program order, the
// prefix is the enclosing function.
// CHECK-LABEL: rvnn_exec.func @first
// CHECK: rvnn_exec.dispatch "first_k0"
// CHECK-LABEL: rvnn_exec.func @step
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf64>, %[[G:.*]]: tensor<?x4xf64>)
// CHECK: rvnn_exec.recurse <fixed>(%[[X]])
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[S:.*]]: tensor<?x4xf64>):
// CHECK-NEXT: %[[D:.*]]:2 = rvnn_exec.dispatch "step_k1"(%[[S]], %[[G]]) : (tensor<?x4xf64>, tensor<?x4xf64>) -> (tensor<?x4xf64>, tensor<?x4xf64>) {
// CHECK-NEXT: ^bb0(%[[A0:.*]]: tensor<?x4xf64>, %[[A1:.*]]: tensor<?x4xf64>):
// CHECK-NEXT: %[[GE:.*]] = rvnn_exec.gelu %[[A0]]
// CHECK-NEXT: %[[RE:.*]] = rvnn_exec.relu %[[GE]]
// CHECK-NEXT: %[[GA:.*]] = rvnn_exec.gate %[[A1]], %[[RE]], %[[A0]]
// CHECK-NEXT: rvnn_exec.yield %[[RE]], %[[GA]] : tensor<?x4xf64>, tensor<?x4xf64>
// CHECK-NEXT: }
// CHECK-NEXT: %[[C:.*]] = rvnn_exec.cast %[[D]]#0
// CHECK-NEXT: rvnn_exec.yield %[[D]]#1
rvnn_exec.func @first(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = rvnn_exec.elementwise <exp> %x : tensor<4xf32>
  %a = rvnn_exec.elementwise <add> %e, %x : tensor<4xf32>
  rvnn_exec.return %a : tensor<4xf32>
}
rvnn_exec.func @step(%x: tensor<?x4xf64>, %g: tensor<?x4xf64>) -> tensor<?x4xf64> {
  %h = rvnn_exec.recurse <fixed> (%x) {steps = 3 : i64}
      : (tensor<?x4xf64>) -> tensor<?x4xf64> {
  ^bb0(%t: index, %s: tensor<?x4xf64>):
    %ge = rvnn_exec.gelu %s : tensor<?x4xf64>
    %re = rvnn_exec.relu %ge : tensor<?x4xf64>
    %ga = rvnn_exec.gate %g, %re, %s : (tensor<?x4xf64>, tensor<?x4xf64>, tensor<?x4xf64>) -> tensor<?x4xf64>
    %c = rvnn_exec.cast %re : tensor<?x4xf64> to tensor<?x?xf64>
    rvnn_exec.yield %ga : tensor<?x4xf64>
  }
  rvnn_exec.return %h : tensor<?x4xf64>
}

// -----

// Kernel names already in the module are skipped; existing dispatches are
// left alone.
// CHECK-LABEL: rvnn_exec.func @named
// CHECK: rvnn_exec.dispatch "named_k0"
// CHECK: rvnn_exec.dispatch "named_k1"
rvnn_exec.func @named(%x: tensor<4xf32>) -> tensor<4xf32> {
  %d = rvnn_exec.dispatch "named_k0" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %n = rvnn_exec.elementwise <neg> %a : tensor<4xf32>
    rvnn_exec.yield %n : tensor<4xf32>
  }
  %e = rvnn_exec.elementwise <exp> %d : tensor<4xf32>
  %s = rvnn_exec.elementwise <sqrt> %e : tensor<4xf32>
  rvnn_exec.return %s : tensor<4xf32>
}

// -----

// With lone-kernels, a gelu or a layer norm that no other op joins becomes
// a dispatch of its own (their generated kernels outrun ATen's); without
// it, and for any other lone op, nothing changes.
// CHECK-LABEL: rvnn_exec.func @lone
// CHECK-NOT: rvnn_exec.dispatch
// LONE-LABEL: rvnn_exec.func @lone
// LONE-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[GAMMA:.*]]: tensor<64xf32>, %[[BETA:.*]]: tensor<64xf32>)
// LONE: %[[G:.*]] = rvnn_exec.dispatch "lone_k0"(%[[X]])
// LONE-NEXT: ^bb0(%[[A:.*]]: tensor<?x64xf32>):
// LONE-NEXT: %[[Y:.*]] = rvnn_exec.gelu %[[A]]
// LONE-NEXT: rvnn_exec.yield %[[Y]]
// LONE: %[[S:.*]] = rvnn_exec.sigmoid %[[X]]
// LONE: %[[N:.*]] = rvnn_exec.dispatch "lone_k1"(%[[X]], %[[GAMMA]], %[[BETA]])
// LONE-NEXT: ^bb0(%[[B:.*]]: tensor<?x64xf32>, %[[BG:.*]]: tensor<64xf32>, %[[BB:.*]]: tensor<64xf32>):
// LONE-NEXT: %[[Z:.*]] = rvnn_exec.layer_norm %[[B]], %[[BG]], %[[BB]]
// LONE-NEXT: rvnn_exec.yield %[[Z]]
// LONE-NOT: rvnn_exec.dispatch
// LONE: rvnn_exec.return %[[G]], %[[S]], %[[N]]
rvnn_exec.func @lone(%x: tensor<?x64xf32>, %gamma: tensor<64xf32>, %beta: tensor<64xf32>)
    -> (tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>) {
  %g = rvnn_exec.gelu %x : tensor<?x64xf32>
  %s = rvnn_exec.sigmoid %x : tensor<?x64xf32>
  %n = rvnn_exec.layer_norm %x, %gamma, %beta
      : (tensor<?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  rvnn_exec.return %g, %s, %n : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>
}
