// RIR-EBT-GRC: Recursion in Recursion (model-specs §3 "RIR-EBT-GRC") with
// EBT-GRC as the inner recursion, over the leaf states (§1), with the ListOps
// head (§7). Without the optional S4D pre-chunk layer (issue 9 item 5).
// Hyperparameters (§8, ListOps): embedding = hidden = 128, cell 512,
// dropout in / cell / out 0.1, beam 7, scorer slice ds = 64, chunk 30.
// Inputs: token ids and a float mask [N, S] (1 = real token, right padding).
//
// State: a beam of sequences h [N, B, S, D] with a score and a beam mask per
// element, accu and bm [N, B, S] (B = 1, accu 0 and bm 1 at the leaves).
// Outer recursion, one level per round of chunking:
//   rvnn.chunk {dim = 2} of h, accu and bm: if S >= chunk + chunk/2,
//   right-pad S to a multiple of chunk (pad 0) and cut it into S1 chunks, all
//   chunks of the batch becoming rows [N·S1, B, chunk, D]; else one chunk.
//   A chunk row's beam score is the sum of its elements' accu, its beam mask
//   its first element's (@chunk_beams).
//   Inner recursion: EBT-GRC with beam 7 over every chunk row at once
//   (@beam_tree) -> B = 7 beam roots [N·S1, 7, D] with scores and masks.
//   Beam alignment (rows of a level with S1 > 1): beam 0, the top beam, stays;
//   the other 6 are drawn with replacement from masked_softmax(accu, bm)
//   (rvnn.beam_align, seeded, no gradient through the draw) and root, score
//   and mask follow the drawn beam (rvnn.beam_gather: one-hot gathers, so
//   gradients reach the drawn beams' values).
//   rvnn.unchunk {dim = 2}: the rows become the next sequence [N, 7, S1, D];
//   its mask is each chunk's first mask.
// Every level but the last has S1 >= 2 (rvnn.chunk_depth: a length of at
// least chunk + chunk/2 leaves ceil(S / chunk) >= 2 items), and the last one
// is a single chunk over what is left (S < 45), which the authors do not
// align. So the loop runs the chunk_depth - 1 aligned levels and the last
// level follows it unaligned: EBT-GRC over the remaining sequence, whose
// roots are marginalised over the beams (rvnn.beam_marginalize). The
// example of §3: length 100 -> padded 120 -> 4 roots (one aligned level)
// -> one chunk of 4 -> root.
//
// Inference (the RIR paper, App. C: the authors switch out of RIR at
// evaluation): the count of aligned levels is multiplied by the evaluation
// option rir_inference (rvnn.eval_option: 1 in training; at evaluation 0 by
// default, which leaves one EBT-GRC over the whole sequence, the non-RIR
// inference; `--option rir_inference=1` evaluates with RIR inference).
//
// The inner EBT-GRC is models/ebt_grc.mlir's step with beam 7 (see there for
// the static k: each beam draws 7 children over [P pairs; 7 padding
// entries], the padding children masked). With B incoming beams (7 after the
// first level) a step keeps the top 7 of 7·B children. Chunks of 30 have at
// least 7 pairs at their first step, so every level leaves exactly the 7
// beams of §3, which is what lines the beams of different chunks up. Masked
// beams (whose contents the static k fills differently from §3) are never
// drawn by the alignment and weigh nothing in the marginalisation, and every
// chunk row keeps its real top beam, so they never reach the result.

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

// The inner recursion: EBT-GRC (beam 7, ds 64) over R rows at once, from
// the beams h [R, B, L, D] with scores accu and masks bm [R, B] and the
// token mask [R, L]; L - 1 merge steps. Returns the 7 beam roots [R, 7, D]
// (B when L = 1) with their scores and masks.
func.func private @beam_tree(%h0d: tensor<?x?x?x128xf32>, %accu0d: tensor<?x?xf32>,
                             %bm0d: tensor<?x?xf32>, %mask: tensor<?x?xf32>)
    -> (tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %zero = arith.constant dense<0.0> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %n = tensor.dim %h0d, %c0 : tensor<?x?x?x128xf32>
  %s = tensor.dim %h0d, %c2 : tensor<?x?x?x128xf32>

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
  %b0 = tensor.dim %h0d, %c1 : tensor<?x?x?x128xf32>
  %h0s = tensor.extract_slice %h0d[0, 0, 0, 0] [%n, %b0, %s, 64] [1, 1, 1, 1]
      : tensor<?x?x?x128xf32> to tensor<?x?x?x64xf32>
  %uv0d = rvnn.linear %h0s, %swlr
      : (tensor<?x?x?x64xf32>, tensor<128x64xf32>) -> tensor<?x?x?x128xf32>

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

  // The pair validity of step i is mask[:, i+1:] (pair j valid iff token
  // i+1+j is real).
  %s1 = arith.subi %s, %c1 : index
  %pm0 = tensor.extract_slice %mask[0, 1] [%n, %s1] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>

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
        : (tensor<?x?x?x128xf32>, tensor<?x7xi64>) -> tensor<?x7x?x128xf32>
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
    %hl = tensor.extract_slice %h_k[0, 0, 0, 0] [%n, 7, %p, 128] [1, 1, 1, 1]
        : tensor<?x7x?x128xf32> to tensor<?x7x?x128xf32>
    %hr = tensor.extract_slice %h_k[0, 0, 1, 0] [%n, 7, %p, 128] [1, 1, 1, 1]
        : tensor<?x7x?x128xf32> to tensor<?x7x?x128xf32>
    %hl3 = tensor.collapse_shape %hl [[0, 1], [2], [3]]
        : tensor<?x7x?x128xf32> into tensor<?x?x128xf32>
    %hr3 = tensor.collapse_shape %hr [[0, 1], [2], [3]]
        : tensor<?x7x?x128xf32> into tensor<?x?x128xf32>
    %sel2 = tensor.collapse_shape %sel [[0, 1], [2]]
        : tensor<?x7x?xf32> into tensor<?x?xf32>
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
        output_shape [%n, 7, 1, 128]
        : tensor<?x128xf32> into tensor<?x7x1x128xf32>
    // h_j <- sel_j·cand + left_j·h_j + right_j·h_{j+1}.
    %merged = rvnn.pair_merge %h_k, %cand, %sel
        : (tensor<?x7x?x128xf32>, tensor<?x7x1x128xf32>, tensor<?x7x?xf32>)
        -> tensor<?x7x?x128xf32>
    // Finished samples keep h[..., :-1, :].
    %nd_g = tensor.expand_shape %nd [[0], [1, 2, 3]] output_shape [%n, 1, 1, 1]
        : tensor<?x1xf32> into tensor<?x1x1x1xf32>
    %h_next = rvnn.gate %nd_g, %merged, %hl
        : (tensor<?x1x1x1xf32>, tensor<?x7x?x128xf32>, tensor<?x7x?x128xf32>)
        -> tensor<?x7x?x128xf32>
    // The merged node's projections, merged into the kept beams' as the
    // node is into their states.
    %cand_s = tensor.extract_slice %cand[0, 0, 0, 0] [%n, 7, 1, 64]
        [1, 1, 1, 1] : tensor<?x7x1x128xf32> to tensor<?x7x1x64xf32>
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

    %h_y = tensor.cast %h_next : tensor<?x7x?x128xf32> to tensor<?x?x?x128xf32>
    %uv_y = tensor.cast %uv_next : tensor<?x7x?x128xf32> to tensor<?x?x?x128xf32>
    %accu_y = tensor.cast %accu_k : tensor<?x7xf32> to tensor<?x?xf32>
    %bm_y = tensor.cast %bm_k : tensor<?x7xf32> to tensor<?x?xf32>
    rvnn.yield %h_y, %uv_y, %accu_y, %bm_y, %pm_next
        : tensor<?x?x?x128xf32>, tensor<?x?x?x128xf32>, tensor<?x?xf32>,
          tensor<?x?xf32>, tensor<?x?xf32>
  }


  %bf = tensor.dim %fin#0, %c1 : tensor<?x?x?x128xf32>
  %roots4 = tensor.extract_slice %fin#0[0, 0, 0, 0] [%n, %bf, 1, 128]
      [1, 1, 1, 1] : tensor<?x?x?x128xf32> to tensor<?x?x1x128xf32>
  %roots = tensor.collapse_shape %roots4 [[0], [1], [2, 3]]
      : tensor<?x?x1x128xf32> into tensor<?x?x128xf32>
  return %roots, %fin#2, %fin#3
      : tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?x?xf32>
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

func.func @forward(%tokens: tensor<?x?xi64>, %mask: tensor<?x?xf32>)
    -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
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

  // One beam (§3): h [N, 1, S, D], accu 0 and bm 1 per element.
  %h1 = tensor.expand_shape %leaves [[0, 1], [2], [3]]
      output_shape [%n, 1, %s, 128]
      : tensor<?x?x128xf32> into tensor<?x1x?x128xf32>
  %h0 = tensor.cast %h1 : tensor<?x1x?x128xf32> to tensor<?x?x?x128xf32>
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
      : tensor<?x?x?x128xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>,
        tensor<?x?xf32>
      halting <none> max_steps %aligned {
  ^bb0(%level: index, %h: tensor<?x?x?x128xf32>, %accu: tensor<?x?x?xf32>,
       %bm: tensor<?x?x?xf32>, %m: tensor<?x?xf32>):
    %hc, %cmask = rvnn.chunk %h, %m {size = 30 : i64, dim = 2 : i64}
        : (tensor<?x?x?x128xf32>, tensor<?x?xf32>)
        -> (tensor<?x?x?x128xf32>, tensor<?x?xf32>)
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
        : (tensor<?x?x?x128xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
           tensor<?x?xf32>)
        -> (tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?x?xf32>)

    // Beam alignment: beam 0 stays, the others are drawn by score.
    %drawn = rvnn.beam_align %root_accu, %root_bm
        : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi64>
    %al_roots = rvnn.beam_gather %roots, %drawn
        : (tensor<?x?x128xf32>, tensor<?x?xi64>) -> tensor<?x?x128xf32>
    %al_accu = rvnn.beam_gather %root_accu, %drawn
        : (tensor<?x?xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>
    %al_bm = rvnn.beam_gather %root_bm, %drawn
        : (tensor<?x?xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>

    // The chunk rows become the next level's beams of sequences [N, B, S1];
    // an item is real iff its chunk's first position is.
    %items = rvnn.unchunk %al_roots, %m {dim = 2 : i64}
        : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x?x?x128xf32>
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
        : tensor<?x?x?x128xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>,
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
      : (tensor<?x?x?x128xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
         tensor<?x?xf32>)
      -> (tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
  %enc = rvnn.beam_marginalize %roots, %root_accu, %root_bm
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
