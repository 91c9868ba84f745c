// Ordered Memory for ListOps (Shen, Tan, Hosseini, Lin, Sordoni, Courville,
// "Ordered Memory", NeurIPS 2019; equations from the paper's §3 as its
// public code computes them). A memory of n = 21 slots of D = 128; per input
// token x_t (after the first):
//   q = LN_q(W_q·x_t + b_q), k_i = LN_k(W_k·M̂_{t-1,i} + b_k)
//   β_i = w_β·ReLU(q + k_i) / sqrt(D)    (the code's bias b_β is dropped:
//                                         p is invariant to it)
//   m_i = cp_{t-1,i+1} if that is >= 1e-5 else 0 (i < n-1), m_{n-1} = 1
//   p = softmax(β)⊙m / Σ(softmax(β)⊙m)          (attention over slots)
//   cp_i = Σ_{j<=i} p_j, rcp_i = Σ_{j>=i} p_j = 1 - cp_{i-1}
//   M_{t,i} = (1 - rcp_i)·M_{t-1,i} + rcp_i·M̂_{t-1,i}
//   h_{-1} = x_t; for i = 0 .. n-1:
//     h_i = (1 - cp_i)·x_t + cp_i·Cell(h_{i-1}, M_{t,i}),  M̂_{t,i} = h_i
// Cell: models/cells.mlir @om_cell (the paper's gated recursive cell, ReLU).
// The first token has no previous attention (the code's prev_p = None):
// cp = 0, rcp = 1, so M_0 = 0 and every M̂_{0,i} = x_0, written before the
// loop, which runs t = 1 .. S-1; the following step's mask allows the last
// slot only. The slot loop is an inner rvnn.recurse whose state grows by one
// slot a step (M_t, M̂_t and cp are concatenated slot by slot). One token
// step is @om_step (models/cells.mlir, with @om_attention, @om_slot and
// @om_cell), shared with the logical-inference version
// models/ordered_memory_logic.mlir.
// Encoding: M̂_{t,n-1} (the top of the composed stack) after each
// sequence's last real token (padded steps keep the state).
// x_t = LN(W_in·drop(emb·mask) + b_in); that LayerNorm's parameters are the
// cell's LayerNorm too (the code shares one module).
// Hyperparameters (the authors' ListOps script): 21 slots, embedding =
// hidden = 128, dropout 0.1 on the input and in the cell, 0.3 in the
// attention (before W_q, W_k and w_β). Head and training: §7/§8 ListOps
// (Linear(D, D) -> GELU -> Linear(D, 10), dropout 0.1, RAdam + Lookahead).
// Linear layers use nn.Linear's U(±1/sqrt(fan_in)); LayerNorms (1, 0).
// Vocabulary: 16 ids (0 pad); labels 0-9. Inputs: token ids, mask [N, S].

rvnn.param @embedding : tensor<16x128xf32> init normal(1.0)
rvnn.param @in_w : tensor<128x128xf32> init uniform(0.08838835)
rvnn.param @in_b : tensor<128xf32> init uniform(0.08838835)
rvnn.param @ln_gamma : tensor<128xf32> init ones
rvnn.param @ln_beta : tensor<128xf32> init zeros
rvnn.param @q_w : tensor<128x128xf32> init uniform(0.08838835)
rvnn.param @q_b : tensor<128xf32> init uniform(0.08838835)
rvnn.param @q_gamma : tensor<128xf32> init ones
rvnn.param @q_beta : tensor<128xf32> init zeros
rvnn.param @k_w : tensor<128x128xf32> init uniform(0.08838835)
rvnn.param @k_b : tensor<128xf32> init uniform(0.08838835)
rvnn.param @k_gamma : tensor<128xf32> init ones
rvnn.param @k_beta : tensor<128xf32> init zeros
rvnn.param @score_w : tensor<1x128xf32> init uniform(0.08838835)
rvnn.param @cell_w1 : tensor<512x256xf32> init uniform(0.0625)
rvnn.param @cell_b1 : tensor<512xf32> init uniform(0.0625)
rvnn.param @cell_w2 : tensor<512x512xf32> init uniform(0.044194174)
rvnn.param @cell_b2 : tensor<512xf32> init uniform(0.044194174)
rvnn.param @head_w1 : tensor<128x128xf32> init xavier_uniform
rvnn.param @head_b1 : tensor<128xf32> init zeros
rvnn.param @head_w2 : tensor<10x128xf32> init xavier_uniform
rvnn.param @head_b2 : tensor<10xf32> init zeros

// The token step (models/cells.mlir), shared with the logical-inference
// version models/ordered_memory_logic.mlir.
func.func private @om_step(tensor<?x?x?xf32>, tensor<?x?xf32>, index,
                           tensor<?x?x?xf32>, tensor<?x?x?xf32>,
                           tensor<?x?xf32>, tensor<f32>, tensor<?x?xf32>,
                           tensor<?xf32>, tensor<?xf32>, tensor<?xf32>,
                           tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>,
                           tensor<?xf32>, tensor<1x?xf32>, tensor<?x?xf32>,
                           tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>,
                           tensor<?xf32>, tensor<?xf32>)
    -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>)

func.func @forward(%tokens: tensor<?x?xi64>, %mask: tensor<?x?xf32>)
    -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %tokens, %c0 : tensor<?x?xi64>
  %s = tensor.dim %tokens, %c1 : tensor<?x?xi64>
  %zero = arith.constant dense<0.0> : tensor<f32>

  // Inputs: x_t = LN(W_in·drop(emb·mask) + b_in).
  %table = rvnn.param_get @embedding : tensor<16x128xf32>
  %emb = rvnn.embedding %table, %tokens
      : (tensor<16x128xf32>, tensor<?x?xi64>) -> tensor<?x?x128xf32>
  %mask3 = tensor.expand_shape %mask [[0], [1, 2]] output_shape [%n, %s, 1]
      : tensor<?x?xf32> into tensor<?x?x1xf32>
  %maskE = rvnn.broadcast_like %mask3, %emb
      : (tensor<?x?x1xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %masked = arith.mulf %emb, %maskE : tensor<?x?x128xf32>
  %xdrop = rvnn.dropout %masked {rate = 1.000000e-01 : f64}
      : tensor<?x?x128xf32>
  %in_w = rvnn.param_get @in_w : tensor<128x128xf32>
  %in_b = rvnn.param_get @in_b : tensor<128xf32>
  %gamma = rvnn.param_get @ln_gamma : tensor<128xf32>
  %beta = rvnn.param_get @ln_beta : tensor<128xf32>
  %proj = rvnn.linear %xdrop, %in_w, %in_b
      : (tensor<?x?x128xf32>, tensor<128x128xf32>, tensor<128xf32>)
      -> tensor<?x?x128xf32>
  %x = rvnn.layer_norm %proj, %gamma, %beta
      : (tensor<?x?x128xf32>, tensor<128xf32>, tensor<128xf32>)
      -> tensor<?x?x128xf32>
  %xd = tensor.cast %x : tensor<?x?x128xf32> to tensor<?x?x?xf32>

  // The first token: M_0 = 0, every slot output x_0, cp_0 = 0.
  %x0 = tensor.extract_slice %x[0, 0, 0] [%n, 1, 128] [1, 1, 1]
      : tensor<?x?x128xf32> to tensor<?x1x128xf32>
  %mem_shape = tensor.empty(%n) : tensor<?x21x128xf32>
  %mem0 = rvnn.broadcast_like %zero, %mem_shape
      : (tensor<f32>, tensor<?x21x128xf32>) -> tensor<?x21x128xf32>
  %mo0 = rvnn.broadcast_like %x0, %mem_shape
      : (tensor<?x1x128xf32>, tensor<?x21x128xf32>) -> tensor<?x21x128xf32>
  %cp_shape = tensor.empty(%n) : tensor<?x21xf32>
  %cp0 = rvnn.broadcast_like %zero, %cp_shape
      : (tensor<f32>, tensor<?x21xf32>) -> tensor<?x21xf32>

  // The step's weights, cast to the shared cells' dynamic shapes.
  %inv_sqrt_d = arith.constant dense<0.0883883461> : tensor<f32>
  %q_w_s = rvnn.param_get @q_w : tensor<128x128xf32>
  %q_w = tensor.cast %q_w_s : tensor<128x128xf32> to tensor<?x?xf32>
  %q_b_s = rvnn.param_get @q_b : tensor<128xf32>
  %q_b = tensor.cast %q_b_s : tensor<128xf32> to tensor<?xf32>
  %q_gamma_s = rvnn.param_get @q_gamma : tensor<128xf32>
  %q_gamma = tensor.cast %q_gamma_s : tensor<128xf32> to tensor<?xf32>
  %q_beta_s = rvnn.param_get @q_beta : tensor<128xf32>
  %q_beta = tensor.cast %q_beta_s : tensor<128xf32> to tensor<?xf32>
  %k_w_s = rvnn.param_get @k_w : tensor<128x128xf32>
  %k_w = tensor.cast %k_w_s : tensor<128x128xf32> to tensor<?x?xf32>
  %k_b_s = rvnn.param_get @k_b : tensor<128xf32>
  %k_b = tensor.cast %k_b_s : tensor<128xf32> to tensor<?xf32>
  %k_gamma_s = rvnn.param_get @k_gamma : tensor<128xf32>
  %k_gamma = tensor.cast %k_gamma_s : tensor<128xf32> to tensor<?xf32>
  %k_beta_s = rvnn.param_get @k_beta : tensor<128xf32>
  %k_beta = tensor.cast %k_beta_s : tensor<128xf32> to tensor<?xf32>
  %score_w_s = rvnn.param_get @score_w : tensor<1x128xf32>
  %score_w = tensor.cast %score_w_s : tensor<1x128xf32> to tensor<1x?xf32>
  %w1_s = rvnn.param_get @cell_w1 : tensor<512x256xf32>
  %w1 = tensor.cast %w1_s : tensor<512x256xf32> to tensor<?x?xf32>
  %b1_s = rvnn.param_get @cell_b1 : tensor<512xf32>
  %b1 = tensor.cast %b1_s : tensor<512xf32> to tensor<?xf32>
  %w2_s = rvnn.param_get @cell_w2 : tensor<512x512xf32>
  %w2 = tensor.cast %w2_s : tensor<512x512xf32> to tensor<?x?xf32>
  %b2_s = rvnn.param_get @cell_b2 : tensor<512xf32>
  %b2 = tensor.cast %b2_s : tensor<512xf32> to tensor<?xf32>
  %gammad = tensor.cast %gamma : tensor<128xf32> to tensor<?xf32>
  %betad = tensor.cast %beta : tensor<128xf32> to tensor<?xf32>

  // Tokens 1 .. S-1.
  %steps = arith.subi %s, %c1 : index
  %final:3 = rvnn.recurse (%mem = %mem0, %mo = %mo0, %cp = %cp0)
      : tensor<?x21x128xf32>, tensor<?x21x128xf32>, tensor<?x21xf32>
      halting <none> max_steps %steps {
  ^bb0(%j: index, %mem: tensor<?x21x128xf32>, %mo: tensor<?x21x128xf32>,
       %cp: tensor<?x21xf32>):
    %t = arith.addi %j, %c1 : index
    %memd = tensor.cast %mem : tensor<?x21x128xf32> to tensor<?x?x?xf32>
    %mod = tensor.cast %mo : tensor<?x21x128xf32> to tensor<?x?x?xf32>
    %cpd = tensor.cast %cp : tensor<?x21xf32> to tensor<?x?xf32>
    %next:3 = func.call @om_step(%xd, %mask, %t, %memd, %mod, %cpd,
                                 %inv_sqrt_d, %q_w, %q_b, %q_gamma, %q_beta,
                                 %k_w, %k_b, %k_gamma, %k_beta, %score_w,
                                 %w1, %b1, %w2, %b2, %gammad, %betad)
        : (tensor<?x?x?xf32>, tensor<?x?xf32>, index, tensor<?x?x?xf32>,
           tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<f32>, tensor<?x?xf32>,
           tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>,
           tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<1x?xf32>,
           tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>,
           tensor<?xf32>, tensor<?xf32>)
        -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>)
    %mem_n = tensor.cast %next#0 : tensor<?x?x?xf32> to tensor<?x21x128xf32>
    %mo_n = tensor.cast %next#1 : tensor<?x?x?xf32> to tensor<?x21x128xf32>
    %cp_n = tensor.cast %next#2 : tensor<?x?xf32> to tensor<?x21xf32>
    rvnn.yield %mem_n, %mo_n, %cp_n
        : tensor<?x21x128xf32>, tensor<?x21x128xf32>, tensor<?x21xf32>
  }

  // The top slot's output after the last real token.
  %top3 = tensor.extract_slice %final#1[0, 20, 0] [%n, 1, 128] [1, 1, 1]
      : tensor<?x21x128xf32> to tensor<?x1x128xf32>
  %top = tensor.collapse_shape %top3 [[0], [1, 2]]
      : tensor<?x1x128xf32> into tensor<?x128xf32>

  // The ListOps head (§7): dropout -> Linear(D, D) -> GELU -> dropout ->
  // Linear(D, 10).
  %head_w1 = rvnn.param_get @head_w1 : tensor<128x128xf32>
  %head_b1 = rvnn.param_get @head_b1 : tensor<128xf32>
  %head_w2 = rvnn.param_get @head_w2 : tensor<10x128xf32>
  %head_b2 = rvnn.param_get @head_b2 : tensor<10xf32>
  %f0 = rvnn.dropout %top {rate = 1.000000e-01 : f64} : tensor<?x128xf32>
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
