// RUN: rvnn-opt %s -rvnn-exec-outline-kernels -split-input-file -verify-diagnostics | FileCheck %s
// Running it twice replaces the kernels module instead of adding one.
// RUN: rvnn-opt %s -rvnn-exec-outline-kernels -rvnn-exec-outline-kernels -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=TWICE

// tanh(a * b): the kernel is one elementwise linalg.generic over the
// inputs into the caller's destination; the backward recomputes the
// forward from the inputs, then tanh' = 1 - t² and the product rule.
// CHECK: #[[MAP:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: rvnn_exec.func @f
// CHECK: rvnn_exec.dispatch "f_k0"
// CHECK: rvnn_exec.return
// CHECK-LABEL: module @rvnn_kernels attributes {rvnn_exec.kernels}
// CHECK-LABEL: func.func @f_k0(
// CHECK-SAME: %[[X0:.*]]: tensor<?x4xf32>, %[[X1:.*]]: tensor<?x4xf32>, %[[OUT:.*]]: tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT: %[[R:.*]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins(%[[X0]], %[[X1]] : tensor<?x4xf32>, tensor<?x4xf32>) outs(%[[OUT]] : tensor<?x4xf32>) {
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[M]] : f32
// CHECK-NEXT: linalg.yield %[[T]] : f32
// CHECK-NEXT: } -> tensor<?x4xf32>
// CHECK-NEXT: return %[[R]] : tensor<?x4xf32>
// CHECK-LABEL: func.func @f_k0_grad(
// CHECK-SAME: %[[X0:.*]]: tensor<?x4xf32>, %[[X1:.*]]: tensor<?x4xf32>, %[[DY:.*]]: tensor<?x4xf32>, %[[DX0:.*]]: tensor<?x4xf32>, %[[DX1:.*]]: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>)
// CHECK-NEXT: %[[R:.*]]:2 = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins(%[[X0]], %[[X1]], %[[DY]] : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>) outs(%[[DX0]], %[[DX1]] : tensor<?x4xf32>, tensor<?x4xf32>) {
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[D:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[M]] : f32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[T2:.*]] = arith.mulf %[[T]], %[[T]] : f32
// CHECK-NEXT: %[[DT:.*]] = arith.subf %[[ONE]], %[[T2]] : f32
// CHECK-NEXT: %[[DM:.*]] = arith.mulf %[[D]], %[[DT]] : f32
// CHECK-NEXT: %[[DA:.*]] = arith.mulf %[[DM]], %[[B]] : f32
// CHECK-NEXT: %[[DB:.*]] = arith.mulf %[[DM]], %[[A]] : f32
// CHECK-NEXT: linalg.yield %[[DA]], %[[DB]] : f32, f32
// CHECK-NEXT: } -> (tensor<?x4xf32>, tensor<?x4xf32>)
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1 : tensor<?x4xf32>, tensor<?x4xf32>
// TWICE-LABEL: rvnn_exec.func @f
// TWICE-COUNT-1: module @rvnn_kernels
// TWICE-NOT: module @rvnn_kernels
// TWICE-COUNT-2: linalg.generic
// TWICE-NOT: linalg.generic
rvnn_exec.func @f(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = rvnn_exec.dispatch "f_k0" (%a, %b)
      : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>):
    %m = rvnn_exec.elementwise <mul> %x, %y : tensor<?x4xf32>
    %t = rvnn_exec.elementwise <tanh> %m : tensor<?x4xf32>
    rvnn_exec.yield %t : tensor<?x4xf32>
  }
  rvnn_exec.return %r : tensor<?x4xf32>
}

// -----

// f64, two results, an input used twice and an input on no path: adjoints
// are accumulated per use (the seed of e plus its use in the product), the
// unused input gets 0.
// CHECK: #[[MAP1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: rvnn_exec.func @g
// TWICE-LABEL: rvnn_exec.func @g
// CHECK-LABEL: module @rvnn_kernels attributes {rvnn_exec.kernels}
// CHECK-LABEL: func.func @g_k0(
// CHECK-SAME: -> (tensor<8xf64>, tensor<8xf64>)
// CHECK: linalg.generic {indexing_maps = [#[[MAP1]], #[[MAP1]], #[[MAP1]], #[[MAP1]]], iterator_types = ["parallel"]}
// CHECK-NEXT: ^bb0(%[[X:.*]]: f64, %{{.*}}: f64, %{{.*}}: f64, %{{.*}}: f64):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]] : f64
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[E]], %[[X]] : f64
// CHECK-NEXT: linalg.yield %[[M]], %[[E]] : f64, f64
// CHECK-LABEL: func.func @g_k0_grad(
// CHECK-SAME: -> (tensor<8xf64>, tensor<8xf64>)
// CHECK: ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>) outs(%{{.*}}, %{{.*}} : tensor<8xf64>, tensor<8xf64>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f64, %{{.*}}: f64, %[[DM:.*]]: f64, %[[DE:.*]]: f64, %{{.*}}: f64, %{{.*}}: f64):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]] : f64
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[E]], %[[X]] : f64
// CHECK-NEXT: %[[C1:.*]] = arith.mulf %[[DM]], %[[X]] : f64
// CHECK-NEXT: %[[C2:.*]] = arith.mulf %[[DM]], %[[E]] : f64
// CHECK-NEXT: %[[AE:.*]] = arith.addf %[[DE]], %[[C1]] : f64
// CHECK-NEXT: %[[C3:.*]] = arith.mulf %[[AE]], %[[E]] : f64
// CHECK-NEXT: %[[AX:.*]] = arith.addf %[[C2]], %[[C3]] : f64
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: linalg.yield %[[AX]], %[[ZERO]] : f64, f64
rvnn_exec.func @g(%a: tensor<8xf64>, %b: tensor<8xf64>) -> (tensor<8xf64>, tensor<8xf64>) {
  %r:2 = rvnn_exec.dispatch "g_k0" (%a, %b)
      : (tensor<8xf64>, tensor<8xf64>) -> (tensor<8xf64>, tensor<8xf64>) {
  ^bb0(%x: tensor<8xf64>, %unused: tensor<8xf64>):
    %e = rvnn_exec.elementwise <exp> %x : tensor<8xf64>
    %m = rvnn_exec.elementwise <mul> %e, %x : tensor<8xf64>
    rvnn_exec.yield %m, %e : tensor<8xf64>, tensor<8xf64>
  }
  rvnn_exec.return %r#0, %r#1 : tensor<8xf64>, tensor<8xf64>
}

// -----

// The ATen forms of the other rules: sigmoid, exact gelu, relu, max with
// ties split, abs with sign 0 at 0, gate; rank 0 has no iterators.
// CHECK-LABEL: func.func @h_k0(
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = []}
// CHECK-NEXT: ^bb0(%[[X:.*]]: f64, %[[Y:.*]]: f64, %{{.*}}: f64):
// sigmoid: 1 / (1 + exp(-x))
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT: %[[NX:.*]] = arith.negf %[[X]] : f64
// CHECK-NEXT: %[[EX:.*]] = math.exp %[[NX]] : f64
// CHECK-NEXT: %[[DEN:.*]] = arith.addf %[[ONE]], %[[EX]] : f64
// CHECK-NEXT: %[[S:.*]] = arith.divf %[[ONE]], %[[DEN]] : f64
// gelu: x * 0.5 * (1 + erf(x * M_SQRT1_2))
// CHECK-NEXT: %[[HALF:.*]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT: %[[ALPHA:.*]] = arith.constant 0.70710678118654757 : f64
// CHECK-NEXT: %[[HX:.*]] = arith.mulf %[[Y]], %[[HALF]] : f64
// CHECK-NEXT: %[[XA:.*]] = arith.mulf %[[Y]], %[[ALPHA]] : f64
// CHECK-NEXT: %[[ERF:.*]] = math.erf %[[XA]] : f64
// CHECK-NEXT: %[[CDF:.*]] = arith.addf %[[ONE]], %[[ERF]] : f64
// CHECK-NEXT: %[[G:.*]] = arith.mulf %[[HX]], %[[CDF]] : f64
// relu: max(x, 0), NaN-propagating
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[G]], %[[ZERO]] : f64
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[R]], %[[X]] : f64
// CHECK-NEXT: %[[A:.*]] = math.absf %[[M]] : f64
// gate: g * n + (1 - g) * o
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT: %[[GN:.*]] = arith.mulf %[[S]], %[[A]] : f64
// CHECK-NEXT: %[[OMG:.*]] = arith.subf %[[ONE]], %[[S]] : f64
// CHECK-NEXT: %[[GO:.*]] = arith.mulf %[[OMG]], %[[Y]] : f64
// CHECK-NEXT: %[[O:.*]] = arith.addf %[[GN]], %[[GO]] : f64
// CHECK-NEXT: linalg.yield %[[O]] : f64
// CHECK-LABEL: func.func @h_k0_grad(
// CHECK: ^bb0(%[[X:.*]]: f64, %[[Y:.*]]: f64, %[[D:.*]]: f64, %{{.*}}: f64, %{{.*}}: f64):
// CHECK: %[[S:.*]] = arith.divf
// CHECK: %[[R:.*]] = arith.maximumf
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[R]], %[[X]] : f64
// CHECK-NEXT: %[[A:.*]] = math.absf %[[M]] : f64
// CHECK: %[[O:.*]] = arith.addf
// gate: dg = d * (n - o), dn = d * g, do = d * (1 - g)
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT: %[[NMO:.*]] = arith.subf %[[A]], %[[Y]] : f64
// CHECK-NEXT: %[[DG:.*]] = arith.mulf %[[D]], %[[NMO]] : f64
// CHECK-NEXT: %[[DN:.*]] = arith.mulf %[[D]], %[[S]] : f64
// CHECK-NEXT: %[[OMG:.*]] = arith.subf %[[ONE]], %[[S]] : f64
// CHECK-NEXT: %[[DO:.*]] = arith.mulf %[[D]], %[[OMG]] : f64
// abs: d * sign(x), sign = x > 0 ? 1 : (x < 0 ? -1 : 0)
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: %[[PONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT: %[[MONE:.*]] = arith.constant -1.000000e+00 : f64
// CHECK-NEXT: %[[POS:.*]] = arith.cmpf ogt, %[[M]], %[[ZERO]] : f64
// CHECK-NEXT: %[[NEG:.*]] = arith.cmpf olt, %[[M]], %[[ZERO]] : f64
// CHECK-NEXT: %[[NP:.*]] = arith.select %[[NEG]], %[[MONE]], %[[ZERO]] : f64
// CHECK-NEXT: %[[SIGN:.*]] = arith.select %[[POS]], %[[PONE]], %[[NP]] : f64
// CHECK-NEXT: %[[DM:.*]] = arith.mulf %[[DN]], %[[SIGN]] : f64
// max: ties share d / 2, the losing side gets 0
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: %[[TIE:.*]] = arith.cmpf oeq, %[[R]], %[[X]] : f64
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT: %[[HALF:.*]] = arith.divf %[[DM]], %[[TWO]] : f64
// CHECK-NEXT: %[[SHARED:.*]] = arith.select %[[TIE]], %[[HALF]], %[[DM]] : f64
// CHECK-NEXT: %[[LT:.*]] = arith.cmpf olt, %[[R]], %[[X]] : f64
// CHECK-NEXT: %[[DR:.*]] = arith.select %[[LT]], %[[ZERO]], %[[SHARED]] : f64
// CHECK-NEXT: %[[GT:.*]] = arith.cmpf ogt, %[[R]], %[[X]] : f64
// CHECK-NEXT: %[[DXM:.*]] = arith.select %[[GT]], %[[ZERO]], %[[SHARED]] : f64
// relu: threshold_backward on the result
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: %[[OFF:.*]] = arith.cmpf ole, %[[R]], %[[ZERO]] : f64
// CHECK-NEXT: %[[DGE:.*]] = arith.select %[[OFF]], %[[ZERO]], %[[DR]] : f64
// gelu: d * (cdf + x * pdf), pdf = 1/sqrt(2 pi) * exp(x * x * -0.5)
// CHECK: %[[BETA:.*]] = arith.constant 0.3989422804014327 : f64
// CHECK-NEXT: %[[MHALF:.*]] = arith.constant -5.000000e-01 : f64
// CHECK: %[[X2:.*]] = arith.mulf %[[Y]], %[[Y]] : f64
// CHECK-NEXT: %[[ARG:.*]] = arith.mulf %[[X2]], %[[MHALF]] : f64
// CHECK-NEXT: %[[EXP:.*]] = math.exp %[[ARG]] : f64
// CHECK-NEXT: %[[PDF:.*]] = arith.mulf %[[BETA]], %[[EXP]] : f64
// CHECK-NEXT: %[[XPDF:.*]] = arith.mulf %[[Y]], %[[PDF]] : f64
// CHECK-NEXT: %[[DER:.*]] = arith.addf %{{.*}}, %[[XPDF]] : f64
// CHECK-NEXT: %[[DGY:.*]] = arith.mulf %[[DGE]], %[[DER]] : f64
// y is the gate's old value and the gelu's input: both contributions.
// CHECK-NEXT: %[[DY:.*]] = arith.addf %[[DO]], %[[DGY]] : f64
// sigmoid: d * (1 - s) * s
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT: %[[OMS:.*]] = arith.subf %[[ONE]], %[[S]] : f64
// CHECK-NEXT: %[[T:.*]] = arith.mulf %[[DG]], %[[OMS]] : f64
// CHECK-NEXT: %[[DSX:.*]] = arith.mulf %[[T]], %[[S]] : f64
// CHECK-NEXT: %[[DX:.*]] = arith.addf %[[DXM]], %[[DSX]] : f64
// CHECK-NEXT: linalg.yield %[[DX]], %[[DY]] : f64, f64
rvnn_exec.func @h(%a: tensor<f64>, %b: tensor<f64>) -> tensor<f64> {
  %r = rvnn_exec.dispatch "h_k0" (%a, %b)
      : (tensor<f64>, tensor<f64>) -> tensor<f64> {
  ^bb0(%x: tensor<f64>, %y: tensor<f64>):
    %s = rvnn_exec.sigmoid %x : tensor<f64>
    %g = rvnn_exec.gelu %y : tensor<f64>
    %r = rvnn_exec.relu %g : tensor<f64>
    %m = rvnn_exec.elementwise <max> %r, %x : tensor<f64>
    %ab = rvnn_exec.elementwise <abs> %m : tensor<f64>
    %o = rvnn_exec.gate %s, %ab, %y : (tensor<f64>, tensor<f64>, tensor<f64>) -> tensor<f64>
    rvnn_exec.yield %o : tensor<f64>
  }
  rvnn_exec.return %r : tensor<f64>
}

// -----

// No dispatch, no kernels module.
// CHECK-LABEL: rvnn_exec.func @none
// CHECK-NOT: rvnn_kernels
rvnn_exec.func @none(%a: tensor<4xf32>) -> tensor<4xf32> {
  rvnn_exec.return %a : tensor<4xf32>
}

// -----

// A layer norm among elementwise ops (gamma and beta row operands along
// the last dim): the kernel materialises the norm's input, sums each row in
// 8 lanes ([?, 8] split as [?, 1, 8]), keeps mean and rstd per row, then
// evaluates the whole body in one generic into the destination.
// CHECK-LABEL: rvnn_exec.func @norm
// CHECK-LABEL: func.func @norm_k0(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x8xf32>, %[[G:[^:]*]]: tensor<8xf32>, %[[B:[^:]*]]: tensor<8xf32>, %[[OUT:[^:]*]]: tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK: %[[PRE:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[G]], %[[B]] :
// CHECK: math.tanh
// CHECK: tensor.expand_shape %[[PRE]] {{\[}}[0], [1, 2]]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[SUM]] : tensor<?xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: arith.subf
// CHECK: %[[SQ:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: %[[RSTD:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[SQ]] : tensor<?xf32>)
// CHECK: math.sqrt
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[G]], %[[B]], %[[PRE]], %[[MEAN]], %[[RSTD]] : {{.*}}) outs(%[[OUT]] : tensor<?x8xf32>)
// CHECK: return %[[Y]]
// The backward: dŷ, then per row Σ dŷ·γ and Σ dŷ·γ·x̂ (two lane sums), the
// row operands' cotangents as column sums, then reverse mode into the full
// cotangents; the results in input order.
// CHECK-LABEL: func.func @norm_k0_grad(
// CHECK-SAME: %[[DX:[^:]*]]: tensor<?x8xf32>, %[[DG:[^:]*]]: tensor<8xf32>, %[[DB:[^:]*]]: tensor<8xf32>) -> (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]{{.*}} outs({{.*}} : tensor<?x8xf32>, tensor<?x8xf32>)
// CHECK: %[[FG:.*]] = linalg.fill {{.*}} outs(%[[DG]] : tensor<8xf32>)
// CHECK: %[[FB:.*]] = linalg.fill {{.*}} outs(%[[DB]] : tensor<8xf32>)
// CHECK: %[[COLS:.*]]:2 = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]{{.*}} outs(%[[FG]], %[[FB]] :
// CHECK: %[[FULL:.*]] = linalg.generic {{.*}} outs(%[[DX]] : tensor<?x8xf32>)
// CHECK-NOT: math.sqrt
// CHECK: return %[[FULL]], %[[COLS]]#0, %[[COLS]]#1
rvnn_exec.func @norm(%a: tensor<?x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %r = rvnn_exec.dispatch "norm_k0" (%a, %g, %b)
      : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8xf32> {
  ^bb0(%x: tensor<?x8xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>):
    %t = rvnn_exec.elementwise <tanh> %x : tensor<?x8xf32>
    %n = rvnn_exec.layer_norm %t, %gamma, %beta : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %s = rvnn_exec.elementwise <add> %x, %n : tensor<?x8xf32>
    rvnn_exec.yield %s : tensor<?x8xf32>
  }
  rvnn_exec.return %r : tensor<?x8xf32>
}

// -----

// A norm that only a result reads: its cotangent is that result's, read in
// place, with no dŷ stage before the row sums.
// CHECK-LABEL: func.func @norm_out_k0_grad(
// CHECK-SAME: %{{[^:]*}}: tensor<?x8xf32>, %{{[^:]*}}: tensor<8xf32>, %{{[^:]*}}: tensor<8xf32>, %[[DY:[^:]*]]: tensor<?x8xf32>,
// CHECK-NOT: ins({{.*}}%[[DY]]{{.*}}) outs({{.*}} : tensor<?x8xf32>) {
// CHECK: %[[LANES:.*]] = tensor.expand_shape %[[DY]]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]{{.*}} ins({{.*}}%[[LANES]] :
rvnn_exec.func @norm_out(%a: tensor<?x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %r = rvnn_exec.dispatch "norm_out_k0" (%a, %g, %b)
      : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8xf32> {
  ^bb0(%x: tensor<?x8xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>):
    %t = rvnn_exec.elementwise <tanh> %x : tensor<?x8xf32>
    %n = rvnn_exec.layer_norm %t, %gamma, %beta : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    rvnn_exec.yield %n : tensor<?x8xf32>
  }
  rvnn_exec.return %r : tensor<?x8xf32>
}

// -----

// A costly scalar before the norm (a sigmoid: an exp and a division): the
// backward's first stage yields it beside the norm's input, and the last
// stage's reverse sweep reads it instead of computing it again.
// CHECK-LABEL: func.func @kept_k0_grad(
// CHECK: %[[FIRST:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]}
// CHECK: math.exp
// CHECK-NOT: math.exp
// CHECK: %[[DX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins({{.*}}, %[[FIRST]]#1 :
// CHECK-NOT: math.exp
// CHECK: return %[[DX]],
rvnn_exec.func @kept(%a: tensor<?x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %r = rvnn_exec.dispatch "kept_k0" (%a, %g, %b)
      : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8xf32> {
  ^bb0(%x: tensor<?x8xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>):
    %s = rvnn_exec.sigmoid %x : tensor<?x8xf32>
    %p = rvnn_exec.elementwise <mul> %s, %x : tensor<?x8xf32>
    %n = rvnn_exec.layer_norm %p, %gamma, %beta : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    rvnn_exec.yield %n : tensor<?x8xf32>
  }
  rvnn_exec.return %r : tensor<?x8xf32>
}

// -----

// A softmax among elementwise ops: the kernel materialises its input, takes
// each row's max and the sum of exp(x - max) in 8 lanes, the sum's
// reciprocal per row, then the whole body in one generic.
// CHECK-LABEL: func.func @softmax_k0(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x8xf32>, %[[OUT:[^:]*]]: tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK: %[[PRE:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X]] :
// CHECK: math.tanh
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: arith.maximumf
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[SUM]] : tensor<?xf32>)
// CHECK: arith.divf
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[PRE]], %[[MAX]], %[[INV]] : {{.*}}) outs(%[[OUT]] : tensor<?x8xf32>)
// CHECK: return %[[Y]]
// The backward: the statistics again, dp (the add after the softmax), one
// row sum Σ dp·s, then reverse mode into the input's cotangent.
// CHECK-LABEL: func.func @softmax_k0_grad(
// CHECK-SAME: %[[DX:[^:]*]]: tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK: %[[DP:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]{{.*}} outs({{.*}} : tensor<?x8xf32>)
// CHECK: tensor.expand_shape %[[DP]]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]{{.*}} outs({{.*}} : tensor<?x8xf32>)
// CHECK: %[[FULL:.*]] = linalg.generic {{.*}} outs(%[[DX]] : tensor<?x8xf32>)
// CHECK: return %[[FULL]]
rvnn_exec.func @softmax(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %r = rvnn_exec.dispatch "softmax_k0" (%a) : (tensor<?x8xf32>) -> tensor<?x8xf32> {
  ^bb0(%x: tensor<?x8xf32>):
    %t = rvnn_exec.elementwise <tanh> %x : tensor<?x8xf32>
    %p = rvnn_exec.softmax %t {dim = -1 : i64} : tensor<?x8xf32>
    %s = rvnn_exec.elementwise <add> %x, %p : tensor<?x8xf32>
    rvnn_exec.yield %s : tensor<?x8xf32>
  }
  rvnn_exec.return %r : tensor<?x8xf32>
}

// -----

// A masked softmax (rows of 5, no lanes) adds the masked rows' sum Z to the
// statistics; its backward sums four terms per row in one generic (Σ dp·p
// and the closed form's A, D, M) and yields both the input's and the mask's
// cotangents. Its only use is a result: dp is that result's cotangent.
// CHECK-LABEL: func.func @masked_softmax_k0(
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<?xf32>)
// CHECK: %[[Z:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.constant 9.99999968E-21 : f32
// CHECK: %[[Y:.*]]:2 = linalg.generic {{.*}} ins({{.*}}, %[[MAX]], %[[INV]], %[[Z]] : {{.*}})
// CHECK: math.log
// CHECK: return %[[Y]]#0, %[[Y]]#1
// CHECK-LABEL: func.func @masked_softmax_k0_grad(
// CHECK-SAME: %[[DP:[^:]*]]: tensor<?x5xf32>, %{{[^:]*}}: tensor<?x5xf32>, %[[DX:[^:]*]]: tensor<?x5xf32>, %[[DM:[^:]*]]: tensor<?x5xf32>) -> (tensor<?x5xf32>, tensor<?x5xf32>)
// CHECK: %[[SUMS:.*]]:4 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins({{.*}}, %[[DP]] : {{.*}})
// CHECK: %[[GRADS:.*]]:2 = linalg.generic {{.*}} ins({{.*}}, %[[SUMS]]#0, %[[SUMS]]#1, %[[SUMS]]#2, %[[SUMS]]#3 : {{.*}}) outs(%[[DX]], %[[DM]] :
// CHECK: return %[[GRADS]]#0, %[[GRADS]]#1
rvnn_exec.func @masked_softmax(%a: tensor<?x5xf32>, %m: tensor<?x5xf32>) -> (tensor<?x5xf32>, tensor<?x5xf32>) {
  %r:2 = rvnn_exec.dispatch "masked_softmax_k0" (%a, %m)
      : (tensor<?x5xf32>, tensor<?x5xf32>) -> (tensor<?x5xf32>, tensor<?x5xf32>) {
  ^bb0(%x: tensor<?x5xf32>, %mask: tensor<?x5xf32>):
    %p = rvnn_exec.masked_softmax %x, %mask {dim = 1 : i64} : tensor<?x5xf32>, tensor<?x5xf32>
    %q = rvnn_exec.elementwise <exp> %x : tensor<?x5xf32>
    %l = rvnn_exec.elementwise <log> %q : tensor<?x5xf32>
    rvnn_exec.yield %p, %l : tensor<?x5xf32>, tensor<?x5xf32>
  }
  rvnn_exec.return %r#0, %r#1 : tensor<?x5xf32>, tensor<?x5xf32>
}

// -----

// A gate's [N, 1] g is a broadcast operand: the kernel reads it at (row, 0).
// Its cotangent sums over the broadcast dim after the full inputs': a row
// fold in lanes (the row split into [1, 8]), the sum of the lanes, then the
// rows' sums written into the [N, 1] destination.
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[BCAST:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @gate_k0(
// CHECK-SAME: %[[G:[^:]*]]: tensor<?x1xf32>, %[[X:[^:]*]]: tensor<?x8xf32>, %[[OUT:[^:]*]]: tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK-NEXT: linalg.generic {indexing_maps = [#[[BCAST]], #[[FULL]], #[[FULL]]], iterator_types = ["parallel", "parallel"]} ins(%[[G]], %[[X]] : tensor<?x1xf32>, tensor<?x8xf32>) outs(%[[OUT]] : tensor<?x8xf32>)
// CHECK-LABEL: func.func @gate_k0_grad(
// CHECK-SAME: %[[G:[^:]*]]: tensor<?x1xf32>, %{{[^:]*}}: tensor<?x8xf32>, %[[DY:[^:]*]]: tensor<?x8xf32>, %[[DG:[^:]*]]: tensor<?x1xf32>, %[[DX:[^:]*]]: tensor<?x8xf32>) -> (tensor<?x1xf32>, tensor<?x8xf32>)
// CHECK-NEXT: %[[GX:.*]] = linalg.generic {indexing_maps = [#[[BCAST]], #[[FULL]], #[[FULL]], #[[FULL]]], iterator_types = ["parallel", "parallel"]} {{.*}} outs(%[[DX]] : tensor<?x8xf32>)
// CHECK: %[[LANES:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[G]], %{{.*}}, %{{.*}} : tensor<?x1xf32>, tensor<?x1x8xf32>, tensor<?x1x8xf32>) outs(%{{.*}} : tensor<?x8xf32>)
// CHECK: %[[SUMS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[LANES]] : tensor<?x8xf32>) outs(%{{.*}} : tensor<?xf32>)
// CHECK: %[[GG:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[SUMS]] : tensor<?xf32>) outs(%[[DG]] : tensor<?x1xf32>)
// CHECK: return %[[GG]], %[[GX]]
rvnn_exec.func @gate(%g: tensor<?x1xf32>, %a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %r = rvnn_exec.dispatch "gate_k0" (%g, %a) : (tensor<?x1xf32>, tensor<?x8xf32>) -> tensor<?x8xf32> {
  ^bb0(%gate: tensor<?x1xf32>, %x: tensor<?x8xf32>):
    %t = rvnn_exec.elementwise <tanh> %x : tensor<?x8xf32>
    %m = rvnn_exec.gate %gate, %t, %x : (tensor<?x1xf32>, tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
    rvnn_exec.yield %m : tensor<?x8xf32>
  }
  rvnn_exec.return %r : tensor<?x8xf32>
}

// -----

// A rank-1 kernel has no rows to fold: its [1] g's cotangent is one generic
// reducing the only dim into the zeroed destination.
// CHECK-LABEL: func.func @gate1_k0_grad(
// CHECK-SAME: %[[DG:[^:]*]]: tensor<1xf32>, %{{[^:]*}}: tensor<8xf32>) -> (tensor<1xf32>, tensor<8xf32>)
// CHECK: %[[ZERO:.*]] = linalg.fill {{.*}} outs(%[[DG]] : tensor<1xf32>)
// CHECK-NEXT: %[[GG:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} {{.*}} outs(%[[ZERO]] : tensor<1xf32>)
// CHECK: return %[[GG]]
rvnn_exec.func @gate1(%g: tensor<1xf32>, %a: tensor<8xf32>) -> tensor<8xf32> {
  %r = rvnn_exec.dispatch "gate1_k0" (%g, %a) : (tensor<1xf32>, tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%gate: tensor<1xf32>, %x: tensor<8xf32>):
    %t = rvnn_exec.elementwise <tanh> %x : tensor<8xf32>
    %m = rvnn_exec.gate %gate, %t, %x : (tensor<1xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    rvnn_exec.yield %m : tensor<8xf32>
  }
  rvnn_exec.return %r : tensor<8xf32>
}

// -----

// A bias (rvnn-exec-fuse-linear-epilogue) is a [1, N] broadcast operand read
// at (0, column), and broadcast_like's ref is read for its shape only. The
// bias and the input it is added to have one adjoint: the bias's cotangent
// sums the input's (the first generic's result) over the rows instead of
// recomputing tanh'.
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @bias_k0(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x8xf32>, %[[B:[^:]*]]: tensor<1x8xf32>, %[[OUT:[^:]*]]: tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK-NEXT: linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]], #[[FULL]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[B]] : tensor<?x8xf32>, tensor<1x8xf32>) outs(%[[OUT]] : tensor<?x8xf32>)
// CHECK: arith.addf
// CHECK-NEXT: math.tanh
// CHECK-LABEL: func.func @bias_k0_grad(
// CHECK-SAME: %{{[^:]*}}: tensor<?x8xf32>, %{{[^:]*}}: tensor<1x8xf32>, %[[DY:[^:]*]]: tensor<?x8xf32>, %[[DX:[^:]*]]: tensor<?x8xf32>, %[[DB:[^:]*]]: tensor<1x8xf32>) -> (tensor<?x8xf32>, tensor<1x8xf32>)
// CHECK-NEXT: %[[GX:.*]] = linalg.generic {{.*}} outs(%[[DX]] : tensor<?x8xf32>)
// CHECK: %[[ZERO:.*]] = linalg.fill {{.*}} outs(%[[DB]] : tensor<1x8xf32>)
// CHECK: %[[GB:.*]] = linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]], #[[FULL]], #[[FULL]], #[[ROW]]], iterator_types = ["reduction", "parallel"]} ins({{.*}}, %[[GX]] : {{.*}}) outs(%[[ZERO]] : tensor<1x8xf32>)
// CHECK-NEXT: ^bb0({{.*}}, %[[D:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[ACC]], %[[D]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]]
// CHECK: return %[[GX]], %[[GB]]
rvnn_exec.func @bias(%a: tensor<?x8xf32>, %b: tensor<1x8xf32>) -> tensor<?x8xf32> {
  %r = rvnn_exec.dispatch "bias_k0" (%a, %b) : (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<?x8xf32> {
  ^bb0(%x: tensor<?x8xf32>, %bias: tensor<1x8xf32>):
    %e = rvnn_exec.broadcast_like %bias, %x : (tensor<1x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
    %s = rvnn_exec.elementwise <add> %x, %e : tensor<?x8xf32>
    %t = rvnn_exec.elementwise <tanh> %s : tensor<?x8xf32>
    rvnn_exec.yield %t : tensor<?x8xf32>
  }
  rvnn_exec.return %r : tensor<?x8xf32>
}

// -----

// Row operands are a layer norm's gamma and beta, nothing else.
rvnn_exec.func @unsupported(%a: tensor<4x8xf32>, %g: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rvnn_exec.dispatch' op cannot generate kernel 'unsupported_k0': inputs must have the results' type, or be the gamma or beta of its layer norm, or broadcast operands of its gates and broadcasts}}
  %r = rvnn_exec.dispatch "unsupported_k0" (%a, %g)
      : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%x: tensor<4x8xf32>, %gamma: tensor<8xf32>):
    %t = rvnn_exec.elementwise <tanh> %x : tensor<4x8xf32>
    rvnn_exec.yield %t : tensor<4x8xf32>
  }
  rvnn_exec.return %r : tensor<4x8xf32>
}

// -----

// One row reduction per kernel.
rvnn_exec.func @two_norms(%a: tensor<4x8xf32>, %g: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rvnn_exec.dispatch' op cannot generate kernel 'two_norms_k0': it holds more than one row reduction}}
  %r = rvnn_exec.dispatch "two_norms_k0" (%a, %g)
      : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%x: tensor<4x8xf32>, %gamma: tensor<8xf32>):
    %n = rvnn_exec.layer_norm %x, %gamma, %gamma : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %m = rvnn_exec.layer_norm %n, %gamma, %gamma : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    rvnn_exec.yield %m : tensor<4x8xf32>
  }
  rvnn_exec.return %r : tensor<4x8xf32>
}

// -----

rvnn_exec.func @not_a_map(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'rvnn_exec.dispatch' op cannot generate kernel 'not_a_map_k0': 'rvnn_exec.compare' is not an elementwise op of the dispatch's type}}
  %r = rvnn_exec.dispatch "not_a_map_k0" (%a)
      : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %c = rvnn_exec.compare <ogt> %x, %x : tensor<4xf32> -> tensor<4xi1>
    %f = rvnn_exec.convert %c : tensor<4xi1> -> tensor<4xf32>
    rvnn_exec.yield %f : tensor<4xf32>
  }
  %b = rvnn_exec.compare <ogt> %r, %r : tensor<4xf32> -> tensor<4xi1>
  rvnn_exec.return %b : tensor<4xi1>
}

// -----

// Two dispatches may share a kernel only with the same body.
rvnn_exec.func @clash(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = rvnn_exec.dispatch "clash_k0" (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %e = rvnn_exec.elementwise <exp> %x : tensor<4xf32>
    rvnn_exec.yield %e : tensor<4xf32>
  }
  // expected-error @+1 {{'rvnn_exec.dispatch' op kernel 'clash_k0' differs from the dispatch of the same name}}
  %s = rvnn_exec.dispatch "clash_k0" (%r) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %e = rvnn_exec.elementwise <log> %x : tensor<4xf32>
    rvnn_exec.yield %e : tensor<4xf32>
  }
  rvnn_exec.return %s : tensor<4xf32>
}
