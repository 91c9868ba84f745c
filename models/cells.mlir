// Shared recursive cells, written once from primitives and linked into models
// with `--rvnn-link-library=path=models/cells.mlir` (then inlined), so fusion
// passes see inside them. Cells take their parameters as arguments: one cell
// serves every model and every hidden size.

// GRC: Gated Recursive Cell, GELU variant (model-specs §1).
//   u = GELU(W1·[l; r] + b1)           W1: 2D -> cell, dropout(u) in training
//   c = W2·u + b2                      W2: cell -> 4D, split into c0..c3
//   h = LN(σ(c0)⊙l + σ(c1)⊙r + σ(c2)⊙c3)
// l, r: [M, D] -> h: [M, D].
func.func @grc_cell(%l: tensor<?x?xf32>, %r: tensor<?x?xf32>,
                    %w1: tensor<?x?xf32>, %b1: tensor<?xf32>,
                    %w2: tensor<?x?xf32>, %b2: tensor<?xf32>,
                    %gamma: tensor<?xf32>, %beta: tensor<?xf32>)
    -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %m = tensor.dim %l, %c0 : tensor<?x?xf32>
  %d = tensor.dim %l, %c1 : tensor<?x?xf32>
  %lr = tensor.concat dim(1) %l, %r
      : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %pre = rvnn.linear %lr, %w1, %b1
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %act = rvnn.gelu %pre : tensor<?x?xf32>
  %u = rvnn.dropout %act {rate = 1.000000e-01 : f64} : tensor<?x?xf32>
  %c = rvnn.linear %u, %w2, %b2
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %o1 = arith.muli %d, %c1 : index
  %o2 = arith.muli %d, %c2 : index
  %o3 = arith.muli %d, %c3 : index
  %g0 = tensor.extract_slice %c[0, 0] [%m, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %g1 = tensor.extract_slice %c[0, %o1] [%m, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %g2 = tensor.extract_slice %c[0, %o2] [%m, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %p = tensor.extract_slice %c[0, %o3] [%m, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %f1 = rvnn.sigmoid %g0 : tensor<?x?xf32>
  %f2 = rvnn.sigmoid %g1 : tensor<?x?xf32>
  %i = rvnn.sigmoid %g2 : tensor<?x?xf32>
  %left = arith.mulf %f1, %l : tensor<?x?xf32>
  %right = arith.mulf %f2, %r : tensor<?x?xf32>
  %input = arith.mulf %i, %p : tensor<?x?xf32>
  %sum0 = arith.addf %left, %right : tensor<?x?xf32>
  %sum = arith.addf %sum0, %input : tensor<?x?xf32>
  %h = rvnn.layer_norm %sum, %gamma, %beta
      : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %h : tensor<?x?xf32>
}

// k-ary GRC: the GRC above with k children instead of two, the recursive
// cell RK: R^{k×D} -> R^D of a balanced k-ary tree (BKT-GRC; the RIR paper,
// §2 "Balanced Tree RvNNs"). One forget gate per child:
//   u = GELU(W1·[x_1; ...; x_k] + b1)  W1: kD -> cell, dropout(u) in training
//   c = W2·u + b2                      W2: cell -> (k+2)D, split into
//                                      g_1..g_k, g_i, p
//   h = LN(Σ_j σ(g_j)⊙x_j + σ(g_i)⊙p)
// With k = 2 it is @grc_cell (x_1 = l, x_2 = r; c0..c3 = g_1, g_2, g_i, p).
// The cell knows no mask: a caller zeroes padding children first.
// children: [M, k, D] -> h: [M, D].
func.func @grc_kary_cell(%children: tensor<?x?x?xf32>,
                         %w1: tensor<?x?xf32>, %b1: tensor<?xf32>,
                         %w2: tensor<?x?xf32>, %b2: tensor<?xf32>,
                         %gamma: tensor<?xf32>, %beta: tensor<?xf32>)
    -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = tensor.dim %children, %c0 : tensor<?x?x?xf32>
  %k = tensor.dim %children, %c1 : tensor<?x?x?xf32>
  %d = tensor.dim %children, %c2 : tensor<?x?x?xf32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  // [x_1; ...; x_k], each row the chunk's children one after another.
  %flat = tensor.collapse_shape %children [[0], [1, 2]]
      : tensor<?x?x?xf32> into tensor<?x?xf32>
  %pre = rvnn.linear %flat, %w1, %b1
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %act = rvnn.gelu %pre : tensor<?x?xf32>
  %u = rvnn.dropout %act {rate = 1.000000e-01 : f64} : tensor<?x?xf32>
  %c = rvnn.linear %u, %w2, %b2
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %kd = arith.muli %k, %d : index
  %kd1 = arith.addi %kd, %d : index
  %g = tensor.extract_slice %c[0, 0] [%m, %kd] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %gi = tensor.extract_slice %c[0, %kd] [%m, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %p = tensor.extract_slice %c[0, %kd1] [%m, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  // One forget gate per child: g_j is columns [jD, (j+1)D) of c.
  %f_flat = rvnn.sigmoid %g : tensor<?x?xf32>
  %f = tensor.expand_shape %f_flat [[0], [1, 2]] output_shape [%m, %k, %d]
      : tensor<?x?xf32> into tensor<?x?x?xf32>
  %kept = arith.mulf %f, %children : tensor<?x?x?xf32>
  // Σ_j over the children: [M, 1, k] ones times [M, k, D].
  %ones_shape = tensor.empty(%m, %k) : tensor<?x1x?xf32>
  %ones = rvnn.broadcast_like %one, %ones_shape
      : (tensor<f32>, tensor<?x1x?xf32>) -> tensor<?x1x?xf32>
  %sum_shape = tensor.empty(%m, %d) : tensor<?x1x?xf32>
  %zeros = rvnn.broadcast_like %zero, %sum_shape
      : (tensor<f32>, tensor<?x1x?xf32>) -> tensor<?x1x?xf32>
  %kept_sum3 = linalg.batch_matmul
      ins(%ones, %kept : tensor<?x1x?xf32>, tensor<?x?x?xf32>)
      outs(%zeros : tensor<?x1x?xf32>) -> tensor<?x1x?xf32>
  %kept_sum = tensor.collapse_shape %kept_sum3 [[0], [1, 2]]
      : tensor<?x1x?xf32> into tensor<?x?xf32>
  %i = rvnn.sigmoid %gi : tensor<?x?xf32>
  %input = arith.mulf %i, %p : tensor<?x?xf32>
  %sum = arith.addf %kept_sum, %input : tensor<?x?xf32>
  %h = rvnn.layer_norm %sum, %gamma, %beta
      : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %h : tensor<?x?xf32>
}

// Ordered-neurons update (ON-LSTM, Shen et al. 2019; FastTrees, model-specs
// §6), shared by ON-LSTM and the FastTrees family, which differ only in what
// their master-gate and gate logits read:
//   f̃ = cumax(master[:, :n]),  ĩ = 1 - cumax(master[:, n:2n])      [M, n]
//   each master gate is repeated over its chunk of chunk = H / n neurons
//   (o, ĉ, i, f) = gates[:, 0:H], [H:2H], [2H:3H], [3H:4H]
//   ω = f̃⊙ĩ,  f' = σ(f)⊙ω + (f̃ - ω),  i' = σ(i)⊙ω + (ĩ - ω)
//   c' = f'⊙c + i'⊙tanh(ĉ),  h' = σ(o)⊙tanh(c')
// master: [M, 2n], gates: [M, 4H], c: [M, H] -> (h', c'), each [M, H].
func.func @ordered_neurons_cell(%master: tensor<?x?xf32>,
                                %gates: tensor<?x?xf32>, %c: tensor<?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  // Sizes from the master gates, not the state, so that a loop whose master
  // gates read no state sees that whole computation as state-independent.
  %m = tensor.dim %master, %c0 : tensor<?x?xf32>
  %hidden = tensor.dim %c, %c1 : tensor<?x?xf32>
  %n2 = tensor.dim %master, %c1 : tensor<?x?xf32>
  %n = arith.divsi %n2, %c2 : index
  %chunk = arith.divsi %hidden, %n : index
  %one = arith.constant dense<1.0> : tensor<f32>

  // Master gates, monotone over the n chunks, each repeated over its chunk.
  %fm_logits = tensor.extract_slice %master[0, 0] [%m, %n] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %im_logits = tensor.extract_slice %master[0, %n] [%m, %n] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %fm_n = rvnn.cumax %fm_logits {dim = 1 : i64}
      : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %im_cum = rvnn.cumax %im_logits {dim = 1 : i64}
      : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %ones_n = rvnn.broadcast_like %one, %im_cum
      : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %im_n = arith.subf %ones_n, %im_cum : tensor<?x?xf32>
  %chunks = tensor.empty(%m, %n, %chunk) : tensor<?x?x?xf32>
  %fm_3 = tensor.expand_shape %fm_n [[0], [1, 2]] output_shape [%m, %n, 1]
      : tensor<?x?xf32> into tensor<?x?x1xf32>
  %im_3 = tensor.expand_shape %im_n [[0], [1, 2]] output_shape [%m, %n, 1]
      : tensor<?x?xf32> into tensor<?x?x1xf32>
  %fm_b = rvnn.broadcast_like %fm_3, %chunks
      : (tensor<?x?x1xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %im_b = rvnn.broadcast_like %im_3, %chunks
      : (tensor<?x?x1xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %fm = tensor.collapse_shape %fm_b [[0], [1, 2]]
      : tensor<?x?x?xf32> into tensor<?x?xf32>
  %im = tensor.collapse_shape %im_b [[0], [1, 2]]
      : tensor<?x?x?xf32> into tensor<?x?xf32>

  // The four per-neuron gates.
  %o1 = arith.muli %hidden, %c1 : index
  %o2 = arith.muli %hidden, %c2 : index
  %o3 = arith.muli %hidden, %c3 : index
  %o_logits = tensor.extract_slice %gates[0, 0] [%m, %hidden] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %cell_in = tensor.extract_slice %gates[0, %o1] [%m, %hidden] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %i_logits = tensor.extract_slice %gates[0, %o2] [%m, %hidden] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %f_logits = tensor.extract_slice %gates[0, %o3] [%m, %hidden] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %o = rvnn.sigmoid %o_logits : tensor<?x?xf32>
  %i = rvnn.sigmoid %i_logits : tensor<?x?xf32>
  %f = rvnn.sigmoid %f_logits : tensor<?x?xf32>
  %cand = math.tanh %cell_in : tensor<?x?xf32>

  // Structured gating and the cell update.
  %omega = arith.mulf %fm, %im : tensor<?x?xf32>
  %f_om = arith.mulf %f, %omega : tensor<?x?xf32>
  %fm_rest = arith.subf %fm, %omega : tensor<?x?xf32>
  %f_hat = arith.addf %f_om, %fm_rest : tensor<?x?xf32>
  %i_om = arith.mulf %i, %omega : tensor<?x?xf32>
  %im_rest = arith.subf %im, %omega : tensor<?x?xf32>
  %i_hat = arith.addf %i_om, %im_rest : tensor<?x?xf32>
  %kept = arith.mulf %f_hat, %c : tensor<?x?xf32>
  %written = arith.mulf %i_hat, %cand : tensor<?x?xf32>
  %c_new = arith.addf %kept, %written : tensor<?x?xf32>
  %c_act = math.tanh %c_new : tensor<?x?xf32>
  %h_new = arith.mulf %o, %c_act : tensor<?x?xf32>
  return %h_new, %c_new : tensor<?x?xf32>, tensor<?x?xf32>
}

// ---- Self-IRU (Zhang et al., NeurIPS 2021; model-specs §6) ----------------

// One self-instantiated recurrent unit at recursion depth `depth`, written as
// the recursion it is: the forget and output gates of an instance at depth
// l > 0 are driven by two child instances at depth l - 1, which read the same
// x_t, h_{t-1} and c_{t-1}; the base case (l = 0) has plain gates:
//   l = 0:  f = σ(F_f),  o = σ(F_o)
//   l > 0:  f = σ(α⊙SelfIRU^(l-1)_F + (1-α)⊙F_f)      (rvnn.soft_depth_mix)
//           o = σ(β⊙SelfIRU^(l-1)_R + (1-β)⊙F_o)
//   z = ReLU(F_z),  c = f⊙c_{t-1} + (1-f)⊙z,  h = o⊙c + x_t
// and returns (h, c); SelfIRU^(l-1)_F and _R are the h of the forget and the
// output child. F_f, F_o, F_z are the base transforms of depth l (the paper's
// per-depth F^(l)); α, β the soft depth gates of this recursion node.
// Recursion nodes are numbered in heap order: the root is 0, node n's
// forget child 2n+1 and output child 2n+2.
// Operands: base [M, 3D(L+1)] (depth l's F_f, F_o, F_z at columns 3Dl,
// 3Dl + D, 3Dl + 2D), gates [M, 2(2^L - 1)] (node n's α at column 2n, β at
// 2n+1, already through σ), x and c [M, D]. z uses ReLU as the authors' code
// does (the paper writes tanh). The depth must be a compile-time constant at
// the outer call: rvnn-expand-recursion specialises the function per depth
// and the inliner flattens the resulting call tree, so the model never
// unrolls the recursion by hand.
func.func @self_iru_cell(%depth: index {rvnn.recursion_depth}, %node: index,
                         %base: tensor<?x?xf32>, %gates: tensor<?x?xf32>,
                         %x: tensor<?x?xf32>, %c: tensor<?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d = tensor.dim %x, %c1 : tensor<?x?xf32>
  // This depth's base transforms.
  %d3 = arith.muli %d, %c3 : index
  %at_f = arith.muli %depth, %d3 : index
  %at_o = arith.addi %at_f, %d : index
  %at_z = arith.addi %at_o, %d : index
  %f_base = tensor.extract_slice %base[0, %at_f] [%m, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %o_base = tensor.extract_slice %base[0, %at_o] [%m, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %z_base = tensor.extract_slice %base[0, %at_z] [%m, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %is_base = arith.cmpi eq, %depth, %c0 : index
  %f, %o = scf.if %is_base -> (tensor<?x?xf32>, tensor<?x?xf32>) {
    %f0 = rvnn.sigmoid %f_base : tensor<?x?xf32>
    %o0 = rvnn.sigmoid %o_base : tensor<?x?xf32>
    scf.yield %f0, %o0 : tensor<?x?xf32>, tensor<?x?xf32>
  } else {
    // The two child instances, one level down.
    %child = arith.subi %depth, %c1 : index
    %node2 = arith.muli %node, %c2 : index
    %forget_node = arith.addi %node2, %c1 : index
    %output_node = arith.addi %node2, %c2 : index
    %forget:2 = func.call @self_iru_cell(%child, %forget_node, %base, %gates,
                                         %x, %c)
        : (index, index, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
           tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
    %output:2 = func.call @self_iru_cell(%child, %output_node, %base, %gates,
                                         %x, %c)
        : (index, index, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
           tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
    // This node's soft depth gates.
    %beta_at = arith.addi %node2, %c1 : index
    %alpha = tensor.extract_slice %gates[0, %node2] [%m, 1] [1, 1]
        : tensor<?x?xf32> to tensor<?x1xf32>
    %beta = tensor.extract_slice %gates[0, %beta_at] [%m, 1] [1, 1]
        : tensor<?x?xf32> to tensor<?x1xf32>
    %f1 = rvnn.soft_depth_mix %alpha, %forget#0, %f_base
        : (tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %o1 = rvnn.soft_depth_mix %beta, %output#0, %o_base
        : (tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    scf.yield %f1, %o1 : tensor<?x?xf32>, tensor<?x?xf32>
  }
  %z = rvnn.relu %z_base : tensor<?x?xf32>
  // c = f⊙c_{t-1} + (1-f)⊙z (QRNN's forget-mult form), h = o⊙c + x.
  %c_new = rvnn.gate %f, %c, %z
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %oc = arith.mulf %o, %c_new : tensor<?x?xf32>
  %h_new = arith.addf %oc, %x : tensor<?x?xf32>
  return %h_new, %c_new : tensor<?x?xf32>, tensor<?x?xf32>
}

// The LSTM base transforms of one Self-IRU step (the paper's §2.3, "RNN
// units, e.g. LSTM"), shared by models/self_iru.mlir and
// models/self_iru_listops.mlir: each of the K = 3(L+1) transforms F_⋆^(l)
// is its own LSTM cell step read out at its hidden output, with the
// Self-IRU's state (h_{t-1}, c_{t-1}) as the LSTM state:
//   (i, f', g, o') = W_ih·x_t + b_ih + W_hh·h_{t-1} + b_hh
//   F = σ(o')⊙tanh(σ(f')⊙c_{t-1} + σ(i)⊙tanh(g))
// x, h, c [M, D]; ih_w, hh_w [4·K·D, D] with gate-major rows, row
// (q·K + k)·D + j for LSTM gate q ∈ (i, f, g, o), cell k and unit j, so that
// each LSTM gate of all cells is one contiguous [M, K·D] block and cell k's
// output lands at columns [kD, (k+1)D) of the result [M, K·D], the layout
// @self_iru_cell reads. Sizes come from x and the weights, not the state, so
// that rvnn-hoist-step-invariant sees the input half as state-free.
func.func @self_iru_lstm_base(%x: tensor<?x?xf32>, %h: tensor<?x?xf32>,
                              %c: tensor<?x?xf32>, %ih_w: tensor<?x?xf32>,
                              %ih_b: tensor<?xf32>, %hh_w: tensor<?x?xf32>,
                              %hh_b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d = tensor.dim %x, %c1 : tensor<?x?xf32>
  %rows = tensor.dim %ih_w, %c0 : tensor<?x?xf32>
  %kd = arith.divui %rows, %c4 : index
  %k = arith.divui %kd, %d : index
  %g_x = rvnn.linear %x, %ih_w, %ih_b
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %g_h = rvnn.linear %h, %hh_w, %hh_b
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %g = arith.addf %g_x, %g_h : tensor<?x?xf32>
  %at_g = arith.muli %kd, %c2 : index
  %at_o = arith.muli %kd, %c3 : index
  %i_in = tensor.extract_slice %g[0, 0] [%m, %kd] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %f_in = tensor.extract_slice %g[0, %kd] [%m, %kd] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %g_in = tensor.extract_slice %g[0, %at_g] [%m, %kd] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %o_in = tensor.extract_slice %g[0, %at_o] [%m, %kd] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %i_l = rvnn.sigmoid %i_in : tensor<?x?xf32>
  %f_l = rvnn.sigmoid %f_in : tensor<?x?xf32>
  %g_l = math.tanh %g_in : tensor<?x?xf32>
  %o_l = rvnn.sigmoid %o_in : tensor<?x?xf32>
  // c_{t-1} for each of the K cells; tensor.empty only gives a shape to
  // broadcast to.
  %c_3 = tensor.expand_shape %c [[0], [1, 2]] output_shape [%m, 1, %d]
      : tensor<?x?xf32> into tensor<?x1x?xf32>
  %cells_shape = tensor.empty(%m, %k, %d) : tensor<?x?x?xf32>
  %c_b = rvnn.broadcast_like %c_3, %cells_shape
      : (tensor<?x1x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %c_k = tensor.collapse_shape %c_b [[0], [1, 2]]
      : tensor<?x?x?xf32> into tensor<?x?xf32>
  %kept = arith.mulf %f_l, %c_k : tensor<?x?xf32>
  %written = arith.mulf %i_l, %g_l : tensor<?x?xf32>
  %lstm_c = arith.addf %kept, %written : tensor<?x?xf32>
  %lstm_c_act = math.tanh %lstm_c : tensor<?x?xf32>
  %base = arith.mulf %o_l, %lstm_c_act : tensor<?x?xf32>
  return %base : tensor<?x?xf32>
}

// ---- ON-LSTM family time steps (model-specs §6) ---------------------------
// One step t of the ordered-neurons recurrences over the inputs x [M, S, E]
// (mask [M, S], 1 = real token) from the state (h, c), each [M, H]. The
// variants differ only in what the master-gate logits (2n) and the gate
// logits (4H) read; each step slices x_t and m_t, computes both, runs
// @ordered_neurons_cell and keeps the state at padded steps:
//   h_t = m_t⊙h'_t + (1 - m_t)⊙h_{t-1}, likewise c_t,
// so after the last step h is the state at each row's last real token.
// The models write the recurrence (rvnn.recurse over t) and call one of these
// in its body; rvnn-hoist-step-invariant then batches over all steps
// whatever a variant computes from x alone. Row counts come from the
// inputs, not the state, so that state-free parts are seen as such (a width
// read from the state folds to a constant: the models' states are static).

// The masked update shared by the steps below: (h', c') from the cell, then
// the state kept where m_t = 0.
func.func @ordered_neurons_masked_update(%master: tensor<?x?xf32>,
                                         %gates: tensor<?x?xf32>,
                                         %m_t: tensor<?x1xf32>,
                                         %h: tensor<?x?xf32>,
                                         %c: tensor<?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %next:2 = func.call @ordered_neurons_cell(%master, %gates, %c)
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
      -> (tensor<?x?xf32>, tensor<?x?xf32>)
  %h_kept = rvnn.gate %m_t, %next#0, %h
      : (tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %c_kept = rvnn.gate %m_t, %next#1, %c
      : (tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %h_kept, %c_kept : tensor<?x?xf32>, tensor<?x?xf32>
}

// The step-t slices x_t [M, E] and m_t [M, 1].
func.func @step_inputs(%x: tensor<?x?x?xf32>, %mask: tensor<?x?xf32>,
                       %t: index) -> (tensor<?x?xf32>, tensor<?x1xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %m = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %e = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %x_t = tensor.extract_slice %x[0, %t, 0] [%m, 1, %e] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?xf32>
  %m_t = tensor.extract_slice %mask[0, %t] [%m, 1] [1, 1]
      : tensor<?x?xf32> to tensor<?x1xf32>
  return %x_t, %m_t : tensor<?x?xf32>, tensor<?x1xf32>
}

// ON-LSTM (Shen et al. 2019): every logit reads x_t and h_{t-1}:
//   G_t = W_ih·x_t + b_ih + W_hh·h_{t-1} + b_hh                   [M, 2n + 4H]
//   master = G_t[:, :2n], gates = G_t[:, 2n:].
// ih_w [2n + 4H, E], hh_w [2n + 4H, H].
func.func @on_lstm_step(%x: tensor<?x?x?xf32>, %mask: tensor<?x?xf32>,
                        %t: index, %h: tensor<?x?xf32>, %c: tensor<?x?xf32>,
                        %ih_w: tensor<?x?xf32>, %ih_b: tensor<?xf32>,
                        %hh_w: tensor<?x?xf32>, %hh_b: tensor<?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %rows = tensor.dim %ih_w, %c0 : tensor<?x?xf32>
  %hidden = tensor.dim %hh_w, %c1 : tensor<?x?xf32>
  %h4 = arith.muli %hidden, %c4 : index
  %n2 = arith.subi %rows, %h4 : index
  %in:2 = func.call @step_inputs(%x, %mask, %t)
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, index)
      -> (tensor<?x?xf32>, tensor<?x1xf32>)
  %g_x = rvnn.linear %in#0, %ih_w, %ih_b
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %g_h = rvnn.linear %h, %hh_w, %hh_b
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %g = arith.addf %g_x, %g_h : tensor<?x?xf32>
  %master = tensor.extract_slice %g[0, 0] [%m, %n2] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %gates = tensor.extract_slice %g[0, %n2] [%m, %h4] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %next:2 = func.call @ordered_neurons_masked_update(%master, %gates, %in#1,
                                                     %h, %c)
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>,
         tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
  return %next#0, %next#1 : tensor<?x?xf32>, tensor<?x?xf32>
}

// FastTrees (Pung and Chan): the master gates read x_t only, so tree
// induction needs no recurrence:
//   G_t = W_ih·x_t + b_ih                                         [M, 2n + 4H]
//   master = G_t[:, :2n], gates = G_t[:, 2n:] + W_hh·h_{t-1} + b_hh.
// ih_w [2n + 4H, E], hh_w [4H, H].
func.func @fasttrees_step(%x: tensor<?x?x?xf32>, %mask: tensor<?x?xf32>,
                          %t: index, %h: tensor<?x?xf32>, %c: tensor<?x?xf32>,
                          %ih_w: tensor<?x?xf32>, %ih_b: tensor<?xf32>,
                          %hh_w: tensor<?x?xf32>, %hh_b: tensor<?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %rows = tensor.dim %ih_w, %c0 : tensor<?x?xf32>
  %h4 = tensor.dim %hh_w, %c0 : tensor<?x?xf32>
  %n2 = arith.subi %rows, %h4 : index
  %in:2 = func.call @step_inputs(%x, %mask, %t)
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, index)
      -> (tensor<?x?xf32>, tensor<?x1xf32>)
  %g_x = rvnn.linear %in#0, %ih_w, %ih_b
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %master = tensor.extract_slice %g_x[0, 0] [%m, %n2] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %gates_x = tensor.extract_slice %g_x[0, %n2] [%m, %h4] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %g_h = rvnn.linear %h, %hh_w, %hh_b
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %gates = arith.addf %gates_x, %g_h : tensor<?x?xf32>
  %next:2 = func.call @ordered_neurons_masked_update(%master, %gates, %in#1,
                                                     %h, %c)
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>,
         tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
  return %next#0, %next#1 : tensor<?x?xf32>, tensor<?x?xf32>
}

// Faster FastTrees (Pung and Chan §3.2): no hidden-to-hidden term at all, a
// quasi-recurrent ON-LSTM; only the cell update is recurrent:
//   G_t = W_ih·x_t + b_ih,  master = G_t[:, :2n], gates = G_t[:, 2n:].
// ih_w [2n + 4H, E]; H is the state's width.
func.func @faster_fasttrees_step(%x: tensor<?x?x?xf32>,
                                 %mask: tensor<?x?xf32>, %t: index,
                                 %h: tensor<?x?xf32>, %c: tensor<?x?xf32>,
                                 %ih_w: tensor<?x?xf32>, %ih_b: tensor<?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %rows = tensor.dim %ih_w, %c0 : tensor<?x?xf32>
  %hidden = tensor.dim %c, %c1 : tensor<?x?xf32>
  %h4 = arith.muli %hidden, %c4 : index
  %n2 = arith.subi %rows, %h4 : index
  %in:2 = func.call @step_inputs(%x, %mask, %t)
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, index)
      -> (tensor<?x?xf32>, tensor<?x1xf32>)
  %g_x = rvnn.linear %in#0, %ih_w, %ih_b
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %master = tensor.extract_slice %g_x[0, 0] [%m, %n2] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %gates = tensor.extract_slice %g_x[0, %n2] [%m, %h4] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %next:2 = func.call @ordered_neurons_masked_update(%master, %gates, %in#1,
                                                     %h, %c)
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>,
         tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
  return %next#0, %next#1 : tensor<?x?xf32>, tensor<?x?xf32>
}

// Conv FastTrees (Pung and Chan §3.1): the master gates M [M, S, 2n] come
// from @causal_conv_master before the loop (step t reads M_t); the gates as
// an LSTM's:  G_t = W_ih·x_t + b_ih + W_hh·h_{t-1} + b_hh          [M, 4H].
// ih_w [4H, E], hh_w [4H, H].
func.func @conv_fasttrees_step(%x: tensor<?x?x?xf32>,
                               %master_seq: tensor<?x?x?xf32>,
                               %mask: tensor<?x?xf32>, %t: index,
                               %h: tensor<?x?xf32>, %c: tensor<?x?xf32>,
                               %ih_w: tensor<?x?xf32>, %ih_b: tensor<?xf32>,
                               %hh_w: tensor<?x?xf32>, %hh_b: tensor<?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %m = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %n2 = tensor.dim %master_seq, %c2 : tensor<?x?x?xf32>
  %in:2 = func.call @step_inputs(%x, %mask, %t)
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, index)
      -> (tensor<?x?xf32>, tensor<?x1xf32>)
  %g_x = rvnn.linear %in#0, %ih_w, %ih_b
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %master = tensor.extract_slice %master_seq[0, %t, 0] [%m, 1, %n2] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?xf32>
  %g_h = rvnn.linear %h, %hh_w, %hh_b
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %gates = arith.addf %g_x, %g_h : tensor<?x?xf32>
  %next:2 = func.call @ordered_neurons_masked_update(%master, %gates, %in#1,
                                                     %h, %c)
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>,
         tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
  return %next#0, %next#1 : tensor<?x?xf32>, tensor<?x?xf32>
}

// Conv FastTrees' master gates for all steps (Pung and Chan §3.1): a causal
// convolution over the sequence, then a position-wise layer:
//   C = CausalConv(x)   (kernel K = 3: C_t reads x_{t-2}..x_t, zeros before
//                        the sequence)                          [M, S, C]
//   M = W_m·C + b_m                                             [M, S, 2n]
// The convolution is one linear over the K shifted copies of the sequence
// side by side: conv_w [C, K·E], conv_w[c, j·E + e] the weight of
// x_{t-K+1+j}[e]. master_w [2n, C].
func.func @causal_conv_master(%x: tensor<?x?x?xf32>, %conv_w: tensor<?x?xf32>,
                              %conv_b: tensor<?xf32>,
                              %master_w: tensor<?x?xf32>,
                              %master_b: tensor<?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %e = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  // K - 1 = 2 zero steps in front, then the K shifted copies.
  %pad_shape = tensor.empty(%m, %e) : tensor<?x2x?xf32>
  %pad = rvnn.broadcast_like %zero, %pad_shape
      : (tensor<f32>, tensor<?x2x?xf32>) -> tensor<?x2x?xf32>
  %x_padded = tensor.concat dim(1) %pad, %x
      : (tensor<?x2x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %shift0 = tensor.extract_slice %x_padded[0, 0, 0] [%m, %s, %e] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?x?xf32>
  %shift1 = tensor.extract_slice %x_padded[0, 1, 0] [%m, %s, %e] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?x?xf32>
  %shift2 = tensor.extract_slice %x_padded[0, 2, 0] [%m, %s, %e] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?x?xf32>
  %windows = tensor.concat dim(2) %shift0, %shift1, %shift2
      : (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      -> tensor<?x?x?xf32>
  %conv = rvnn.linear %windows, %conv_w, %conv_b
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>)
      -> tensor<?x?x?xf32>
  %master = rvnn.linear %conv, %master_w, %master_b
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>)
      -> tensor<?x?x?xf32>
  return %master : tensor<?x?x?xf32>
}

// ---- Transformer sublayers ----------------------------------------------
// The Transformer baselines (transformer, universal_transformer,
// fasttrees_transformer) compose these; each model declares the ones it
// calls. x: [N, S, D] throughout. The weights come stacked per layer,
// [L, ...], and each sublayer reads layer `layer`'s slice, so that L layers
// are one rvnn.recurse over the layer index (L = 1 for a shared layer).

// Multi-head self-attention (Vaswani et al., "Attention Is All You Need"):
//   (q, k, v) = x·W_qkvᵀ split in three, each split into `heads` heads of
//   Dh = D / heads;  o = rvnn.masked_attention(q, k, v, mask)
//   (softmax(q·kᵀ/sqrt(Dh)) over real keys);  out = merge(o)·W_oᵀ.
// Bias-free projections; W_qkv is [L, 3D, D] (per layer PyTorch's in_proj
// layout: the q, k, v rows in that order), W_o [L, D, D]. mask: [N, S]
// (1 = real token).
func.func @self_attention(%x: tensor<?x?x?xf32>, %mask: tensor<?x?xf32>,
                          %heads: index, %layer: index,
                          %w_qkv_stack: tensor<?x?x?xf32>,
                          %w_o_stack: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %d = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %d3 = arith.muli %d, %c3 : index
  %dh = arith.divsi %d, %heads : index
  %w_qkv = tensor.extract_slice %w_qkv_stack[%layer, 0, 0] [1, %d3, %d]
      [1, 1, 1] : tensor<?x?x?xf32> to tensor<?x?xf32>
  %w_o = tensor.extract_slice %w_o_stack[%layer, 0, 0] [1, %d, %d] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?xf32>
  %qkv = rvnn.linear %x, %w_qkv
      : (tensor<?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  // [N, S, 3D] -> [N, S, 3, H, Dh] -> [3, N, H, S, Dh].
  %qkv5 = tensor.expand_shape %qkv [[0], [1], [2, 3, 4]]
      output_shape [%n, %s, 3, %heads, %dh]
      : tensor<?x?x?xf32> into tensor<?x?x3x?x?xf32>
  %split_init = tensor.empty(%n, %heads, %s, %dh) : tensor<3x?x?x?x?xf32>
  %split = linalg.transpose ins(%qkv5 : tensor<?x?x3x?x?xf32>)
      outs(%split_init : tensor<3x?x?x?x?xf32>) permutation = [2, 0, 3, 1, 4]
  %q = tensor.extract_slice %split[0, 0, 0, 0, 0] [1, %n, %heads, %s, %dh]
      [1, 1, 1, 1, 1] : tensor<3x?x?x?x?xf32> to tensor<?x?x?x?xf32>
  %k = tensor.extract_slice %split[1, 0, 0, 0, 0] [1, %n, %heads, %s, %dh]
      [1, 1, 1, 1, 1] : tensor<3x?x?x?x?xf32> to tensor<?x?x?x?xf32>
  %v = tensor.extract_slice %split[2, 0, 0, 0, 0] [1, %n, %heads, %s, %dh]
      [1, 1, 1, 1, 1] : tensor<3x?x?x?x?xf32> to tensor<?x?x?x?xf32>
  %o = rvnn.masked_attention %q, %k, %v, %mask
      : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>,
         tensor<?x?xf32>) -> tensor<?x?x?x?xf32>
  // [N, H, S, Dh] -> [N, S, H, Dh] -> [N, S, D].
  %merge_init = tensor.empty(%n, %s, %heads, %dh) : tensor<?x?x?x?xf32>
  %merged4 = linalg.transpose ins(%o : tensor<?x?x?x?xf32>)
      outs(%merge_init : tensor<?x?x?x?xf32>) permutation = [0, 2, 1, 3]
  %merged = tensor.collapse_shape %merged4 [[0], [1], [2, 3]]
      : tensor<?x?x?x?xf32> into tensor<?x?x?xf32>
  %out = rvnn.linear %merged, %w_o
      : (tensor<?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  return %out : tensor<?x?x?xf32>
}

// The FastTrees Transformer module (Pung and Chan §3.3; model-specs §6), a
// tree-structured forget gate over the D features of each position:
//   A = cumax(Fa(x)),  B = 1 - cumax(Fb(x)),
//   F = σ(Fh(x))⊙(A⊙B) + (A - A⊙B),  out = F⊙x
// with Fa, Fb, Fh position-wise linears D -> D, computed as one linear:
// w [L, 3D, D], b [L, 3D] hold each layer's Fa, Fb, Fh rows in that order.
func.func @fasttrees_module(%x: tensor<?x?x?xf32>, %layer: index,
                            %w_stack: tensor<?x?x?xf32>,
                            %b_stack: tensor<?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %d = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %d2 = arith.muli %d, %c2 : index
  %d3 = arith.muli %d, %c3 : index
  %one = arith.constant dense<1.0> : tensor<f32>
  %w = tensor.extract_slice %w_stack[%layer, 0, 0] [1, %d3, %d] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?xf32>
  %b = tensor.extract_slice %b_stack[%layer, 0] [1, %d3] [1, 1]
      : tensor<?x?xf32> to tensor<?xf32>
  %logits = rvnn.linear %x, %w, %b
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>)
      -> tensor<?x?x?xf32>
  %fa = tensor.extract_slice %logits[0, 0, 0] [%n, %s, %d] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?x?xf32>
  %fb = tensor.extract_slice %logits[0, 0, %d] [%n, %s, %d] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?x?xf32>
  %fh = tensor.extract_slice %logits[0, 0, %d2] [%n, %s, %d] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?x?xf32>
  %a = rvnn.cumax %fa {dim = 2 : i64}
      : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %b_cum = rvnn.cumax %fb {dim = 2 : i64}
      : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %ones = rvnn.broadcast_like %one, %b_cum
      : (tensor<f32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %b_gate = arith.subf %ones, %b_cum : tensor<?x?x?xf32>
  %h = rvnn.sigmoid %fh : tensor<?x?x?xf32>
  %overlap = arith.mulf %a, %b_gate : tensor<?x?x?xf32>
  %inside = arith.mulf %h, %overlap : tensor<?x?x?xf32>
  %outside = arith.subf %a, %overlap : tensor<?x?x?xf32>
  %forget = arith.addf %inside, %outside : tensor<?x?x?xf32>
  %out = arith.mulf %forget, %x : tensor<?x?x?xf32>
  return %out : tensor<?x?x?xf32>
}

// The rest of a post-norm Transformer layer (Vaswani et al.) once its
// attention sublayer has given `att`:
//   x' = LN1(x + dropout(att)),
//   out = LN2(x' + dropout(W2·ReLU(W1·x' + b1) + b2))
// Per layer: w1 [F, D], w2 [D, F], layer norms and biases [D] or [F], all
// stacked [L, ...]; residual dropout 0.1 (§8's cell dropout).
func.func @add_norm_feed_forward(%x: tensor<?x?x?xf32>, %att: tensor<?x?x?xf32>,
                                 %layer: index,
                                 %ln1_g_stack: tensor<?x?xf32>,
                                 %ln1_b_stack: tensor<?x?xf32>,
                                 %w1_stack: tensor<?x?x?xf32>,
                                 %b1_stack: tensor<?x?xf32>,
                                 %w2_stack: tensor<?x?x?xf32>,
                                 %b2_stack: tensor<?x?xf32>,
                                 %ln2_g_stack: tensor<?x?xf32>,
                                 %ln2_b_stack: tensor<?x?xf32>)
    -> tensor<?x?x?xf32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %f = tensor.dim %w1_stack, %c1 : tensor<?x?x?xf32>
  %ln1_g = tensor.extract_slice %ln1_g_stack[%layer, 0] [1, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?xf32>
  %ln1_b = tensor.extract_slice %ln1_b_stack[%layer, 0] [1, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?xf32>
  %w1 = tensor.extract_slice %w1_stack[%layer, 0, 0] [1, %f, %d] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?xf32>
  %b1 = tensor.extract_slice %b1_stack[%layer, 0] [1, %f] [1, 1]
      : tensor<?x?xf32> to tensor<?xf32>
  %w2 = tensor.extract_slice %w2_stack[%layer, 0, 0] [1, %d, %f] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?xf32>
  %b2 = tensor.extract_slice %b2_stack[%layer, 0] [1, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?xf32>
  %ln2_g = tensor.extract_slice %ln2_g_stack[%layer, 0] [1, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?xf32>
  %ln2_b = tensor.extract_slice %ln2_b_stack[%layer, 0] [1, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?xf32>
  %att_d = rvnn.dropout %att {rate = 1.000000e-01 : f64} : tensor<?x?x?xf32>
  %res1 = arith.addf %x, %att_d : tensor<?x?x?xf32>
  %mid = rvnn.layer_norm %res1, %ln1_g, %ln1_b
      : (tensor<?x?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?x?xf32>
  %pre = rvnn.linear %mid, %w1, %b1
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>)
      -> tensor<?x?x?xf32>
  %act = rvnn.relu %pre : tensor<?x?x?xf32>
  %ff = rvnn.linear %act, %w2, %b2
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>)
      -> tensor<?x?x?xf32>
  %ff_d = rvnn.dropout %ff {rate = 1.000000e-01 : f64} : tensor<?x?x?xf32>
  %res2 = arith.addf %mid, %ff_d : tensor<?x?x?xf32>
  %out = rvnn.layer_norm %res2, %ln2_g, %ln2_b
      : (tensor<?x?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?x?xf32>
  return %out : tensor<?x?x?xf32>
}

// ---- Sentence-pair models (logical inference, model-specs §7) -------------

// The Siamese batch: both sentences right-padded (id 0, mask 0) to
// S = max(S1, S2) and stacked along the batch, first sentences in rows
// [0, N): tokens [2N, S] and mask [2N, S].
func.func @siamese_batch(%tokens1: tensor<?x?xi64>, %mask1: tensor<?x?xf32>,
                         %tokens2: tensor<?x?xi64>, %mask2: tensor<?x?xf32>)
    -> (tensor<?x?xi64>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %tokens1, %c0 : tensor<?x?xi64>
  %s1 = tensor.dim %tokens1, %c1 : tensor<?x?xi64>
  %s2 = tensor.dim %tokens2, %c1 : tensor<?x?xi64>
  %s = arith.maxsi %s1, %s2 : index
  %pad1 = arith.subi %s, %s1 : index
  %pad2 = arith.subi %s, %s2 : index
  %zero_id = arith.constant dense<0> : tensor<i64>
  %zero = arith.constant dense<0.0> : tensor<f32>
  // tensor.empty only gives a shape to broadcast to.
  %shape1 = tensor.empty(%n, %pad1) : tensor<?x?xf32>
  %shape2 = tensor.empty(%n, %pad2) : tensor<?x?xf32>
  %pad_tokens1 = rvnn.broadcast_like %zero_id, %shape1
      : (tensor<i64>, tensor<?x?xf32>) -> tensor<?x?xi64>
  %pad_mask1 = rvnn.broadcast_like %zero, %shape1
      : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %pad_tokens2 = rvnn.broadcast_like %zero_id, %shape2
      : (tensor<i64>, tensor<?x?xf32>) -> tensor<?x?xi64>
  %pad_mask2 = rvnn.broadcast_like %zero, %shape2
      : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %full_tokens1 = tensor.concat dim(1) %tokens1, %pad_tokens1
      : (tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  %full_mask1 = tensor.concat dim(1) %mask1, %pad_mask1
      : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %full_tokens2 = tensor.concat dim(1) %tokens2, %pad_tokens2
      : (tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  %full_mask2 = tensor.concat dim(1) %mask2, %pad_mask2
      : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %tokens = tensor.concat dim(0) %full_tokens1, %full_tokens2
      : (tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  %mask = tensor.concat dim(0) %full_mask1, %full_mask2
      : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %tokens, %mask : tensor<?x?xi64>, tensor<?x?xf32>
}

// The sentence-pair classifier over the encodings [2N, D] of a Siamese
// batch: a = rows [0, N), b = rows [N, 2N); [a; b; a⊙b; |a-b|] (4D) ->
// dropout -> Linear(4D, D) -> GELU -> dropout -> Linear(D, classes), with
// §8's output dropout 0.1. w1 [D, 4D], w2 [classes, D].
func.func @sentence_pair_head(%encodings: tensor<?x?xf32>,
                              %w1: tensor<?x?xf32>, %b1: tensor<?xf32>,
                              %w2: tensor<?x?xf32>, %b2: tensor<?xf32>)
    -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %rows = tensor.dim %encodings, %c0 : tensor<?x?xf32>
  %d = tensor.dim %encodings, %c1 : tensor<?x?xf32>
  %n = arith.divsi %rows, %c2 : index
  %a = tensor.extract_slice %encodings[0, 0] [%n, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %b = tensor.extract_slice %encodings[%n, 0] [%n, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %prod = arith.mulf %a, %b : tensor<?x?xf32>
  %diff = arith.subf %a, %b : tensor<?x?xf32>
  %absdiff = math.absf %diff : tensor<?x?xf32>
  %features = tensor.concat dim(1) %a, %b, %prod, %absdiff
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
      -> tensor<?x?xf32>
  %f0 = rvnn.dropout %features {rate = 1.000000e-01 : f64} : tensor<?x?xf32>
  %f1 = rvnn.linear %f0, %w1, %b1
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %f2 = rvnn.gelu %f1 : tensor<?x?xf32>
  %f3 = rvnn.dropout %f2 {rate = 1.000000e-01 : f64} : tensor<?x?xf32>
  %logits = rvnn.linear %f3, %w2, %b2
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %logits : tensor<?x?xf32>
}

// Ordered Memory's recursive cell (Shen et al., "Ordered Memory", NeurIPS
// 2019, §3.2 "Gated Recursive Cell"; the authors' code): GRC's form with ReLU
// in place of GELU and dropout on the cell's input as well as on its hidden
// layer:
//   u = ReLU(W1·drop([v; h]) + b1)     W1: 2D -> 4D
//   c = W2·drop(u) + b2                W2: 4D -> 4D, split into c0..c3
//   out = LN(σ(c0)⊙v + σ(c1)⊙h + σ(c2)⊙c3)
// v (the composed head so far), h (a memory slot): [M, D] -> [M, D].
func.func @om_cell(%v: tensor<?x?xf32>, %h: tensor<?x?xf32>,
                   %w1: tensor<?x?xf32>, %b1: tensor<?xf32>,
                   %w2: tensor<?x?xf32>, %b2: tensor<?xf32>,
                   %gamma: tensor<?xf32>, %beta: tensor<?xf32>)
    -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %m = tensor.dim %v, %c0 : tensor<?x?xf32>
  %d = tensor.dim %v, %c1 : tensor<?x?xf32>
  %vh = tensor.concat dim(1) %v, %h
      : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %vh_d = rvnn.dropout %vh {rate = 1.000000e-01 : f64} : tensor<?x?xf32>
  %pre = rvnn.linear %vh_d, %w1, %b1
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %act = rvnn.relu %pre : tensor<?x?xf32>
  %u = rvnn.dropout %act {rate = 1.000000e-01 : f64} : tensor<?x?xf32>
  %c = rvnn.linear %u, %w2, %b2
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %o1 = arith.muli %d, %c1 : index
  %o2 = arith.muli %d, %c2 : index
  %o3 = arith.muli %d, %c3 : index
  %g0 = tensor.extract_slice %c[0, 0] [%m, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %g1 = tensor.extract_slice %c[0, %o1] [%m, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %g2 = tensor.extract_slice %c[0, %o2] [%m, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %p = tensor.extract_slice %c[0, %o3] [%m, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %fv = rvnn.sigmoid %g0 : tensor<?x?xf32>
  %fh = rvnn.sigmoid %g1 : tensor<?x?xf32>
  %i = rvnn.sigmoid %g2 : tensor<?x?xf32>
  %left = arith.mulf %fv, %v : tensor<?x?xf32>
  %right = arith.mulf %fh, %h : tensor<?x?xf32>
  %input = arith.mulf %i, %p : tensor<?x?xf32>
  %sum0 = arith.addf %left, %right : tensor<?x?xf32>
  %sum = arith.addf %sum0, %input : tensor<?x?xf32>
  %out = rvnn.layer_norm %sum, %gamma, %beta
      : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %out : tensor<?x?xf32>
}

// Ordered Memory's token step and its parts, shared by
// models/ordered_memory.mlir (ListOps) and models/ordered_memory_logic.mlir
// (logical inference); the equations are in models/ordered_memory.mlir's
// header. The weights come as arguments: the attention's q_w, k_w [D, D],
// their biases and LayerNorms [D], score_w [1, D] and 1/sqrt(D) (a
// constant of the caller); the cell's w1 [4D, 2D], w2 [4D, 4D], their biases and the LayerNorm
// shared with the input transform. Dropout rates are attributes, so they
// are one for both models: the authors' ListOps script's 0.3 in the
// attention (before W_q, W_k and w_β) and, in @om_cell, 0.1.

// The attention over slots: x [N, D], memory output mo [N, n, D], the
// previous step's cumulative attention cp [N, n] -> p [N, n].
func.func @om_attention(%x: tensor<?x?xf32>, %mo: tensor<?x?x?xf32>,
                        %cp: tensor<?x?xf32>, %inv_sqrt_d: tensor<f32>,
                        %q_w: tensor<?x?xf32>, %q_b: tensor<?xf32>,
                        %q_gamma: tensor<?xf32>, %q_beta: tensor<?xf32>,
                        %k_w: tensor<?x?xf32>, %k_b: tensor<?xf32>,
                        %k_gamma: tensor<?xf32>, %k_beta: tensor<?xf32>,
                        %score_w: tensor<1x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %mo, %c0 : tensor<?x?x?xf32>
  %slots = tensor.dim %mo, %c1 : tensor<?x?x?xf32>
  %d = tensor.dim %x, %c1 : tensor<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %floor = arith.constant dense<1.000000e-05> : tensor<f32>
  %xd = rvnn.dropout %x {rate = 3.000000e-01 : f64} : tensor<?x?xf32>
  %q0 = rvnn.linear %xd, %q_w, %q_b
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>)
      -> tensor<?x?xf32>
  %q = rvnn.layer_norm %q0, %q_gamma, %q_beta
      : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>)
      -> tensor<?x?xf32>
  %mod = rvnn.dropout %mo {rate = 3.000000e-01 : f64} : tensor<?x?x?xf32>
  %k0 = rvnn.linear %mod, %k_w, %k_b
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>)
      -> tensor<?x?x?xf32>
  %k = rvnn.layer_norm %k0, %k_gamma, %k_beta
      : (tensor<?x?x?xf32>, tensor<?xf32>, tensor<?xf32>)
      -> tensor<?x?x?xf32>
  %q3 = tensor.expand_shape %q [[0, 1], [2]] output_shape [%n, 1, %d]
      : tensor<?x?xf32> into tensor<?x1x?xf32>
  %qb = rvnn.broadcast_like %q3, %k
      : (tensor<?x1x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %qk = arith.addf %qb, %k : tensor<?x?x?xf32>
  %r = rvnn.relu %qk : tensor<?x?x?xf32>
  %rd = rvnn.dropout %r {rate = 3.000000e-01 : f64} : tensor<?x?x?xf32>
  %s3 = rvnn.linear %rd, %score_w
      : (tensor<?x?x?xf32>, tensor<1x?xf32>) -> tensor<?x?x1xf32>
  %s = tensor.collapse_shape %s3 [[0], [1, 2]]
      : tensor<?x?x1xf32> into tensor<?x?xf32>
  %scale = rvnn.broadcast_like %inv_sqrt_d, %s
      : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %beta = arith.mulf %s, %scale : tensor<?x?xf32>
  // The mask: cp_{i+1} where it is >= 1e-5, and 1 for the last slot.
  %last = arith.subi %slots, %c1 : index
  %upper = tensor.extract_slice %cp[0, 1] [%n, %last] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %floors = rvnn.broadcast_like %floor, %upper
      : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %kept = arith.cmpf oge, %upper, %floors : tensor<?x?xf32>
  %keptf = arith.uitofp %kept : tensor<?x?xi1> to tensor<?x?xf32>
  %upper_m = arith.mulf %upper, %keptf : tensor<?x?xf32>
  %shapeN1 = tensor.empty(%n) : tensor<?x1xf32>
  %onesN1 = rvnn.broadcast_like %one, %shapeN1
      : (tensor<f32>, tensor<?x1xf32>) -> tensor<?x1xf32>
  %m = tensor.concat dim(1) %upper_m, %onesN1
      : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  // p = softmax(β)⊙m, normalised to sum 1.
  %e = rvnn.softmax %beta {dim = -1 : i64} : tensor<?x?xf32>
  %em = arith.mulf %e, %m : tensor<?x?xf32>
  %shapeS = tensor.empty(%slots) : tensor<?xf32>
  %onesS = rvnn.broadcast_like %one, %shapeS
      : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>
  %shapeN = tensor.empty(%n) : tensor<?xf32>
  %zerosN = rvnn.broadcast_like %zero, %shapeN
      : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>
  %total = linalg.matvec ins(%em, %onesS : tensor<?x?xf32>, tensor<?xf32>)
      outs(%zerosN : tensor<?xf32>) -> tensor<?xf32>
  %total2 = tensor.expand_shape %total [[0, 1]] output_shape [%n, 1]
      : tensor<?xf32> into tensor<?x1xf32>
  %totalb = rvnn.broadcast_like %total2, %em
      : (tensor<?x1xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %p = arith.divf %em, %totalb : tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}

// One slot of the bottom-up composition: slot i of the previous memory m
// and its output mo ([N, n, D]), the attention p [N, n], cp_{i-1} [N, 1]
// and the head h_{i-1} [N, D] -> (h_i, cp_i, M_{t,i}).
func.func @om_slot(%i: index, %x: tensor<?x?xf32>, %mem: tensor<?x?x?xf32>,
                   %mo: tensor<?x?x?xf32>, %p: tensor<?x?xf32>,
                   %cprev: tensor<?x1xf32>, %h: tensor<?x?xf32>,
                   %w1: tensor<?x?xf32>, %b1: tensor<?xf32>,
                   %w2: tensor<?x?xf32>, %b2: tensor<?xf32>,
                   %gamma: tensor<?xf32>, %beta: tensor<?xf32>)
    -> (tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %mem, %c0 : tensor<?x?x?xf32>
  %d = tensor.dim %mem, %c2 : tensor<?x?x?xf32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %p_i = tensor.extract_slice %p[0, %i] [%n, 1] [1, 1]
      : tensor<?x?xf32> to tensor<?x1xf32>
  %cp_i = arith.addf %cprev, %p_i : tensor<?x1xf32>
  %ones = rvnn.broadcast_like %one, %cprev
      : (tensor<f32>, tensor<?x1xf32>) -> tensor<?x1xf32>
  %rcp_i = arith.subf %ones, %cprev : tensor<?x1xf32>
  %m_i = tensor.extract_slice %mem[0, %i, 0] [%n, 1, %d] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?xf32>
  %mo_i = tensor.extract_slice %mo[0, %i, 0] [%n, 1, %d] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?xf32>
  %cur = rvnn.gate %rcp_i, %mo_i, %m_i
      : (tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %composed = func.call @om_cell(%h, %cur, %w1, %b1, %w2, %b2, %gamma, %beta)
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
         tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
      -> tensor<?x?xf32>
  %h_i = rvnn.gate %cp_i, %composed, %x
      : (tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %h_i, %cp_i, %cur : tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>
}

// One token step t >= 1: (M_{t-1}, M̂_{t-1}, cp_{t-1}) -> (M_t, M̂_t, cp_t);
// a padded step keeps the state.
func.func @om_step(%xs: tensor<?x?x?xf32>, %mask: tensor<?x?xf32>, %t: index,
                   %mem: tensor<?x?x?xf32>, %mo: tensor<?x?x?xf32>,
                   %cp: tensor<?x?xf32>, %inv_sqrt_d: tensor<f32>,
                   %q_w: tensor<?x?xf32>, %q_b: tensor<?xf32>,
                   %q_gamma: tensor<?xf32>, %q_beta: tensor<?xf32>,
                   %k_w: tensor<?x?xf32>, %k_b: tensor<?xf32>,
                   %k_gamma: tensor<?xf32>, %k_beta: tensor<?xf32>,
                   %score_w: tensor<1x?xf32>, %w1: tensor<?x?xf32>,
                   %b1: tensor<?xf32>, %w2: tensor<?x?xf32>,
                   %b2: tensor<?xf32>, %gamma: tensor<?xf32>,
                   %beta: tensor<?xf32>)
    -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %mem, %c0 : tensor<?x?x?xf32>
  %slots = tensor.dim %mem, %c1 : tensor<?x?x?xf32>
  %d = tensor.dim %mem, %c2 : tensor<?x?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %x = tensor.extract_slice %xs[0, %t, 0] [%n, 1, %d] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?xf32>
  %m_t = tensor.extract_slice %mask[0, %t] [%n, 1] [1, 1]
      : tensor<?x?xf32> to tensor<?x1xf32>
  %p = func.call @om_attention(%x, %mo, %cp, %inv_sqrt_d, %q_w, %q_b,
                               %q_gamma, %q_beta, %k_w, %k_b, %k_gamma,
                               %k_beta, %score_w)
      : (tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<f32>,
         tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>,
         tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>,
         tensor<1x?xf32>) -> tensor<?x?xf32>
  // Slot 0, then slots 1 .. n-1 in an inner loop.
  %shapeN1 = tensor.empty(%n) : tensor<?x1xf32>
  %zerosN1 = rvnn.broadcast_like %zero, %shapeN1
      : (tensor<f32>, tensor<?x1xf32>) -> tensor<?x1xf32>
  %s0:3 = func.call @om_slot(%c0, %x, %mem, %mo, %p, %zerosN1, %x, %w1, %b1,
                             %w2, %b2, %gamma, %beta)
      : (index, tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>,
         tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
         tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>,
         tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>)
  %mo0 = tensor.expand_shape %s0#0 [[0, 1], [2]] output_shape [%n, 1, %d]
      : tensor<?x?xf32> into tensor<?x1x?xf32>
  %mem0 = tensor.expand_shape %s0#2 [[0, 1], [2]] output_shape [%n, 1, %d]
      : tensor<?x?xf32> into tensor<?x1x?xf32>
  %mo0d = tensor.cast %mo0 : tensor<?x1x?xf32> to tensor<?x?x?xf32>
  %mem0d = tensor.cast %mem0 : tensor<?x1x?xf32> to tensor<?x?x?xf32>
  %cp0d = tensor.cast %s0#1 : tensor<?x1xf32> to tensor<?x?xf32>
  %rest = arith.subi %slots, %c1 : index
  %fin:5 = rvnn.recurse (%h = %s0#0, %c = %s0#1, %macc = %mem0d,
                         %oacc = %mo0d, %cacc = %cp0d)
      : tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?x?xf32>,
        tensor<?x?x?xf32>, tensor<?x?xf32>
      halting <none> max_steps %rest {
  ^bb0(%j: index, %h: tensor<?x?xf32>, %c: tensor<?x1xf32>,
       %macc: tensor<?x?x?xf32>, %oacc: tensor<?x?x?xf32>,
       %cacc: tensor<?x?xf32>):
    %i = arith.addi %j, %c1 : index
    %s:3 = func.call @om_slot(%i, %x, %mem, %mo, %p, %c, %h, %w1, %b1, %w2,
                              %b2, %gamma, %beta)
        : (index, tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>,
           tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
           tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>,
           tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>)
    %o3 = tensor.expand_shape %s#0 [[0, 1], [2]] output_shape [%n, 1, %d]
        : tensor<?x?xf32> into tensor<?x1x?xf32>
    %m3 = tensor.expand_shape %s#2 [[0, 1], [2]] output_shape [%n, 1, %d]
        : tensor<?x?xf32> into tensor<?x1x?xf32>
    %macc2 = tensor.concat dim(1) %macc, %m3
        : (tensor<?x?x?xf32>, tensor<?x1x?xf32>) -> tensor<?x?x?xf32>
    %oacc2 = tensor.concat dim(1) %oacc, %o3
        : (tensor<?x?x?xf32>, tensor<?x1x?xf32>) -> tensor<?x?x?xf32>
    %cacc2 = tensor.concat dim(1) %cacc, %s#1
        : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
    rvnn.yield %s#0, %s#1, %macc2, %oacc2, %cacc2
        : tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?x?xf32>,
          tensor<?x?x?xf32>, tensor<?x?xf32>
  }
  %m_t3 = tensor.expand_shape %m_t [[0], [1, 2]] output_shape [%n, 1, 1]
      : tensor<?x1xf32> into tensor<?x1x1xf32>
  %mem_next = rvnn.gate %m_t3, %fin#2, %mem
      : (tensor<?x1x1xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      -> tensor<?x?x?xf32>
  %mo_next = rvnn.gate %m_t3, %fin#3, %mo
      : (tensor<?x1x1xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      -> tensor<?x?x?xf32>
  %cp_next = rvnn.gate %m_t, %fin#4, %cp
      : (tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %mem_next, %mo_next, %cp_next
      : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>
}

// ---- CRvNN (model-specs §4), shared by crvnn and rir_crvnn ----------------
// Rows r (samples, or RIR chunks) of x [R, S, D] with a float mask [R, S]
// that is a prefix of ones (right padding; a row may be all padding). The
// augmented sequence of row r with L_r = Σ mask_r real items:
//   0: START | 1..L_r: x_1..x_L | L_r+1: END | L_r+2..Sa-1: pad    (Sa = S+2)
// built from the mask by concatenation and subtraction (o = ones [R, 1],
// z = zeros):
//   M      = [o; o; mask]         augmented mask (START and END added)
//   noEnd  = [o; mask; z]         START and the items; its last 1 is at L_r
//   endInd = M - noEnd            one-hot at L_r+1 (END)
//   lastInd = noEnd - [mask; z; z]  one-hot at L_r (the last real item)
//   sel    = [z; mask; z]⊙(1 - lastInd)   selectable: x_1..x_{L-1}
//   seqM   = (endInd⊙END + (1 - endInd)⊙[START; x; 0])⊙M
// An all-padding row is [START; END; pad]: nothing selectable, noEnd's last
// 1 at START. Returns (seqM [R, Sa, D], M, noEnd, sel [R, Sa]).
func.func @crvnn_augment(%r: index, %s: index, %x: tensor<?x?x?xf32>,
                         %mask: tensor<?x?xf32>, %start: tensor<?xf32>,
                         %end: tensor<?xf32>)
    -> (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
        tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant dense<0.0> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %d = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %sa = arith.addi %s, %c2 : index
  %shapeR1 = tensor.empty(%r) : tensor<?x1xf32>
  %shapeR1D = tensor.empty(%r, %d) : tensor<?x1x?xf32>
  %z = rvnn.broadcast_like %zero, %shapeR1
      : (tensor<f32>, tensor<?x1xf32>) -> tensor<?x1xf32>
  %o = rvnn.broadcast_like %one, %shapeR1
      : (tensor<f32>, tensor<?x1xf32>) -> tensor<?x1xf32>
  %zR1D = rvnn.broadcast_like %zero, %shapeR1D
      : (tensor<f32>, tensor<?x1x?xf32>) -> tensor<?x1x?xf32>
  %M = tensor.concat dim(1) %o, %o, %mask
      : (tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %noEnd = tensor.concat dim(1) %o, %mask, %z
      : (tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  %endInd = arith.subf %M, %noEnd : tensor<?x?xf32>
  %mShifted = tensor.concat dim(1) %mask, %z, %z
      : (tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  %lastInd = arith.subf %noEnd, %mShifted : tensor<?x?xf32>
  %tokInd = tensor.concat dim(1) %z, %mask, %z
      : (tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  %ones = rvnn.broadcast_like %one, %M
      : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %notLast = arith.subf %ones, %lastInd : tensor<?x?xf32>
  %sel = arith.mulf %tokInd, %notLast : tensor<?x?xf32>
  %M3 = tensor.expand_shape %M [[0], [1, 2]] output_shape [%r, %sa, 1]
      : tensor<?x?xf32> into tensor<?x?x1xf32>
  // [START; x; END; pad]: END is placed by the one-hot endInd, so every row
  // gets it right after its own last item.
  %startB = rvnn.broadcast_like %start, %shapeR1D
      : (tensor<?xf32>, tensor<?x1x?xf32>) -> tensor<?x1x?xf32>
  %base = tensor.concat dim(1) %startB, %x, %zR1D
      : (tensor<?x1x?xf32>, tensor<?x?x?xf32>, tensor<?x1x?xf32>)
      -> tensor<?x?x?xf32>
  %endB = rvnn.broadcast_like %end, %base
      : (tensor<?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %endInd3 = tensor.expand_shape %endInd [[0], [1, 2]]
      output_shape [%r, %sa, 1] : tensor<?x?xf32> into tensor<?x?x1xf32>
  %seq = rvnn.gate %endInd3, %endB, %base
      : (tensor<?x?x1xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      -> tensor<?x?x?xf32>
  %MD = rvnn.broadcast_like %M3, %seq
      : (tensor<?x?x1xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %seqM = arith.mulf %seq, %MD : tensor<?x?x?xf32>
  return %seqM, %M, %noEnd, %sel
      : tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// One CRvNN iteration (model-specs §4, BRF variant: τ = 0.1, no transition
// features) over rows of h [R, Sa, D] with existence e [R, Sa] and steps
// taken t [R]; M, sel from @crvnn_augment, lengths [R] = L_r (float):
//   L, R  = rvnn.neighbour_retrieve(e, M) left/right          [R, Sa, Sa]
//   window = [L²h, Lh, h, Rh, R²h]                            [R, Sa, 5D]
//   s     = Linear(D, 1)(GELU(Linear(5D, D)(window)))
//   μ     = max(0, max_{i: M_i=1} s_i) per row (it cancels in c up to the
//           4e-8 epsilon; per row keeps rows independent of each other)
//   ŝ     = exp(s - μ)⊙sel,  n = exp(0 - μ)
//   c     = ŝ / (ŝ + n + Lŝ + Rŝ + 4e-8) ⊙ sel
//   comp  = GRC(Lh, h);  lc = L·c;  h <- (lc⊙comp + (1-lc)⊙h)⊙M
//   e     <- e⊙(1 - c)⊙M;  t <- t + 1
//   halt  = (#(e > 0.1) - 2 <= 1) or (t > L_r)
// The iteration is two cells around the model's own GRC call, comp =
// @grc_cell(Lh, h) on the rows collapsed to [R·Sa, D]: a cell that called
// @grc_cell itself could not be inlined into a loop body, since the
// inliner's canonicalisation of it folds the collapsed row count into an
// affine.apply, which is not legal to inline outside an affine scope.
// Sizes come from M, not the state, so that the constants read no loop
// state (rvnn-hoist-step-invariant moves them out of the loop).

// Steps 1-3: (L [R, Sa, Sa], Lh [R, Sa, D], c [R, Sa, 1]).
func.func @crvnn_decide(%r: index, %sa: index,
                        %h: tensor<?x?x?xf32>, %e: tensor<?x?xf32>,
                        %M: tensor<?x?xf32>, %sel: tensor<?x?xf32>,
                        %sw1: tensor<?x?xf32>, %sb1: tensor<?xf32>,
                        %sw2: tensor<?x?xf32>, %sb2: tensor<?xf32>)
    -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant dense<0.0> : tensor<f32>
  %eps = arith.constant dense<4.0e-08> : tensor<f32>
  %d = tensor.dim %h, %c2 : tensor<?x?x?xf32>
  %shapeR1 = tensor.empty(%r) : tensor<?x1xf32>
  %shapeD = tensor.empty(%r, %sa, %d) : tensor<?x?x?xf32>
  %shape1 = tensor.empty(%r, %sa) : tensor<?x?x1xf32>
  %z = rvnn.broadcast_like %zero, %shapeR1
      : (tensor<f32>, tensor<?x1xf32>) -> tensor<?x1xf32>
  %zerosD = rvnn.broadcast_like %zero, %shapeD
      : (tensor<f32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %zeros1 = rvnn.broadcast_like %zero, %shape1
      : (tensor<f32>, tensor<?x?x1xf32>) -> tensor<?x?x1xf32>
  %eps3 = rvnn.broadcast_like %eps, %shape1
      : (tensor<f32>, tensor<?x?x1xf32>) -> tensor<?x?x1xf32>
  %sel3 = tensor.expand_shape %sel [[0], [1, 2]] output_shape [%r, %sa, 1]
      : tensor<?x?xf32> into tensor<?x?x1xf32>
  // 1. Soft neighbours from the existence probabilities.
  %L = rvnn.neighbour_retrieve %e, %M {direction = #rvnn.direction<left>}
      : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  %R = rvnn.neighbour_retrieve %e, %M {direction = #rvnn.direction<right>}
      : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  // 2. Window [L²h, Lh, h, Rh, R²h].
  %lh = linalg.batch_matmul
      ins(%L, %h : tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      outs(%zerosD : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %llh = linalg.batch_matmul
      ins(%L, %lh : tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      outs(%zerosD : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %rh = linalg.batch_matmul
      ins(%R, %h : tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      outs(%zerosD : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %rrh = linalg.batch_matmul
      ins(%R, %rh : tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      outs(%zerosD : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %window = tensor.concat dim(2) %llh, %lh, %h, %rh, %rrh
      : (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>,
         tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  // 3. Decision scores and composition probabilities.
  %u = rvnn.linear %window, %sw1, %sb1
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>)
      -> tensor<?x?x?xf32>
  %g = rvnn.gelu %u : tensor<?x?x?xf32>
  %score = rvnn.linear %g, %sw2, %sb2
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>)
      -> tensor<?x?x1xf32>
  %smax = rvnn.pool max %score, %M
      : (tensor<?x?x1xf32>, tensor<?x?xf32>) -> tensor<?x1xf32>
  %mu = arith.maximumf %smax, %z : tensor<?x1xf32>
  %mu3 = tensor.expand_shape %mu [[0], [1, 2]] output_shape [%r, 1, 1]
      : tensor<?x1xf32> into tensor<?x1x1xf32>
  %muB = rvnn.broadcast_like %mu3, %score
      : (tensor<?x1x1xf32>, tensor<?x?x1xf32>) -> tensor<?x?x1xf32>
  %shifted = arith.subf %score, %muB : tensor<?x?x1xf32>
  %expS = math.exp %shifted : tensor<?x?x1xf32>
  %sHat = arith.mulf %expS, %sel3 : tensor<?x?x1xf32>
  %negMu = arith.negf %muB : tensor<?x?x1xf32>
  %noop = math.exp %negMu : tensor<?x?x1xf32>
  %lsHat = linalg.batch_matmul
      ins(%L, %sHat : tensor<?x?x?xf32>, tensor<?x?x1xf32>)
      outs(%zeros1 : tensor<?x?x1xf32>) -> tensor<?x?x1xf32>
  %rsHat = linalg.batch_matmul
      ins(%R, %sHat : tensor<?x?x?xf32>, tensor<?x?x1xf32>)
      outs(%zeros1 : tensor<?x?x1xf32>) -> tensor<?x?x1xf32>
  %den0 = arith.addf %sHat, %noop : tensor<?x?x1xf32>
  %den1 = arith.addf %den0, %lsHat : tensor<?x?x1xf32>
  %den2 = arith.addf %den1, %rsHat : tensor<?x?x1xf32>
  %den = arith.addf %den2, %eps3 : tensor<?x?x1xf32>
  %q = arith.divf %sHat, %den : tensor<?x?x1xf32>
  %c = arith.mulf %q, %sel3 : tensor<?x?x1xf32>
  return %L, %lh, %c
      : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x1xf32>
}

// Steps 4-6 from @crvnn_decide's L and c and the composition comp
// [R, Sa, D]: (h', e', t', halt [R], c [R, Sa]).
func.func @crvnn_update(%r: index, %sa: index,
                        %h: tensor<?x?x?xf32>, %e: tensor<?x?xf32>,
                        %t: tensor<?xf32>, %M: tensor<?x?xf32>,
                        %lengths: tensor<?xf32>, %L: tensor<?x?x?xf32>,
                        %c: tensor<?x?x1xf32>, %comp: tensor<?x?x?xf32>)
    -> (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xi1>,
        tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant dense<0.0> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %two = arith.constant dense<2.0> : tensor<f32>
  %tau = arith.constant dense<0.1> : tensor<f32>
  %d = tensor.dim %h, %c2 : tensor<?x?x?xf32>
  %shapeR = tensor.empty(%r) : tensor<?xf32>
  %shapeSa = tensor.empty(%sa) : tensor<?xf32>
  %shapeD = tensor.empty(%r, %sa, %d) : tensor<?x?x?xf32>
  %shape1 = tensor.empty(%r, %sa) : tensor<?x?x1xf32>
  %zerosR = rvnn.broadcast_like %zero, %shapeR
      : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>
  %onesR = rvnn.broadcast_like %one, %shapeR
      : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>
  %twosR = rvnn.broadcast_like %two, %shapeR
      : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>
  %onesSa = rvnn.broadcast_like %one, %shapeSa
      : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>
  %zeros1 = rvnn.broadcast_like %zero, %shape1
      : (tensor<f32>, tensor<?x?x1xf32>) -> tensor<?x?x1xf32>
  %tauRSa = rvnn.broadcast_like %tau, %M
      : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %onesRSa = rvnn.broadcast_like %one, %M
      : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %M3 = tensor.expand_shape %M [[0], [1, 2]] output_shape [%r, %sa, 1]
      : tensor<?x?xf32> into tensor<?x?x1xf32>
  %MD = rvnn.broadcast_like %M3, %shapeD
      : (tensor<?x?x1xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  // 4. Gate the composition by L·c.
  %lc = linalg.batch_matmul
      ins(%L, %c : tensor<?x?x?xf32>, tensor<?x?x1xf32>)
      outs(%zeros1 : tensor<?x?x1xf32>) -> tensor<?x?x1xf32>
  %hGated = rvnn.gate %lc, %comp, %h
      : (tensor<?x?x1xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      -> tensor<?x?x?xf32>
  %hNext = arith.mulf %hGated, %MD : tensor<?x?x?xf32>
  // 5. Existence decays by the composition probability.
  %c2d = tensor.collapse_shape %c [[0], [1, 2]]
      : tensor<?x?x1xf32> into tensor<?x?xf32>
  %keep = arith.subf %onesRSa, %c2d : tensor<?x?xf32>
  %e1 = arith.mulf %e, %keep : tensor<?x?xf32>
  %eNext = arith.mulf %e1, %M : tensor<?x?xf32>
  %tNext = arith.addf %t, %onesR : tensor<?xf32>
  // 6. Halt: #(e > τ) - 2 <= 1 (START, END and the last item always exist),
  //    or the row has taken more steps than it has items.
  %alive = arith.cmpf ogt, %eNext, %tauRSa : tensor<?x?xf32>
  %aliveF = arith.uitofp %alive : tensor<?x?xi1> to tensor<?x?xf32>
  %count = linalg.matvec
      ins(%aliveF, %onesSa : tensor<?x?xf32>, tensor<?xf32>)
      outs(%zerosR : tensor<?xf32>) -> tensor<?xf32>
  %inner = arith.subf %count, %twosR : tensor<?xf32>
  %reduced = arith.cmpf ole, %inner, %onesR : tensor<?xf32>
  %outOfSteps = arith.cmpf ogt, %tNext, %lengths : tensor<?xf32>
  %halt = arith.ori %reduced, %outOfSteps : tensor<?xi1>
  return %hNext, %eNext, %tNext, %halt, %c2d
      : tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xi1>,
        tensor<?x?xf32>
}

// S4D's bilinear discretisation of one diagonal state-space block (Gu et al.,
// "On the Parameterization and Initialization of Diagonal State Space
// Models", 2022), elementwise on its [D, P] parameters: with Δ = exp(log_dt)
// [D], A = -exp(log_a_re) + i·a_im and h = Δ·A/2,
//   Ā = (1 + h)/(1 - h) = ((1 - |h|²) + 2i·Im h)/|1 - h|²
//   B̄ = Δ/(1 - h)       = Δ·((1 - Re h) + i·Im h)/|1 - h|²     (B = 1)
// and C̃ = 2·C (each mode stands for a conjugate pair: y = 2·Re(Σ C·x)).
// Results: Ā, B̄, C̃ as real/imaginary pairs, the operands of
// rvnn.diagonal_scan.
func.func @s4d_discretise(%log_dt: tensor<?xf32>, %log_a_re: tensor<?x?xf32>,
                          %a_im: tensor<?x?xf32>, %c_re: tensor<?x?xf32>,
                          %c_im: tensor<?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
        tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %log_dt, %c0 : tensor<?xf32>
  %one_s = arith.constant dense<1.0> : tensor<f32>
  %half_s = arith.constant dense<0.5> : tensor<f32>
  %two_s = arith.constant dense<2.0> : tensor<f32>
  %one = rvnn.broadcast_like %one_s, %log_a_re
      : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %half = rvnn.broadcast_like %half_s, %log_a_re
      : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %two = rvnn.broadcast_like %two_s, %log_a_re
      : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %dt1 = math.exp %log_dt : tensor<?xf32>
  %dt2 = tensor.expand_shape %dt1 [[0, 1]] output_shape [%d, 1]
      : tensor<?xf32> into tensor<?x1xf32>
  %dt = rvnn.broadcast_like %dt2, %log_a_re
      : (tensor<?x1xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %ea = math.exp %log_a_re : tensor<?x?xf32>
  %a_re = arith.negf %ea : tensor<?x?xf32>
  %hdt = arith.mulf %half, %dt : tensor<?x?xf32>
  %hr = arith.mulf %hdt, %a_re : tensor<?x?xf32>
  %hi = arith.mulf %hdt, %a_im : tensor<?x?xf32>
  // |1 - h|² and 1 - |h|².
  %dr = arith.subf %one, %hr : tensor<?x?xf32>
  %dr2 = arith.mulf %dr, %dr : tensor<?x?xf32>
  %hi2 = arith.mulf %hi, %hi : tensor<?x?xf32>
  %den = arith.addf %dr2, %hi2 : tensor<?x?xf32>
  %hr2 = arith.mulf %hr, %hr : tensor<?x?xf32>
  %h2 = arith.addf %hr2, %hi2 : tensor<?x?xf32>
  %num = arith.subf %one, %h2 : tensor<?x?xf32>
  %abar_re = arith.divf %num, %den : tensor<?x?xf32>
  %twohi = arith.mulf %two, %hi : tensor<?x?xf32>
  %abar_im = arith.divf %twohi, %den : tensor<?x?xf32>
  %dtden = arith.divf %dt, %den : tensor<?x?xf32>
  %bbar_re = arith.mulf %dtden, %dr : tensor<?x?xf32>
  %bbar_im = arith.mulf %dtden, %hi : tensor<?x?xf32>
  %c2_re = arith.mulf %two, %c_re : tensor<?x?xf32>
  %c2_im = arith.mulf %two, %c_im : tensor<?x?xf32>
  return %abar_re, %abar_im, %bbar_re, %bbar_im, %c2_re, %c2_im
      : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
        tensor<?x?xf32>, tensor<?x?xf32>
}

// S4D-Inv's parameters of one S4D block from the stored ones (the models'
// reparameterisation, so that the existing initialisers give S4D-Inv's
// initialisation and each stored parameter differs from S4D's by a
// constant; see models/rir_grc_s4d.mlir):
//   log Δ = log_dt_centred + ln(0.01)                                  [D]
//   Im A  = S4D-Inv's (N/π)(N/(2n+1) - 1), n < 32, + a_im_offset       [D, P]
// d_state N = 64: P = 32 conjugate-pair modes per channel.
func.func @s4d_inv_params(%log_dt_centred: tensor<?xf32>,
                          %a_im_offset: tensor<?x?xf32>)
    -> (tensor<?xf32>, tensor<?x?xf32>) {
  %log_dt_shift_s = arith.constant dense<-4.605170185988091> : tensor<f32>
  %inv = arith.constant dense<[
      1.283425461e+03, 4.142272652e+02, 2.403876260e+02, 1.658849235e+02,
      1.244945333e+02, 9.815519399e+01, 7.992026681e+01, 6.654798687e+01,
      5.632212574e+01, 4.824907748e+01, 4.171375270e+01, 3.631500615e+01,
      3.178005904e+01, 2.791695594e+01, 2.458669466e+01, 2.168614450e+01,
      1.913717619e+01, 1.687951854e+01, 1.486593198e+01, 1.305886713e+01,
      1.142810128e+01, 9.949034582e+00, 8.601440480e+00, 7.368535238e+00,
      6.236275321e+00, 5.192820104e+00, 4.228116224e+00, 3.333572626e+00,
      2.501804018e+00, 1.726426501e+00, 1.001893412e+00, 3.233624241e-01]> : tensor<32xf32>
  %shift = rvnn.broadcast_like %log_dt_shift_s, %log_dt_centred
      : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>
  %log_dt = arith.addf %log_dt_centred, %shift : tensor<?xf32>
  %inv_b = rvnn.broadcast_like %inv, %a_im_offset
      : (tensor<32xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %a_im = arith.addf %inv_b, %a_im_offset : tensor<?x?xf32>
  return %log_dt, %a_im : tensor<?xf32>, tensor<?x?xf32>
}

// The bidirectional S4D blocks of the pre-chunk layer (the RIR paper, App. J,
// eqs. 13-14; model-specs §3): x [N, S, D] (padding zeroed), mask [N, S].
//   y_f = S4D_f(x), y_b = S4D_b on each sample's reversed valid prefix,
//   reversed back (rvnn.diagonal_scan {reverse}): per direction
//   y = GELU(scan(Ā, B̄, C̃; x) + skip⊙x), before the S4D dropout.
// Stored parameters per direction (f, b), as @s4d_inv_params reads them:
// log_dt_centred [D], log_a_re, a_im_offset, c_re, c_im [D, P], skip [D].
func.func @s4d_branches(%x: tensor<?x?x?xf32>, %mask: tensor<?x?xf32>,
                        %f_ldc: tensor<?xf32>, %f_log_a_re: tensor<?x?xf32>,
                        %f_a_im_offset: tensor<?x?xf32>,
                        %f_c_re: tensor<?x?xf32>, %f_c_im: tensor<?x?xf32>,
                        %f_skip: tensor<?xf32>,
                        %b_ldc: tensor<?xf32>, %b_log_a_re: tensor<?x?xf32>,
                        %b_a_im_offset: tensor<?x?xf32>,
                        %b_c_re: tensor<?x?xf32>, %b_c_im: tensor<?x?xf32>,
                        %b_skip: tensor<?xf32>)
    -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %c2 = arith.constant 2 : index
  %d = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %fp:2 = func.call @s4d_inv_params(%f_ldc, %f_a_im_offset)
      : (tensor<?xf32>, tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>)
  %bp:2 = func.call @s4d_inv_params(%b_ldc, %b_a_im_offset)
      : (tensor<?xf32>, tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>)
  %fa:6 = func.call @s4d_discretise(%fp#0, %f_log_a_re, %fp#1, %f_c_re,
                                    %f_c_im)
      : (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
         tensor<?x?xf32>)
      -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
          tensor<?x?xf32>, tensor<?x?xf32>)
  %ba:6 = func.call @s4d_discretise(%bp#0, %b_log_a_re, %bp#1, %b_c_re,
                                    %b_c_im)
      : (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
         tensor<?x?xf32>)
      -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
          tensor<?x?xf32>, tensor<?x?xf32>)
  %yf0 = rvnn.diagonal_scan %x, %fa#0, %fa#1, %fa#2, %fa#3, %fa#4, %fa#5, %mask
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
         tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
      -> tensor<?x?x?xf32>
  %yb0 = rvnn.diagonal_scan %x, %ba#0, %ba#1, %ba#2, %ba#3, %ba#4, %ba#5, %mask
      {reverse = true}
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
         tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
      -> tensor<?x?x?xf32>
  %fs = tensor.expand_shape %f_skip [[0, 1, 2]] output_shape [1, 1, %d]
      : tensor<?xf32> into tensor<1x1x?xf32>
  %bs = tensor.expand_shape %b_skip [[0, 1, 2]] output_shape [1, 1, %d]
      : tensor<?xf32> into tensor<1x1x?xf32>
  %fsb = rvnn.broadcast_like %fs, %x
      : (tensor<1x1x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %bsb = rvnn.broadcast_like %bs, %x
      : (tensor<1x1x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %fdx = arith.mulf %fsb, %x : tensor<?x?x?xf32>
  %bdx = arith.mulf %bsb, %x : tensor<?x?x?xf32>
  %yf1 = arith.addf %yf0, %fdx : tensor<?x?x?xf32>
  %yb1 = arith.addf %yb0, %bdx : tensor<?x?x?xf32>
  %yf = rvnn.gelu %yf1 : tensor<?x?x?xf32>
  %yb = rvnn.gelu %yb1 : tensor<?x?x?xf32>
  return %yf, %yb : tensor<?x?x?xf32>, tensor<?x?x?xf32>
}

// The pre-chunk layer's output (App. J, eqs. 15-17) from the two directions'
// y_f, y_b and its input x, each [N, S, D]:
//   out = GLU(Linear(2D, 2D)([y_f; y_b])) + x,  GLU(a; b) = a⊙σ(b);
// glu_w [2D, 2D], glu_b [2D].
func.func @s4d_glu(%yf: tensor<?x?x?xf32>, %yb: tensor<?x?x?xf32>,
                   %x: tensor<?x?x?xf32>, %glu_w: tensor<?x?xf32>,
                   %glu_b: tensor<?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %d = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %cat = tensor.concat dim(2) %yf, %yb
      : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %proj = rvnn.linear %cat, %glu_w, %glu_b
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?x?xf32>
  %value = tensor.extract_slice %proj[0, 0, 0] [%n, %s, %d] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?x?xf32>
  %gate_pre = tensor.extract_slice %proj[0, 0, %d] [%n, %s, %d] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?x?xf32>
  %gate = rvnn.sigmoid %gate_pre : tensor<?x?x?xf32>
  %glu = arith.mulf %value, %gate : tensor<?x?x?xf32>
  %out = arith.addf %glu, %x : tensor<?x?x?xf32>
  return %out : tensor<?x?x?xf32>
}

// The bidirectional S4D pre-chunk layer (the RIR paper, App. J; model-specs
// §3) with the ListOps S4D dropout 0.1 (§8): @s4d_branches, dropout of each
// direction, @s4d_glu. x [N, S, D] (padding zeroed), mask [N, S]; the
// stored parameters as @s4d_branches takes them, then glu_w [2D, 2D],
// glu_b [2D]. (A model with another S4D dropout rate, e.g. 0 for logical
// inference, calls @s4d_branches and @s4d_glu itself.)
func.func @s4d_layer(%x: tensor<?x?x?xf32>, %mask: tensor<?x?xf32>,
                     %f_ldc: tensor<?xf32>, %f_log_a_re: tensor<?x?xf32>,
                     %f_a_im_offset: tensor<?x?xf32>, %f_c_re: tensor<?x?xf32>,
                     %f_c_im: tensor<?x?xf32>, %f_skip: tensor<?xf32>,
                     %b_ldc: tensor<?xf32>, %b_log_a_re: tensor<?x?xf32>,
                     %b_a_im_offset: tensor<?x?xf32>, %b_c_re: tensor<?x?xf32>,
                     %b_c_im: tensor<?x?xf32>, %b_skip: tensor<?xf32>,
                     %glu_w: tensor<?x?xf32>, %glu_b: tensor<?xf32>)
    -> tensor<?x?x?xf32> {
  %y:2 = func.call @s4d_branches(%x, %mask,
      %f_ldc, %f_log_a_re, %f_a_im_offset, %f_c_re, %f_c_im, %f_skip,
      %b_ldc, %b_log_a_re, %b_a_im_offset, %b_c_re, %b_c_im, %b_skip)
      : (tensor<?x?x?xf32>, tensor<?x?xf32>,
         tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
         tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
         tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
         tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>)
      -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>)
  %yf = rvnn.dropout %y#0 {rate = 1.000000e-01 : f64} : tensor<?x?x?xf32>
  %yb = rvnn.dropout %y#1 {rate = 1.000000e-01 : f64} : tensor<?x?x?xf32>
  %out = func.call @s4d_glu(%yf, %yb, %x, %glu_w, %glu_b)
      : (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>,
         tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?x?xf32>
  return %out : tensor<?x?x?xf32>
}

// Beam search over adjacent pairs (model-specs §3: BT-GRC, its OneSoft
// variant and EBT-GRC, alone or inside RIR), one step's ranking and
// children. rvnn.topk needs a static k, while §3 draws k = min(P, beam)
// children per beam: each beam's P pairs get k padding entries (masked out
// of the ranking), so the children that pick a real pair are exactly §3's
// and the padding children get beam_mask 0 (they never win a beam slot and
// weigh nothing in the marginalisation).

// The ranking of one step: p = masked_softmax(score, pair_valid) over each
// beam's pairs, pair j valid iff pair_valid[:, j]; then k padding entries.
// score [N, B, P], pair_valid [N, P] -> key = [log p; 0] (the order of p:
// Gumbel noise on it is noise on the scores up to a per-beam shift),
// real = [1; 0], probp = [p; 0], each [N, B, P + k].
func.func @beam_pair_ranking(%score: tensor<?x?x?xf32>,
                             %pair_valid: tensor<?x?xf32>, %k: index)
    -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant dense<0.0> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %n = tensor.dim %score, %c0 : tensor<?x?x?xf32>
  %b = tensor.dim %score, %c1 : tensor<?x?x?xf32>
  %p = tensor.dim %score, %c2 : tensor<?x?x?xf32>
  %pv3 = tensor.expand_shape %pair_valid [[0], [1, 2]]
      output_shape [%n, 1, %p] : tensor<?x?xf32> into tensor<?x1x?xf32>
  %valid = rvnn.broadcast_like %pv3, %score
      : (tensor<?x1x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %prob = rvnn.masked_softmax %score, %valid {dim = 2 : i64}
      : tensor<?x?x?xf32>, tensor<?x?x?xf32>
  %refk = tensor.empty(%n, %b, %k) : tensor<?x?x?xf32>
  %pad = rvnn.broadcast_like %zero, %refk
      : (tensor<f32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %ones = rvnn.broadcast_like %one, %score
      : (tensor<f32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %logp = math.log %prob : tensor<?x?x?xf32>
  %key = tensor.concat dim(2) %logp, %pad
      : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %real = tensor.concat dim(2) %ones, %pad
      : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %probp = tensor.concat dim(2) %prob, %pad
      : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %key, %real, %probp
      : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>
}

// The B·k children of one step, child c = pick c % k of beam c / k, from
// the parents' scores accu and masks bm [N, B], pair_valid [N, P], probp
// [N, B, P + k] (@beam_pair_ranking) and the picks [N, B, k] (rvnn.topk):
//   accu_c = accu + log(p_pick + 1e-20)         (noise-free p)
//   bm_c   = bm · (child 0 or sample not finished) · (picked a real pair)
// A sample is finished when it has no valid pair (pair_valid[:, 0] = 0);
// it keeps child 0 alone. Returns (accu_c, bm_c), each [N, B·k].
func.func @beam_children(%accu: tensor<?x?xf32>, %bm: tensor<?x?xf32>,
                         %pair_valid: tensor<?x?xf32>,
                         %probp: tensor<?x?x?xf32>, %pick: tensor<?x?x?xi64>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant dense<0.0> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %n = tensor.dim %pick, %c0 : tensor<?x?x?xi64>
  %b = tensor.dim %pick, %c1 : tensor<?x?x?xi64>
  %k = tensor.dim %pick, %c2 : tensor<?x?x?xi64>
  %k1 = arith.subi %k, %c1 : index
  %accu_c = rvnn.beam_accumulate %accu, %probp, %pick
      : (tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xi64>)
      -> tensor<?x?xf32>
  %nd = tensor.extract_slice %pair_valid[0, 0] [%n, 1] [1, 1]
      : tensor<?x?xf32> to tensor<?x1xf32>
  %refk1 = tensor.empty(%n, %k1) : tensor<?x?xf32>
  %nd_rest = rvnn.broadcast_like %nd, %refk1
      : (tensor<?x1xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %first = rvnn.broadcast_like %one, %nd
      : (tensor<f32>, tensor<?x1xf32>) -> tensor<?x1xf32>
  %keep = tensor.concat dim(1) %first, %nd_rest
      : (tensor<?x1xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %keep3 = tensor.expand_shape %keep [[0], [1, 2]] output_shape [%n, 1, %k]
      : tensor<?x?xf32> into tensor<?x1x?xf32>
  %keepc = rvnn.broadcast_like %keep3, %pick
      : (tensor<?x1x?xf32>, tensor<?x?x?xi64>) -> tensor<?x?x?xf32>
  %bm3 = tensor.expand_shape %bm [[0], [1, 2]] output_shape [%n, %b, 1]
      : tensor<?x?xf32> into tensor<?x?x1xf32>
  %bmc = rvnn.broadcast_like %bm3, %pick
      : (tensor<?x?x1xf32>, tensor<?x?x?xi64>) -> tensor<?x?x?xf32>
  %bm_c3 = arith.mulf %bmc, %keepc : tensor<?x?x?xf32>
  %bm_c2 = tensor.collapse_shape %bm_c3 [[0], [1, 2]]
      : tensor<?x?x?xf32> into tensor<?x?xf32>
  %pick2 = tensor.collapse_shape %pick [[0], [1, 2]]
      : tensor<?x?x?xi64> into tensor<?x?xi64>
  // Per sample: 1 for the P real pairs, 0 for the k padding entries.
  %ones_n = rvnn.broadcast_like %one, %pair_valid
      : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %refk = tensor.empty(%n, %k) : tensor<?x?xf32>
  %pad_n = rvnn.broadcast_like %zero, %refk
      : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %real_n = tensor.concat dim(1) %ones_n, %pad_n
      : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %is_real = rvnn.beam_gather %real_n, %pick2
      : (tensor<?x?xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>
  %bm_c = arith.mulf %bm_c2, %is_real : tensor<?x?xf32>
  return %accu_c, %bm_c : tensor<?x?xf32>, tensor<?x?xf32>
}

// BT-GRC's composed pairs across a merge (model-specs §3; models/bt_grc.mlir
// step 5). A beam of states h [N, K, S', D] carries the compositions of its
// P = S' - 1 adjacent pairs, cand [N, K, P, D], cand_j = GRC(h_j, h_{j+1}).
// Merging the pair that the one-hot sel [N, K, P] selects puts m = cand_j in
// j's place, so only two pairs are new: (h_{j-1}, m) and (m, h_{j+2}).
// Returns their operands l = Σ_j sel_j·h_{j-1}, m = Σ_j sel_j·cand_j and
// r = Σ_j sel_j·h_{j+2}, each [N·K, D] (zero where there is no neighbour:
// the pair it would make is never read).
func.func @beam_merge_neighbours(%h: tensor<?x?x?x?xf32>,
                                 %cand: tensor<?x?x?x?xf32>,
                                 %sel: tensor<?x?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant dense<0.0> : tensor<f32>
  %n = tensor.dim %sel, %c0 : tensor<?x?x?xf32>
  %kb = tensor.dim %sel, %c1 : tensor<?x?x?xf32>
  %p = tensor.dim %sel, %c2 : tensor<?x?x?xf32>
  %d = tensor.dim %cand, %c3 : tensor<?x?x?x?xf32>
  %m = arith.muli %n, %kb : index
  %p1 = arith.subi %p, %c1 : index
  %sel2 = tensor.collapse_shape %sel [[0, 1], [2]]
      : tensor<?x?x?xf32> into tensor<?x?xf32>
  %sel3 = tensor.expand_shape %sel2 [[0], [1, 2]] output_shape [%m, 1, %p]
      : tensor<?x?xf32> into tensor<?x1x?xf32>
  %cand3 = tensor.collapse_shape %cand [[0, 1], [2], [3]]
      : tensor<?x?x?x?xf32> into tensor<?x?x?xf32>
  %h3 = tensor.collapse_shape %h [[0, 1], [2], [3]]
      : tensor<?x?x?x?xf32> into tensor<?x?x?xf32>
  %sel_l = tensor.extract_slice %sel3[0, 0, 1] [%m, 1, %p1] [1, 1, 1]
      : tensor<?x1x?xf32> to tensor<?x1x?xf32>
  %sel_r = tensor.extract_slice %sel3[0, 0, 0] [%m, 1, %p1] [1, 1, 1]
      : tensor<?x1x?xf32> to tensor<?x1x?xf32>
  %h_l = tensor.extract_slice %h3[0, 0, 0] [%m, %p1, %d] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?x?xf32>
  %h_r = tensor.extract_slice %h3[0, 2, 0] [%m, %p1, %d] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?x?xf32>
  %ref = tensor.empty(%m, %d) : tensor<?x1x?xf32>
  %acc = rvnn.broadcast_like %zero, %ref
      : (tensor<f32>, tensor<?x1x?xf32>) -> tensor<?x1x?xf32>
  %mid3 = linalg.batch_matmul
      ins(%sel3, %cand3 : tensor<?x1x?xf32>, tensor<?x?x?xf32>)
      outs(%acc : tensor<?x1x?xf32>) -> tensor<?x1x?xf32>
  %left3 = linalg.batch_matmul
      ins(%sel_l, %h_l : tensor<?x1x?xf32>, tensor<?x?x?xf32>)
      outs(%acc : tensor<?x1x?xf32>) -> tensor<?x1x?xf32>
  %right3 = linalg.batch_matmul
      ins(%sel_r, %h_r : tensor<?x1x?xf32>, tensor<?x?x?xf32>)
      outs(%acc : tensor<?x1x?xf32>) -> tensor<?x1x?xf32>
  %left = tensor.collapse_shape %left3 [[0, 1], [2]]
      : tensor<?x1x?xf32> into tensor<?x?xf32>
  %mid = tensor.collapse_shape %mid3 [[0, 1], [2]]
      : tensor<?x1x?xf32> into tensor<?x?xf32>
  %right = tensor.collapse_shape %right3 [[0, 1], [2]]
      : tensor<?x1x?xf32> into tensor<?x?xf32>
  return %left, %mid, %right
      : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// The composed pairs after the merge, [N, K, P - 1, D], from cand and sel as
// @beam_merge_neighbours takes them and fresh = [GRC(l, m); GRC(m, r); ...]
// (rows beyond the first 2·N·K are not read): the pairs right of the merge
// move one to the left, GRC(m, r) takes pair j and GRC(l, m) pair j - 1
// (none when j = 0). A finished sample (not_done [N, 1] = 0) keeps
// cand[..., :-1, :].
func.func @beam_carried_pairs(%cand: tensor<?x?x?x?xf32>,
                              %sel: tensor<?x?x?xf32>,
                              %fresh: tensor<?x?xf32>,
                              %not_done: tensor<?x1xf32>)
    -> tensor<?x?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %sel, %c0 : tensor<?x?x?xf32>
  %kb = tensor.dim %sel, %c1 : tensor<?x?x?xf32>
  %p = tensor.dim %sel, %c2 : tensor<?x?x?xf32>
  %d = tensor.dim %cand, %c3 : tensor<?x?x?x?xf32>
  %m = arith.muli %n, %kb : index
  %p1 = arith.subi %p, %c1 : index
  %new_l2 = tensor.extract_slice %fresh[0, 0] [%m, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %new_r2 = tensor.extract_slice %fresh[%m, 0] [%m, %d] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %new_l = tensor.expand_shape %new_l2 [[0, 1, 2], [3]]
      output_shape [%n, %kb, 1, %d]
      : tensor<?x?xf32> into tensor<?x?x1x?xf32>
  %new_r = tensor.expand_shape %new_r2 [[0, 1, 2], [3]]
      output_shape [%n, %kb, 1, %d]
      : tensor<?x?xf32> into tensor<?x?x1x?xf32>
  // rvnn.pair_merge over the pairs, selecting pair j of the first P - 1
  // (none when j = P - 1), moves the pairs right of j one to the left.
  %sel_r = tensor.extract_slice %sel[0, 0, 0] [%n, %kb, %p1] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?x?xf32>
  %shifted = rvnn.pair_merge %cand, %new_r, %sel_r
      : (tensor<?x?x?x?xf32>, tensor<?x?x1x?xf32>, tensor<?x?x?xf32>)
      -> tensor<?x?x?x?xf32>
  %sel_l = tensor.extract_slice %sel[0, 0, 1] [%n, %kb, %p1] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?x?xf32>
  %sel_l4 = tensor.expand_shape %sel_l [[0], [1], [2, 3]]
      output_shape [%n, %kb, %p1, 1]
      : tensor<?x?x?xf32> into tensor<?x?x?x1xf32>
  %new_lb = rvnn.broadcast_like %new_l, %shifted
      : (tensor<?x?x1x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %merged = rvnn.gate %sel_l4, %new_lb, %shifted
      : (tensor<?x?x?x1xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>)
      -> tensor<?x?x?x?xf32>
  %kept = tensor.extract_slice %cand[0, 0, 0, 0] [%n, %kb, %p1, %d]
      [1, 1, 1, 1] : tensor<?x?x?x?xf32> to tensor<?x?x?x?xf32>
  %not_done4 = tensor.expand_shape %not_done [[0], [1, 2, 3]]
      output_shape [%n, 1, 1, 1] : tensor<?x1xf32> into tensor<?x1x1x1xf32>
  %next = rvnn.gate %not_done4, %merged, %kept
      : (tensor<?x1x1x1xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>)
      -> tensor<?x?x?x?xf32>
  return %next : tensor<?x?x?x?xf32>
}
