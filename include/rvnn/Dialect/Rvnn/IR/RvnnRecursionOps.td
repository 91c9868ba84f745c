#ifndef RVNN_RECURSION_OPS_TD
#define RVNN_RECURSION_OPS_TD

include "rvnn/Dialect/Rvnn/IR/RvnnBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

// Recursion: the loop over a model's state (rvnn.recurse), the balanced k-ary
// tree reduction (BBT/BKT), RIR's chunking of a sequence into independent
// sub-sequences and back, and the beam-tree family's pair merge. Dimension
// letters: N batch, B beams, S sequence length, D hidden size, K arity.

def Rvnn_RecurseOp : Rvnn_Op<"recurse", [
    RecursiveMemoryEffects, SingleBlock, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<RegionBranchOpInterface, [
      "getEntrySuccessorOperands", "getRegionInvocationBounds"]>]> {
  let summary = "a loop over a state tuple with a halting policy";
  let description = [{
    Runs its body repeatedly over a tuple of state values. The body is one
    block whose arguments are the step counter (`index`, 0 for the first
    iteration) followed by one argument per state value; it ends with
    `rvnn.yield` giving the next state (same types, same order). The first
    iteration sees `inits`; the results are the final state. The body may use
    values defined above (parameters), so cells are called from inside it.

    The `halting` policy says when the loop stops:

    - `none`: runs exactly as many steps as its one bound says: the `index`
      operand `max_steps` or the `steps` attribute (`steps >= 1`).
    - `fixed`: runs exactly `steps` iterations in training and `eval_steps`
      (default `steps`) at evaluation (NDR's shared layer: 20 and 24,
      model-specs §5). `steps >= 1`, `eval_steps >= 1`, no `max_steps`.
    - `per_sample`: the yield also gives `halt`, a `tensor<Nxi1>` saying which
      samples have finished (CRvNN, model-specs §4). A halted sample's state is
      frozen: the rows of every state tensor (dim 0 is the batch) keep the
      values they had when the sample halted. The loop ends when every sample
      has halted or the bound (`max_steps` or `steps`, exactly one of them) is
      reached. Every state must be a ranked tensor of rank >= 1 whose dim 0 is
      the batch.

    In the assembly the names before `=` label the states; the body's entry
    block header (`^bb0(%step: index, ...)`) defines the arguments, and the
    printer writes the header's names in both places.

    Example (CRvNN's halting loop):
    ```mlir
    %r:2 = rvnn.recurse (%h = %h0, %e = %e0)
        : tensor<?x?x128xf32>, tensor<?x?xf32> halting <per_sample> max_steps %n {
    ^bb0(%t: index, %h: tensor<?x?x128xf32>, %e: tensor<?x?xf32>):
      %s:3 = func.call @crvnn_step(%h, %e)
          : (tensor<?x?x128xf32>, tensor<?x?xf32>)
          -> (tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?xi1>)
      rvnn.yield %s#0, %s#1 halt %s#2
          : tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?xi1>
    }
    ```

    NDR's 20/24 fixed steps:
    ```mlir
    %x = rvnn.recurse (%s = %x0) : tensor<?x?x512xf32>
        halting <fixed> steps = 20 eval_steps = 24 {
    ^bb0(%t: index, %s: tensor<?x?x512xf32>):
      %n = func.call @ndr_layer(%s) : (tensor<?x?x512xf32>) -> tensor<?x?x512xf32>
      rvnn.yield %n : tensor<?x?x512xf32>
    }
    ```
  }];
  // Generic form: operands (inits..., [max_steps]) with operandSegmentSizes;
  // the runtime's plan executor reads this layout.
  let arguments = (ins Variadic<AnyType>:$inits,
                       Optional<Index>:$max_steps,
                       Rvnn_HaltingPolicyAttr:$halting,
                       OptionalAttr<I64Attr>:$steps,
                       OptionalAttr<I64Attr>:$eval_steps);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [
    // Creates the op with its body block (arguments: the step, then one per
    // init) and no terminator: the caller fills in the body and the yield.
    OpBuilder<(ins "::mlir::rvnn::HaltingPolicy":$halting,
                   "::mlir::ValueRange":$inits,
                   CArg<"::mlir::Value", "{}">:$maxSteps,
                   CArg<"::std::optional<int64_t>", "std::nullopt">:$steps,
                   CArg<"::std::optional<int64_t>", "std::nullopt">:$evalSteps)>
  ];
  let extraClassDeclaration = [{
    /// The body block.
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The step counter (block argument 0).
    ::mlir::BlockArgument getStepArg() { return getBodyBlock().getArgument(0); }
    /// The state block arguments (after the step counter).
    ::mlir::Block::BlockArgListType getRegionIterArgs() {
      return getBodyBlock().getArguments().drop_front();
    }
    /// The terminating yield, or null while the body is malformed.
    ::mlir::rvnn::YieldOp getYield();
  }];
}

def Rvnn_YieldOp : Rvnn_Op<"yield", [
    Pure, Terminator, ParentOneOf<["RecurseOp", "BalancedReduceOp"]>,
    DeclareOpInterfaceMethods<RegionBranchTerminatorOpInterface, [
      "getMutableSuccessorOperands", "getSuccessorRegions"]>]> {
  let summary = "terminator of rvnn.recurse and rvnn.balanced_reduce bodies";
  let description = [{
    Gives the values a region produces: the next state of an `rvnn.recurse`
    body (one value per state) or the parent vectors of an
    `rvnn.balanced_reduce` body (one value). In a `per_sample` recursion the
    yield also gives `halt`, a rank-1 `i1` tensor over the batch, written
    after the keyword `halt` (its type comes last in the type list). The
    `has_halt` unit attribute marks that the last operand is `halt`.

    Example:
    ```mlir
    rvnn.yield %h2, %e2 halt %done
        : tensor<?x?x128xf32>, tensor<?x?xf32>, tensor<?xi1>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands, UnitAttr:$has_halt);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins CArg<"::mlir::ValueRange", "{}">:$values,
                   CArg<"::mlir::Value", "{}">:$halt)>
  ];
  let extraClassDeclaration = [{
    /// The yielded values, without `halt`.
    ::mlir::OperandRange getValues();
    /// The halt operand, or null when there is none.
    ::mlir::Value getHaltValue();
  }];
}

def Rvnn_BalancedReduceOp : Rvnn_ShapedOp<"balanced_reduce", [
    RecursiveMemoryEffects, RecursivelySpeculatable, SingleBlock]> {
  let summary = "balanced k-ary tree reduction of a masked sequence";
  let description = [{
    Reduces `h` (`[N, S, D]`) with mask `mask` (`[N, S]`, 1 = real token) to
    one root per sample (`[N, D]`) by a balanced tree of arity `k`
    (`arity`, `k >= 2`): while `S > 1`, right-pad `S` to a multiple of `k`
    (padded positions get mask 0), view the sequence as chunks
    `[N·S/k, k, D]` with masks `[N·S/k, k]`, apply the body to them and
    continue with its result `[N, S/k, D]`; the new mask is the mask of each
    chunk's first child. The result is position 0 once `S = 1`.

    The body has one block with arguments `children : tensor<?xKxD>` and
    `mask : tensor<?xK>` and yields the parents `tensor<?xD>`, each row from
    its own row. Its contract: the parent of a chunk whose children after
    the first are all padding (mask 0) is that first child. The runtime
    relies on it: where a batch has many such chunks it passes their first
    child up and runs the body on the other chunks only. BBT-GRC
    (model-specs §2) is `k = 2` with the body `mr⊙GRC(l, r) + (1-mr)⊙l`, so
    a padded right child passes the left child up.

    Example:
    ```mlir
    %root = rvnn.balanced_reduce %h, %mask {arity = 2 : i64}
        : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32> {
    ^bb0(%children: tensor<?x2x128xf32>, %m: tensor<?x2xf32>):
      %p = func.call @bbt_merge(%children, %m)
          : (tensor<?x2x128xf32>, tensor<?x2xf32>) -> tensor<?x128xf32>
      rvnn.yield %p : tensor<?x128xf32>
    }
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$h, Rvnn_FloatTensor:$mask,
                       I64Attr:$arity);
  let results = (outs Rvnn_FloatTensor:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $h `,` $mask attr-dict `:` functional-type(operands, results) $body
  }];
}

def Rvnn_ChunkOp : Rvnn_ShapedOp<"chunk", [Pure]> {
  let summary = "split a sequence into fixed-size chunks (RIR's outer loop)";
  let description = [{
    Splits the sequence dim `dim` (default 1; dim 0 is the batch) of `x`
    (`[N, ..., S, ...]`) into chunks of `size` (`size >= 2`), as the outer
    loop of Recursion in Recursion does (model-specs §3, chunk = 30):

    - if `S >= size + size/2` (integer division): right-pad `S` to a multiple
      of `size` (pad mask 0), `S1 = ceil(S / size)`, and move the chunk index
      into the batch: `chunks` is `[N·S1, ..., size, ...]` (chunk-major within
      a sample: row `n·S1 + c` is chunk `c` of sample `n`) and `chunk_mask`
      is `[N·S1, size]`;
    - else the whole sequence is one chunk: `chunks` is `x` and `chunk_mask`
      is `mask`.

    `mask` is `[N, S]`. With a dynamic `S` the chunk length and the batch of
    the results are dynamic. Canonicalisation: a static `S < size + size/2`
    folds to the operands (the outer recursion collapses).

    Example:
    ```mlir
    %c, %cm = rvnn.chunk %h, %mask {size = 30 : i64, dim = 2 : i64}
        : (tensor<?x7x?x128xf32>, tensor<?x?xf32>)
        -> (tensor<?x7x?x128xf32>, tensor<?x?xf32>)
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x, Rvnn_FloatTensor:$mask,
                       I64Attr:$size, DefaultValuedAttr<I64Attr, "1">:$dim);
  let results = (outs AnyRankedTensor:$chunks, Rvnn_FloatTensor:$chunk_mask);
  let assemblyFormat = [{
    $x `,` $mask attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The static sequence length, from `x` or `mask`, if either knows it.
    ::std::optional<int64_t> getStaticSeqLen();
    /// True when the static sequence length makes the op one chunk.
    bool isSingleChunk();
  }];
}

def Rvnn_UnchunkOp : Rvnn_ShapedOp<"unchunk", [Pure]> {
  let summary = "move the chunk index out of the batch (inverse of chunk)";
  let description = [{
    Takes `x` (`[N·S1, ...]`, chunk-major rows as `rvnn.chunk` makes them) and
    `ref` (`[N, ...]`, only its dim 0 is used) and inserts the chunk index
    `S1 = dim0(x) / N` as dimension `dim` (`1 <= dim <= rank(x)`):
    `[N·S1, B, D]` becomes `[N, B, S1, D]` with `dim = 2`, and a per-chunk
    mask `[N·S1]` becomes `[N, S1]` with `dim = 1`. Dims that cannot be
    computed statically are dynamic.

    Example:
    ```mlir
    %r = rvnn.unchunk %roots, %mask {dim = 2 : i64}
        : (tensor<?x7x128xf32>, tensor<?x?xf32>) -> tensor<?x7x?x128xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x, AnyRankedTensor:$ref, I64Attr:$dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $x `,` $ref attr-dict `:` functional-type(operands, results)
  }];
}

def Rvnn_ChunkDepthOp : Rvnn_Op<"chunk_depth", [Pure]> {
  let summary = "how many rounds of rvnn.chunk reduce a sequence to one item";
  let description = [{
    The number of levels of an outer chunked recursion (Recursion in
    Recursion, model-specs §3) that reduces a sequence of `length` items to
    one, when each level applies `rvnn.chunk` with `size` (`size >= 2`) and
    reduces every chunk to one item:

    ```
    depth(S) = 0                         if S <= 1
             = 1                         if S < size + size/2 (one chunk)
             = 1 + depth(ceil(S / size)) otherwise
    ```

    It is the step bound of the `rvnn.recurse` that runs the outer recursion
    (`max_steps`), since the level count depends on the batch's length.
    Folds when `length` is a constant.

    Example:
    ```mlir
    %levels = rvnn.chunk_depth %s {size = 30 : i64}
    ```
  }];
  let arguments = (ins Index:$length, I64Attr:$size);
  let results = (outs Index:$depth);
  let assemblyFormat = "$length attr-dict";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// depth(length) for a chunk size `size >= 2`.
    static int64_t depthOf(int64_t length, int64_t size);
  }];
}

def Rvnn_PairMergeOp : Rvnn_ShapedOp<"pair_merge", [Pure]> {
  let summary = "replace the selected adjacent pair by its parent";
  let description = [{
    The beam-tree update (model-specs §3): given states `h` (`[..., S, D]`),
    composed candidates `cand` (`[..., S-1, D]`, or `[..., 1, D]` when only
    the selected pair was composed, as in EBT-GRC, broadcast over the pairs)
    and a one-hot (or soft) selection `sel` over the `S-1` pairs
    (`[..., S-1]`), the sequence shrinks by one:

    ```
    c = cumsum(sel), left = 1 - c, right = c - sel
    h'_j = sel_j·cand_j + left_j·h_j + right_j·h_{j+1}     (j < S-1)
    ```

    Leading dims (e.g. `N, B`) are shared by all operands; all operands have
    one element type. The result is `[..., S-1, D]`.

    Example:
    ```mlir
    %h2 = rvnn.pair_merge %h, %cand, %sel
        : (tensor<?x5x?x128xf32>, tensor<?x5x1x128xf32>, tensor<?x5x?xf32>)
        -> tensor<?x5x?x128xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$h, Rvnn_FloatTensor:$cand,
                       Rvnn_FloatTensor:$sel);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $h `,` $cand `,` $sel attr-dict `:` functional-type(operands, results)
  }];
}

#endif // RVNN_RECURSION_OPS_TD
