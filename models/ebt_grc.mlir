// EBT-GRC: efficient beam-tree GRC (model-specs §3 "EBT-GRC", with the BT-GRC
// beam bookkeeping) over the leaf states (§1), with the ListOps head (§7).
// Hyperparameters (§8, ListOps): embedding = hidden = 128, cell 512,
// dropout in / cell / out 0.1, beam 5, scorer slice ds = 64.
// Inputs: token ids and a float mask [N, S] (1 = real token, right padding).
//
// State per sample: B beams (B = 1 at the start, 5 after the first step) of a
// sequence of S' node states, h [N, B, S', D]; beam scores accu [N, B] (0 at
// the start) and beam_mask [N, B] (1 at the start). Step i (i = 0 .. S-2)
// turns S' = S - i nodes into S' - 1 (every sample shrinks each step):
//   1. score each adjacent pair j < P = S' - 1 from the child slices only,
//      score_j = MLP([h_j[:ds]; h_{j+1}[:ds]]), MLP = Linear(2ds, ds) -> GELU
//      -> Linear(ds, 1); p = masked_softmax(score, pair valid), pair j valid
//      iff token i+1+j is real. The first linear is W_l·h_j[:ds] +
//      W_r·h_{j+1}[:ds] + b with W = [W_l | W_r]: the state carries each
//      node's projections uv = [W_l; W_r]·h[:ds] [N, B, S', 2ds], made once,
//      with the node (the leaves' before the loop, each merged node's in
//      step 4), and a step adds u_j + v_{j+1} + b for its P pairs instead of
//      multiplying every pair's 2ds features again (O(S) products with the
//      scorer's weight instead of O(S^2); the same values up to rounding).
//      uv follows h through the beam gather, the merge and the finished
//      samples' truncation, which are linear in the nodes, so it stays the
//      nodes' projection.
//   2. each beam expands into its top k = min(P, beam) pairs (ranked by p,
//      ties to the lower index, rvnn.topk's contract: equal tokens give equal
//      pair scores; Gumbel noise on the scores in training only); child score
//      accu + log(p_pick + 1e-20) (noise-free p); a finished sample (no valid
//      pair, i.e. token i+1 is padding) keeps only child 0 in the beam mask.
//   3. if B·k > beam, keep the top `beam` children by accu (masked beams never
//      win; Gumbel noise in training).
//   4. compose only the selected pair, l = Σ sel·h[:-1], r = Σ sel·h[1:],
//      cand = GRC(l, r) [N, B, 1, D], and merge it in (rvnn.pair_merge),
//      with its projections into uv; finished samples keep h[..., :-1, :]
//      and uv[..., :-1, :] instead.
// The last step (P = 1) has one pair: p = 1, accu unchanged, as §3 says.
// Final: roots h[:, :, 0, :] marginalised over beams (rvnn.beam_marginalize).
//
// Static k: rvnn.topk needs a static k, while §3's k = min(P, beam) shrinks
// to 4, 3, 2, 1 over the last steps (and is below 5 from the start when
// S <= 5). Each step therefore pads the pair axis with `beam` padding entries
// (P + 5 entries, the padding masked out of the ranking) and always draws 5
// children per beam: the children that pick a real pair are exactly §3's k
// children (same picks, same order, same scores) and the padding children get
// beam_mask 0, so they never win a beam slot over a real child and have zero
// weight in the marginalisation. The beam selection of step 3 then always
// runs (top 5 of 5·B). B·k <= 5 happens only at the first step (B = 1: its
// children are already in ranked order, which the stable selection keeps)
// and at the last step (P = 1: one child per beam, possibly reordered just
// before the order-free marginalisation), so §3's results are unchanged.
//
// The scorer's output bias is left out: a constant added to every pair score
// changes neither the masked softmax nor the ranking, so it is a no-op whose
// gradient is identically zero.

rvnn.param @embedding : tensor<16x128xf32> init normal(1.0)
rvnn.param @leaf_w : tensor<128x128xf32> init xavier_uniform
rvnn.param @leaf_b : tensor<128xf32> init zeros
rvnn.param @leaf_gamma : tensor<128xf32> init ones
rvnn.param @leaf_beta : tensor<128xf32> init zeros
rvnn.param @score_w1 : tensor<64x128xf32> init xavier_uniform
rvnn.param @score_b1 : tensor<64xf32> init zeros
rvnn.param @score_w2 : tensor<1x64xf32> init xavier_uniform
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

  // Scorer (§3 EBT): Linear(2ds, ds) -> GELU -> Linear(ds, 1), ds = 64.
  %sw1 = rvnn.param_get @score_w1 : tensor<64x128xf32>
  %sb1 = rvnn.param_get @score_b1 : tensor<64xf32>
  %sw2 = rvnn.param_get @score_w2 : tensor<1x64xf32>

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
  // The scorer's first weight as per-node projections [W_l; W_r] (2ds x ds),
  // and the leaves' projections.
  %swl = tensor.extract_slice %sw1[0, 0] [64, 64] [1, 1]
      : tensor<64x128xf32> to tensor<64x64xf32>
  %swr = tensor.extract_slice %sw1[0, 64] [64, 64] [1, 1]
      : tensor<64x128xf32> to tensor<64x64xf32>
  %swlr = tensor.concat dim(0) %swl, %swr
      : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<128x64xf32>
  %h0s = tensor.extract_slice %h0[0, 0, 0, 0] [%n, 1, %s, 64] [1, 1, 1, 1]
      : tensor<?x1x?x128xf32> to tensor<?x1x?x64xf32>
  %uv0 = rvnn.linear %h0s, %swlr
      : (tensor<?x1x?x64xf32>, tensor<128x64xf32>) -> tensor<?x1x?x128xf32>
  %uv0d = tensor.cast %uv0 : tensor<?x1x?x128xf32> to tensor<?x?x?x128xf32>
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

  // S - 1 merge steps; the sequence shrinks by one per step, the beam count
  // grows from 1 to 5.
  %fin:5 = rvnn.recurse (%h = %h0d, %uv = %uv0d, %accu = %accu0d,
                         %bm = %bm0d, %pm = %pm0)
      : tensor<?x?x?x128xf32>, tensor<?x?x?x128xf32>, tensor<?x?xf32>,
        tensor<?x?xf32>, tensor<?x?xf32>
      halting <none> max_steps %s1 {
  ^bb0(%step: index, %h: tensor<?x?x?x128xf32>, %uv: tensor<?x?x?x128xf32>,
       %accu: tensor<?x?xf32>, %bm: tensor<?x?xf32>, %pm: tensor<?x?xf32>):
    %b = tensor.dim %h, %c1 : tensor<?x?x?x128xf32>
    %sp = tensor.dim %h, %c2 : tensor<?x?x?x128xf32>
    %p = arith.subi %sp, %c1 : index

    // 1. Pair scores from the children's first ds = 64 features:
    // u_j + v_{j+1} + b from the nodes' projections.
    %ul = tensor.extract_slice %uv[0, 0, 0, 0] [%n, %b, %p, 64] [1, 1, 1, 1]
        : tensor<?x?x?x128xf32> to tensor<?x?x?x64xf32>
    %vr = tensor.extract_slice %uv[0, 0, 1, 64] [%n, %b, %p, 64] [1, 1, 1, 1]
        : tensor<?x?x?x128xf32> to tensor<?x?x?x64xf32>
    %uvsum = arith.addf %ul, %vr : tensor<?x?x?x64xf32>
    %sb1b = rvnn.broadcast_like %sb1, %uvsum
        : (tensor<64xf32>, tensor<?x?x?x64xf32>) -> tensor<?x?x?x64xf32>
    %z1 = arith.addf %uvsum, %sb1b : tensor<?x?x?x64xf32>
    %z2 = rvnn.gelu %z1 : tensor<?x?x?x64xf32>
    %z3 = rvnn.linear %z2, %sw2
        : (tensor<?x?x?x64xf32>, tensor<1x64xf32>) -> tensor<?x?x?x1xf32>
    %score = tensor.collapse_shape %z3 [[0], [1], [2, 3]]
        : tensor<?x?x?x1xf32> into tensor<?x?x?xf32>
    %key, %real, %probp = func.call @beam_pair_ranking(%score, %pm, %c5)
        : (tensor<?x?x?xf32>, tensor<?x?xf32>, index)
        -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>)

    // 2. Top-5 pairs per beam over [P real pairs; 5 padding entries]
    // (@beam_pair_ranking: p = masked_softmax over the valid pairs), Gumbel
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
    %h_c = rvnn.beam_expand %h {factor = 5 : i64}
        : (tensor<?x?x?x128xf32>) -> tensor<?x?x?x128xf32>
    %h_k = rvnn.beam_gather %h_c, %kept
        : (tensor<?x?x?x128xf32>, tensor<?x5xi64>) -> tensor<?x5x?x128xf32>
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

    // 4. Compose only the selected pair: l = Σ sel·h[:-1], r = Σ sel·h[1:].
    %m = arith.muli %n, %c5 : index
    %hl = tensor.extract_slice %h_k[0, 0, 0, 0] [%n, 5, %p, 128] [1, 1, 1, 1]
        : tensor<?x5x?x128xf32> to tensor<?x5x?x128xf32>
    %hr = tensor.extract_slice %h_k[0, 0, 1, 0] [%n, 5, %p, 128] [1, 1, 1, 1]
        : tensor<?x5x?x128xf32> to tensor<?x5x?x128xf32>
    %hl3 = tensor.collapse_shape %hl [[0, 1], [2], [3]]
        : tensor<?x5x?x128xf32> into tensor<?x?x128xf32>
    %hr3 = tensor.collapse_shape %hr [[0, 1], [2], [3]]
        : tensor<?x5x?x128xf32> into tensor<?x?x128xf32>
    %sel2 = tensor.collapse_shape %sel [[0, 1], [2]]
        : tensor<?x5x?xf32> into tensor<?x?xf32>
    %sel3 = tensor.expand_shape %sel2 [[0], [1, 2]] output_shape [%m, 1, %p]
        : tensor<?x?xf32> into tensor<?x1x?xf32>
    %refD = tensor.empty(%m) : tensor<?x1x128xf32>
    %accD = rvnn.broadcast_like %zero, %refD
        : (tensor<f32>, tensor<?x1x128xf32>) -> tensor<?x1x128xf32>
    %l3 = linalg.batch_matmul ins(%sel3, %hl3 : tensor<?x1x?xf32>, tensor<?x?x128xf32>)
        outs(%accD : tensor<?x1x128xf32>) -> tensor<?x1x128xf32>
    %r3 = linalg.batch_matmul ins(%sel3, %hr3 : tensor<?x1x?xf32>, tensor<?x?x128xf32>)
        outs(%accD : tensor<?x1x128xf32>) -> tensor<?x1x128xf32>
    %l2 = tensor.collapse_shape %l3 [[0, 1], [2]]
        : tensor<?x1x128xf32> into tensor<?x128xf32>
    %r2 = tensor.collapse_shape %r3 [[0, 1], [2]]
        : tensor<?x1x128xf32> into tensor<?x128xf32>
    %ld = tensor.cast %l2 : tensor<?x128xf32> to tensor<?x?xf32>
    %rd = tensor.cast %r2 : tensor<?x128xf32> to tensor<?x?xf32>
    %composed = func.call @grc_cell(%ld, %rd, %w1d, %b1d, %w2d, %b2d,
                                    %gammad, %betad)
        : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
           tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
        -> tensor<?x?xf32>
    %composedD = tensor.cast %composed : tensor<?x?xf32> to tensor<?x128xf32>
    %cand = tensor.expand_shape %composedD [[0, 1, 2], [3]]
        output_shape [%n, 5, 1, 128]
        : tensor<?x128xf32> into tensor<?x5x1x128xf32>
    // h_j <- sel_j·cand + left_j·h_j + right_j·h_{j+1}.
    %merged = rvnn.pair_merge %h_k, %cand, %sel
        : (tensor<?x5x?x128xf32>, tensor<?x5x1x128xf32>, tensor<?x5x?xf32>)
        -> tensor<?x5x?x128xf32>
    // Finished samples keep h[..., :-1, :].
    %nd_g = tensor.expand_shape %nd [[0], [1, 2, 3]] output_shape [%n, 1, 1, 1]
        : tensor<?x1xf32> into tensor<?x1x1x1xf32>
    %h_next = rvnn.gate %nd_g, %merged, %hl
        : (tensor<?x1x1x1xf32>, tensor<?x5x?x128xf32>, tensor<?x5x?x128xf32>)
        -> tensor<?x5x?x128xf32>
    // The merged node's projections, merged into the kept beams' as the
    // node is into their states.
    %cand_s = tensor.extract_slice %cand[0, 0, 0, 0] [%n, 5, 1, 64]
        [1, 1, 1, 1] : tensor<?x5x1x128xf32> to tensor<?x5x1x64xf32>
    %uv_m = rvnn.linear %cand_s, %swlr
        : (tensor<?x5x1x64xf32>, tensor<128x64xf32>) -> tensor<?x5x1x128xf32>
    %uv_k = rvnn.beam_gather %uv, %kept {factor = 5 : i64}
        : (tensor<?x?x?x128xf32>, tensor<?x5xi64>) -> tensor<?x5x?x128xf32>
    %uv_merged = rvnn.pair_merge %uv_k, %uv_m, %sel
        : (tensor<?x5x?x128xf32>, tensor<?x5x1x128xf32>, tensor<?x5x?xf32>)
        -> tensor<?x5x?x128xf32>
    %uv_kl = tensor.extract_slice %uv_k[0, 0, 0, 0] [%n, 5, %p, 128]
        [1, 1, 1, 1] : tensor<?x5x?x128xf32> to tensor<?x5x?x128xf32>
    %uv_next = rvnn.gate %nd_g, %uv_merged, %uv_kl
        : (tensor<?x1x1x1xf32>, tensor<?x5x?x128xf32>, tensor<?x5x?x128xf32>)
        -> tensor<?x5x?x128xf32>
    %p1 = arith.subi %p, %c1 : index
    %pm_next = tensor.extract_slice %pm[0, 1] [%n, %p1] [1, 1]
        : tensor<?x?xf32> to tensor<?x?xf32>

    %h_y = tensor.cast %h_next : tensor<?x5x?x128xf32> to tensor<?x?x?x128xf32>
    %uv_y = tensor.cast %uv_next : tensor<?x5x?x128xf32> to tensor<?x?x?x128xf32>
    %accu_y = tensor.cast %accu_k : tensor<?x5xf32> to tensor<?x?xf32>
    %bm_y = tensor.cast %bm_k : tensor<?x5xf32> to tensor<?x?xf32>
    rvnn.yield %h_y, %uv_y, %accu_y, %bm_y, %pm_next
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
