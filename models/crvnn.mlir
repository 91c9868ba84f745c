// CRvNN — Continuous Recursive Neural Network (model-specs §4) with the
// ListOps head (model-specs §7), hidden 128, cell 512 (model-specs §8).
//
// Variant: BeamRecursionFamily's (BRF) CRvNN, the one behind the published
// ListOps numbers:
//   - existence threshold τ = 0.1 (the original Continuous-RvNN code: 0.01);
//   - NO transition features (the original appends two learned 64-d vectors,
//     mixed by the previous L·c, to the decision window; BRF does not);
//   - NO halt penalty (the original adds -log(Σ last⊙e / Σ e + 1e-8) for
//     improperly terminated samples with weight 0.01; BRF does not), so
//     @forward returns the logits only.
//
// Shapes: N batch, S padded input length, Sa = S + 2 augmented length,
// D = 128. Masks are float, 1 = real token, right padding. m is the input
// mask [N, S]; L_n = Σ m_n is sample n's number of real tokens.
//
// The augmented sequence (positions of sample n):
//   0: START | 1..L_n: x_1..x_L | L_n+1: END | L_n+2..Sa-1: pad
// Because m is a prefix of ones, everything is built from m by concatenation
// and subtraction, with no per-sample indexing (o = ones [N, 1], z = zeros):
//   M      = [o; o; m]          augmented mask: the real prefix grows by two
//                               (START and the END slot right after x_L)
//   noEnd  = [o; m; z]          START and the tokens
//   endInd = M - noEnd          one-hot at L_n+1 (END)
//   lastInd = noEnd - [m; z; z] one-hot at L_n (x_L, the last real token)
//   SEL    = [z; m; z]⊙(1 - lastInd)   selectable: tokens x_1..x_{L-1}
//                               (not START, END, the last real token, pad)
//   seq    = endInd⊙END + (1 - endInd)⊙[START; x; 0]   (rvnn.gate)
// As in the authors' code, START/END join the sequence before the leaf
// transform: h0 = LN(Linear(seq⊙M))⊙M.
//
// Recursion (rvnn.recurse, halting per_sample, at most Sa - 2 steps), state
// (h [N,Sa,D], e [N,Sa], t [N]: steps taken), e0 = M, t0 = 0, and the
// per-sample constants M, SEL and L_n, carried unchanged so that the body
// reads every per-sample value through its state (and takes N from h): the
// runtime can then drop halted samples from the batch the body runs on
// (`compact_halted` in crvnn.json). One step:
//   L, R  = rvnn.neighbour_retrieve(e, M) left/right          [N, Sa, Sa]
//   window = [L²h, Lh, h, Rh, R²h]                            [N, Sa, 5D]
//   s     = Linear(D,1)(GELU(Linear(5D,D)(window)))           [N, Sa, 1]
//   μ     = max(0, max_{i: M_i=1} s_i)   per sample (see below)
//   ŝ     = exp(s - μ)⊙SEL,  n = exp(0 - μ)
//   c     = ŝ / (ŝ + n + Lŝ + Rŝ + 4e-8) ⊙ SEL
//   comp  = GRC(Lh, h)   (@grc_cell on [N·Sa, D])
//   lc    = L·c;  h <- (lc⊙comp + (1-lc)⊙h)⊙M   (rvnn.gate)
//   e     <- e⊙(1 - c)⊙M;  t <- t + 1
//   halt  = (#(e > τ) - 2 <= 1) or (t > L_n)
// The runtime freezes the rows of halted samples (they keep h, e, t) and
// stops when all have halted or after Sa - 2 steps (the authors' loop
// bound). `t > L_n` is the authors' per-sample step bound; it matters for
// samples shorter than the batch's longest.
//
// The max μ: the authors subtract the batch-wide max of all scores and the
// no-op 0. Any per-sample constant cancels in c except against the 4e-8
// epsilon, so this model uses the per-sample max over the augmented
// sequence's real positions and 0 (rvnn.pool max, then arith.maximumf): it
// keeps exp(·) <= 1 like the original and makes samples independent of each
// other (batch composition, halted-sample compaction). bench/reference/
// crvnn.py computes the same μ.
//
// Output: h at position L_n, the last real token x_L (never selectable, it
// absorbs the whole sequence), read with rvnn.pool last over the noEnd mask
// [o; m; z] whose last 1 sits at L_n. (The augmented mask M itself would pick
// END at L_n+1, which is never updated.)
// Head: dropout -> Linear(D, D) -> GELU -> dropout -> Linear(D, 10).
//
// Initialisers as the other models in models/: Linear weights Xavier-uniform,
// biases zero, LayerNorm (1, 0); START, END and the embedding N(0, 1)
// (randn, as the authors' code).

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

// The shared CRvNN cells (models/cells.mlir): the augmented sequence and
// masks, and one iteration of the recursion (GRC composition inside).
func.func private @crvnn_augment(index, index, tensor<?x?x?xf32>, tensor<?x?xf32>,
                                 tensor<?xf32>, tensor<?xf32>)
    -> (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
func.func private @crvnn_decide(index, index, tensor<?x?x?xf32>, tensor<?x?xf32>,
                                tensor<?x?xf32>, tensor<?x?xf32>,
                                tensor<?x?xf32>, tensor<?xf32>,
                                tensor<?x?xf32>, tensor<?xf32>)
    -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x1xf32>)
func.func private @crvnn_update(index, index, tensor<?x?x?xf32>, tensor<?x?xf32>,
                                tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>,
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
  %sa = arith.addi %s, %c2 : index

  // Real lengths L_n = Σ_j m_nj (float), for the t > L_n halt.
  %shapeN = tensor.empty(%n) : tensor<?xf32>
  %shapeS = tensor.empty(%s) : tensor<?xf32>
  %zerosN = rvnn.broadcast_like %zero, %shapeN
      : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>
  %onesS = rvnn.broadcast_like %one, %shapeS
      : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>
  %lengths = linalg.matvec ins(%mask, %onesS : tensor<?x?xf32>, tensor<?xf32>)
      outs(%zerosN : tensor<?xf32>) -> tensor<?xf32>

  // Leaves: N(0,1) embedding, x *= m, input dropout 0.1.
  %table = rvnn.param_get @embedding : tensor<16x128xf32>
  %x0 = rvnn.embedding %table, %tokens
      : (tensor<16x128xf32>, tensor<?x?xi64>) -> tensor<?x?x128xf32>
  %m3 = tensor.expand_shape %mask [[0], [1, 2]] output_shape [%n, %s, 1]
      : tensor<?x?xf32> into tensor<?x?x1xf32>
  %mD = rvnn.broadcast_like %m3, %x0
      : (tensor<?x?x1xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %x1 = arith.mulf %x0, %mD : tensor<?x?x128xf32>
  %x = rvnn.dropout %x1 {rate = 1.000000e-01 : f64} : tensor<?x?x128xf32>

  // The augmented sequence [START; x; END; pad] and its masks (see the
  // header and @crvnn_augment).
  %startV = rvnn.param_get @start : tensor<128xf32>
  %endV = rvnn.param_get @end : tensor<128xf32>
  %xd = tensor.cast %x : tensor<?x?x128xf32> to tensor<?x?x?xf32>
  %startd = tensor.cast %startV : tensor<128xf32> to tensor<?xf32>
  %endd = tensor.cast %endV : tensor<128xf32> to tensor<?xf32>
  %seqMd, %M, %noEnd, %sel = func.call @crvnn_augment(%n, %s, %xd, %mask, %startd,
                                                     %endd)
      : (index, index, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
         tensor<?xf32>)
      -> (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
  %seqM = tensor.cast %seqMd : tensor<?x?x?xf32> to tensor<?x?x128xf32>

  // Leaf transform h0 = LN(Linear(D, D)(seq))⊙M.
  %M3 = tensor.expand_shape %M [[0], [1, 2]] output_shape [%n, %sa, 1]
      : tensor<?x?xf32> into tensor<?x?x1xf32>
  %MD = rvnn.broadcast_like %M3, %seqM
      : (tensor<?x?x1xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %leafW = rvnn.param_get @leaf_w : tensor<128x128xf32>
  %leafB = rvnn.param_get @leaf_b : tensor<128xf32>
  %leafG = rvnn.param_get @leaf_gamma : tensor<128xf32>
  %leafBeta = rvnn.param_get @leaf_beta : tensor<128xf32>
  %leafLin = rvnn.linear %seqM, %leafW, %leafB
      : (tensor<?x?x128xf32>, tensor<128x128xf32>, tensor<128xf32>)
      -> tensor<?x?x128xf32>
  %leafLN = rvnn.layer_norm %leafLin, %leafG, %leafBeta
      : (tensor<?x?x128xf32>, tensor<128xf32>, tensor<128xf32>)
      -> tensor<?x?x128xf32>
  %h0 = arith.mulf %leafLN, %MD : tensor<?x?x128xf32>

  // Loop-invariant operands of the step, as the cells' dynamic signatures
  // take them.
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
  %t0 = rvnn.broadcast_like %zero, %shapeN
      : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>
  %steps = arith.subi %sa, %c2 : index

  // The recursion: one @crvnn_step per iteration (see the header).
  %r:6 = rvnn.recurse (%h = %h0, %e = %M, %t = %t0, %Mi = %M, %seli = %sel,
                       %lengthsi = %lengths)
      : tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>,
        tensor<?x?xf32>, tensor<?xf32>
      halting <per_sample> max_steps %steps {
  ^bb0(%step: index, %h: tensor<?x?x128xf32>, %e: tensor<?x?xf32>,
       %t: tensor<?xf32>, %Mi: tensor<?x?xf32>, %seli: tensor<?x?xf32>,
       %lengthsi: tensor<?xf32>):
    %ni = tensor.dim %h, %c0 : tensor<?x?x128xf32>
    %hd = tensor.cast %h : tensor<?x?x128xf32> to tensor<?x?x?xf32>
    // Steps 1-3: neighbours, window, composition probabilities c.
    %L, %lhd, %c = func.call @crvnn_decide(%ni, %sa, %hd, %e, %Mi, %seli,
                                           %scoreW1, %scoreB1, %scoreW2,
                                           %scoreB2)
        : (index, index, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
           tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>,
           tensor<?xf32>)
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
        output_shape [%ni, %sa, 128]
        : tensor<?x128xf32> into tensor<?x?x128xf32>
    %compd = tensor.cast %comp : tensor<?x?x128xf32> to tensor<?x?x?xf32>
    // Steps 4-6: gated update, existence, halting.
    %next:5 = func.call @crvnn_update(%ni, %sa, %hd, %e, %t, %Mi, %lengthsi, %L,
                                      %c, %compd)
        : (index, index, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
           tensor<?x?xf32>, tensor<?xf32>, tensor<?x?x?xf32>, tensor<?x?x1xf32>,
           tensor<?x?x?xf32>)
        -> (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xi1>,
            tensor<?x?xf32>)
    %hNext = tensor.cast %next#0 : tensor<?x?x?xf32> to tensor<?x?x128xf32>
    // The structure this model induces (rvnn-run parse): per iteration, the
    // composition and existence probabilities of the input tokens
    // (augmented positions 1..S).
    %cTokens = tensor.extract_slice %next#4[0, 1] [%ni, %s] [1, 1]
        : tensor<?x?xf32> to tensor<?x?xf32>
    rvnn.expose_structure <composition> %cTokens : tensor<?x?xf32>
    %eTokens = tensor.extract_slice %next#1[0, 1] [%ni, %s] [1, 1]
        : tensor<?x?xf32> to tensor<?x?xf32>
    rvnn.expose_structure <existence> %eTokens : tensor<?x?xf32>
    rvnn.yield %hNext, %next#1, %next#2, %Mi, %seli, %lengthsi halt %next#3
        : tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>,
          tensor<?x?xf32>, tensor<?xf32>, tensor<?xi1>
  }

  // Root: h at the last real token x_L (position L_n).
  %root = rvnn.pool last %r#0, %noEnd
      : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32>

  // ListOps head.
  %headW1 = rvnn.param_get @head_w1 : tensor<128x128xf32>
  %headB1 = rvnn.param_get @head_b1 : tensor<128xf32>
  %headW2 = rvnn.param_get @head_w2 : tensor<10x128xf32>
  %headB2 = rvnn.param_get @head_b2 : tensor<10xf32>
  %d0 = rvnn.dropout %root {rate = 1.000000e-01 : f64} : tensor<?x128xf32>
  %a0 = rvnn.linear %d0, %headW1, %headB1
      : (tensor<?x128xf32>, tensor<128x128xf32>, tensor<128xf32>)
      -> tensor<?x128xf32>
  %a1 = rvnn.gelu %a0 : tensor<?x128xf32>
  %d1 = rvnn.dropout %a1 {rate = 1.000000e-01 : f64} : tensor<?x128xf32>
  %logits = rvnn.linear %d1, %headW2, %headB2
      : (tensor<?x128xf32>, tensor<10x128xf32>, tensor<10xf32>)
      -> tensor<?x10xf32>
  return %logits : tensor<?x10xf32>
}
