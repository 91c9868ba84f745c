// BT-GRC OneSoft (model-specs §3 "BT-GRC OneSoft"): BT-GRC
// (models/bt_grc.mlir) whose beam pruning, in training, keeps the top
// beam - 1 children hard and merges all the others into one soft beam,
// weighted by masked_softmax(accu, beam_mask) over them; at evaluation it
// keeps the top `beam` children, as BT-GRC does. Leaf states (§1), the
// ListOps head (§7); hyperparameters (§8, ListOps): embedding = hidden = 128,
// cell 512, dropout in / cell / out 0.1, beam 5.
// Inputs: token ids and a float mask [N, S] (1 = real token, right padding).
//
// State per sample, steps 1-2 and the static k (padding children with
// beam_mask 0) are BT-GRC's; the differences:
//   - no Gumbel noise in either top-k: OneSoft's training-time relaxation is
//     the soft beam (the authors' OneSoft code, BRF, draws no noise);
//   - step 3 builds mixing weights mix [N, 5, C] over the C = 5·B children
//     (rows 0-3: the top 4 children; row 4: the 5th child at evaluation, the
//     soft merge of every child outside the top 4 in training, selected by
//     rvnn.mode_select) and every kept quantity is mix · children: scores,
//     beam masks (as 1 - mix · (1 - mask), see step 3), pair selections
//     (soft in the merged beam) and, through each parent's summed weights,
//     states and composed pairs. Gradients reach the scores through the
//     soft weights too;
//   - step 5, the composed pairs that BT-GRC carries from step to step: the
//     hard beams (rows 0-3) update theirs as BT-GRC does (2 new pairs a
//     step), but the soft beam (row 4) mixes its parents' states, and the
//     composition of a mix is not the mix of the compositions, so its P - 1
//     pairs are composed afresh from its new states at every step, in the
//     same cell call (2·5 + P - 1 rows a step and sample, where §3 composes
//     5·P). At evaluation row 4 is a hard beam and takes BT-GRC's update:
//     rvnn.mode_select gives the cell no soft-beam rows there (2·5 rows a
//     step). As in BT-GRC, a hard beam's carried composition keeps the cell
//     dropout it was drawn with.
// Where §3 does not prune (B·k <= 5: the first step, and the last step,
// where nothing is scored) the soft beam is the 5th real child alone (up to
// weights of 1e-20 on padding children) or, without one, a beam of masked
// children with beam_mask 0, which never counts.
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
  %c128 = arith.constant 128 : index
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

    // 2. Top-5 pairs per beam over [P real pairs; 5 padding entries], no
    // noise; padding never beats a real pair, so the real picks are §3's top
    // min(P, 5). The children's scores and beam masks: @beam_children.
    %top, %pick = rvnn.topk %key, %real {k = 5 : i64}
        : (tensor<?x?x?xf32>, tensor<?x?x?xf32>)
        -> (tensor<?x?x5xf32>, tensor<?x?x5xi64>)
    %pickd = tensor.cast %pick : tensor<?x?x5xi64> to tensor<?x?x?xi64>
    %accu_c, %bm_c = func.call @beam_children(%accu, %bm, %pm, %probp, %pickd)
        : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
           tensor<?x?x?xf32>, tensor<?x?x?xi64>)
        -> (tensor<?x?xf32>, tensor<?x?xf32>)
    %nd = tensor.extract_slice %pm[0, 0] [%n, 1] [1, 1]
        : tensor<?x?xf32> to tensor<?x1xf32>

    // 3. Rank the children by accu (masked children last, no noise) and
    // build the mixing weights mix [N, 5, C] over the C = 5·B children: rows
    // 0-3 pick the top 4 children; row 4 picks the 5th at evaluation and, in
    // training, merges all children outside the top 4 into one soft beam
    // with weights masked_softmax(accu, beam_mask) over those children.
    %kv, %kept = rvnn.topk %accu_c, %bm_c {k = 5 : i64}
        : (tensor<?x?xf32>, tensor<?x?xf32>)
        -> (tensor<?x5xf32>, tensor<?x5xi64>)
    %c = tensor.dim %accu_c, %c1 : tensor<?x?xf32>
    %top5 = rvnn.one_hot %kept, %accu_c
        : (tensor<?x5xi64>, tensor<?x?xf32>) -> tensor<?x5x?xf32>
    %hard = tensor.extract_slice %top5[0, 0, 0] [%n, 4, %c] [1, 1, 1]
        : tensor<?x5x?xf32> to tensor<?x4x?xf32>
    %fifth = tensor.extract_slice %top5[0, 4, 0] [%n, 1, %c] [1, 1, 1]
        : tensor<?x5x?xf32> to tensor<?x1x?xf32>
    // in_top4[c] = Σ_k hard[k, c].
    %ref14 = tensor.empty(%n) : tensor<?x1x4xf32>
    %ones14 = rvnn.broadcast_like %one, %ref14
        : (tensor<f32>, tensor<?x1x4xf32>) -> tensor<?x1x4xf32>
    %ref1c = tensor.empty(%n, %c) : tensor<?x1x?xf32>
    %acc1c = rvnn.broadcast_like %zero, %ref1c
        : (tensor<f32>, tensor<?x1x?xf32>) -> tensor<?x1x?xf32>
    %in4_3 = linalg.batch_matmul
        ins(%ones14, %hard : tensor<?x1x4xf32>, tensor<?x4x?xf32>)
        outs(%acc1c : tensor<?x1x?xf32>) -> tensor<?x1x?xf32>
    %in4 = tensor.collapse_shape %in4_3 [[0, 1], [2]]
        : tensor<?x1x?xf32> into tensor<?x?xf32>
    // The softmax runs over the other children only: the top 4 are shifted
    // to -1e30 (exp gives exactly 0) and their 1e-20 floor is multiplied
    // away, so a soft beam of masked children only has beam_mask 0.
    %big = arith.constant dense<1.0e+30> : tensor<f32>
    %bigc = rvnn.broadcast_like %big, %accu_c
        : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %shift = arith.mulf %bigc, %in4 : tensor<?x?xf32>
    %key_rest = arith.subf %accu_c, %shift : tensor<?x?xf32>
    %w_all = rvnn.masked_softmax %key_rest, %bm_c {dim = 1 : i64}
        : tensor<?x?xf32>, tensor<?x?xf32>
    %ones_c = rvnn.broadcast_like %one, %accu_c
        : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %rest = arith.subf %ones_c, %in4 : tensor<?x?xf32>
    %w_rest = arith.mulf %w_all, %rest : tensor<?x?xf32>
    %soft = tensor.expand_shape %w_rest [[0], [1, 2]] output_shape [%n, 1, %c]
        : tensor<?x?xf32> into tensor<?x1x?xf32>
    %last = rvnn.mode_select %soft, %fifth
        : tensor<?x1x?xf32>, tensor<?x1x?xf32> -> tensor<?x1x?xf32>
    %mix = tensor.concat dim(1) %hard, %last
        : (tensor<?x4x?xf32>, tensor<?x1x?xf32>) -> tensor<?x5x?xf32>

    // The kept beams' scores, masks and pair selections (soft in the merged
    // beam): mix · child values.
    %ref51 = tensor.empty(%n) : tensor<?x5x1xf32>
    %acc51 = rvnn.broadcast_like %zero, %ref51
        : (tensor<f32>, tensor<?x5x1xf32>) -> tensor<?x5x1xf32>
    %accu_col = tensor.expand_shape %accu_c [[0], [1, 2]] output_shape [%n, %c, 1]
        : tensor<?x?xf32> into tensor<?x?x1xf32>
    %accu_k3 = linalg.batch_matmul
        ins(%mix, %accu_col : tensor<?x5x?xf32>, tensor<?x?x1xf32>)
        outs(%acc51 : tensor<?x5x1xf32>) -> tensor<?x5x1xf32>
    %accu_k = tensor.collapse_shape %accu_k3 [[0], [1, 2]]
        : tensor<?x5x1xf32> into tensor<?x5xf32>
    // The merged beam's mask Σ w·bm is fractional, and the marginalisation
    // multiplies 1 - mask by 999999: it is computed as 1 - Σ w·(1 - bm)
    // (equal, as Σ w = 1), exactly 1 when every merged child is real, where
    // Σ w·bm would carry float32's rounding of Σ w, 999999 times over, into
    // the loss and the gradients.
    %nbm_c = arith.subf %ones_c, %bm_c : tensor<?x?xf32>
    %nbm_col = tensor.expand_shape %nbm_c [[0], [1, 2]] output_shape [%n, %c, 1]
        : tensor<?x?xf32> into tensor<?x?x1xf32>
    %nbm_k3 = linalg.batch_matmul
        ins(%mix, %nbm_col : tensor<?x5x?xf32>, tensor<?x?x1xf32>)
        outs(%acc51 : tensor<?x5x1xf32>) -> tensor<?x5x1xf32>
    %nbm_k = tensor.collapse_shape %nbm_k3 [[0], [1, 2]]
        : tensor<?x5x1xf32> into tensor<?x5xf32>
    %ones_k = rvnn.broadcast_like %one, %nbm_k
        : (tensor<f32>, tensor<?x5xf32>) -> tensor<?x5xf32>
    %bm_k = arith.subf %ones_k, %nbm_k : tensor<?x5xf32>
    %onehot = rvnn.one_hot %pick, %probp
        : (tensor<?x?x5xi64>, tensor<?x?x?xf32>) -> tensor<?x?x5x?xf32>
    %sel_c4 = tensor.extract_slice %onehot[0, 0, 0, 0] [%n, %b, 5, %p]
        [1, 1, 1, 1] : tensor<?x?x5x?xf32> to tensor<?x?x5x?xf32>
    %sel_c = tensor.collapse_shape %sel_c4 [[0], [1, 2], [3]]
        : tensor<?x?x5x?xf32> into tensor<?x?x?xf32>
    %ref5p = tensor.empty(%n, %p) : tensor<?x5x?xf32>
    %acc5p = rvnn.broadcast_like %zero, %ref5p
        : (tensor<f32>, tensor<?x5x?xf32>) -> tensor<?x5x?xf32>
    %sel = linalg.batch_matmul
        ins(%mix, %sel_c : tensor<?x5x?xf32>, tensor<?x?x?xf32>)
        outs(%acc5p : tensor<?x5x?xf32>) -> tensor<?x5x?xf32>
    // The structure this model induces at evaluation (rvnn-run parse): each
    // kept beam's merged pair, and the beam it continues (child k of beam
    // k / 5).
    rvnn.expose_structure <merge_selection> %sel : tensor<?x5x?xf32>
    rvnn.expose_structure <beam_parent> %kept {factor = 5 : i64}
        : tensor<?x5xi64>

    // 4. Children of one beam share its states and composed pairs, so the
    // kept beams mix their parents with weights summed over each parent's 5
    // children, par [N, 5, B]; then the (soft) selected pair merges in,
    // h_j <- sel_j·cand_j + left_j·h_j + right_j·h_{j+1}.
    %mix4 = tensor.expand_shape %mix [[0], [1], [2, 3]]
        output_shape [%n, 5, %b, 5]
        : tensor<?x5x?xf32> into tensor<?x5x?x5xf32>
    %ones5 = arith.constant dense<1.0> : tensor<1x5xf32>
    %par4 = rvnn.linear %mix4, %ones5
        : (tensor<?x5x?x5xf32>, tensor<1x5xf32>) -> tensor<?x5x?x1xf32>
    %par = tensor.collapse_shape %par4 [[0], [1], [2, 3]]
        : tensor<?x5x?x1xf32> into tensor<?x5x?xf32>
    %hsd = arith.muli %sp, %c128 : index
    %hflat = tensor.collapse_shape %h [[0], [1], [2, 3]]
        : tensor<?x?x?x128xf32> into tensor<?x?x?xf32>
    %refh = tensor.empty(%n, %hsd) : tensor<?x5x?xf32>
    %acch = rvnn.broadcast_like %zero, %refh
        : (tensor<f32>, tensor<?x5x?xf32>) -> tensor<?x5x?xf32>
    %hk_flat = linalg.batch_matmul
        ins(%par, %hflat : tensor<?x5x?xf32>, tensor<?x?x?xf32>)
        outs(%acch : tensor<?x5x?xf32>) -> tensor<?x5x?xf32>
    %h_k = tensor.expand_shape %hk_flat [[0], [1], [2, 3]]
        output_shape [%n, 5, %sp, 128]
        : tensor<?x5x?xf32> into tensor<?x5x?x128xf32>
    %psd = arith.muli %p, %c128 : index
    %cflat = tensor.collapse_shape %cand [[0], [1], [2, 3]]
        : tensor<?x?x?x128xf32> into tensor<?x?x?xf32>
    %refc = tensor.empty(%n, %psd) : tensor<?x5x?xf32>
    %accc = rvnn.broadcast_like %zero, %refc
        : (tensor<f32>, tensor<?x5x?xf32>) -> tensor<?x5x?xf32>
    %ck_flat = linalg.batch_matmul
        ins(%par, %cflat : tensor<?x5x?xf32>, tensor<?x?x?xf32>)
        outs(%accc : tensor<?x5x?xf32>) -> tensor<?x5x?xf32>
    %cand_k = tensor.expand_shape %ck_flat [[0], [1], [2, 3]]
        output_shape [%n, 5, %p, 128]
        : tensor<?x5x?xf32> into tensor<?x5x?x128xf32>
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

    // 5. The composed pairs follow the merge (@beam_merge_neighbours,
    // @beam_carried_pairs): the merged node m and its neighbours l and r
    // make two new pairs per beam, GRC(l, m) and GRC(m, r).
    %h_kd = tensor.cast %h_k : tensor<?x5x?x128xf32> to tensor<?x?x?x?xf32>
    %cand_kd = tensor.cast %cand_k
        : tensor<?x5x?x128xf32> to tensor<?x?x?x?xf32>
    %seld = tensor.cast %sel : tensor<?x5x?xf32> to tensor<?x?x?xf32>
    %left, %mid, %right = func.call @beam_merge_neighbours(%h_kd, %cand_kd,
                                                           %seld)
        : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?xf32>)
        -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
    // Row 4 is the soft beam in training: it mixes its parents' states, so
    // the compositions of its pairs are not a mix of theirs, and all P - 1
    // of them are composed afresh from h_next. At evaluation row 4 is a hard
    // beam like the others and nothing more is composed (no rows).
    %h4l = tensor.extract_slice %h_next[0, 4, 0, 0] [%n, 1, %p1, 128]
        [1, 1, 1, 1] : tensor<?x5x?x128xf32> to tensor<?x1x?x128xf32>
    %h4r = tensor.extract_slice %h_next[0, 4, 1, 0] [%n, 1, %p1, 128]
        [1, 1, 1, 1] : tensor<?x5x?x128xf32> to tensor<?x1x?x128xf32>
    %soft_l = tensor.collapse_shape %h4l [[0, 1, 2], [3]]
        : tensor<?x1x?x128xf32> into tensor<?x128xf32>
    %soft_r = tensor.collapse_shape %h4r [[0, 1, 2], [3]]
        : tensor<?x1x?x128xf32> into tensor<?x128xf32>
    %no_rows = tensor.extract_slice %soft_l[0, 0] [%c0, 128] [1, 1]
        : tensor<?x128xf32> to tensor<?x128xf32>
    %soft_lhs = rvnn.mode_select %soft_l, %no_rows
        : tensor<?x128xf32>, tensor<?x128xf32> -> tensor<?x128xf32>
    %soft_rhs = rvnn.mode_select %soft_r, %no_rows
        : tensor<?x128xf32>, tensor<?x128xf32> -> tensor<?x128xf32>
    // One cell call: rows [GRC(l, m); GRC(m, r); the soft beam's pairs].
    %soft_lhsd = tensor.cast %soft_lhs : tensor<?x128xf32> to tensor<?x?xf32>
    %soft_rhsd = tensor.cast %soft_rhs : tensor<?x128xf32> to tensor<?x?xf32>
    %lhs = tensor.concat dim(0) %left, %mid, %soft_lhsd
        : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %rhs = tensor.concat dim(0) %mid, %right, %soft_rhsd
        : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %fresh = func.call @grc_cell(%lhs, %rhs, %w1d, %b1d, %w2d, %b2d,
                                 %gammad, %betad)
        : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
           tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
        -> tensor<?x?xf32>
    %cand_nd = func.call @beam_carried_pairs(%cand_kd, %seld, %fresh, %nd)
        : (tensor<?x?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>,
           tensor<?x1xf32>) -> tensor<?x?x?x?xf32>
    %cand_g = tensor.cast %cand_nd
        : tensor<?x?x?x?xf32> to tensor<?x5x?x128xf32>
    %freshD = tensor.cast %fresh : tensor<?x?xf32> to tensor<?x128xf32>
    // Row 4: in training its fresh compositions (the rows after the first
    // 2·5N), at evaluation the update above.
    %m5 = arith.muli %n, %c5 : index
    %m10 = arith.muli %m5, %c2 : index
    %rows = tensor.dim %freshD, %c0 : tensor<?x128xf32>
    %soft_rows = arith.subi %rows, %m10 : index
    %soft_new = tensor.extract_slice %freshD[%m10, 0] [%soft_rows, 128] [1, 1]
        : tensor<?x128xf32> to tensor<?x128xf32>
    %hard4 = tensor.extract_slice %cand_g[0, 0, 0, 0] [%n, 4, %p1, 128]
        [1, 1, 1, 1] : tensor<?x5x?x128xf32> to tensor<?x4x?x128xf32>
    %upd4 = tensor.extract_slice %cand_g[0, 4, 0, 0] [%n, 1, %p1, 128]
        [1, 1, 1, 1] : tensor<?x5x?x128xf32> to tensor<?x1x?x128xf32>
    %upd4f = tensor.collapse_shape %upd4 [[0, 1, 2], [3]]
        : tensor<?x1x?x128xf32> into tensor<?x128xf32>
    %row4f = rvnn.mode_select %soft_new, %upd4f
        : tensor<?x128xf32>, tensor<?x128xf32> -> tensor<?x128xf32>
    %row4 = tensor.expand_shape %row4f [[0, 1, 2], [3]]
        output_shape [%n, 1, %p1, 128]
        : tensor<?x128xf32> into tensor<?x1x?x128xf32>
    %cand_next = tensor.concat dim(1) %hard4, %row4
        : (tensor<?x4x?x128xf32>, tensor<?x1x?x128xf32>)
        -> tensor<?x5x?x128xf32>

    %h_y = tensor.cast %h_next : tensor<?x5x?x128xf32> to tensor<?x?x?x128xf32>
    %cand_y = tensor.cast %cand_next
        : tensor<?x5x?x128xf32> to tensor<?x?x?x128xf32>
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
