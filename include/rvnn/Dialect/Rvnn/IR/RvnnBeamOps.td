#ifndef RVNN_BEAM_OPS_TD
#define RVNN_BEAM_OPS_TD

include "rvnn/Dialect/Rvnn/IR/RvnnBase.td"

// Beam-search primitives of the beam-tree RvNNs (BT-GRC, EBT-GRC) and of
// RIR-EBT-GRC's beam alignment. Beams are a tensor dimension: `N` batch,
// `B` beams, `K` candidates per beam, `S` scored positions, `D` hidden size.

//===----------------------------------------------------------------------===//
// Selection
//===----------------------------------------------------------------------===//

def Rvnn_TopKOp : Rvnn_ShapedOp<"topk", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = "masked top-k over the last dimension, optionally with Gumbel "
                "noise";
  let description = [{
    Selects the `k` best entries of the last dimension of `input`
    (`[..., S]`), under `mask` (same shape as `input`, 1 for a real entry and
    0 for padding):

    - the ranking key is `input` (plus Gumbel(0, 1) noise
      `-log(-log(u))`, `u ~ U(0, 1)` drawn from the runtime's seeded
      generator, when `gumbel` is set and the model is in training mode);
    - a masked entry's key is -inf: it never beats a real entry and is
      chosen only when fewer than `k` entries are real;
    - results are sorted by decreasing key; ties go to the lower index.

    Results: `values` `[..., k]` are the noise-free `input` entries at the
    selected positions, `indices` `[..., k]` (`i64`) their positions in the
    last dimension.

    Used by BT-GRC (top-k pairs of the masked-softmaxed scorer output,
    Gumbel top-k in training for BTC) and EBT-GRC (stochastic top-k of the
    child-slice scorer), and for pruning `B·k` candidates back to the beam
    width. `k >= 1` and, when the last dimension is static, `k <= S`.

    With `gumbel = true` the op draws random numbers: it is not pure (it
    reads and writes the generator resource, so CSE cannot merge two draws).
    Without Gumbel noise it has no effects.

    Canonicalisation: a beam width of 1 without noise is greedy selection.
    `rvnn.topk` with `k = 1`, `gumbel = false` and an unused `values` result
    becomes `rvnn.argmax` (same tie-breaking and mask rule). When `values`
    has uses the op is left alone, so the rewrite never has to rebuild the
    values.

    Example:
    ```mlir
    %values, %indices = rvnn.topk %scores, %mask {k = 5 : i64, gumbel = true}
        : (tensor<?x1x?xf32>, tensor<?x1x?xf32>)
        -> (tensor<?x1x5xf32>, tensor<?x1x5xi64>)
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$input, Rvnn_FloatTensor:$mask,
                       I64Attr:$k,
                       DefaultValuedAttr<BoolAttr, "false">:$gumbel);
  let results = (outs Rvnn_FloatTensor:$values, Rvnn_IndexTensor:$indices);
  let assemblyFormat = [{
    $input `,` $mask attr-dict `:` functional-type(operands, results)
  }];
  let hasCanonicalizer = 1;
}

def Rvnn_ArgMaxOp : Rvnn_ShapedOp<"argmax", [Pure]> {
  let summary = "masked greedy selection over the last dimension";
  let description = [{
    The position of the largest entry of the last dimension of `input`
    (`[..., S]`) among the real entries of `mask` (same shape, 1 real, 0
    padding), as `[..., 1]` `i64`. As in `rvnn.topk`, a masked entry's key
    is -inf and ties go to the lower index (a fully masked row gives 0). This is
    `rvnn.topk` with `k = 1` and no noise, i.e. a beam width of 1 (greedy
    trees, e.g. the greedy variant of BT-GRC).

    Example:
    ```mlir
    %best = rvnn.argmax %scores, %mask
        : (tensor<?x1x?xf32>, tensor<?x1x?xf32>) -> tensor<?x1x1xi64>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$input, Rvnn_FloatTensor:$mask);
  let results = (outs Rvnn_IndexTensor:$indices);
  let assemblyFormat = [{
    $input `,` $mask attr-dict `:` functional-type(operands, results)
  }];
}

def Rvnn_OneHotOp : Rvnn_ShapedOp<"one_hot", [Pure]> {
  let summary = "one-hot encoding of indices with the depth of a reference";
  let description = [{
    `result[..., k, s] = (indices[..., k] == s) ? 1 : 0` with `indices`
    `[..., K]` (`i64`) and `ref` `[..., S]`: the result is `[..., K, S]`
    with the element type of `ref`, whose last dimension gives the depth
    `S`. The leading dimensions of `indices` and `ref` must agree; every
    index must lie in `[0, S)` (the runtime rejects others).

    BT-GRC and EBT-GRC turn the selected pair indices into selection vectors
    over the `S-1` adjacent pairs (`sel`, consumed by `rvnn.pair_merge`) and
    gather with one-hot matmuls so gradients flow to the gathered values.

    Example:
    ```mlir
    %sel = rvnn.one_hot %indices, %scores
        : (tensor<?x5x1xi64>, tensor<?x5x?xf32>) -> tensor<?x5x1x?xf32>
    ```
  }];
  let arguments = (ins Rvnn_IndexTensor:$indices, Rvnn_FloatTensor:$ref);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $indices `,` $ref attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Beam bookkeeping
//===----------------------------------------------------------------------===//

def Rvnn_BeamGatherOp : Rvnn_ShapedOp<"beam_gather", [Pure]> {
  let summary = "gather along the beam dimension";
  let description = [{
    `result[n, k, ...] = input[n, indices[n, k] / factor, ...]` with `input`
    `[N, B, ...]` and `indices` `[N, K]` (`i64`, each in `[0, B·factor)`,
    integer division): the result is `[N, K, ...]`. With the default
    `factor = 1` this is a plain gather; with `factor = f` it gathers from
    `rvnn.beam_expand {factor = f}` of `input` without building that
    f-times-larger tensor: candidate `c` of `B·f` descends from beam `c / f`.
    Gradients flow to `input` (the reference implementation is a one-hot
    matmul, as in the beam-tree models). Used to prune beams after top-k
    (BT-GRC, EBT-GRC) and to gather the sequence, score and beam mask after
    beam alignment (RIR-EBT-GRC). `factor >= 1`.

    Canonicalisation: a gather from a `rvnn.beam_expand` gathers from the
    expand's input instead, with the product of the two factors.

    Example:
    ```mlir
    %h2 = rvnn.beam_gather %h, %keep
        : (tensor<?x25x?x128xf32>, tensor<?x5xi64>) -> tensor<?x5x?x128xf32>
    // The same selection straight from the 5 parent beams of those 25:
    %h3 = rvnn.beam_gather %parents, %keep {factor = 5 : i64}
        : (tensor<?x5x?x128xf32>, tensor<?x5xi64>) -> tensor<?x5x?x128xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$input, Rvnn_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "1">:$factor);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasCanonicalizer = 1;
}

def Rvnn_BeamExpandOp : Rvnn_ShapedOp<"beam_expand", [Pure]> {
  let summary = "repeat every beam `factor` times";
  let description = [{
    `result[n, b·factor + j, ...] = input[n, b, ...]` for `j < factor`:
    `[N, B, ...]` becomes `[N, B·factor, ...]`, each beam repeated `factor`
    times consecutively (beam-major, matching the candidate order of
    `rvnn.beam_accumulate`). BT-GRC and EBT-GRC expand the state, scores and
    masks of `B` beams into `B·k` candidates before pruning. The result's
    beam dimension is dynamic unless `B` is static. `factor >= 1`.

    Folds to `input` when `factor = 1` (and the result type equals the input
    type; otherwise it canonicalises to a `tensor.cast`).

    Example:
    ```mlir
    %hk = rvnn.beam_expand %h {factor = 5 : i64}
        : (tensor<?x5x?x128xf32>) -> tensor<?x25x?x128xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$input, I64Attr:$factor);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Rvnn_BeamAccumulateOp : Rvnn_ShapedOp<"beam_accumulate", [Pure]> {
  let summary = "per-candidate beam score accumulation";
  let description = [{
    `result[n, b·K + k] = accu[n, b] + log(probs[n, b, indices[n, b, k]] + 1e-20)`
    with `accu` `[N, B]`, `probs` `[N, B, S]` and `indices` `[N, B, K]`
    (`i64`): the result is `[N, B·K]` (dynamic unless `B` and `K` are both
    static), candidate-major within a beam like `rvnn.beam_expand`.
    `accu` and `probs` share their element type.

    BT-GRC and EBT-GRC add the log-probability of the chosen pair, computed
    from the noise-free masked softmax, to the running beam score; gradients
    reach the scorer only through this op.

    Example:
    ```mlir
    %accu2 = rvnn.beam_accumulate %accu, %probs, %indices
        : (tensor<?x5xf32>, tensor<?x5x?xf32>, tensor<?x5x5xi64>)
        -> tensor<?x25xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$accu, Rvnn_FloatTensor:$probs,
                       Rvnn_IndexTensor:$indices);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $accu `,` $probs `,` $indices attr-dict `:`
    functional-type(operands, results)
  }];
}

def Rvnn_BeamAlignOp : Rvnn_ShapedOp<"beam_align", [
    MemoryEffects<[MemRead<Rvnn_RandomGenerator>,
                   MemWrite<Rvnn_RandomGenerator>]>]> {
  let summary = "RIR beam alignment: keep the top beam, resample the others";
  let description = [{
    With `accu` and `beam_mask` `[N, B]`, returns beam indices `[N, B]`
    (`i64`) for `rvnn.beam_gather`:

    - `indices[n, 0] = 0`: beam 0, the top beam (beams come out of top-k
      sorted by score), is always kept;
    - `indices[n, 1..B-1]` are drawn with replacement from
      `Categorical(masked_softmax(accu[n] / temperature, beam_mask[n]))`
      (`mode = sample`) or uniformly among the real beams of `beam_mask`
      (`mode = uniform`, the "random align" variant: the same masked softmax
      of equal scores), using the runtime's seeded generator.

    No gradient flows through the sampling. RIR-EBT-GRC aligns the beams of
    the chunk roots between outer recursion steps when there is more than one
    chunk and `B >= 2`, in training and at inference (as the reference code
    does). `temperature > 0` (default 1), `mode` defaults to `sample`.

    The op is random and therefore not pure: it reads and writes the
    generator resource, so CSE never merges two alignments of the same
    scores (each must be an independent draw), DCE keeps it (removing a draw
    would shift later draws of a seeded run) and it is not hoisted.

    Example:
    ```mlir
    %keep = rvnn.beam_align %accu, %beam_mask
        {temperature = 1.0 : f64, mode = #rvnn.align<uniform>}
        : (tensor<?x7xf32>, tensor<?x7xf32>) -> tensor<?x7xi64>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$accu, Rvnn_FloatTensor:$beam_mask,
                       DefaultValuedAttr<F64Attr, "1.0">:$temperature,
                       DefaultValuedAttr<Rvnn_AlignModeAttr,
                                         "::mlir::rvnn::AlignMode::sample">:$mode);
  let results = (outs Rvnn_IndexTensor:$indices);
  let assemblyFormat = [{
    $accu `,` $beam_mask attr-dict `:` functional-type(operands, results)
  }];
}

def Rvnn_BeamMarginalizeOp : Rvnn_ShapedOp<"beam_marginalize", [Pure]> {
  let summary = "soft marginalisation of beam roots by beam score";
  let description = [{
    `w = softmax_b(beam_mask·accu + (1 - beam_mask)·(-999999))`,
    `result[n] = Σ_b w[n, b]·roots[n, b]` with `roots` `[N, B, D]`, `accu`
    and `beam_mask` `[N, B]`: the result is `[N, D]`. All operands share
    their element type. The final step of BT-GRC, EBT-GRC and RIR-EBT-GRC:
    the sentence encoding is the score-weighted mixture of the beam roots,
    with masked (duplicate) beams excluded.

    Example:
    ```mlir
    %root = rvnn.beam_marginalize %roots, %accu, %beam_mask
        : (tensor<?x5x128xf32>, tensor<?x5xf32>, tensor<?x5xf32>)
        -> tensor<?x128xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$roots, Rvnn_FloatTensor:$accu,
                       Rvnn_FloatTensor:$beam_mask);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $roots `,` $accu `,` $beam_mask attr-dict `:`
    functional-type(operands, results)
  }];
}

#endif // RVNN_BEAM_OPS_TD
