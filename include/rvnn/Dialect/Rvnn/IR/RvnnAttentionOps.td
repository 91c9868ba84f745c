#ifndef RVNN_ATTENTION_OPS_TD
#define RVNN_ATTENTION_OPS_TD

include "rvnn/Dialect/Rvnn/IR/RvnnBase.td"

// Soft-mask attention: attention whose weights are soft masks over the
// sequence (NDR's geometric attention, CRvNN's neighbour retriever) plus plain
// masked softmax attention. Shared dims across operands: N batch, H heads,
// S sequence length, Dh head size. All operands share one element type.

def Rvnn_GeometricAttentionOp : Rvnn_ShapedOp<"geometric_attention", [Pure]> {
  let summary = "NDR's geometric attention: attend to the closest match";
  let description = [{
    The geometric attention of the Neural Data Router (Csordás et al., "The
    Neural Data Router", ICLR 2022; model-specs §5). For each head and query
    position `i`, every key `j` gets a logit

    ```
    l_ij = (q_i · k_j) · scale + [j > i] · front_i + [j < i] · back_i + bias
    ```

    where `front`/`back` are per-query directional biases and `scale`, `bias`
    are learned scalars. Padded keys (`mask_j = 0`) and the diagonal `j = i`
    get `l_ij = -inf`. With `P_ij = sigmoid(l_ij)`, the weight of key `j` is
    the probability that it matches and that no key closer to `i` does:

    ```
    A_ij = P_ij · Π_{k closer to i than j} (1 - P_ik)
    ```

    where of two keys at equal distance the right one counts as closer. It
    is computed in log space: `lp = logsigmoid(l)`, `lq = logsigmoid(-l)`,
    `C_i = inclusive cumsum_j lq_ij`; for `j < i`
    `W_ij = C_i[min(2i - j, S - 1)] - C_i[j]`, for `j > i`
    `W_ij = C_i[j - 1] - C_i[i - (j - i)]` (the subtracted term is 0 for a
    negative index), `W_ii = 0`, and `A_ij = exp(W_ij + lp_ij)`. With
    `normalize` each row of `A` is divided by its L1 norm (an all-zero row
    stays zero). The result is `A · v` per head.

    Operands: `q`, `k`, `v` are `[N, H, S, Dh]`; `back`, `front` are
    `[N, H, S]`; `mask` is `[N, S]` (1 = real token); `scale` and `bias` are
    rank-0 tensors. The result is `[N, H, S, Dh]`.

    Example:
    ```mlir
    %o = rvnn.geometric_attention %q, %k, %v, %back, %front, %mask, %scale, %bias
        {normalize = false}
        : (tensor<?x16x?x32xf32>, tensor<?x16x?x32xf32>, tensor<?x16x?x32xf32>,
           tensor<?x16x?xf32>, tensor<?x16x?xf32>, tensor<?x?xf32>,
           tensor<f32>, tensor<f32>) -> tensor<?x16x?x32xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$q, Rvnn_FloatTensor:$k,
                       Rvnn_FloatTensor:$v, Rvnn_FloatTensor:$back,
                       Rvnn_FloatTensor:$front, Rvnn_FloatTensor:$mask,
                       Rvnn_Scalar:$scale, Rvnn_Scalar:$bias,
                       DefaultValuedAttr<BoolAttr, "false">:$normalize);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $back `,` $front `,` $mask `,` $scale `,` $bias
    attr-dict `:` functional-type(operands, results)
  }];
}

def Rvnn_MaskedAttentionOp : Rvnn_ShapedOp<"masked_attention", [Pure]> {
  let summary = "scaled dot-product softmax attention with a key padding mask";
  let description = [{
    Multi-head scaled dot-product attention (Vaswani et al., "Attention Is
    All You Need", 2017), as used by the Transformer baselines and the
    FastTrees Transformer module (model-specs §6):

    ```
    l_ij = (q_i · k_j) / sqrt(Dh)
    A_i  = softmax_j(l_ij)  over keys j with mask_j = 1
                            (and j <= i when `causal`)
    out_i = Σ_j A_ij · v_j
    ```

    Masked keys get `-inf` logits before the softmax. Operands: `q`, `k`, `v`
    are `[N, H, S, Dh]` and `mask` is `[N, S]` (1 = real token). The result
    is `[N, H, S, Dh]`.

    Example:
    ```mlir
    %o = rvnn.masked_attention %q, %k, %v, %mask {causal = true}
        : (tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>,
           tensor<?x?xf32>) -> tensor<?x8x?x64xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$q, Rvnn_FloatTensor:$k,
                       Rvnn_FloatTensor:$v, Rvnn_FloatTensor:$mask,
                       DefaultValuedAttr<BoolAttr, "false">:$causal);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $mask attr-dict `:` functional-type(operands, results)
  }];
}

def Rvnn_NeighbourRetrieveOp : Rvnn_ShapedOp<"neighbour_retrieve", [Pure]> {
  let summary = "CRvNN's soft neighbour matrix";
  let description = [{
    The neighbour retriever of the Continuous RvNN (Ray Chowdhury and
    Caragea, "Modeling Hierarchical Structures with Continuous Recursive
    Neural Networks", ICML 2021; model-specs §4). Given the soft existence
    probabilities `exist` `[N, S]` and the padding `mask` `[N, S]`, it
    builds for every position `i` a soft one-hot row selecting its nearest
    existing neighbour. For `direction = right`:

    ```
    E_ij = exist_j · mask_j  if j > i, else 0
    C_ij = Σ_{j' <= j} E_ij'
    R_ij = E_ij                       if C_ij <= 1
           max(0, 1 - C_i(j-1))       otherwise
    R_ij = R_ij · mask_i
    ```

    `direction = left` is the same on the flipped sequence (neighbours with
    `j < i`, accumulated from `i` leftwards). The result is `[N, S, S]`;
    `linalg.batch_matmul(R, h)` gathers the neighbours of `h` `[N, S, D]`.

    Example:
    ```mlir
    %r = rvnn.neighbour_retrieve %exist, %mask
        {direction = #rvnn.direction<right>}
        : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$exist, Rvnn_FloatTensor:$mask,
                       Rvnn_DirectionAttr:$direction);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $exist `,` $mask attr-dict `:` functional-type(operands, results)
  }];
}

// Sequence mixing by a linear recurrence. Shared dims: N batch, S sequence
// length, D channels, P state size per channel.

def Rvnn_DiagonalScanOp : Rvnn_ShapedOp<"diagonal_scan", [Pure]> {
  let summary = "a diagonal complex linear recurrence over a masked sequence";
  let description = [{
    A diagonal linear state-space recurrence (the scan of S4D: Gu et al.,
    "On the Parameterization and Initialization of Diagonal State Space
    Models", NeurIPS 2022), run independently per sample `n` and channel
    `d` on a complex state of `P` entries held as real/imaginary pairs:

    ```
    x_t = a ⊙ x_{t-1} + b · u_t              (complex, x_{-1} = 0)
    y_t = Re(Σ_p c_p · x_{t,p})
    ```

    with `a = a_re + i·a_im`, and `b`, `c` likewise, all `[D, P]`. Steps
    with `mask_t = 0` do not update the state (`x_t = x_{t-1}`) and output
    `y_t = 0`. With `reverse`, the scan runs from the last step to the first;
    for a prefix mask this is the forward scan of each sample's reversed
    valid prefix, reversed back (the backward direction of a bidirectional
    layer). `mask` is 0 or 1.

    The op is only the recurrence: a model's discretisation (S4D's bilinear
    `Ā = (1 + ΔA/2)/(1 − ΔA/2)`, `B̄ = Δ/(1 − ΔA/2)·B`), its skip term
    `D·u` and any nonlinearity stay in ordinary elementwise ops.

    Operands: `u` is `[N, S, D]`, `a_re`, `a_im`, `b_re`, `b_im`, `c_re`,
    `c_im` are `[D, P]` and `mask` is `[N, S]`. The result is `[N, S, D]`.

    Example:
    ```mlir
    %y = rvnn.diagonal_scan %u, %are, %aim, %bre, %bim, %cre, %cim, %mask
        {reverse = false}
        : (tensor<?x?x8xf32>, tensor<8x64xf32>, tensor<8x64xf32>,
           tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>,
           tensor<8x64xf32>, tensor<?x?xf32>) -> tensor<?x?x8xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$u, Rvnn_FloatTensor:$a_re,
                       Rvnn_FloatTensor:$a_im, Rvnn_FloatTensor:$b_re,
                       Rvnn_FloatTensor:$b_im, Rvnn_FloatTensor:$c_re,
                       Rvnn_FloatTensor:$c_im, Rvnn_FloatTensor:$mask,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $u `,` $a_re `,` $a_im `,` $b_re `,` $b_im `,` $c_re `,` $c_im `,` $mask
    attr-dict `:` functional-type(operands, results)
  }];
}

#endif // RVNN_ATTENTION_OPS_TD
