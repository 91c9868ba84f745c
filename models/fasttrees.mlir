// FastTrees for logical inference (Pung and Chan, "FastTrees: Parallel
// Latent Tree-Induction for Faster Sequence Encoding"; model-specs §6): the
// ON-LSTM of models/on_lstm.mlir with master gates that read x_t only, so
// tree induction needs no recurrence:
//   G_t = W_ih·x_t + b_ih                                      [2N, 4H + 2n]
//   master = G_t[:, :2n], gates = G_t[:, 2n:] + W_hh·h_{t-1} + b_hh
//   (h_t, c_t) = @ordered_neurons_cell(master, gates, c_{t-1})  (models/cells.mlir)
// The step is @fasttrees_step (models/cells.mlir), shared with the ListOps
// version models/fasttrees_listops.mlir.
// The model is written as a plain recurrence; rvnn-hoist-step-invariant finds
// that the master gates (the linear, the cumax and the chunk expansion) do
// not read the state and computes them for all time steps before the loop.
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
rvnn.param @ih_w : tensor<1680x128xf32> init uniform(0.08838835)
rvnn.param @ih_b : tensor<1680xf32> init uniform(0.08838835)
rvnn.param @hh_w : tensor<1600x400xf32> init uniform(0.05000000)
rvnn.param @hh_b : tensor<1600xf32> init uniform(0.05000000)
rvnn.param @head_w1 : tensor<400x1600xf32> init xavier_uniform
rvnn.param @head_b1 : tensor<400xf32> init zeros
rvnn.param @head_w2 : tensor<7x400xf32> init xavier_uniform
rvnn.param @head_b2 : tensor<7xf32> init zeros

// The shared cells (models/cells.mlir).
func.func private @fasttrees_step(tensor<?x?x?xf32>, tensor<?x?xf32>, index,
                                  tensor<?x?xf32>, tensor<?x?xf32>,
                                  tensor<?x?xf32>, tensor<?xf32>,
                                  tensor<?x?xf32>, tensor<?xf32>)
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
  %ih_w_s = rvnn.param_get @ih_w : tensor<1680x128xf32>
  %ih_w = tensor.cast %ih_w_s : tensor<1680x128xf32> to tensor<?x?xf32>
  %ih_b_s = rvnn.param_get @ih_b : tensor<1680xf32>
  %ih_b = tensor.cast %ih_b_s : tensor<1680xf32> to tensor<?xf32>
  %hh_w_s = rvnn.param_get @hh_w : tensor<1600x400xf32>
  %hh_w = tensor.cast %hh_w_s : tensor<1600x400xf32> to tensor<?x?xf32>
  %hh_b_s = rvnn.param_get @hh_b : tensor<1600xf32>
  %hh_b = tensor.cast %hh_b_s : tensor<1600xf32> to tensor<?xf32>
  %state_shape = tensor.empty(%n2) : tensor<?x400xf32>
  %h0 = rvnn.broadcast_like %zero, %state_shape
      : (tensor<f32>, tensor<?x400xf32>) -> tensor<?x400xf32>

  // The recurrence over t = 0 .. S-1, state (h, c), both [2N, H]; one step
  // is @fasttrees_step (models/cells.mlir).
  %final:2 = rvnn.recurse (%h = %h0, %c = %h0)
      : tensor<?x400xf32>, tensor<?x400xf32> halting <none> max_steps %s {
  ^bb0(%t: index, %h: tensor<?x400xf32>, %c: tensor<?x400xf32>):
    %hd = tensor.cast %h : tensor<?x400xf32> to tensor<?x?xf32>
    %cd = tensor.cast %c : tensor<?x400xf32> to tensor<?x?xf32>
    %next:2 = func.call @fasttrees_step(%xd, %mask, %t, %hd, %cd, %ih_w, %ih_b,
                                        %hh_w, %hh_b)
        : (tensor<?x?x?xf32>, tensor<?x?xf32>, index, tensor<?x?xf32>,
           tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>,
           tensor<?xf32>)
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
