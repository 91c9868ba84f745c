// BT-GRC: beam-tree GRC (model-specs §3 "BT-GRC") over the leaf states (§1),
// with the ListOps head (§7). Hyperparameters (§8, ListOps): embedding =
// hidden = 128, cell 512, dropout in / cell / out 0.1, beam 5.
// Inputs: token ids and a float mask [N, S] (1 = real token, right padding).
//
// State per sample: B beams (B = 1 at the start, 5 after the first step) of a
// sequence of S' node states, h [N, B, S', D], and of the compositions of
// its P = S' - 1 adjacent pairs, cand [N, B, P, D], cand_j = GRC(h_j,
// h_{j+1}); beam scores accu [N, B] (0 at the start) and beam_mask [N, B]
// (1 at the start). Step i (i = 0 .. S-2) turns S' = S - i nodes into
// S' - 1 (every sample shrinks each step):
//   1. score each composed parent, logit_j = Linear(D, 1)(cand_j);
//      p = masked_softmax(logit, pair valid), pair j valid iff token i+1+j
//      is real.
//   2. each beam expands into its top k = min(P, beam) pairs (ranked by p,
//      ties to the lower index, rvnn.topk's contract: equal tokens give equal
//      pair scores; Gumbel noise on the scores in training only); child score
//      accu + log(p_pick + 1e-20) (noise-free p); a finished sample (no valid
//      pair, i.e. token i+1 is padding) keeps only child 0 in the beam mask.
//   3. if B·k > beam, keep the top `beam` children by accu (masked beams never
//      win; Gumbel noise in training).
//   4. each kept child takes its parent beam's states and composed pairs and
//      merges its selected pair in (rvnn.pair_merge, one-hot sel over the
//      pairs); finished samples keep h[..., :-1, :] instead.
//   5. the composed pairs follow the merge: a merge at j leaves every pair
//      but its own and its two neighbours' as it was (pairs right of j move
//      one to the left), and the merged node m = cand_j makes two new pairs,
//      GRC(h_{j-1}, m) at j-1 and GRC(m, h_{j+2}) at j; finished samples keep
//      cand[..., :-1, :].
// The leaves' pairs are composed once before the loop. §3 composes all of a
// beam's pairs at every step; that recomputes P - 2 compositions of
// unchanged children per beam and step, so here the cell runs on 2 pairs per
// beam and step instead of P (2·5 instead of 5·P rows): the same values and
// gradients, in O(S) cell rows instead of O(S^2). One difference in training:
// a pair's composition draws its cell dropout once, when the pair appears,
// where §3 draws it again at every step the pair is recomposed.
// The last step (P = 1) has one pair: p = 1, accu unchanged, as §3 says.
// Final: roots h[:, :, 0, :] marginalised over beams (rvnn.beam_marginalize).
//
// This differs from EBT-GRC (models/ebt_grc.mlir) in steps 1, 4 and 5: every
// pair of every beam is composed before the choice and the scorer reads the
// composed parents, so gradients reach the cell through the scores too.
//
// Static k: rvnn.topk needs a static k, while §3's k = min(P, beam) shrinks
// to 4, 3, 2, 1 over the last steps (and is below 5 from the start when
// S <= 5). As in EBT-GRC, each step pads the pair axis with `beam` padding
// entries (masked out of the ranking) and always draws 5 children per beam:
// the children that pick a real pair are exactly §3's k children (same
// picks, same order, same scores) and the padding children get beam_mask 0,
// so they never win a beam slot over a real child and have zero weight in
// the marginalisation. The beam selection of step 3 then always runs (top 5
// of 5·B); where §3 skips it (B·k <= 5: the first step, whose children are
// already in ranked order, and the last step, before the order-free
// marginalisation) it keeps the same real children.
//
// The scorer's bias is left out: a constant added to every pair score
// changes neither the masked softmax nor the ranking, so it is a no-op whose
// gradient is identically zero.

rvnn.param @embedding : tensor<16x128xf32> init normal(1.0)
rvnn.param @leaf_w : tensor<128x128xf32> init xavier_uniform
rvnn.param @leaf_b : tensor<128xf32> init zeros
rvnn.param @leaf_gamma : tensor<128xf32> init ones
rvnn.param @leaf_beta : tensor<128xf32> init zeros
rvnn.param @score_w : tensor<1x128xf32> init xavier_uniform
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
// Beam search over adjacent pairs (models/cells.mlir, model-specs §3).
func.func private @beam_pair_ranking(tensor<?x?x?xf32>, tensor<?x?xf32>, index)
    -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>)
func.func private @beam_children(tensor<?x?xf32>, tensor<?x?xf32>,
                                 tensor<?x?xf32>, tensor<?x?x?xf32>,
                                 tensor<?x?x?xi64>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>)
func.func private @beam_merge_neighbours(tensor<?x?x?x?xf32>,
                                         tensor<?x?x?x?xf32>, tensor<?x?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
func.func private @beam_carried_pairs(tensor<?x?x?x?xf32>, tensor<?x?x?xf32>,
                                      tensor<?x?xf32>, tensor<?x1xf32>)
    -> tensor<?x?x?x?xf32>

func.func @forward(%tokens: tensor<?x?xi64>, %mask: tensor<?x?xf32>)
    -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
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

  // Scorer (§3 BT): Linear(D, 1) over the composed parents.
  %sw = rvnn.param_get @score_w : tensor<1x128xf32>

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

  // Initial beam state (§3): one beam, accu = 0, beam_mask = 1; the pair
  // validity of step i is mask[:, i+1:] (pair j valid iff token i+1+j is real).
  %h0 = tensor.expand_shape %leaves [[0, 1], [2], [3]]
      output_shape [%n, 1, %s, 128]
      : tensor<?x?x128xf32> into tensor<?x1x?x128xf32>
  %h0d = tensor.cast %h0 : tensor<?x1x?x128xf32> to tensor<?x?x?x128xf32>
  %ref1 = tensor.empty(%n) : tensor<?x1xf32>
  %accu0 = rvnn.broadcast_like %zero, %ref1
      : (tensor<f32>, tensor<?x1xf32>) -> tensor<?x1xf32>
  %bm0 = rvnn.broadcast_like %one, %ref1
      : (tensor<f32>, tensor<?x1xf32>) -> tensor<?x1xf32>
  %accu0d = tensor.cast %accu0 : tensor<?x1xf32> to tensor<?x?xf32>
  %bm0d = tensor.cast %bm0 : tensor<?x1xf32> to tensor<?x?xf32>
  %s1 = arith.subi %s, %c1 : index
  %pm0 = tensor.extract_slice %mask[0, 1] [%n, %s1] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>

  // The compositions of the leaves' S - 1 adjacent pairs (step 5 keeps
  // them up to date from here on).
  %h0l = tensor.extract_slice %h0[0, 0, 0, 0] [%n, 1, %s1, 128] [1, 1, 1, 1]
      : tensor<?x1x?x128xf32> to tensor<?x1x?x128xf32>
  %h0r = tensor.extract_slice %h0[0, 0, 1, 0] [%n, 1, %s1, 128] [1, 1, 1, 1]
      : tensor<?x1x?x128xf32> to tensor<?x1x?x128xf32>
  %h0l2 = tensor.collapse_shape %h0l [[0, 1, 2], [3]]
      : tensor<?x1x?x128xf32> into tensor<?x128xf32>
  %h0r2 = tensor.collapse_shape %h0r [[0, 1, 2], [3]]
      : tensor<?x1x?x128xf32> into tensor<?x128xf32>
  %l0d = tensor.cast %h0l2 : tensor<?x128xf32> to tensor<?x?xf32>
  %r0d = tensor.cast %h0r2 : tensor<?x128xf32> to tensor<?x?xf32>
  %pairs0 = func.call @grc_cell(%l0d, %r0d, %w1d, %b1d, %w2d, %b2d,
                                %gammad, %betad)
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
         tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
      -> tensor<?x?xf32>
  %pairs0D = tensor.cast %pairs0 : tensor<?x?xf32> to tensor<?x128xf32>
  %cand0 = tensor.expand_shape %pairs0D [[0, 1, 2], [3]]
      output_shape [%n, 1, %s1, 128]
      : tensor<?x128xf32> into tensor<?x1x?x128xf32>
  %cand0d = tensor.cast %cand0 : tensor<?x1x?x128xf32> to tensor<?x?x?x128xf32>

  // S - 1 merge steps; the sequence shrinks by one per step, the beam count
  // grows from 1 to 5.
  %fin:5 = rvnn.recurse (%h = %h0d, %cand = %cand0d, %accu = %accu0d,
                         %bm = %bm0d, %pm = %pm0)
      : tensor<?x?x?x128xf32>, tensor<?x?x?x128xf32>, tensor<?x?xf32>,
        tensor<?x?xf32>, tensor<?x?xf32>
      halting <none> max_steps %s1 {
  ^bb0(%step: index, %h: tensor<?x?x?x128xf32>, %cand: tensor<?x?x?x128xf32>,
       %accu: tensor<?x?xf32>, %bm: tensor<?x?xf32>, %pm: tensor<?x?xf32>):
    %b = tensor.dim %h, %c1 : tensor<?x?x?x128xf32>
    %sp = tensor.dim %h, %c2 : tensor<?x?x?x128xf32>
    %p = arith.subi %sp, %c1 : index

    // 1. Score every composed pair of every beam; p = masked_softmax over
    // the valid pairs, then 5 padding entries (@beam_pair_ranking).
    %z = rvnn.linear %cand, %sw
        : (tensor<?x?x?x128xf32>, tensor<1x128xf32>) -> tensor<?x?x?x1xf32>
    %score = tensor.collapse_shape %z [[0], [1], [2, 3]]
        : tensor<?x?x?x1xf32> into tensor<?x?x?xf32>
    %key, %real, %probp = func.call @beam_pair_ranking(%score, %pm, %c5)
        : (tensor<?x?x?xf32>, tensor<?x?xf32>, index)
        -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>)

    // 2. Top-5 pairs per beam over [P real pairs; 5 padding entries], Gumbel
    // noise on the key in training; padding never beats a real pair, so the
    // real picks are §3's top min(P, 5). The children's scores and beam
    // masks: @beam_children.
    %top, %pick = rvnn.topk %key, %real {k = 5 : i64, gumbel = true}
        : (tensor<?x?x?xf32>, tensor<?x?x?xf32>)
        -> (tensor<?x?x5xf32>, tensor<?x?x5xi64>)
    %pickd = tensor.cast %pick : tensor<?x?x5xi64> to tensor<?x?x?xi64>
    %accu_c, %bm_c = func.call @beam_children(%accu, %bm, %pm, %probp, %pickd)
        : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
           tensor<?x?x?xf32>, tensor<?x?x?xi64>)
        -> (tensor<?x?xf32>, tensor<?x?xf32>)
    %nd = tensor.extract_slice %pm[0, 0] [%n, 1] [1, 1]
        : tensor<?x?xf32> to tensor<?x1xf32>

    // 3. Keep the top 5 children by accu (masked children never win).
    %kv, %kept = rvnn.topk %accu_c, %bm_c {k = 5 : i64, gumbel = true}
        : (tensor<?x?xf32>, tensor<?x?xf32>)
        -> (tensor<?x5xf32>, tensor<?x5xi64>)
    %accu_k = rvnn.beam_gather %accu_c, %kept
        : (tensor<?x?xf32>, tensor<?x5xi64>) -> tensor<?x5xf32>
    %bm_k = rvnn.beam_gather %bm_c, %kept
        : (tensor<?x?xf32>, tensor<?x5xi64>) -> tensor<?x5xf32>
    %onehot = rvnn.one_hot %pick, %probp
        : (tensor<?x?x5xi64>, tensor<?x?x?xf32>) -> tensor<?x?x5x?xf32>
    %sel_c4 = tensor.extract_slice %onehot[0, 0, 0, 0] [%n, %b, 5, %p]
        [1, 1, 1, 1] : tensor<?x?x5x?xf32> to tensor<?x?x5x?xf32>
    %sel_c = tensor.collapse_shape %sel_c4 [[0], [1, 2], [3]]
        : tensor<?x?x5x?xf32> into tensor<?x?x?xf32>
    %sel = rvnn.beam_gather %sel_c, %kept
        : (tensor<?x?x?xf32>, tensor<?x5xi64>) -> tensor<?x5x?xf32>
    // The structure this model induces (rvnn-run parse): each kept beam's
    // merged pair, and the beam it continues (child k of beam k / 5).
    rvnn.expose_structure <merge_selection> %sel : tensor<?x5x?xf32>
    rvnn.expose_structure <beam_parent> %kept {factor = 5 : i64}
        : tensor<?x5xi64>

    // 4. Each kept child continues its parent beam (child c of beam c / 5):
    // its states and composed pairs, with the selected pair merged in,
    // h_j <- sel_j·cand_j + left_j·h_j + right_j·h_{j+1}.
    %h_k = rvnn.beam_gather %h, %kept {factor = 5 : i64}
        : (tensor<?x?x?x128xf32>, tensor<?x5xi64>) -> tensor<?x5x?x128xf32>
    %cand_k = rvnn.beam_gather %cand, %kept {factor = 5 : i64}
        : (tensor<?x?x?x128xf32>, tensor<?x5xi64>) -> tensor<?x5x?x128xf32>
    %merged = rvnn.pair_merge %h_k, %cand_k, %sel
        : (tensor<?x5x?x128xf32>, tensor<?x5x?x128xf32>, tensor<?x5x?xf32>)
        -> tensor<?x5x?x128xf32>
    // Finished samples keep h[..., :-1, :].
    %h_kl = tensor.extract_slice %h_k[0, 0, 0, 0] [%n, 5, %p, 128]
        [1, 1, 1, 1] : tensor<?x5x?x128xf32> to tensor<?x5x?x128xf32>
    %nd_g = tensor.expand_shape %nd [[0], [1, 2, 3]] output_shape [%n, 1, 1, 1]
        : tensor<?x1xf32> into tensor<?x1x1x1xf32>
    %h_next = rvnn.gate %nd_g, %merged, %h_kl
        : (tensor<?x1x1x1xf32>, tensor<?x5x?x128xf32>, tensor<?x5x?x128xf32>)
        -> tensor<?x5x?x128xf32>
    %p1 = arith.subi %p, %c1 : index
    %pm_next = tensor.extract_slice %pm[0, 1] [%n, %p1] [1, 1]
        : tensor<?x?xf32> to tensor<?x?xf32>

    // 5. The composed pairs follow the merge: the merged node m and its
    // neighbours l and r make the step's only two new pairs, composed in one
    // cell call, rows [GRC(l, m); GRC(m, r)]; the other pairs shift
    // (@beam_merge_neighbours, @beam_carried_pairs).
    %h_kd = tensor.cast %h_k : tensor<?x5x?x128xf32> to tensor<?x?x?x?xf32>
    %cand_kd = tensor.cast %cand_k
        : tensor<?x5x?x128xf32> to tensor<?x?x?x?xf32>
    %seld = tensor.cast %sel : tensor<?x5x?xf32> to tensor<?x?x?xf32>
    %left, %mid, %right = func.call @beam_merge_neighbours(%h_kd, %cand_kd,
                                                           %seld)
        : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?xf32>)
        -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
    %lhs = tensor.concat dim(0) %left, %mid
        : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %rhs = tensor.concat dim(0) %mid, %right
        : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %fresh = func.call @grc_cell(%lhs, %rhs, %w1d, %b1d, %w2d, %b2d,
                                 %gammad, %betad)
        : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
           tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
        -> tensor<?x?xf32>
    %cand_nd = func.call @beam_carried_pairs(%cand_kd, %seld, %fresh, %nd)
        : (tensor<?x?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>,
           tensor<?x1xf32>) -> tensor<?x?x?x?xf32>
    %cand_y = tensor.cast %cand_nd
        : tensor<?x?x?x?xf32> to tensor<?x?x?x128xf32>

    %h_y = tensor.cast %h_next : tensor<?x5x?x128xf32> to tensor<?x?x?x128xf32>
    %accu_y = tensor.cast %accu_k : tensor<?x5xf32> to tensor<?x?xf32>
    %bm_y = tensor.cast %bm_k : tensor<?x5xf32> to tensor<?x?xf32>
    rvnn.yield %h_y, %cand_y, %accu_y, %bm_y, %pm_next
        : tensor<?x?x?x128xf32>, tensor<?x?x?x128xf32>, tensor<?x?xf32>,
          tensor<?x?xf32>, tensor<?x?xf32>
  }

  // Final (§3): w = softmax_b(beam_mask·accu + (1-beam_mask)·(-999999)),
  // encoding = Σ_b w_b·root_b with root_b = h[:, b, 0, :].
  %bf = tensor.dim %fin#0, %c1 : tensor<?x?x?x128xf32>
  %roots4 = tensor.extract_slice %fin#0[0, 0, 0, 0] [%n, %bf, 1, 128]
      [1, 1, 1, 1] : tensor<?x?x?x128xf32> to tensor<?x?x1x128xf32>
  %roots = tensor.collapse_shape %roots4 [[0], [1], [2, 3]]
      : tensor<?x?x1x128xf32> into tensor<?x?x128xf32>
  %enc = rvnn.beam_marginalize %roots, %fin#2, %fin#3
      : (tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
      -> tensor<?x128xf32>

  // Head (§7): dropout -> Linear(D, D) -> GELU -> dropout -> Linear(D, 10).
  %head_w1 = rvnn.param_get @head_w1 : tensor<128x128xf32>
  %head_b1 = rvnn.param_get @head_b1 : tensor<128xf32>
  %head_w2 = rvnn.param_get @head_w2 : tensor<10x128xf32>
  %head_b2 = rvnn.param_get @head_b2 : tensor<10xf32>
  %e0 = rvnn.dropout %enc {rate = 1.000000e-01 : f64} : tensor<?x128xf32>
  %e1 = rvnn.linear %e0, %head_w1, %head_b1
      : (tensor<?x128xf32>, tensor<128x128xf32>, tensor<128xf32>)
      -> tensor<?x128xf32>
  %e2 = rvnn.gelu %e1 : tensor<?x128xf32>
  %e3 = rvnn.dropout %e2 {rate = 1.000000e-01 : f64} : tensor<?x128xf32>
  %logits = rvnn.linear %e3, %head_w2, %head_b2
      : (tensor<?x128xf32>, tensor<10x128xf32>, tensor<10xf32>)
      -> tensor<?x10xf32>
  return %logits : tensor<?x10xf32>
}
