// Self-IRU with linear base transforms for logical inference (Zhang et al.,
// "Self-Instantiated Recurrent Units with Dynamic Soft Recursion", NeurIPS
// 2021, §2.3; model-specs §6): models/self_iru.mlir with the paper's other
// base transform, a linear layer of the input only,
//   F_⋆^(l)(x_t) = W_⋆^(l)·x_t + b_⋆^(l)      for ⋆ ∈ {f, o, z}, l = 0..L,
// the K = 3(L+1) = 9 transforms one linear with rows [K, D] (cell
// k = 3l + (0 f, 1 o, 2 z), the layout @self_iru_cell reads). Everything
// else (the recursion @self_iru_cell expanded by rvnn-expand-recursion, the
// soft depth gates, the Siamese batch, the head) is self_iru's; see there.
// Since the base transforms and the depth gates read x_t only,
// rvnn-hoist-step-invariant computes them for all steps before the loop and
// the loop keeps the gate mixes and the cell update (QRNN-like).
//
// Hyperparameters: L = 2 as self_iru (the paper's Table 7 prefers LSTM base
// transforms for logical inference; this is its linear alternative, best
// for music modelling and semantic parsing); D = 200, dropout 0.4 on the
// embeddings and 0.1 in the head, from the GRC models' §8 logical-inference
// settings (the paper gives none). Linears use nn.Linear's initialisation
// U(±1/sqrt(fan_in)).
// Vocabulary: 12 ids (0 pad, 1-6 a-f, 7 and, 8 or, 9 not, 10 (, 11 )); labels <
// > = ^ | # v -> 0..6. Inputs: token ids and float masks [N, S1] and [N, S2].

rvnn.param @embedding : tensor<12x200xf32> init normal(1.0)
rvnn.param @base_w : tensor<1800x200xf32> init uniform(0.07071068)
rvnn.param @base_b : tensor<1800xf32> init uniform(0.07071068)
rvnn.param @depth_w : tensor<6x200xf32> init uniform(0.07071068)
rvnn.param @depth_b : tensor<6xf32> init uniform(0.07071068)
rvnn.param @head_w1 : tensor<200x800xf32> init xavier_uniform
rvnn.param @head_b1 : tensor<200xf32> init zeros
rvnn.param @head_w2 : tensor<7x200xf32> init xavier_uniform
rvnn.param @head_b2 : tensor<7xf32> init zeros

// Shared cells (models/cells.mlir).
func.func private @siamese_batch(tensor<?x?xi64>, tensor<?x?xf32>,
                                 tensor<?x?xi64>, tensor<?x?xf32>)
    -> (tensor<?x?xi64>, tensor<?x?xf32>)
func.func private @self_iru_cell(index, index, tensor<?x?xf32>,
                                 tensor<?x?xf32>, tensor<?x?xf32>,
                                 tensor<?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>)
func.func private @sentence_pair_head(tensor<?x?xf32>, tensor<?x?xf32>,
                                      tensor<?xf32>, tensor<?x?xf32>,
                                      tensor<?xf32>) -> tensor<?x?xf32>

func.func @forward(%tokens1: tensor<?x?xi64>, %mask1: tensor<?x?xf32>,
                   %tokens2: tensor<?x?xi64>, %mask2: tensor<?x?xf32>)
    -> tensor<?x7xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // The maximum recursion depth L.
  %depth = arith.constant 2 : index
  %pair:2 = func.call @siamese_batch(%tokens1, %mask1, %tokens2, %mask2)
      : (tensor<?x?xi64>, tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xf32>)
      -> (tensor<?x?xi64>, tensor<?x?xf32>)
  %n2 = tensor.dim %pair#0, %c0 : tensor<?x?xi64>
  %s = tensor.dim %pair#0, %c1 : tensor<?x?xi64>

  // Inputs: embedding·mask, dropout 0.4.
  %table = rvnn.param_get @embedding : tensor<12x200xf32>
  %emb = rvnn.embedding %table, %pair#0
      : (tensor<12x200xf32>, tensor<?x?xi64>) -> tensor<?x?x200xf32>
  %mask3 = tensor.expand_shape %pair#1 [[0], [1, 2]] output_shape [%n2, %s, 1]
      : tensor<?x?xf32> into tensor<?x?x1xf32>
  %maskE = rvnn.broadcast_like %mask3, %emb
      : (tensor<?x?x1xf32>, tensor<?x?x200xf32>) -> tensor<?x?x200xf32>
  %masked = arith.mulf %emb, %maskE : tensor<?x?x200xf32>
  %x = rvnn.dropout %masked {rate = 4.000000e-01 : f64}
      : tensor<?x?x200xf32>

  %base_w = rvnn.param_get @base_w : tensor<1800x200xf32>
  %base_b = rvnn.param_get @base_b : tensor<1800xf32>
  %depth_w = rvnn.param_get @depth_w : tensor<6x200xf32>
  %depth_b = rvnn.param_get @depth_b : tensor<6xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %state_shape = tensor.empty(%n2) : tensor<?x200xf32>
  %h0 = rvnn.broadcast_like %zero, %state_shape
      : (tensor<f32>, tensor<?x200xf32>) -> tensor<?x200xf32>

  // The recurrence over t = 0 .. S-1, state (h, c), both [2N, D].
  %final:2 = rvnn.recurse (%h = %h0, %c = %h0)
      : tensor<?x200xf32>, tensor<?x200xf32> halting <none> max_steps %s {
  ^bb0(%t: index, %h: tensor<?x200xf32>, %c: tensor<?x200xf32>):
    %x_t = tensor.extract_slice %x[0, %t, 0] [%n2, 1, 200] [1, 1, 1]
        : tensor<?x?x200xf32> to tensor<?x200xf32>
    %m_t = tensor.extract_slice %pair#1[0, %t] [%n2, 1] [1, 1]
        : tensor<?x?xf32> to tensor<?x1xf32>

    // The 9 linear base transforms F_⋆^(l).
    %base = rvnn.linear %x_t, %base_w, %base_b
        : (tensor<?x200xf32>, tensor<1800x200xf32>, tensor<1800xf32>)
        -> tensor<?x1800xf32>

    // Soft depth gates of the 3 recursion nodes with children.
    %d_in = rvnn.linear %x_t, %depth_w, %depth_b
        : (tensor<?x200xf32>, tensor<6x200xf32>, tensor<6xf32>)
        -> tensor<?x6xf32>
    %gates = rvnn.sigmoid %d_in : tensor<?x6xf32>

    // The unit at depth L, root node 0.
    %based = tensor.cast %base : tensor<?x1800xf32> to tensor<?x?xf32>
    %gatesd = tensor.cast %gates : tensor<?x6xf32> to tensor<?x?xf32>
    %xd = tensor.cast %x_t : tensor<?x200xf32> to tensor<?x?xf32>
    %cd = tensor.cast %c : tensor<?x200xf32> to tensor<?x?xf32>
    %next:2 = func.call @self_iru_cell(%depth, %c0, %based, %gatesd, %xd, %cd)
        : (index, index, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
           tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
    %h_new = tensor.cast %next#0 : tensor<?x?xf32> to tensor<?x200xf32>
    %c_new = tensor.cast %next#1 : tensor<?x?xf32> to tensor<?x200xf32>
    %h_kept = rvnn.gate %m_t, %h_new, %h
        : (tensor<?x1xf32>, tensor<?x200xf32>, tensor<?x200xf32>)
        -> tensor<?x200xf32>
    %c_kept = rvnn.gate %m_t, %c_new, %c
        : (tensor<?x1xf32>, tensor<?x200xf32>, tensor<?x200xf32>)
        -> tensor<?x200xf32>
    rvnn.yield %h_kept, %c_kept : tensor<?x200xf32>, tensor<?x200xf32>
  }

  // Sentence-pair head (§7).
  %enc_d = tensor.cast %final#0 : tensor<?x200xf32> to tensor<?x?xf32>
  %head_w1 = rvnn.param_get @head_w1 : tensor<200x800xf32>
  %head_b1 = rvnn.param_get @head_b1 : tensor<200xf32>
  %head_w2 = rvnn.param_get @head_w2 : tensor<7x200xf32>
  %head_b2 = rvnn.param_get @head_b2 : tensor<7xf32>
  %w1 = tensor.cast %head_w1 : tensor<200x800xf32> to tensor<?x?xf32>
  %b1 = tensor.cast %head_b1 : tensor<200xf32> to tensor<?xf32>
  %w2 = tensor.cast %head_w2 : tensor<7x200xf32> to tensor<?x?xf32>
  %b2 = tensor.cast %head_b2 : tensor<7xf32> to tensor<?xf32>
  %logits_d = func.call @sentence_pair_head(%enc_d, %w1, %b1, %w2, %b2)
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>,
         tensor<?xf32>) -> tensor<?x?xf32>
  %logits = tensor.cast %logits_d : tensor<?x?xf32> to tensor<?x7xf32>
  return %logits : tensor<?x7xf32>
}
