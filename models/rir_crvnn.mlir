// RIR-CRvNN: Recursion in Recursion (model-specs §3 "RIR-EBT-GRC", last
// line) with CRvNN (§4, the BRF variant of models/crvnn.mlir) as the inner
// recursion, over the leaf states (§1), with the ListOps head (§7). Without
// the optional S4D pre-chunk layer. Hyperparameters (§8, ListOps):
// embedding = hidden = 128, cell 512, dropout in / cell / out 0.1, chunk 30,
// CRvNN window 5, existence threshold τ = 0.1. Inputs: token ids and a float
// mask [N, S] (1 = real token, right padding).
//
// Outer recursion: models/rir_grc.mlir's, while S > 1:
//   rvnn.chunk: if S >= chunk + chunk/2, right-pad S to a multiple of chunk
//   (pad mask 0) and cut it into S1 = S/chunk chunks, all chunks of the batch
//   becoming rows [N·S1, chunk, D]; else one chunk of length S (S1 = 1).
//   Inner recursion: CRvNN over every chunk row at once (each chunk a batch
//   row of the inner CRvNN), reducing each chunk to one item.
//   rvnn.unchunk: the items [N·S1, D] become the next sequence [N, S1, D];
//   its mask is each chunk's first mask. S = S1.
// The level count is rvnn.chunk_depth of S (100 -> padded 120 -> 4 items ->
// 1 chunk -> root: 2 levels); the root is h[:, 0].
//
// The inner CRvNN, per chunk row r with chunk mask m_r (a prefix of ones: the
// input mask is, and chunking keeps that; a padding chunk is all zeros) and
// L_r = Σ m_r real items. As the authors' RIR-CRvNN (BeamRecursionFamily's
// HCRvNN with its inner CRvNNX):
//   - the leaf transform LN(Linear(D, D)(·)) runs once on the tokens, before
//     the outer loop (as in rir_grc), not per level, and the inner CRvNN has
//     none: START and END (learned, N(0, 1)) join each chunk untransformed;
//   - each chunk row gets its own [START; items; END; pad], END right after
//     the row's last real item (@crvnn_augment on the chunk mask), so a chunk
//     sees padding only after its END: the chunk's pad positions are masked
//     (M = 0) out of the neighbour retriever, the scores' max and the
//     existence count, and never selectable;
//   - the recursion is @crvnn_decide, GRC(Lh, h), @crvnn_update, with
//     per-sample halting per chunk row (rvnn.recurse per_sample over the
//     N·S1 rows): a row halts when #(e > τ) - 2 <= 1 or t > L_r, at most
//     chunk + 2 - 2 steps (the authors' S_aug - 2 bound);
//   - the chunk's item is h at its last real item (position L_r, rvnn.pool
//     last over noEnd); a padding chunk's item is its START, which is masked
//     (its first mask is 0) at the next level.
// RIR inference at evaluation too (the authors' code runs chunked unless
// chunk_mode_inference is turned off; RIR-GRC does the same, App. K).
// No rvnn.expose_structure: the chunks' structures do not index the input.

rvnn.param @embedding : tensor<16x128xf32> init normal(1.0)
rvnn.param @start : tensor<128xf32> init normal(1.0)
rvnn.param @end : tensor<128xf32> init normal(1.0)
rvnn.param @leaf_w : tensor<128x128xf32> init xavier_uniform
rvnn.param @leaf_b : tensor<128xf32> init zeros
rvnn.param @leaf_gamma : tensor<128xf32> init ones
rvnn.param @leaf_beta : tensor<128xf32> init zeros
rvnn.param @score_w1 : tensor<128x640xf32> init xavier_uniform
rvnn.param @score_b1 : tensor<128xf32> init zeros
rvnn.param @score_w2 : tensor<1x128xf32> init xavier_uniform
rvnn.param @score_b2 : tensor<1xf32> init zeros
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

// The shared CRvNN cells and GRC cell (models/cells.mlir).
func.func private @crvnn_augment(index, index, tensor<?x?x?xf32>,
                                 tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>)
    -> (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
func.func private @crvnn_decide(index, index, tensor<?x?x?xf32>,
                                tensor<?x?xf32>, tensor<?x?xf32>,
                                tensor<?x?xf32>, tensor<?x?xf32>,
                                tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>)
    -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x1xf32>)
func.func private @crvnn_update(index, index, tensor<?x?x?xf32>,
                                tensor<?x?xf32>, tensor<?xf32>,
                                tensor<?x?xf32>, tensor<?xf32>,
                                tensor<?x?x?xf32>, tensor<?x?x1xf32>,
                                tensor<?x?x?xf32>)
    -> (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xi1>,
        tensor<?x?xf32>)
func.func private @grc_cell(tensor<?x?xf32>, tensor<?x?xf32>,
                            tensor<?x?xf32>, tensor<?xf32>,
                            tensor<?x?xf32>, tensor<?xf32>,
                            tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>

func.func @forward(%tokens: tensor<?x?xi64>, %mask: tensor<?x?xf32>)
    -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant dense<0.0> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
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

  // The inner CRvNN's parameters, as the cells' dynamic signatures take them.
  %startS = rvnn.param_get @start : tensor<128xf32>
  %endS = rvnn.param_get @end : tensor<128xf32>
  %scoreW1s = rvnn.param_get @score_w1 : tensor<128x640xf32>
  %scoreB1s = rvnn.param_get @score_b1 : tensor<128xf32>
  %scoreW2s = rvnn.param_get @score_w2 : tensor<1x128xf32>
  %scoreB2s = rvnn.param_get @score_b2 : tensor<1xf32>
  %grcW1s = rvnn.param_get @cell_w1 : tensor<512x256xf32>
  %grcB1s = rvnn.param_get @cell_b1 : tensor<512xf32>
  %grcW2s = rvnn.param_get @cell_w2 : tensor<512x512xf32>
  %grcB2s = rvnn.param_get @cell_b2 : tensor<512xf32>
  %grcGs = rvnn.param_get @cell_gamma : tensor<128xf32>
  %grcBetas = rvnn.param_get @cell_beta : tensor<128xf32>
  %startV = tensor.cast %startS : tensor<128xf32> to tensor<?xf32>
  %endV = tensor.cast %endS : tensor<128xf32> to tensor<?xf32>
  %scoreW1 = tensor.cast %scoreW1s : tensor<128x640xf32> to tensor<?x?xf32>
  %scoreB1 = tensor.cast %scoreB1s : tensor<128xf32> to tensor<?xf32>
  %scoreW2 = tensor.cast %scoreW2s : tensor<1x128xf32> to tensor<?x?xf32>
  %scoreB2 = tensor.cast %scoreB2s : tensor<1xf32> to tensor<?xf32>
  %grcW1 = tensor.cast %grcW1s : tensor<512x256xf32> to tensor<?x?xf32>
  %grcB1 = tensor.cast %grcB1s : tensor<512xf32> to tensor<?xf32>
  %grcW2 = tensor.cast %grcW2s : tensor<512x512xf32> to tensor<?x?xf32>
  %grcB2 = tensor.cast %grcB2s : tensor<512xf32> to tensor<?xf32>
  %grcG = tensor.cast %grcGs : tensor<128xf32> to tensor<?xf32>
  %grcBeta = tensor.cast %grcBetas : tensor<128xf32> to tensor<?xf32>

  // Outer recursion: one level per round of chunking, until one item is left.
  %levels = rvnn.chunk_depth %s {size = 30 : i64}
  %fin:2 = rvnn.recurse (%hl = %leaves, %ml = %mask)
      : tensor<?x?x128xf32>, tensor<?x?xf32>
      halting <none> max_steps %levels {
  ^bb0(%level: index, %hl: tensor<?x?x128xf32>, %ml: tensor<?x?xf32>):
    %chunks, %cmask = rvnn.chunk %hl, %ml {size = 30 : i64}
        : (tensor<?x?x128xf32>, tensor<?x?xf32>)
        -> (tensor<?x?x128xf32>, tensor<?x?xf32>)
    %rows = tensor.dim %chunks, %c0 : tensor<?x?x128xf32>
    %clen = tensor.dim %chunks, %c1 : tensor<?x?x128xf32>
    %ca = arith.addi %clen, %c2 : index

    // Each chunk row's real length L_r (float), for the t > L_r halt.
    %shapeR = tensor.empty(%rows) : tensor<?xf32>
    %shapeC = tensor.empty(%clen) : tensor<?xf32>
    %zerosR = rvnn.broadcast_like %zero, %shapeR
        : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>
    %onesC = rvnn.broadcast_like %one, %shapeC
        : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>
    %lengths = linalg.matvec
        ins(%cmask, %onesC : tensor<?x?xf32>, tensor<?xf32>)
        outs(%zerosR : tensor<?xf32>) -> tensor<?xf32>

    // [START; chunk items; END; pad] per row, untransformed (see the header).
    %chunksd = tensor.cast %chunks : tensor<?x?x128xf32> to tensor<?x?x?xf32>
    %seqMd, %M, %noEnd, %sel = func.call @crvnn_augment(%rows, %clen,
                                                        %chunksd, %cmask,
                                                        %startV, %endV)
        : (index, index, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
           tensor<?xf32>)
        -> (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
            tensor<?x?xf32>)
    %h0 = tensor.cast %seqMd : tensor<?x?x?xf32> to tensor<?x?x128xf32>
    %t0 = rvnn.broadcast_like %zero, %shapeR
        : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>

    // Inner recursion: CRvNN over every chunk row at once, per-row halting.
    // The rows' masks and lengths ride in the state, and the body takes the
    // row count from h, so that halted rows can be dropped from the batch
    // the body runs on (`compact_halted`, as models/crvnn.mlir).
    %r:6 = rvnn.recurse (%h = %h0, %e = %M, %t = %t0, %Mi = %M, %seli = %sel,
                         %lengthsi = %lengths)
        : tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?xf32>,
          tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>
        halting <per_sample> max_steps %clen {
    ^bb0(%step: index, %h: tensor<?x?x128xf32>, %e: tensor<?x?xf32>,
         %t: tensor<?xf32>, %Mi: tensor<?x?xf32>, %seli: tensor<?x?xf32>,
         %lengthsi: tensor<?xf32>):
      %rowsi = tensor.dim %h, %c0 : tensor<?x?x128xf32>
      %hd = tensor.cast %h : tensor<?x?x128xf32> to tensor<?x?x?xf32>
      // Steps 1-3: neighbours, window, composition probabilities c.
      %L, %lhd, %c = func.call @crvnn_decide(%rowsi, %ca, %hd, %e, %Mi, %seli,
                                             %scoreW1, %scoreB1, %scoreW2,
                                             %scoreB2)
          : (index, index, tensor<?x?x?xf32>, tensor<?x?xf32>,
             tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
             tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>)
          -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x1xf32>)
      // Compose every position with its left neighbour: GRC(Lh, h).
      %lh = tensor.cast %lhd : tensor<?x?x?xf32> to tensor<?x?x128xf32>
      %lhFlat = tensor.collapse_shape %lh [[0, 1], [2]]
          : tensor<?x?x128xf32> into tensor<?x128xf32>
      %hFlat = tensor.collapse_shape %h [[0, 1], [2]]
          : tensor<?x?x128xf32> into tensor<?x128xf32>
      %lhArg = tensor.cast %lhFlat : tensor<?x128xf32> to tensor<?x?xf32>
      %hArg = tensor.cast %hFlat : tensor<?x128xf32> to tensor<?x?xf32>
      %compFlat = func.call @grc_cell(%lhArg, %hArg, %grcW1, %grcB1, %grcW2,
                                      %grcB2, %grcG, %grcBeta)
          : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
             tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
          -> tensor<?x?xf32>
      %compD = tensor.cast %compFlat : tensor<?x?xf32> to tensor<?x128xf32>
      %comp = tensor.expand_shape %compD [[0, 1], [2]]
          output_shape [%rowsi, %ca, 128]
          : tensor<?x128xf32> into tensor<?x?x128xf32>
      %compd = tensor.cast %comp : tensor<?x?x128xf32> to tensor<?x?x?xf32>
      // Steps 4-6: gated update, existence, per-row halting.
      %next:5 = func.call @crvnn_update(%rowsi, %ca, %hd, %e, %t, %Mi,
                                        %lengthsi, %L, %c, %compd)
          : (index, index, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
             tensor<?x?xf32>, tensor<?xf32>, tensor<?x?x?xf32>,
             tensor<?x?x1xf32>, tensor<?x?x?xf32>)
          -> (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xi1>,
              tensor<?x?xf32>)
      %hNext = tensor.cast %next#0 : tensor<?x?x?xf32> to tensor<?x?x128xf32>
      rvnn.yield %hNext, %next#1, %next#2, %Mi, %seli, %lengthsi
          halt %next#3
          : tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?xf32>,
            tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xi1>
    }

    // Each chunk's item: h at its last real item (position L_r).
    %item = rvnn.pool last %r#0, %noEnd
        : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32>
    // The chunks' items become the next level's sequence [N, S1, D]; an
    // item is real iff its chunk's first position is.
    %items = rvnn.unchunk %item, %hl {dim = 1 : i64}
        : (tensor<?x128xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
    %first = tensor.extract_slice %cmask[0, 0] [%rows, 1] [1, 1]
        : tensor<?x?xf32> to tensor<?xf32>
    %items_mask = rvnn.unchunk %first, %hl {dim = 1 : i64}
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
