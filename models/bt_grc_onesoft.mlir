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
//     soft weights too.
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

func.func @forward(%tokens: tensor<?x?xi64>, %mask: tensor<?x?xf32>)
    -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
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

  // S - 1 merge steps; the sequence shrinks by one per step, the beam count
  // grows from 1 to 5.
  %fin:4 = rvnn.recurse (%h = %h0d, %accu = %accu0d, %bm = %bm0d, %pm = %pm0)
      : tensor<?x?x?x128xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
      halting <none> max_steps %s1 {
  ^bb0(%step: index, %h: tensor<?x?x?x128xf32>, %accu: tensor<?x?xf32>,
       %bm: tensor<?x?xf32>, %pm: tensor<?x?xf32>):
    %b = tensor.dim %h, %c1 : tensor<?x?x?x128xf32>
    %sp = tensor.dim %h, %c2 : tensor<?x?x?x128xf32>
    %p = arith.subi %sp, %c1 : index

    // 1. Compose every adjacent pair of every beam, then score the parents.
    %hl = tensor.extract_slice %h[0, 0, 0, 0] [%n, %b, %p, 128] [1, 1, 1, 1]
        : tensor<?x?x?x128xf32> to tensor<?x?x?x128xf32>
    %hr = tensor.extract_slice %h[0, 0, 1, 0] [%n, %b, %p, 128] [1, 1, 1, 1]
        : tensor<?x?x?x128xf32> to tensor<?x?x?x128xf32>
    %hl2 = tensor.collapse_shape %hl [[0, 1, 2], [3]]
        : tensor<?x?x?x128xf32> into tensor<?x128xf32>
    %hr2 = tensor.collapse_shape %hr [[0, 1, 2], [3]]
        : tensor<?x?x?x128xf32> into tensor<?x128xf32>
    %ld = tensor.cast %hl2 : tensor<?x128xf32> to tensor<?x?xf32>
    %rd = tensor.cast %hr2 : tensor<?x128xf32> to tensor<?x?xf32>
    %composed = func.call @grc_cell(%ld, %rd, %w1d, %b1d, %w2d, %b2d,
                                    %gammad, %betad)
        : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
           tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
        -> tensor<?x?xf32>
    %composedD = tensor.cast %composed : tensor<?x?xf32> to tensor<?x128xf32>
    %cand = tensor.expand_shape %composedD [[0, 1, 2], [3]]
        output_shape [%n, %b, %p, 128]
        : tensor<?x128xf32> into tensor<?x?x?x128xf32>
    %z = rvnn.linear %cand, %sw
        : (tensor<?x?x?x128xf32>, tensor<1x128xf32>) -> tensor<?x?x?x1xf32>
    %score = tensor.collapse_shape %z [[0], [1], [2, 3]]
        : tensor<?x?x?x1xf32> into tensor<?x?x?xf32>
    %pm3 = tensor.expand_shape %pm [[0], [1, 2]] output_shape [%n, 1, %p]
        : tensor<?x?xf32> into tensor<?x1x?xf32>
    %valid = rvnn.broadcast_like %pm3, %score
        : (tensor<?x1x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
    %prob = rvnn.masked_softmax %score, %valid {dim = 2 : i64}
        : tensor<?x?x?xf32>, tensor<?x?x?xf32>

    // 2. Top-5 pairs per beam over [P real pairs; 5 padding entries]. The
    // ranking key is log p (the order of p); padding never beats a real
    // pair, so the real picks are §3's top min(P, 5).
    %ref5 = tensor.empty(%n, %b) : tensor<?x?x5xf32>
    %pad5 = rvnn.broadcast_like %zero, %ref5
        : (tensor<f32>, tensor<?x?x5xf32>) -> tensor<?x?x5xf32>
    %ones = rvnn.broadcast_like %one, %score
        : (tensor<f32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
    %logp = math.log %prob : tensor<?x?x?xf32>
    %key = tensor.concat dim(2) %logp, %pad5
        : (tensor<?x?x?xf32>, tensor<?x?x5xf32>) -> tensor<?x?x?xf32>
    %real = tensor.concat dim(2) %ones, %pad5
        : (tensor<?x?x?xf32>, tensor<?x?x5xf32>) -> tensor<?x?x?xf32>
    %probp = tensor.concat dim(2) %prob, %pad5
        : (tensor<?x?x?xf32>, tensor<?x?x5xf32>) -> tensor<?x?x?xf32>
    %top, %pick = rvnn.topk %key, %real {k = 5 : i64}
        : (tensor<?x?x?xf32>, tensor<?x?x?xf32>)
        -> (tensor<?x?x5xf32>, tensor<?x?x5xi64>)
    // Child scores: accu + log(p_pick + 1e-20), noise-free p.
    %accu_c = rvnn.beam_accumulate %accu, %probp, %pick
        : (tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x5xi64>)
        -> tensor<?x?xf32>
    // Child beam mask: parent's mask · (child 0 or sample not finished) ·
    // (child picked a real pair, not padding).
    %nd = tensor.extract_slice %pm[0, 0] [%n, 1] [1, 1]
        : tensor<?x?xf32> to tensor<?x1xf32>
    %ref4 = tensor.empty(%n) : tensor<?x4xf32>
    %nd4 = rvnn.broadcast_like %nd, %ref4
        : (tensor<?x1xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    %first = rvnn.broadcast_like %one, %nd
        : (tensor<f32>, tensor<?x1xf32>) -> tensor<?x1xf32>
    %keep5 = tensor.concat dim(1) %first, %nd4
        : (tensor<?x1xf32>, tensor<?x4xf32>) -> tensor<?x5xf32>
    %keep5e = tensor.expand_shape %keep5 [[0], [1, 2]] output_shape [%n, 1, 5]
        : tensor<?x5xf32> into tensor<?x1x5xf32>
    %keepc = rvnn.broadcast_like %keep5e, %pick
        : (tensor<?x1x5xf32>, tensor<?x?x5xi64>) -> tensor<?x?x5xf32>
    %bm3 = tensor.expand_shape %bm [[0], [1, 2]] output_shape [%n, %b, 1]
        : tensor<?x?xf32> into tensor<?x?x1xf32>
    %bmc = rvnn.broadcast_like %bm3, %pick
        : (tensor<?x?x1xf32>, tensor<?x?x5xi64>) -> tensor<?x?x5xf32>
    %bm_c3 = arith.mulf %bmc, %keepc : tensor<?x?x5xf32>
    %bm_c2 = tensor.collapse_shape %bm_c3 [[0], [1, 2]]
        : tensor<?x?x5xf32> into tensor<?x?xf32>
    %pick2 = tensor.collapse_shape %pick [[0], [1, 2]]
        : tensor<?x?x5xi64> into tensor<?x?xi64>
    %ones_n = rvnn.broadcast_like %one, %pm
        : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %ref5n = tensor.empty(%n) : tensor<?x5xf32>
    %pad_n = rvnn.broadcast_like %zero, %ref5n
        : (tensor<f32>, tensor<?x5xf32>) -> tensor<?x5xf32>
    // Per sample: 1 for the P real pairs, 0 for the 5 padding entries.
    %real_n = tensor.concat dim(1) %ones_n, %pad_n
        : (tensor<?x?xf32>, tensor<?x5xf32>) -> tensor<?x?xf32>
    %is_real = rvnn.beam_gather %real_n, %pick2
        : (tensor<?x?xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>
    %bm_c = arith.mulf %bm_c2, %is_real : tensor<?x?xf32>

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
    %last = rvnn.mode_select %soft, %fifth : tensor<?x1x?xf32>
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

    %h_y = tensor.cast %h_next : tensor<?x5x?x128xf32> to tensor<?x?x?x128xf32>
    %accu_y = tensor.cast %accu_k : tensor<?x5xf32> to tensor<?x?xf32>
    %bm_y = tensor.cast %bm_k : tensor<?x5xf32> to tensor<?x?xf32>
    rvnn.yield %h_y, %accu_y, %bm_y, %pm_next
        : tensor<?x?x?x128xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
  }

  // Final (§3): w = softmax_b(beam_mask·accu + (1-beam_mask)·(-999999)),
  // encoding = Σ_b w_b·root_b with root_b = h[:, b, 0, :].
  %bf = tensor.dim %fin#0, %c1 : tensor<?x?x?x128xf32>
  %roots4 = tensor.extract_slice %fin#0[0, 0, 0, 0] [%n, %bf, 1, 128]
      [1, 1, 1, 1] : tensor<?x?x?x128xf32> to tensor<?x?x1x128xf32>
  %roots = tensor.collapse_shape %roots4 [[0], [1], [2, 3]]
      : tensor<?x?x1x128xf32> into tensor<?x?x128xf32>
  %enc = rvnn.beam_marginalize %roots, %fin#1, %fin#2
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
