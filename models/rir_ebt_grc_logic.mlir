// RIR-EBT-GRC for logical inference (the RIR paper, Table 3): a Siamese
// sentence-pair classifier. models/rir_ebt_grc_s4d.mlir's encoder (the S4D
// pre-chunk layer, which the paper's RIR-EBT-GRC has, then the outer chunked
// recursion with beam alignment around the inner EBT-GRC with beam 7; see
// there and models/rir_ebt_grc.mlir) encodes both sentences as one batch of
// 2N, as models/bbt_grc_logic.mlir does; the sentence-pair head (§7)
// classifies the relation of the two encodings a and b.
// Hyperparameters (§8, logical inference): embedding = hidden = 200, cell
// 800, dropout in / cell / out 0.4 / 0.1 / 0.1 (the cell's 0.1 is fixed in
// models/cells.mlir), S4D dropout 0 (@s4d_branches and @s4d_glu called
// without the dropout @s4d_layer puts between them), beam 7, ds 64, chunk 30.
// The S4D blocks keep d_state 64 (32 conjugate-pair modes) per channel.
// Vocabulary: 12 ids (0 pad, 1-6 a-f, 7 and, 8 or, 9 not, 10 (, 11 )).
// Labels: < > = ^ | # v -> 0..6. Inputs: token ids
// and float masks [N, S1] and [N, S2] for the two sentences; both are
// right-padded to S = max(S1, S2) and stacked, so the chunking of the RIR
// levels follows the stacked length, as the authors' batched Siamese code
// does. Sentences of the standard splits (at most 12 operators, so at most
// 25 tokens) stay below chunk + chunk/2 = 45: at chunk 30 every level is
// the last, unaligned one, and training runs EBT-GRC with beam 7 over the
// S4D leaves (the outer levels and the alignment act on longer inputs).
// Evaluation: non-RIR inference by default, `--option rir_inference=1` for
// RIR inference (rir_ebt_grc.mlir).

rvnn.param @embedding : tensor<12x200xf32> init normal(1.0)
rvnn.param @s4d_f_log_dt_centred : tensor<200xf32> init uniform(2.302585092994046)
rvnn.param @s4d_f_log_a_re : tensor<200x32xf32> init constant(-0.6931471805599453)
rvnn.param @s4d_f_a_im_offset : tensor<200x32xf32> init zeros
rvnn.param @s4d_f_c_re : tensor<200x32xf32> init normal(0.7071067811865476)
rvnn.param @s4d_f_c_im : tensor<200x32xf32> init normal(0.7071067811865476)
rvnn.param @s4d_f_skip : tensor<200xf32> init normal(1.0)
rvnn.param @s4d_b_log_dt_centred : tensor<200xf32> init uniform(2.302585092994046)
rvnn.param @s4d_b_log_a_re : tensor<200x32xf32> init constant(-0.6931471805599453)
rvnn.param @s4d_b_a_im_offset : tensor<200x32xf32> init zeros
rvnn.param @s4d_b_c_re : tensor<200x32xf32> init normal(0.7071067811865476)
rvnn.param @s4d_b_c_im : tensor<200x32xf32> init normal(0.7071067811865476)
rvnn.param @s4d_b_skip : tensor<200xf32> init normal(1.0)
rvnn.param @s4d_glu_w : tensor<400x400xf32> init xavier_uniform
rvnn.param @s4d_glu_b : tensor<400xf32> init zeros
rvnn.param @leaf_w : tensor<200x200xf32> init xavier_uniform
rvnn.param @leaf_b : tensor<200xf32> init zeros
rvnn.param @leaf_gamma : tensor<200xf32> init ones
rvnn.param @leaf_beta : tensor<200xf32> init zeros
rvnn.param @score_w1 : tensor<64x128xf32> init xavier_uniform
rvnn.param @score_b1 : tensor<64xf32> init zeros
rvnn.param @score_w2 : tensor<1x64xf32> init xavier_uniform
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

// The two parts of the S4D pre-chunk layer (models/cells.mlir): the
// directions' GELU outputs, and the GLU projection with the residual.
func.func private @s4d_branches(tensor<?x?x?xf32>, tensor<?x?xf32>,
                                tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
                                tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
                                tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
                                tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>)
    -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>)
func.func private @s4d_glu(tensor<?x?x?xf32>, tensor<?x?x?xf32>,
                           tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>)
    -> tensor<?x?x?xf32>

// The inner recursion: EBT-GRC (beam 7, ds 64) over R rows at once, from
// the beams h [R, B, L, D] with scores accu and masks bm [R, B] and the
// token mask [R, L]; L - 1 merge steps. Returns the 7 beam roots [R, 7, D]
// (B when L = 1) with their scores and masks.
func.func private @beam_tree(%h0d: tensor<?x?x?x200xf32>, %accu0d: tensor<?x?xf32>,
                             %bm0d: tensor<?x?xf32>, %mask: tensor<?x?xf32>)
    -> (tensor<?x?x200xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %zero = arith.constant dense<0.0> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %n = tensor.dim %h0d, %c0 : tensor<?x?x?x200xf32>
  %s = tensor.dim %h0d, %c2 : tensor<?x?x?x200xf32>

  // Scorer (§3 EBT): Linear(2ds, ds) -> GELU -> Linear(ds, 1), ds = 64.
  %sw1 = rvnn.param_get @score_w1 : tensor<64x128xf32>
  %sb1 = rvnn.param_get @score_b1 : tensor<64xf32>
  %sw2 = rvnn.param_get @score_w2 : tensor<1x64xf32>
  // The scorer's first weight as per-node projections [W_l; W_r] (2ds x ds),
  // and the leaves': a pair's first scorer layer is u_j + v_{j+1} + b
  // (models/ebt_grc.mlir, step 1).
  %swl = tensor.extract_slice %sw1[0, 0] [64, 64] [1, 1]
      : tensor<64x128xf32> to tensor<64x64xf32>
  %swr = tensor.extract_slice %sw1[0, 64] [64, 64] [1, 1]
      : tensor<64x128xf32> to tensor<64x64xf32>
  %swlr = tensor.concat dim(0) %swl, %swr
      : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<128x64xf32>
  %b0 = tensor.dim %h0d, %c1 : tensor<?x?x?x200xf32>
  %h0s = tensor.extract_slice %h0d[0, 0, 0, 0] [%n, %b0, %s, 64] [1, 1, 1, 1]
      : tensor<?x?x?x200xf32> to tensor<?x?x?x64xf32>
  %uv0d = rvnn.linear %h0s, %swlr
      : (tensor<?x?x?x64xf32>, tensor<128x64xf32>) -> tensor<?x?x?x128xf32>

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

  // The pair validity of step i is mask[:, i+1:] (pair j valid iff token
  // i+1+j is real).
  %s1 = arith.subi %s, %c1 : index
  %pm0 = tensor.extract_slice %mask[0, 1] [%n, %s1] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>

  %fin:5 = rvnn.recurse (%h = %h0d, %uv = %uv0d, %accu = %accu0d,
                         %bm = %bm0d, %pm = %pm0)
      : tensor<?x?x?x200xf32>, tensor<?x?x?x128xf32>, tensor<?x?xf32>,
        tensor<?x?xf32>, tensor<?x?xf32>
      halting <none> max_steps %s1 {
  ^bb0(%step: index, %h: tensor<?x?x?x200xf32>, %uv: tensor<?x?x?x128xf32>,
       %accu: tensor<?x?xf32>, %bm: tensor<?x?xf32>, %pm: tensor<?x?xf32>):
    %b = tensor.dim %h, %c1 : tensor<?x?x?x200xf32>
    %sp = tensor.dim %h, %c2 : tensor<?x?x?x200xf32>
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
    %key, %real, %probp = func.call @beam_pair_ranking(%score, %pm, %c7)
        : (tensor<?x?x?xf32>, tensor<?x?xf32>, index)
        -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>)

    // 2. Top-7 pairs per beam over [P real pairs; 7 padding entries]
    // (@beam_pair_ranking: p = masked_softmax over the valid pairs), Gumbel
    // noise on the key in training; padding never beats a real pair, so the
    // real picks are §3's top min(P, 7). The children's scores and beam
    // masks: @beam_children.
    %top, %pick = rvnn.topk %key, %real {k = 7 : i64, gumbel = true}
        : (tensor<?x?x?xf32>, tensor<?x?x?xf32>)
        -> (tensor<?x?x7xf32>, tensor<?x?x7xi64>)
    %pickd = tensor.cast %pick : tensor<?x?x7xi64> to tensor<?x?x?xi64>
    %accu_c, %bm_c = func.call @beam_children(%accu, %bm, %pm, %probp, %pickd)
        : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
           tensor<?x?x?xf32>, tensor<?x?x?xi64>)
        -> (tensor<?x?xf32>, tensor<?x?xf32>)
    %nd = tensor.extract_slice %pm[0, 0] [%n, 1] [1, 1]
        : tensor<?x?xf32> to tensor<?x1xf32>

    // 3. Keep the top 7 children by accu (masked children never win).
    %kv, %kept = rvnn.topk %accu_c, %bm_c {k = 7 : i64, gumbel = true}
        : (tensor<?x?xf32>, tensor<?x?xf32>)
        -> (tensor<?x7xf32>, tensor<?x7xi64>)
    %h_k = rvnn.beam_gather %h, %kept {factor = 7 : i64}
        : (tensor<?x?x?x200xf32>, tensor<?x7xi64>) -> tensor<?x7x?x200xf32>
    %accu_k = rvnn.beam_gather %accu_c, %kept
        : (tensor<?x?xf32>, tensor<?x7xi64>) -> tensor<?x7xf32>
    %bm_k = rvnn.beam_gather %bm_c, %kept
        : (tensor<?x?xf32>, tensor<?x7xi64>) -> tensor<?x7xf32>
    %onehot = rvnn.one_hot %pick, %probp
        : (tensor<?x?x7xi64>, tensor<?x?x?xf32>) -> tensor<?x?x7x?xf32>
    %sel_c4 = tensor.extract_slice %onehot[0, 0, 0, 0] [%n, %b, 7, %p]
        [1, 1, 1, 1] : tensor<?x?x7x?xf32> to tensor<?x?x7x?xf32>
    %sel_c = tensor.collapse_shape %sel_c4 [[0], [1, 2], [3]]
        : tensor<?x?x7x?xf32> into tensor<?x?x?xf32>
    %sel = rvnn.beam_gather %sel_c, %kept
        : (tensor<?x?x?xf32>, tensor<?x7xi64>) -> tensor<?x7x?xf32>
    // 4. Compose only the selected pair: l = Σ sel·h[:-1], r = Σ sel·h[1:].
    %m = arith.muli %n, %c7 : index
    %hl = tensor.extract_slice %h_k[0, 0, 0, 0] [%n, 7, %p, 200] [1, 1, 1, 1]
        : tensor<?x7x?x200xf32> to tensor<?x7x?x200xf32>
    %hr = tensor.extract_slice %h_k[0, 0, 1, 0] [%n, 7, %p, 200] [1, 1, 1, 1]
        : tensor<?x7x?x200xf32> to tensor<?x7x?x200xf32>
    %hl3 = tensor.collapse_shape %hl [[0, 1], [2], [3]]
        : tensor<?x7x?x200xf32> into tensor<?x?x200xf32>
    %hr3 = tensor.collapse_shape %hr [[0, 1], [2], [3]]
        : tensor<?x7x?x200xf32> into tensor<?x?x200xf32>
    %sel2 = tensor.collapse_shape %sel [[0, 1], [2]]
        : tensor<?x7x?xf32> into tensor<?x?xf32>
    %sel3 = tensor.expand_shape %sel2 [[0], [1, 2]] output_shape [%m, 1, %p]
        : tensor<?x?xf32> into tensor<?x1x?xf32>
    %refD = tensor.empty(%m) : tensor<?x1x200xf32>
    %accD = rvnn.broadcast_like %zero, %refD
        : (tensor<f32>, tensor<?x1x200xf32>) -> tensor<?x1x200xf32>
    %l3 = linalg.batch_matmul ins(%sel3, %hl3 : tensor<?x1x?xf32>, tensor<?x?x200xf32>)
        outs(%accD : tensor<?x1x200xf32>) -> tensor<?x1x200xf32>
    %r3 = linalg.batch_matmul ins(%sel3, %hr3 : tensor<?x1x?xf32>, tensor<?x?x200xf32>)
        outs(%accD : tensor<?x1x200xf32>) -> tensor<?x1x200xf32>
    %l2 = tensor.collapse_shape %l3 [[0, 1], [2]]
        : tensor<?x1x200xf32> into tensor<?x200xf32>
    %r2 = tensor.collapse_shape %r3 [[0, 1], [2]]
        : tensor<?x1x200xf32> into tensor<?x200xf32>
    %ld = tensor.cast %l2 : tensor<?x200xf32> to tensor<?x?xf32>
    %rd = tensor.cast %r2 : tensor<?x200xf32> to tensor<?x?xf32>
    %composed = func.call @grc_cell(%ld, %rd, %w1d, %b1d, %w2d, %b2d,
                                    %gammad, %betad)
        : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
           tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
        -> tensor<?x?xf32>
    %composedD = tensor.cast %composed : tensor<?x?xf32> to tensor<?x200xf32>
    %cand = tensor.expand_shape %composedD [[0, 1, 2], [3]]
        output_shape [%n, 7, 1, 200]
        : tensor<?x200xf32> into tensor<?x7x1x200xf32>
    // h_j <- sel_j·cand + left_j·h_j + right_j·h_{j+1}.
    %merged = rvnn.pair_merge %h_k, %cand, %sel
        : (tensor<?x7x?x200xf32>, tensor<?x7x1x200xf32>, tensor<?x7x?xf32>)
        -> tensor<?x7x?x200xf32>
    // Finished samples keep h[..., :-1, :].
    %nd_g = tensor.expand_shape %nd [[0], [1, 2, 3]] output_shape [%n, 1, 1, 1]
        : tensor<?x1xf32> into tensor<?x1x1x1xf32>
    %h_next = rvnn.gate %nd_g, %merged, %hl
        : (tensor<?x1x1x1xf32>, tensor<?x7x?x200xf32>, tensor<?x7x?x200xf32>)
        -> tensor<?x7x?x200xf32>
    // The merged node's projections, merged into the kept beams' as the
    // node is into their states.
    %cand_s = tensor.extract_slice %cand[0, 0, 0, 0] [%n, 7, 1, 64]
        [1, 1, 1, 1] : tensor<?x7x1x200xf32> to tensor<?x7x1x64xf32>
    %uv_m = rvnn.linear %cand_s, %swlr
        : (tensor<?x7x1x64xf32>, tensor<128x64xf32>) -> tensor<?x7x1x128xf32>
    %uv_k = rvnn.beam_gather %uv, %kept {factor = 7 : i64}
        : (tensor<?x?x?x128xf32>, tensor<?x7xi64>) -> tensor<?x7x?x128xf32>
    %uv_merged = rvnn.pair_merge %uv_k, %uv_m, %sel
        : (tensor<?x7x?x128xf32>, tensor<?x7x1x128xf32>, tensor<?x7x?xf32>)
        -> tensor<?x7x?x128xf32>
    %uv_kl = tensor.extract_slice %uv_k[0, 0, 0, 0] [%n, 7, %p, 128]
        [1, 1, 1, 1] : tensor<?x7x?x128xf32> to tensor<?x7x?x128xf32>
    %uv_next = rvnn.gate %nd_g, %uv_merged, %uv_kl
        : (tensor<?x1x1x1xf32>, tensor<?x7x?x128xf32>, tensor<?x7x?x128xf32>)
        -> tensor<?x7x?x128xf32>
    %p1 = arith.subi %p, %c1 : index
    %pm_next = tensor.extract_slice %pm[0, 1] [%n, %p1] [1, 1]
        : tensor<?x?xf32> to tensor<?x?xf32>

    %h_y = tensor.cast %h_next : tensor<?x7x?x200xf32> to tensor<?x?x?x200xf32>
    %uv_y = tensor.cast %uv_next : tensor<?x7x?x128xf32> to tensor<?x?x?x128xf32>
    %accu_y = tensor.cast %accu_k : tensor<?x7xf32> to tensor<?x?xf32>
    %bm_y = tensor.cast %bm_k : tensor<?x7xf32> to tensor<?x?xf32>
    rvnn.yield %h_y, %uv_y, %accu_y, %bm_y, %pm_next
        : tensor<?x?x?x200xf32>, tensor<?x?x?x128xf32>, tensor<?x?xf32>,
          tensor<?x?xf32>, tensor<?x?xf32>
  }


  %bf = tensor.dim %fin#0, %c1 : tensor<?x?x?x200xf32>
  %roots4 = tensor.extract_slice %fin#0[0, 0, 0, 0] [%n, %bf, 1, 200]
      [1, 1, 1, 1] : tensor<?x?x?x200xf32> to tensor<?x?x1x200xf32>
  %roots = tensor.collapse_shape %roots4 [[0], [1], [2, 3]]
      : tensor<?x?x1x200xf32> into tensor<?x?x200xf32>
  return %roots, %fin#2, %fin#3
      : tensor<?x?x200xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// A chunk row's beam score and beam mask from its elements' (§3):
// accu [R, B, L] -> Σ_l accu [R, B]; bm [R, B, L] -> bm[:, :, 0].
func.func private @chunk_beams(%accu: tensor<?x?x?xf32>, %bm: tensor<?x?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant dense<0.0> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %r = tensor.dim %accu, %c0 : tensor<?x?x?xf32>
  %b = tensor.dim %accu, %c1 : tensor<?x?x?xf32>
  %l = tensor.dim %accu, %c2 : tensor<?x?x?xf32>
  %rb = arith.muli %r, %b : index
  %flat = tensor.collapse_shape %accu [[0, 1], [2]]
      : tensor<?x?x?xf32> into tensor<?x?xf32>
  %refL = tensor.empty(%l) : tensor<?xf32>
  %onesL = rvnn.broadcast_like %one, %refL
      : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>
  %refRB = tensor.empty(%rb) : tensor<?xf32>
  %zerosRB = rvnn.broadcast_like %zero, %refRB
      : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.matvec ins(%flat, %onesL : tensor<?x?xf32>, tensor<?xf32>)
      outs(%zerosRB : tensor<?xf32>) -> tensor<?xf32>
  %score = tensor.expand_shape %sum [[0, 1]] output_shape [%r, %b]
      : tensor<?xf32> into tensor<?x?xf32>
  %first = tensor.extract_slice %bm[0, 0, 0] [%r, %b, 1] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x?xf32>
  return %score, %first : tensor<?x?xf32>, tensor<?x?xf32>
}

func.func @forward(%tokens1: tensor<?x?xi64>, %mask1: tensor<?x?xf32>,
                   %tokens2: tensor<?x?xi64>, %mask2: tensor<?x?xf32>)
    -> tensor<?x7xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant dense<1.0> : tensor<f32>
  %pairs = tensor.dim %tokens1, %c0 : tensor<?x?xi64>
  %s1 = tensor.dim %tokens1, %c1 : tensor<?x?xi64>
  %s2 = tensor.dim %tokens2, %c1 : tensor<?x?xi64>

  // Siamese batch (§7): right-pad both sentences to S = max(S1, S2) (pad id
  // 0, mask 0) and stack them along the batch: [2N, S]. The padding is
  // masked out of the beam search; S decides the RIR levels' chunking.
  %s = arith.maxsi %s1, %s2 : index
  %pad1 = arith.subi %s, %s1 : index
  %pad2 = arith.subi %s, %s2 : index
  %zero_id = arith.constant dense<0> : tensor<i64>
  %zero = arith.constant dense<0.0> : tensor<f32>
  // tensor.empty only gives a shape to broadcast to.
  %shape1 = tensor.empty(%pairs, %pad1) : tensor<?x?xf32>
  %shape2 = tensor.empty(%pairs, %pad2) : tensor<?x?xf32>
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
  %n = tensor.dim %tokens, %c0 : tensor<?x?xi64>

  // Leaf states (§1): embedding·mask, input dropout, the S4D layer, then
  // LN(Linear(D, D)(·)).
  %table = rvnn.param_get @embedding : tensor<12x200xf32>
  %x = rvnn.embedding %table, %tokens
      : (tensor<12x200xf32>, tensor<?x?xi64>) -> tensor<?x?x200xf32>
  %mask3 = tensor.expand_shape %mask [[0], [1, 2]] output_shape [%n, %s, 1]
      : tensor<?x?xf32> into tensor<?x?x1xf32>
  %maskD = rvnn.broadcast_like %mask3, %x
      : (tensor<?x?x1xf32>, tensor<?x?x200xf32>) -> tensor<?x?x200xf32>
  %masked = arith.mulf %x, %maskD : tensor<?x?x200xf32>
  %dropped = rvnn.dropout %masked {rate = 4.000000e-01 : f64}
      : tensor<?x?x200xf32>
  // The S4D pre-chunk layer, from its stored parameters (@s4d_layer maps
  // them to S4D's: @s4d_inv_params).
  %f_ldc = rvnn.param_get @s4d_f_log_dt_centred : tensor<200xf32>
  %f_log_a_re = rvnn.param_get @s4d_f_log_a_re : tensor<200x32xf32>
  %f_a_im_offset = rvnn.param_get @s4d_f_a_im_offset : tensor<200x32xf32>
  %f_c_re = rvnn.param_get @s4d_f_c_re : tensor<200x32xf32>
  %f_c_im = rvnn.param_get @s4d_f_c_im : tensor<200x32xf32>
  %f_skip = rvnn.param_get @s4d_f_skip : tensor<200xf32>
  %f_ldc_d = tensor.cast %f_ldc : tensor<200xf32> to tensor<?xf32>
  %f_log_a_re_d = tensor.cast %f_log_a_re
      : tensor<200x32xf32> to tensor<?x?xf32>
  %f_a_im_offset_d = tensor.cast %f_a_im_offset
      : tensor<200x32xf32> to tensor<?x?xf32>
  %f_c_re_d = tensor.cast %f_c_re : tensor<200x32xf32> to tensor<?x?xf32>
  %f_c_im_d = tensor.cast %f_c_im : tensor<200x32xf32> to tensor<?x?xf32>
  %f_skip_d = tensor.cast %f_skip : tensor<200xf32> to tensor<?xf32>
  %b_ldc = rvnn.param_get @s4d_b_log_dt_centred : tensor<200xf32>
  %b_log_a_re = rvnn.param_get @s4d_b_log_a_re : tensor<200x32xf32>
  %b_a_im_offset = rvnn.param_get @s4d_b_a_im_offset : tensor<200x32xf32>
  %b_c_re = rvnn.param_get @s4d_b_c_re : tensor<200x32xf32>
  %b_c_im = rvnn.param_get @s4d_b_c_im : tensor<200x32xf32>
  %b_skip = rvnn.param_get @s4d_b_skip : tensor<200xf32>
  %b_ldc_d = tensor.cast %b_ldc : tensor<200xf32> to tensor<?xf32>
  %b_log_a_re_d = tensor.cast %b_log_a_re
      : tensor<200x32xf32> to tensor<?x?xf32>
  %b_a_im_offset_d = tensor.cast %b_a_im_offset
      : tensor<200x32xf32> to tensor<?x?xf32>
  %b_c_re_d = tensor.cast %b_c_re : tensor<200x32xf32> to tensor<?x?xf32>
  %b_c_im_d = tensor.cast %b_c_im : tensor<200x32xf32> to tensor<?x?xf32>
  %b_skip_d = tensor.cast %b_skip : tensor<200xf32> to tensor<?xf32>
  %glu_w = rvnn.param_get @s4d_glu_w : tensor<400x400xf32>
  %glu_b = rvnn.param_get @s4d_glu_b : tensor<400xf32>
  %glu_w_d = tensor.cast %glu_w : tensor<400x400xf32> to tensor<?x?xf32>
  %glu_b_d = tensor.cast %glu_b : tensor<400xf32> to tensor<?xf32>
  %dropped_d = tensor.cast %dropped : tensor<?x?x200xf32> to tensor<?x?x?xf32>
  // S4D dropout 0 (§8, logical inference): the layer's two parts, no
  // dropout between them.
  %y:2 = func.call @s4d_branches(%dropped_d, %mask,
      %f_ldc_d, %f_log_a_re_d, %f_a_im_offset_d,
      %f_c_re_d, %f_c_im_d, %f_skip_d,
      %b_ldc_d, %b_log_a_re_d, %b_a_im_offset_d,
      %b_c_re_d, %b_c_im_d, %b_skip_d)
      : (tensor<?x?x?xf32>, tensor<?x?xf32>,
         tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
         tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
         tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
         tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>)
      -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>)
  %s4d_d = func.call @s4d_glu(%y#0, %y#1, %dropped_d, %glu_w_d, %glu_b_d)
      : (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>,
         tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?x?xf32>
  %s4d = tensor.cast %s4d_d : tensor<?x?x?xf32> to tensor<?x?x200xf32>
  %leaf_w = rvnn.param_get @leaf_w : tensor<200x200xf32>
  %leaf_b = rvnn.param_get @leaf_b : tensor<200xf32>
  %leaf_gamma = rvnn.param_get @leaf_gamma : tensor<200xf32>
  %leaf_beta = rvnn.param_get @leaf_beta : tensor<200xf32>
  %proj = rvnn.linear %s4d, %leaf_w, %leaf_b
      : (tensor<?x?x200xf32>, tensor<200x200xf32>, tensor<200xf32>)
      -> tensor<?x?x200xf32>
  %leaves = rvnn.layer_norm %proj, %leaf_gamma, %leaf_beta
      : (tensor<?x?x200xf32>, tensor<200xf32>, tensor<200xf32>)
      -> tensor<?x?x200xf32>

  // One beam (§3): h [N, 1, S, D], accu 0 and bm 1 per element.
  %h1 = tensor.expand_shape %leaves [[0, 1], [2], [3]]
      output_shape [%n, 1, %s, 200]
      : tensor<?x?x200xf32> into tensor<?x1x?x200xf32>
  %h0 = tensor.cast %h1 : tensor<?x1x?x200xf32> to tensor<?x?x?x200xf32>
  %ref1 = tensor.empty(%n, %s) : tensor<?x1x?xf32>
  %accu1 = rvnn.broadcast_like %zero, %ref1
      : (tensor<f32>, tensor<?x1x?xf32>) -> tensor<?x1x?xf32>
  %bm1 = rvnn.broadcast_like %one, %ref1
      : (tensor<f32>, tensor<?x1x?xf32>) -> tensor<?x1x?xf32>
  %accu0 = tensor.cast %accu1 : tensor<?x1x?xf32> to tensor<?x?x?xf32>
  %bm0 = tensor.cast %bm1 : tensor<?x1x?xf32> to tensor<?x?x?xf32>

  // The aligned levels: all but the last of rvnn.chunk_depth's, or none
  // under the non-RIR inference.
  %levels = rvnn.chunk_depth %s {size = 30 : i64}
  %levels1 = arith.subi %levels, %c1 : index
  %rir_levels = arith.maxsi %levels1, %c0 : index
  %rir = rvnn.eval_option "rir_inference" {training = 1 : i64,
                                           evaluation = 0 : i64}
  %aligned = arith.muli %rir_levels, %rir : index
  %fin:4 = rvnn.recurse (%h = %h0, %accu = %accu0, %bm = %bm0, %m = %mask)
      : tensor<?x?x?x200xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>,
        tensor<?x?xf32>
      halting <none> max_steps %aligned {
  ^bb0(%level: index, %h: tensor<?x?x?x200xf32>, %accu: tensor<?x?x?xf32>,
       %bm: tensor<?x?x?xf32>, %m: tensor<?x?xf32>):
    %hc, %cmask = rvnn.chunk %h, %m {size = 30 : i64, dim = 2 : i64}
        : (tensor<?x?x?x200xf32>, tensor<?x?xf32>)
        -> (tensor<?x?x?x200xf32>, tensor<?x?xf32>)
    %ac, %cmask_a = rvnn.chunk %accu, %m {size = 30 : i64, dim = 2 : i64}
        : (tensor<?x?x?xf32>, tensor<?x?xf32>)
        -> (tensor<?x?x?xf32>, tensor<?x?xf32>)
    %bc, %cmask_b = rvnn.chunk %bm, %m {size = 30 : i64, dim = 2 : i64}
        : (tensor<?x?x?xf32>, tensor<?x?xf32>)
        -> (tensor<?x?x?xf32>, tensor<?x?xf32>)
    %row_accu, %row_bm = func.call @chunk_beams(%ac, %bc)
        : (tensor<?x?x?xf32>, tensor<?x?x?xf32>)
        -> (tensor<?x?xf32>, tensor<?x?xf32>)
    %roots, %root_accu, %root_bm = func.call @beam_tree(%hc, %row_accu,
                                                        %row_bm, %cmask)
        : (tensor<?x?x?x200xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
           tensor<?x?xf32>)
        -> (tensor<?x?x200xf32>, tensor<?x?xf32>, tensor<?x?xf32>)

    // Beam alignment: beam 0 stays, the others are drawn by score.
    %drawn = rvnn.beam_align %root_accu, %root_bm
        : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi64>
    %al_roots = rvnn.beam_gather %roots, %drawn
        : (tensor<?x?x200xf32>, tensor<?x?xi64>) -> tensor<?x?x200xf32>
    %al_accu = rvnn.beam_gather %root_accu, %drawn
        : (tensor<?x?xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>
    %al_bm = rvnn.beam_gather %root_bm, %drawn
        : (tensor<?x?xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>

    // The chunk rows become the next level's beams of sequences [N, B, S1];
    // an item is real iff its chunk's first position is.
    %items = rvnn.unchunk %al_roots, %m {dim = 2 : i64}
        : (tensor<?x?x200xf32>, tensor<?x?xf32>) -> tensor<?x?x?x200xf32>
    %items_accu = rvnn.unchunk %al_accu, %m {dim = 2 : i64}
        : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
    %items_bm = rvnn.unchunk %al_bm, %m {dim = 2 : i64}
        : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
    %rows = tensor.dim %cmask, %c0 : tensor<?x?xf32>
    %first = tensor.extract_slice %cmask[0, 0] [%rows, 1] [1, 1]
        : tensor<?x?xf32> to tensor<?xf32>
    %items_mask = rvnn.unchunk %first, %m {dim = 1 : i64}
        : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    rvnn.yield %items, %items_accu, %items_bm, %items_mask
        : tensor<?x?x?x200xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>,
          tensor<?x?xf32>
  }

  // The last level: one chunk over the remaining sequence, not aligned, its
  // beam roots marginalised (§3): w = softmax_b(bm·accu + (1-bm)·(-999999)),
  // encoding = Σ_b w_b·root_b.
  %last_accu, %last_bm = func.call @chunk_beams(%fin#1, %fin#2)
      : (tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      -> (tensor<?x?xf32>, tensor<?x?xf32>)
  %roots, %root_accu, %root_bm = func.call @beam_tree(%fin#0, %last_accu,
                                                      %last_bm, %fin#3)
      : (tensor<?x?x?x200xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
         tensor<?x?xf32>)
      -> (tensor<?x?x200xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
  %enc = rvnn.beam_marginalize %roots, %root_accu, %root_bm
      : (tensor<?x?x200xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
      -> tensor<?x200xf32>

  // Split the encodings back into the two sentences: a = rows [0, N),
  // b = rows [N, 2N).
  %a = tensor.extract_slice %enc[0, 0] [%pairs, 200] [1, 1]
      : tensor<?x200xf32> to tensor<?x200xf32>
  %b = tensor.extract_slice %enc[%pairs, 0] [%pairs, 200] [1, 1]
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
