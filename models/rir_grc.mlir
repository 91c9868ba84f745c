// RIR-GRC: Recursion in Recursion with a left-to-right GRC RNN as the inner
// recursion (model-specs §3 "RIR-EBT-GRC", last line), over the leaf states
// (§1), with the ListOps head (§7). Without the optional S4D pre-chunk layer.
// Hyperparameters (§8, ListOps): embedding = hidden = 128, cell 512,
// dropout in / cell / out 0.1, chunk 30. Inputs: token ids and a float mask
// [N, S] (1 = real token, right padding).
//
// Outer recursion (a balanced chunk-ary tree), while S > 1:
//   rvnn.chunk: if S >= chunk + chunk/2, right-pad S to a multiple of chunk
//   (pad mask 0) and cut it into S1 = S/chunk chunks, all chunks of the batch
//   becoming rows [N·S1, chunk, D]; else one chunk of length S (S1 = 1).
//   Inner recursion, per chunk row: h = 0; for each position t of the chunk,
//   h <- m_t⊙GRC(h, x_t) + (1-m_t)⊙h (padding leaves h unchanged); the
//   chunk's item is the last h.
//   rvnn.unchunk: the items [N·S1, D] become the next sequence [N, S1, D];
//   its mask is each chunk's first mask. S = S1.
// The level count (the outer loop's bound) is rvnn.chunk_depth of S: e.g.
// 100 -> padded 120 -> 4 items -> 1 chunk -> root (2 levels). The root is
// h[:, 0]; with S = 1 there is no level and the root is the leaf.
// RIR-GRC runs the chunked recursion at evaluation too (the RIR paper, App. K:
// "We always use RIR-inference for RIR-GRC").

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

// The shared GRC cell (models/cells.mlir, model-specs §1).
func.func private @grc_cell(tensor<?x?xf32>, tensor<?x?xf32>,
                            tensor<?x?xf32>, tensor<?xf32>,
                            tensor<?x?xf32>, tensor<?xf32>,
                            tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>

func.func @forward(%tokens: tensor<?x?xi64>, %mask: tensor<?x?xf32>)
    -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : tensor<f32>
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

  // Outer recursion: one level per round of chunking, until one item is left.
  %levels = rvnn.chunk_depth %s {size = 30 : i64}
  %fin:2 = rvnn.recurse (%h = %leaves, %m = %mask)
      : tensor<?x?x128xf32>, tensor<?x?xf32>
      halting <none> max_steps %levels {
  ^bb0(%level: index, %h: tensor<?x?x128xf32>, %m: tensor<?x?xf32>):
    %chunks, %cmask = rvnn.chunk %h, %m {size = 30 : i64}
        : (tensor<?x?x128xf32>, tensor<?x?xf32>)
        -> (tensor<?x?x128xf32>, tensor<?x?xf32>)
    %rows = tensor.dim %chunks, %c0 : tensor<?x?x128xf32>
    %clen = tensor.dim %chunks, %c1 : tensor<?x?x128xf32>
    %ref = tensor.empty(%rows) : tensor<?x128xf32>
    %h0 = rvnn.broadcast_like %zero, %ref
        : (tensor<f32>, tensor<?x128xf32>) -> tensor<?x128xf32>

    // Inner recursion: a left-to-right GRC RNN over every chunk at once. The
    // state carries the chunk positions not read yet; each step reads the
    // first and drops it.
    %inner:3 = rvnn.recurse (%st = %h0, %xs = %chunks, %ms = %cmask)
        : tensor<?x128xf32>, tensor<?x?x128xf32>, tensor<?x?xf32>
        halting <none> max_steps %clen {
    ^bb0(%t: index, %st: tensor<?x128xf32>, %xs: tensor<?x?x128xf32>,
         %ms: tensor<?x?xf32>):
      %r = tensor.dim %xs, %c0 : tensor<?x?x128xf32>
      %len = tensor.dim %xs, %c1 : tensor<?x?x128xf32>
      %rest = arith.subi %len, %c1 : index
      %xt = tensor.extract_slice %xs[0, 0, 0] [%r, 1, 128] [1, 1, 1]
          : tensor<?x?x128xf32> to tensor<?x128xf32>
      %mt = tensor.extract_slice %ms[0, 0] [%r, 1] [1, 1]
          : tensor<?x?xf32> to tensor<?x1xf32>
      %std = tensor.cast %st : tensor<?x128xf32> to tensor<?x?xf32>
      %xtd = tensor.cast %xt : tensor<?x128xf32> to tensor<?x?xf32>
      %composed = func.call @grc_cell(%std, %xtd, %w1d, %b1d, %w2d, %b2d,
                                      %gammad, %betad)
          : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
             tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
          -> tensor<?x?xf32>
      %new = tensor.cast %composed : tensor<?x?xf32> to tensor<?x128xf32>
      // A padding position leaves the state unchanged.
      %st_next = rvnn.gate %mt, %new, %st
          : (tensor<?x1xf32>, tensor<?x128xf32>, tensor<?x128xf32>)
          -> tensor<?x128xf32>
      %xs_next = tensor.extract_slice %xs[0, 1, 0] [%r, %rest, 128] [1, 1, 1]
          : tensor<?x?x128xf32> to tensor<?x?x128xf32>
      %ms_next = tensor.extract_slice %ms[0, 1] [%r, %rest] [1, 1]
          : tensor<?x?xf32> to tensor<?x?xf32>
      rvnn.yield %st_next, %xs_next, %ms_next
          : tensor<?x128xf32>, tensor<?x?x128xf32>, tensor<?x?xf32>
    }

    // The chunks' items become the next level's sequence [N, S1, D]; an
    // item is real iff its chunk's first position is.
    %items = rvnn.unchunk %inner#0, %h {dim = 1 : i64}
        : (tensor<?x128xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
    %first = tensor.extract_slice %cmask[0, 0] [%rows, 1] [1, 1]
        : tensor<?x?xf32> to tensor<?xf32>
    %items_mask = rvnn.unchunk %first, %h {dim = 1 : i64}
        : (tensor<?xf32>, tensor<?x?x128xf32>) -> tensor<?x?xf32>
    rvnn.yield %items, %items_mask : tensor<?x?x128xf32>, tensor<?x?xf32>
  }
  %root = tensor.extract_slice %fin#0[0, 0, 0] [%n, 1, 128] [1, 1, 1]
      : tensor<?x?x128xf32> to tensor<?x128xf32>

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
