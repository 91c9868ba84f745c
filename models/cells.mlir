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
