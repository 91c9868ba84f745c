// BBT-GRC: a balanced binary tree of GRC cells (model-specs §2) over the leaf
// states (§1), with the ListOps classification head (§7).
// Hyperparameters (§8, ListOps): embedding = hidden = 128, cell 512,
// dropout in / cell / out 0.1. Inputs: token ids and a float mask [N, S].

rvnn.param @embedding : tensor<16x128xf32> init normal(1.0)
rvnn.param @leaf_w : tensor<128x128xf32> init xavier_uniform
rvnn.param @leaf_b : tensor<128xf32> init zeros
rvnn.param @leaf_gamma : tensor<128xf32> init ones
rvnn.param @leaf_beta : tensor<128xf32> init zeros
rvnn.param @cell_w1 : tensor<512x256xf32> init xavier_uniform
rvnn.param @cell_b1 : tensor<512xf32> init zeros
rvnn.param @cell_w2 : tensor<512x512xf32> init xavier_uniform
rvnn.param @cell_b2 : tensor<512xf32> init zeros
rvnn.param @cell_gamma : tensor<128xf32> init ones
rvnn.param @cell_beta : tensor<128xf32> init zeros
rvnn.param @head_w1 : tensor<128x128xf32> init xavier_uniform
rvnn.param @head_b1 : tensor<128xf32> init zeros
rvnn.param @head_w2 : tensor<10x128xf32> init xavier_uniform
rvnn.param @head_b2 : tensor<10xf32> init zeros

// The shared GRC cell (models/cells.mlir).
func.func private @grc_cell(tensor<?x?xf32>, tensor<?x?xf32>,
                            tensor<?x?xf32>, tensor<?xf32>,
                            tensor<?x?xf32>, tensor<?xf32>,
                            tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>

func.func @forward(%tokens: tensor<?x?xi64>, %mask: tensor<?x?xf32>)
    -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %tokens, %c0 : tensor<?x?xi64>
  %s = tensor.dim %tokens, %c1 : tensor<?x?xi64>

  // Leaf states (§1): embedding·mask, input dropout, LN(Linear(D, D)(·)).
  %table = rvnn.param_get @embedding : tensor<16x128xf32>
  %x = rvnn.embedding %table, %tokens
      : (tensor<16x128xf32>, tensor<?x?xi64>) -> tensor<?x?x128xf32>
  %mask3 = tensor.expand_shape %mask [[0], [1, 2]] output_shape [%n, %s, 1]
      : tensor<?x?xf32> into tensor<?x?x1xf32>
  %maskD = rvnn.broadcast_like %mask3, %x
      : (tensor<?x?x1xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %masked = arith.mulf %x, %maskD : tensor<?x?x128xf32>
  %dropped = rvnn.dropout %masked {rate = 1.000000e-01 : f64}
      : tensor<?x?x128xf32>
  %leaf_w = rvnn.param_get @leaf_w : tensor<128x128xf32>
  %leaf_b = rvnn.param_get @leaf_b : tensor<128xf32>
  %leaf_gamma = rvnn.param_get @leaf_gamma : tensor<128xf32>
  %leaf_beta = rvnn.param_get @leaf_beta : tensor<128xf32>
  %proj = rvnn.linear %dropped, %leaf_w, %leaf_b
      : (tensor<?x?x128xf32>, tensor<128x128xf32>, tensor<128xf32>)
      -> tensor<?x?x128xf32>
  %leaves = rvnn.layer_norm %proj, %leaf_gamma, %leaf_beta
      : (tensor<?x?x128xf32>, tensor<128xf32>, tensor<128xf32>)
      -> tensor<?x?x128xf32>

  // The cell's parameters, as the cell's dynamic signature takes them.
  %w1 = rvnn.param_get @cell_w1 : tensor<512x256xf32>
  %b1 = rvnn.param_get @cell_b1 : tensor<512xf32>
  %w2 = rvnn.param_get @cell_w2 : tensor<512x512xf32>
  %b2 = rvnn.param_get @cell_b2 : tensor<512xf32>
  %gamma = rvnn.param_get @cell_gamma : tensor<128xf32>
  %beta = rvnn.param_get @cell_beta : tensor<128xf32>
  %w1d = tensor.cast %w1 : tensor<512x256xf32> to tensor<?x?xf32>
  %b1d = tensor.cast %b1 : tensor<512xf32> to tensor<?xf32>
  %w2d = tensor.cast %w2 : tensor<512x512xf32> to tensor<?x?xf32>
  %b2d = tensor.cast %b2 : tensor<512xf32> to tensor<?xf32>
  %gammad = tensor.cast %gamma : tensor<128xf32> to tensor<?xf32>
  %betad = tensor.cast %beta : tensor<128xf32> to tensor<?xf32>

  // The structure this model induces (rvnn-run parse): the balanced binary
  // tree of the reduction below over each row's real tokens.
  rvnn.expose_structure <balanced> %mask {arity = 2 : i64} : tensor<?x?xf32>

  // §2: while S > 1, pair up neighbours (odd lengths padded with mask 0);
  // a padded right child passes its left sibling up: mr⊙GRC(l, r) + (1-mr)⊙l.
  %root = rvnn.balanced_reduce %leaves, %mask {arity = 2 : i64}
      : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32> {
  ^bb0(%children: tensor<?x2x128xf32>, %cmask: tensor<?x2xf32>):
    %m = tensor.dim %children, %c0 : tensor<?x2x128xf32>
    %l = tensor.extract_slice %children[0, 0, 0] [%m, 1, 128] [1, 1, 1]
        : tensor<?x2x128xf32> to tensor<?x128xf32>
    %r = tensor.extract_slice %children[0, 1, 0] [%m, 1, 128] [1, 1, 1]
        : tensor<?x2x128xf32> to tensor<?x128xf32>
    %mr = tensor.extract_slice %cmask[0, 1] [%m, 1] [1, 1]
        : tensor<?x2xf32> to tensor<?x1xf32>
    %ld = tensor.cast %l : tensor<?x128xf32> to tensor<?x?xf32>
    %rd = tensor.cast %r : tensor<?x128xf32> to tensor<?x?xf32>
    %composed = func.call @grc_cell(%ld, %rd, %w1d, %b1d, %w2d, %b2d,
                                    %gammad, %betad)
        : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
           tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
        -> tensor<?x?xf32>
    %parent = tensor.cast %composed : tensor<?x?xf32> to tensor<?x128xf32>
    %kept = rvnn.gate %mr, %parent, %l
        : (tensor<?x1xf32>, tensor<?x128xf32>, tensor<?x128xf32>)
        -> tensor<?x128xf32>
    rvnn.yield %kept : tensor<?x128xf32>
  }

  // Head (§7): dropout -> Linear(D, D) -> GELU -> dropout -> Linear(D, 10).
  %head_w1 = rvnn.param_get @head_w1 : tensor<128x128xf32>
  %head_b1 = rvnn.param_get @head_b1 : tensor<128xf32>
  %head_w2 = rvnn.param_get @head_w2 : tensor<10x128xf32>
  %head_b2 = rvnn.param_get @head_b2 : tensor<10xf32>
  %r0 = rvnn.dropout %root {rate = 1.000000e-01 : f64} : tensor<?x128xf32>
  %r1 = rvnn.linear %r0, %head_w1, %head_b1
      : (tensor<?x128xf32>, tensor<128x128xf32>, tensor<128xf32>)
      -> tensor<?x128xf32>
  %r2 = rvnn.gelu %r1 : tensor<?x128xf32>
  %r3 = rvnn.dropout %r2 {rate = 1.000000e-01 : f64} : tensor<?x128xf32>
  %logits = rvnn.linear %r3, %head_w2, %head_b2
      : (tensor<?x128xf32>, tensor<10x128xf32>, tensor<10xf32>)
      -> tensor<?x10xf32>
  return %logits : tensor<?x10xf32>
}
