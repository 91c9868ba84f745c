// Conv FastTrees for logical inference (Pung and Chan, "FastTrees", §3.1;
// model-specs §6): FastTrees with master gates from a causal convolution
// over the sequence followed by a position-wise layer:
//   C = CausalConv(x)   (kernel K = 3, 128 channels: C_t reads x_{t-K+1}..x_t,
//                        zeros before the sequence)               [2N, S, 128]
//   M = W_m·C + b_m                                               [2N, S, 2n]
//   G_t = W_ih·x_t + b_ih + W_hh·h_{t-1} + b_hh                   [2N, 4H]
//   (h_t, c_t) = @ordered_neurons_cell(M_t, G_t, c_{t-1})  (models/cells.mlir)
// The master gates and the step are @causal_conv_master and
// @conv_fasttrees_step (models/cells.mlir), shared with the ListOps version
// models/conv_fasttrees_listops.mlir.
// The convolution is written as one linear over the K shifted copies of the
// sequence side by side: conv_w[c, j·128 + e] is the weight of x_{t-K+1+j}[e].
// rvnn-hoist-step-invariant computes the master gates' cumax, the chunk
// expansion and the input projection for all steps before the loop. The
// paper gives no kernel size; K = 3 here.
// Padded steps (mask 0) keep the state: h_t = m_t⊙h'_t + (1 - m_t)⊙h_{t-1},
// likewise c_t, so after the last step h is the state at each sentence's last
// real token. The sentence-pair head (§7) classifies the two encodings.
// Hyperparameters (FastTrees paper, logical inference): embedding 128, hidden
// H = 400, dropout 0.2 between layers (on the embeddings and in the head);
// chunk size 10 (n = H / chunk = 40 master gates, the ON-LSTM code's
// default). Linear weights and biases use PyTorch's nn.Linear initialisation
// U(-1/sqrt(fan_in), 1/sqrt(fan_in)). The ON-LSTM code's DropConnect on W_hh
// is not used. The paper gives no optimiser, learning rate, batch size or
// schedule for logical inference: the run configuration uses the GRC models'
// §8 logical-inference settings (RAdam + Lookahead k 5 α 0.8, lr 1e-3, weight
// decay 1e-2, batch 128, clip 1, ReduceLROnPlateau ×0.5 patience 2, early
// stopping patience 4). Vocabulary: 12 ids (0 pad, 1-6 a-f, 7 and, 8 or, 9 not,
// 10 (, 11 )). Labels: < > = ^ | # v -> 0..6. Inputs: token ids and float masks
// [N, S1] and [N, S2] for the two sentences.

rvnn.param @embedding : tensor<12x128xf32> init normal(1.0)
rvnn.param @conv_w : tensor<128x384xf32> init uniform(0.05103104)
rvnn.param @conv_b : tensor<128xf32> init uniform(0.05103104)
rvnn.param @master_w : tensor<80x128xf32> init uniform(0.08838835)
rvnn.param @master_b : tensor<80xf32> init uniform(0.08838835)
rvnn.param @ih_w : tensor<1600x128xf32> init uniform(0.08838835)
rvnn.param @ih_b : tensor<1600xf32> init uniform(0.08838835)
rvnn.param @hh_w : tensor<1600x400xf32> init uniform(0.05000000)
rvnn.param @hh_b : tensor<1600xf32> init uniform(0.05000000)
rvnn.param @head_w1 : tensor<400x1600xf32> init xavier_uniform
rvnn.param @head_b1 : tensor<400xf32> init zeros
rvnn.param @head_w2 : tensor<7x400xf32> init xavier_uniform
rvnn.param @head_b2 : tensor<7xf32> init zeros

// The shared cells (models/cells.mlir).
func.func private @causal_conv_master(tensor<?x?x?xf32>, tensor<?x?xf32>,
                                      tensor<?xf32>, tensor<?x?xf32>,
                                      tensor<?xf32>) -> tensor<?x?x?xf32>
func.func private @conv_fasttrees_step(tensor<?x?x?xf32>, tensor<?x?x?xf32>,
                                       tensor<?x?xf32>, index, tensor<?x?xf32>,
                                       tensor<?x?xf32>, tensor<?x?xf32>,
                                       tensor<?xf32>, tensor<?x?xf32>,
                                       tensor<?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>)

func.func @forward(%tokens1: tensor<?x?xi64>, %mask1: tensor<?x?xf32>,
                   %tokens2: tensor<?x?xi64>, %mask2: tensor<?x?xf32>)
    -> tensor<?x7xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %tokens1, %c0 : tensor<?x?xi64>
  %s1 = tensor.dim %tokens1, %c1 : tensor<?x?xi64>
  %s2 = tensor.dim %tokens2, %c1 : tensor<?x?xi64>

  // Siamese batch (§7): right-pad both sentences to S = max(S1, S2) (pad id
  // 0, mask 0) and stack them along the batch: [2N, S]. Padded steps keep
  // the state, so trailing padding does not change the encoding.
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
  %n2 = tensor.dim %tokens, %c0 : tensor<?x?xi64>

  // Inputs: embedding·mask, dropout 0.2.
  %table = rvnn.param_get @embedding : tensor<12x128xf32>
  %emb = rvnn.embedding %table, %tokens
      : (tensor<12x128xf32>, tensor<?x?xi64>) -> tensor<?x?x128xf32>
  %mask3 = tensor.expand_shape %mask [[0], [1, 2]] output_shape [%n2, %s, 1]
      : tensor<?x?xf32> into tensor<?x?x1xf32>
  %maskE = rvnn.broadcast_like %mask3, %emb
      : (tensor<?x?x1xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %masked = arith.mulf %emb, %maskE : tensor<?x?x128xf32>
  %x = rvnn.dropout %masked {rate = 2.000000e-01 : f64}
      : tensor<?x?x128xf32>

  %xd = tensor.cast %x : tensor<?x?x128xf32> to tensor<?x?x?xf32>
  %conv_w_s = rvnn.param_get @conv_w : tensor<128x384xf32>
  %conv_w = tensor.cast %conv_w_s : tensor<128x384xf32> to tensor<?x?xf32>
  %conv_b_s = rvnn.param_get @conv_b : tensor<128xf32>
  %conv_b = tensor.cast %conv_b_s : tensor<128xf32> to tensor<?xf32>
  %master_w_s = rvnn.param_get @master_w : tensor<80x128xf32>
  %master_w = tensor.cast %master_w_s : tensor<80x128xf32> to tensor<?x?xf32>
  %master_b_s = rvnn.param_get @master_b : tensor<80xf32>
  %master_b = tensor.cast %master_b_s : tensor<80xf32> to tensor<?xf32>
  %ih_w_s = rvnn.param_get @ih_w : tensor<1600x128xf32>
  %ih_w = tensor.cast %ih_w_s : tensor<1600x128xf32> to tensor<?x?xf32>
  %ih_b_s = rvnn.param_get @ih_b : tensor<1600xf32>
  %ih_b = tensor.cast %ih_b_s : tensor<1600xf32> to tensor<?xf32>
  %hh_w_s = rvnn.param_get @hh_w : tensor<1600x400xf32>
  %hh_w = tensor.cast %hh_w_s : tensor<1600x400xf32> to tensor<?x?xf32>
  %hh_b_s = rvnn.param_get @hh_b : tensor<1600xf32>
  %hh_b = tensor.cast %hh_b_s : tensor<1600xf32> to tensor<?xf32>
  // The master gates of all steps, before the loop.
  %master_seq = func.call @causal_conv_master(%xd, %conv_w, %conv_b,
                                              %master_w, %master_b)
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>,
         tensor<?xf32>) -> tensor<?x?x?xf32>
  %state_shape = tensor.empty(%n2) : tensor<?x400xf32>
  %h0 = rvnn.broadcast_like %zero, %state_shape
      : (tensor<f32>, tensor<?x400xf32>) -> tensor<?x400xf32>

  // The recurrence over t = 0 .. S-1, state (h, c), both [2N, H]; one step
  // is @conv_fasttrees_step (models/cells.mlir).
  %final:2 = rvnn.recurse (%h = %h0, %c = %h0)
      : tensor<?x400xf32>, tensor<?x400xf32> halting <none> max_steps %s {
  ^bb0(%t: index, %h: tensor<?x400xf32>, %c: tensor<?x400xf32>):
    %hd = tensor.cast %h : tensor<?x400xf32> to tensor<?x?xf32>
    %cd = tensor.cast %c : tensor<?x400xf32> to tensor<?x?xf32>
    %next:2 = func.call @conv_fasttrees_step(%xd, %master_seq, %mask, %t, %hd,
                                             %cd, %ih_w, %ih_b, %hh_w, %hh_b)
        : (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, index,
           tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
           tensor<?x?xf32>, tensor<?xf32>)
        -> (tensor<?x?xf32>, tensor<?x?xf32>)
    %h_next = tensor.cast %next#0 : tensor<?x?xf32> to tensor<?x400xf32>
    %c_next = tensor.cast %next#1 : tensor<?x?xf32> to tensor<?x400xf32>
    rvnn.yield %h_next, %c_next : tensor<?x400xf32>, tensor<?x400xf32>
  }

  // Split the encodings back into the two sentences: a = rows [0, N),
  // b = rows [N, 2N).
  %a = tensor.extract_slice %final#0[0, 0] [%n, 400] [1, 1]
      : tensor<?x400xf32> to tensor<?x400xf32>
  %b = tensor.extract_slice %final#0[%n, 0] [%n, 400] [1, 1]
      : tensor<?x400xf32> to tensor<?x400xf32>

  // Sentence-pair head (§7): [a; b; a⊙b; |a-b|] (4H) -> dropout ->
  // Linear(4H, H) -> GELU -> dropout -> Linear(H, 7).
  %prod = arith.mulf %a, %b : tensor<?x400xf32>
  %diff = arith.subf %a, %b : tensor<?x400xf32>
  %absdiff = math.absf %diff : tensor<?x400xf32>
  %features = tensor.concat dim(1) %a, %b, %prod, %absdiff
      : (tensor<?x400xf32>, tensor<?x400xf32>, tensor<?x400xf32>,
         tensor<?x400xf32>) -> tensor<?x1600xf32>
  %head_w1 = rvnn.param_get @head_w1 : tensor<400x1600xf32>
  %head_b1 = rvnn.param_get @head_b1 : tensor<400xf32>
  %head_w2 = rvnn.param_get @head_w2 : tensor<7x400xf32>
  %head_b2 = rvnn.param_get @head_b2 : tensor<7xf32>
  %f0 = rvnn.dropout %features {rate = 2.000000e-01 : f64} : tensor<?x1600xf32>
  %f1 = rvnn.linear %f0, %head_w1, %head_b1
      : (tensor<?x1600xf32>, tensor<400x1600xf32>, tensor<400xf32>)
      -> tensor<?x400xf32>
  %f2 = rvnn.gelu %f1 : tensor<?x400xf32>
  %f3 = rvnn.dropout %f2 {rate = 2.000000e-01 : f64} : tensor<?x400xf32>
  %logits = rvnn.linear %f3, %head_w2, %head_b2
      : (tensor<?x400xf32>, tensor<7x400xf32>, tensor<7xf32>)
      -> tensor<?x7xf32>
  return %logits : tensor<?x7xf32>
}
