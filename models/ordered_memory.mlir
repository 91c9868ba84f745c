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
// slot a step (M_t, M̂_t and cp are concatenated slot by slot).
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

func.func private @om_cell(tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
                           tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>,
                           tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>

// The attention over slots: x [N, D], memory output mo [N, n, D], the
// previous step's cumulative attention cp [N, n] -> p [N, n].
func.func private @om_attention(%x: tensor<?x?xf32>, %mo: tensor<?x?x?xf32>,
                        %cp: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %mo, %c0 : tensor<?x?x?xf32>
  %slots = tensor.dim %mo, %c1 : tensor<?x?x?xf32>
  %d = tensor.dim %x, %c1 : tensor<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %floor = arith.constant dense<1.000000e-05> : tensor<f32>
  %inv_sqrt_d = arith.constant dense<0.0883883461> : tensor<f32>
  %q_w = rvnn.param_get @q_w : tensor<128x128xf32>
  %q_b = rvnn.param_get @q_b : tensor<128xf32>
  %q_gamma = rvnn.param_get @q_gamma : tensor<128xf32>
  %q_beta = rvnn.param_get @q_beta : tensor<128xf32>
  %k_w = rvnn.param_get @k_w : tensor<128x128xf32>
  %k_b = rvnn.param_get @k_b : tensor<128xf32>
  %k_gamma = rvnn.param_get @k_gamma : tensor<128xf32>
  %k_beta = rvnn.param_get @k_beta : tensor<128xf32>
  %score_w = rvnn.param_get @score_w : tensor<1x128xf32>
  %xs = tensor.cast %x : tensor<?x?xf32> to tensor<?x128xf32>
  %mos = tensor.cast %mo : tensor<?x?x?xf32> to tensor<?x?x128xf32>
  %xd = rvnn.dropout %xs {rate = 3.000000e-01 : f64} : tensor<?x128xf32>
  %q0 = rvnn.linear %xd, %q_w, %q_b
      : (tensor<?x128xf32>, tensor<128x128xf32>, tensor<128xf32>)
      -> tensor<?x128xf32>
  %q = rvnn.layer_norm %q0, %q_gamma, %q_beta
      : (tensor<?x128xf32>, tensor<128xf32>, tensor<128xf32>)
      -> tensor<?x128xf32>
  %mod = rvnn.dropout %mos {rate = 3.000000e-01 : f64} : tensor<?x?x128xf32>
  %k0 = rvnn.linear %mod, %k_w, %k_b
      : (tensor<?x?x128xf32>, tensor<128x128xf32>, tensor<128xf32>)
      -> tensor<?x?x128xf32>
  %k = rvnn.layer_norm %k0, %k_gamma, %k_beta
      : (tensor<?x?x128xf32>, tensor<128xf32>, tensor<128xf32>)
      -> tensor<?x?x128xf32>
  %q3 = tensor.expand_shape %q [[0, 1], [2]] output_shape [%n, 1, 128]
      : tensor<?x128xf32> into tensor<?x1x128xf32>
  %qb = rvnn.broadcast_like %q3, %k
      : (tensor<?x1x128xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %qk = arith.addf %qb, %k : tensor<?x?x128xf32>
  %r = rvnn.relu %qk : tensor<?x?x128xf32>
  %rd = rvnn.dropout %r {rate = 3.000000e-01 : f64} : tensor<?x?x128xf32>
  %s3 = rvnn.linear %rd, %score_w
      : (tensor<?x?x128xf32>, tensor<1x128xf32>) -> tensor<?x?x1xf32>
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
func.func private @om_slot(%i: index, %x: tensor<?x?xf32>, %mem: tensor<?x?x?xf32>,
                   %mo: tensor<?x?x?xf32>, %p: tensor<?x?xf32>,
                   %cprev: tensor<?x1xf32>, %h: tensor<?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %mem, %c0 : tensor<?x?x?xf32>
  %d = tensor.dim %mem, %c2 : tensor<?x?x?xf32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %w1 = rvnn.param_get @cell_w1 : tensor<512x256xf32>
  %b1 = rvnn.param_get @cell_b1 : tensor<512xf32>
  %w2 = rvnn.param_get @cell_w2 : tensor<512x512xf32>
  %b2 = rvnn.param_get @cell_b2 : tensor<512xf32>
  %gamma = rvnn.param_get @ln_gamma : tensor<128xf32>
  %beta = rvnn.param_get @ln_beta : tensor<128xf32>
  %w1d = tensor.cast %w1 : tensor<512x256xf32> to tensor<?x?xf32>
  %b1d = tensor.cast %b1 : tensor<512xf32> to tensor<?xf32>
  %w2d = tensor.cast %w2 : tensor<512x512xf32> to tensor<?x?xf32>
  %b2d = tensor.cast %b2 : tensor<512xf32> to tensor<?xf32>
  %gammad = tensor.cast %gamma : tensor<128xf32> to tensor<?xf32>
  %betad = tensor.cast %beta : tensor<128xf32> to tensor<?xf32>
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
  %composed = func.call @om_cell(%h, %cur, %w1d, %b1d, %w2d, %b2d, %gammad,
                                 %betad)
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
         tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
      -> tensor<?x?xf32>
  %h_i = rvnn.gate %cp_i, %composed, %x
      : (tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %h_i, %cp_i, %cur : tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>
}

// One token step t >= 1: (M_{t-1}, M̂_{t-1}, cp_{t-1}) -> (M_t, M̂_t, cp_t);
// a padded step keeps the state.
func.func private @om_step(%xs: tensor<?x?x?xf32>, %mask: tensor<?x?xf32>, %t: index,
                   %mem: tensor<?x?x?xf32>, %mo: tensor<?x?x?xf32>,
                   %cp: tensor<?x?xf32>)
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
  %p = func.call @om_attention(%x, %mo, %cp)
      : (tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>)
      -> tensor<?x?xf32>
  // Slot 0, then slots 1 .. n-1 in an inner loop.
  %shapeN1 = tensor.empty(%n) : tensor<?x1xf32>
  %zerosN1 = rvnn.broadcast_like %zero, %shapeN1
      : (tensor<f32>, tensor<?x1xf32>) -> tensor<?x1xf32>
  %s0:3 = func.call @om_slot(%c0, %x, %mem, %mo, %p, %zerosN1, %x)
      : (index, tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>,
         tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>)
      -> (tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>)
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
    %s:3 = func.call @om_slot(%i, %x, %mem, %mo, %p, %c, %h)
        : (index, tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>,
           tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>)
        -> (tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>)
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
    %next:3 = func.call @om_step(%xd, %mask, %t, %memd, %mod, %cpd)
        : (tensor<?x?x?xf32>, tensor<?x?xf32>, index, tensor<?x?x?xf32>,
           tensor<?x?x?xf32>, tensor<?x?xf32>)
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
