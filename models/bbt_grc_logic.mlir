// BBT-GRC for logical inference: a Siamese sentence-pair classifier. One
// balanced binary tree of GRC cells (model-specs §2) over the leaf states
// (§1) encodes both sentences as one batch of 2N; the sentence-pair head (§7)
// classifies the relation of the two roots a and b.
// Hyperparameters (§8, logical inference): embedding = hidden = 200, cell 800,
// dropout in / cell / out 0.4 / 0.1 / 0.1 (the cell's 0.1 is fixed in
// models/cells.mlir). Vocabulary: 12 ids (0 pad, 1-6 a-f, 7 and, 8 or, 9 not,
// 10 (, 11 )). Labels: < > = ^ | # v -> 0..6. Inputs: token ids and float masks
// [N, S1] and [N, S2] for the two sentences.

rvnn.param @embedding : tensor<12x200xf32> init normal(1.0)
rvnn.param @leaf_w : tensor<200x200xf32> init xavier_uniform
rvnn.param @leaf_b : tensor<200xf32> init zeros
rvnn.param @leaf_gamma : tensor<200xf32> init ones
rvnn.param @leaf_beta : tensor<200xf32> init zeros
rvnn.param @cell_w1 : tensor<800x400xf32> init xavier_uniform
rvnn.param @cell_b1 : tensor<800xf32> init zeros
rvnn.param @cell_w2 : tensor<800x800xf32> init xavier_uniform
rvnn.param @cell_b2 : tensor<800xf32> init zeros
rvnn.param @cell_gamma : tensor<200xf32> init ones
rvnn.param @cell_beta : tensor<200xf32> init zeros
rvnn.param @head_w1 : tensor<200x800xf32> init xavier_uniform
rvnn.param @head_b1 : tensor<200xf32> init zeros
rvnn.param @head_w2 : tensor<7x200xf32> init xavier_uniform
rvnn.param @head_b2 : tensor<7xf32> init zeros

// The shared GRC cell (models/cells.mlir).
func.func private @grc_cell(tensor<?x?xf32>, tensor<?x?xf32>,
                            tensor<?x?xf32>, tensor<?xf32>,
                            tensor<?x?xf32>, tensor<?xf32>,
                            tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>

func.func @forward(%tokens1: tensor<?x?xi64>, %mask1: tensor<?x?xf32>,
                   %tokens2: tensor<?x?xi64>, %mask2: tensor<?x?xf32>)
    -> tensor<?x7xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %tokens1, %c0 : tensor<?x?xi64>
  %s1 = tensor.dim %tokens1, %c1 : tensor<?x?xi64>
  %s2 = tensor.dim %tokens2, %c1 : tensor<?x?xi64>

  // Siamese batch (§7): right-pad both sentences to S = max(S1, S2) (pad id
  // 0, mask 0) and stack them along the batch: [2N, S]. Trailing padding
  // does not change a balanced tree's root over the real prefix.
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

  // Leaf states (§1): embedding·mask, input dropout, LN(Linear(D, D)(·)).
  %table = rvnn.param_get @embedding : tensor<12x200xf32>
  %x = rvnn.embedding %table, %tokens
      : (tensor<12x200xf32>, tensor<?x?xi64>) -> tensor<?x?x200xf32>
  %mask3 = tensor.expand_shape %mask [[0], [1, 2]] output_shape [%n2, %s, 1]
      : tensor<?x?xf32> into tensor<?x?x1xf32>
  %maskD = rvnn.broadcast_like %mask3, %x
      : (tensor<?x?x1xf32>, tensor<?x?x200xf32>) -> tensor<?x?x200xf32>
  %masked = arith.mulf %x, %maskD : tensor<?x?x200xf32>
  %dropped = rvnn.dropout %masked {rate = 4.000000e-01 : f64}
      : tensor<?x?x200xf32>
  %leaf_w = rvnn.param_get @leaf_w : tensor<200x200xf32>
  %leaf_b = rvnn.param_get @leaf_b : tensor<200xf32>
  %leaf_gamma = rvnn.param_get @leaf_gamma : tensor<200xf32>
  %leaf_beta = rvnn.param_get @leaf_beta : tensor<200xf32>
  %proj = rvnn.linear %dropped, %leaf_w, %leaf_b
      : (tensor<?x?x200xf32>, tensor<200x200xf32>, tensor<200xf32>)
      -> tensor<?x?x200xf32>
  %leaves = rvnn.layer_norm %proj, %leaf_gamma, %leaf_beta
      : (tensor<?x?x200xf32>, tensor<200xf32>, tensor<200xf32>)
      -> tensor<?x?x200xf32>

  // The cell's parameters, as the cell's dynamic signature takes them.
  %w1 = rvnn.param_get @cell_w1 : tensor<800x400xf32>
  %b1 = rvnn.param_get @cell_b1 : tensor<800xf32>
  %w2 = rvnn.param_get @cell_w2 : tensor<800x800xf32>
  %b2 = rvnn.param_get @cell_b2 : tensor<800xf32>
  %gamma = rvnn.param_get @cell_gamma : tensor<200xf32>
  %beta = rvnn.param_get @cell_beta : tensor<200xf32>
  %w1d = tensor.cast %w1 : tensor<800x400xf32> to tensor<?x?xf32>
  %b1d = tensor.cast %b1 : tensor<800xf32> to tensor<?xf32>
  %w2d = tensor.cast %w2 : tensor<800x800xf32> to tensor<?x?xf32>
  %b2d = tensor.cast %b2 : tensor<800xf32> to tensor<?xf32>
  %gammad = tensor.cast %gamma : tensor<200xf32> to tensor<?xf32>
  %betad = tensor.cast %beta : tensor<200xf32> to tensor<?xf32>

  // §2: while S > 1, pair up neighbours (odd lengths padded with mask 0);
  // a padded right child passes its left sibling up: mr⊙GRC(l, r) + (1-mr)⊙l.
  %root = rvnn.balanced_reduce %leaves, %mask {arity = 2 : i64}
      : (tensor<?x?x200xf32>, tensor<?x?xf32>) -> tensor<?x200xf32> {
  ^bb0(%children: tensor<?x2x200xf32>, %cmask: tensor<?x2xf32>):
    %m = tensor.dim %children, %c0 : tensor<?x2x200xf32>
    %l = tensor.extract_slice %children[0, 0, 0] [%m, 1, 200] [1, 1, 1]
        : tensor<?x2x200xf32> to tensor<?x200xf32>
    %r = tensor.extract_slice %children[0, 1, 0] [%m, 1, 200] [1, 1, 1]
        : tensor<?x2x200xf32> to tensor<?x200xf32>
    %mr = tensor.extract_slice %cmask[0, 1] [%m, 1] [1, 1]
        : tensor<?x2xf32> to tensor<?x1xf32>
    %ld = tensor.cast %l : tensor<?x200xf32> to tensor<?x?xf32>
    %rd = tensor.cast %r : tensor<?x200xf32> to tensor<?x?xf32>
    %composed = func.call @grc_cell(%ld, %rd, %w1d, %b1d, %w2d, %b2d,
                                    %gammad, %betad)
        : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
           tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
        -> tensor<?x?xf32>
    %parent = tensor.cast %composed : tensor<?x?xf32> to tensor<?x200xf32>
    %kept = rvnn.gate %mr, %parent, %l
        : (tensor<?x1xf32>, tensor<?x200xf32>, tensor<?x200xf32>)
        -> tensor<?x200xf32>
    rvnn.yield %kept : tensor<?x200xf32>
  }

  // Split the roots back into the two sentences: a = rows [0, N),
  // b = rows [N, 2N).
  %a = tensor.extract_slice %root[0, 0] [%n, 200] [1, 1]
      : tensor<?x200xf32> to tensor<?x200xf32>
  %b = tensor.extract_slice %root[%n, 0] [%n, 200] [1, 1]
      : tensor<?x200xf32> to tensor<?x200xf32>

  // Sentence-pair head (§7): [a; b; a⊙b; |a-b|] (4D) -> dropout ->
  // Linear(4D, D) -> GELU -> dropout -> Linear(D, 7).
  %prod = arith.mulf %a, %b : tensor<?x200xf32>
  %diff = arith.subf %a, %b : tensor<?x200xf32>
  %absdiff = math.absf %diff : tensor<?x200xf32>
  %features = tensor.concat dim(1) %a, %b, %prod, %absdiff
      : (tensor<?x200xf32>, tensor<?x200xf32>, tensor<?x200xf32>,
         tensor<?x200xf32>) -> tensor<?x800xf32>
  %head_w1 = rvnn.param_get @head_w1 : tensor<200x800xf32>
  %head_b1 = rvnn.param_get @head_b1 : tensor<200xf32>
  %head_w2 = rvnn.param_get @head_w2 : tensor<7x200xf32>
  %head_b2 = rvnn.param_get @head_b2 : tensor<7xf32>
  %f0 = rvnn.dropout %features {rate = 1.000000e-01 : f64} : tensor<?x800xf32>
  %f1 = rvnn.linear %f0, %head_w1, %head_b1
      : (tensor<?x800xf32>, tensor<200x800xf32>, tensor<200xf32>)
      -> tensor<?x200xf32>
  %f2 = rvnn.gelu %f1 : tensor<?x200xf32>
  %f3 = rvnn.dropout %f2 {rate = 1.000000e-01 : f64} : tensor<?x200xf32>
  %logits = rvnn.linear %f3, %head_w2, %head_b2
      : (tensor<?x200xf32>, tensor<7x200xf32>, tensor<7xf32>)
      -> tensor<?x7xf32>
  return %logits : tensor<?x7xf32>
}
