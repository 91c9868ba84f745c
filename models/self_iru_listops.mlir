// Self-IRU for ListOps (Zhang et al., "Self-Instantiated Recurrent Units
// with Dynamic Soft Recursion", NeurIPS 2021; model-specs §6, §7): the
// recurrence of models/self_iru.mlir, one left-to-right Self-IRU layer with
// LSTM base transforms (@self_iru_lstm_base) and maximum recursion depth
// L = 2 (@self_iru_cell, expanded by rvnn-expand-recursion; both in
// models/cells.mlir; see models/self_iru.mlir for the equations and the
// weight layouts), with the ListOps head of §7 on the state after each
// sequence's last real token.
//
// Hyperparameters: the Self-IRU paper has no ListOps run (its tasks are
// logical inference, sentiment, natural language inference, pixel-wise
// image classification, music and language modelling, tree traversal and
// semantic parsing), so the unit keeps the logical-inference version's L = 2
// and LSTM base transforms (the paper's Table 7) and sizes and training
// follow the GRC models' §8 ListOps settings: D = embedding = hidden = 128
// (the residual h = o⊙c + x needs embedding = hidden), dropout 0.1 on the
// embeddings and in the head (§8's cell dropout belongs to the GRC cell; the
// unit has none, as in the logical-inference version), RAdam + Lookahead
// (k 5, α 0.8), lr 1e-3, weight decay 1e-2, batch 128, clip 1,
// ReduceLROnPlateau ×0.5 patience 2, early stopping patience 4, 100 epochs.
// Linears of the unit use nn.Linear's initialisation U(±1/sqrt(fan_in))
// (LSTMCell's for the base transforms); the head as the other ListOps
// models (Xavier, zero biases).
// Encoding: the state after the last real token (padded steps keep the
// state), as the recurrent ListOps baselines use, not a pooled mean.
// Vocabulary: 16 ids (0 pad, ListOps' digits and operators); labels 0-9.
// Inputs: token ids and a float mask [N, S].

rvnn.param @embedding : tensor<16x128xf32> init normal(1.0)
rvnn.param @base_ih_w : tensor<4608x128xf32> init uniform(0.08838835)
rvnn.param @base_ih_b : tensor<4608xf32> init uniform(0.08838835)
rvnn.param @base_hh_w : tensor<4608x128xf32> init uniform(0.08838835)
rvnn.param @base_hh_b : tensor<4608xf32> init uniform(0.08838835)
rvnn.param @depth_w : tensor<6x128xf32> init uniform(0.08838835)
rvnn.param @depth_b : tensor<6xf32> init uniform(0.08838835)
rvnn.param @head_w1 : tensor<128x128xf32> init xavier_uniform
rvnn.param @head_b1 : tensor<128xf32> init zeros
rvnn.param @head_w2 : tensor<10x128xf32> init xavier_uniform
rvnn.param @head_b2 : tensor<10xf32> init zeros

// Shared cells (models/cells.mlir).
func.func private @self_iru_cell(index, index, tensor<?x?xf32>,
                                 tensor<?x?xf32>, tensor<?x?xf32>,
                                 tensor<?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>)
func.func private @self_iru_lstm_base(tensor<?x?xf32>, tensor<?x?xf32>,
                                      tensor<?x?xf32>, tensor<?x?xf32>,
                                      tensor<?xf32>, tensor<?x?xf32>,
                                      tensor<?xf32>) -> tensor<?x?xf32>

func.func @forward(%tokens: tensor<?x?xi64>, %mask: tensor<?x?xf32>)
    -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // The maximum recursion depth L.
  %depth = arith.constant 2 : index
  %n = tensor.dim %tokens, %c0 : tensor<?x?xi64>
  %s = tensor.dim %tokens, %c1 : tensor<?x?xi64>

  // Inputs: embedding·mask, dropout 0.1.
  %table = rvnn.param_get @embedding : tensor<16x128xf32>
  %emb = rvnn.embedding %table, %tokens
      : (tensor<16x128xf32>, tensor<?x?xi64>) -> tensor<?x?x128xf32>
  %mask3 = tensor.expand_shape %mask [[0], [1, 2]] output_shape [%n, %s, 1]
      : tensor<?x?xf32> into tensor<?x?x1xf32>
  %maskE = rvnn.broadcast_like %mask3, %emb
      : (tensor<?x?x1xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %masked = arith.mulf %emb, %maskE : tensor<?x?x128xf32>
  %x = rvnn.dropout %masked {rate = 1.000000e-01 : f64}
      : tensor<?x?x128xf32>

  %ih_w_s = rvnn.param_get @base_ih_w : tensor<4608x128xf32>
  %ih_w = tensor.cast %ih_w_s : tensor<4608x128xf32> to tensor<?x?xf32>
  %ih_b_s = rvnn.param_get @base_ih_b : tensor<4608xf32>
  %ih_b = tensor.cast %ih_b_s : tensor<4608xf32> to tensor<?xf32>
  %hh_w_s = rvnn.param_get @base_hh_w : tensor<4608x128xf32>
  %hh_w = tensor.cast %hh_w_s : tensor<4608x128xf32> to tensor<?x?xf32>
  %hh_b_s = rvnn.param_get @base_hh_b : tensor<4608xf32>
  %hh_b = tensor.cast %hh_b_s : tensor<4608xf32> to tensor<?xf32>
  %depth_w = rvnn.param_get @depth_w : tensor<6x128xf32>
  %depth_b = rvnn.param_get @depth_b : tensor<6xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %state_shape = tensor.empty(%n) : tensor<?x128xf32>
  %h0 = rvnn.broadcast_like %zero, %state_shape
      : (tensor<f32>, tensor<?x128xf32>) -> tensor<?x128xf32>

  // The recurrence over t = 0 .. S-1, state (h, c), both [N, D]; padded
  // steps keep the state, so h ends as the state at the last real token.
  %final:2 = rvnn.recurse (%h = %h0, %c = %h0)
      : tensor<?x128xf32>, tensor<?x128xf32> halting <none> max_steps %s {
  ^bb0(%t: index, %h: tensor<?x128xf32>, %c: tensor<?x128xf32>):
    %x_t = tensor.extract_slice %x[0, %t, 0] [%n, 1, 128] [1, 1, 1]
        : tensor<?x?x128xf32> to tensor<?x128xf32>
    %m_t = tensor.extract_slice %mask[0, %t] [%n, 1] [1, 1]
        : tensor<?x?xf32> to tensor<?x1xf32>

    // The 9 LSTM base transforms F_⋆^(l), one LSTM step each.
    %xd = tensor.cast %x_t : tensor<?x128xf32> to tensor<?x?xf32>
    %hd = tensor.cast %h : tensor<?x128xf32> to tensor<?x?xf32>
    %cd = tensor.cast %c : tensor<?x128xf32> to tensor<?x?xf32>
    %based = func.call @self_iru_lstm_base(%xd, %hd, %cd, %ih_w, %ih_b, %hh_w,
                                           %hh_b)
        : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
           tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>

    // Soft depth gates of the 3 recursion nodes with children.
    %d_in = rvnn.linear %x_t, %depth_w, %depth_b
        : (tensor<?x128xf32>, tensor<6x128xf32>, tensor<6xf32>)
        -> tensor<?x6xf32>
    %gates = rvnn.sigmoid %d_in : tensor<?x6xf32>

    // The unit at depth L, root node 0.
    %gatesd = tensor.cast %gates : tensor<?x6xf32> to tensor<?x?xf32>
    %next:2 = func.call @self_iru_cell(%depth, %c0, %based, %gatesd, %xd, %cd)
        : (index, index, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
           tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
    %h_new = tensor.cast %next#0 : tensor<?x?xf32> to tensor<?x128xf32>
    %c_new = tensor.cast %next#1 : tensor<?x?xf32> to tensor<?x128xf32>
    %h_kept = rvnn.gate %m_t, %h_new, %h
        : (tensor<?x1xf32>, tensor<?x128xf32>, tensor<?x128xf32>)
        -> tensor<?x128xf32>
    %c_kept = rvnn.gate %m_t, %c_new, %c
        : (tensor<?x1xf32>, tensor<?x128xf32>, tensor<?x128xf32>)
        -> tensor<?x128xf32>
    rvnn.yield %h_kept, %c_kept : tensor<?x128xf32>, tensor<?x128xf32>
  }

  // The ListOps head (§7): dropout -> Linear(D, D) -> GELU -> dropout ->
  // Linear(D, 10).
  %head_w1 = rvnn.param_get @head_w1 : tensor<128x128xf32>
  %head_b1 = rvnn.param_get @head_b1 : tensor<128xf32>
  %head_w2 = rvnn.param_get @head_w2 : tensor<10x128xf32>
  %head_b2 = rvnn.param_get @head_b2 : tensor<10xf32>
  %f0 = rvnn.dropout %final#0 {rate = 1.000000e-01 : f64} : tensor<?x128xf32>
  %f1 = rvnn.linear %f0, %head_w1, %head_b1
      : (tensor<?x128xf32>, tensor<128x128xf32>, tensor<128xf32>)
      -> tensor<?x128xf32>
  %f2 = rvnn.gelu %f1 : tensor<?x128xf32>
  %f3 = rvnn.dropout %f2 {rate = 1.000000e-01 : f64} : tensor<?x128xf32>
  %logits = rvnn.linear %f3, %head_w2, %head_b2
      : (tensor<?x128xf32>, tensor<10x128xf32>, tensor<10xf32>)
      -> tensor<?x10xf32>
  return %logits : tensor<?x10xf32>
}
