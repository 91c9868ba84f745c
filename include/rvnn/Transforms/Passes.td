#ifndef RVNN_TRANSFORMS_PASSES_TD
#define RVNN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RvnnLinkLibrary : Pass<"rvnn-link-library", "::mlir::ModuleOp"> {
  let summary = "Fill external function declarations from a library module";
  let description = [{
    Models declare shared cells (for example `@grc_cell`) as private external
    functions. This pass parses the library module at `path` and copies in the
    definition of every declared function, checking that the declared and the
    defined function types agree. A copied definition may call other library
    functions (a cell built from cells): those the module does not have are
    added as private functions and filled the same way, transitively. Other
    library functions are not copied. Run `inline` afterwards to expose the
    cell bodies to fusion.

    Example: `rvnn-opt models/bbt_grc.mlir --rvnn-link-library=path=models/cells.mlir`
  }];
  let options = [
    Option<"path", "path", "std::string", /*default=*/"\"\"",
           "Library .mlir file holding the function definitions">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def RvnnExpandRecursion : Pass<"rvnn-expand-recursion", "::mlir::ModuleOp"> {
  let summary = "Expand bounded self-recursion into straight-line calls";
  let description = [{
    A fixed-depth self-recursive cell (Self-IRU: an instance at depth l whose
    gates are driven by two instances at depth l-1) is written once, as a
    function that calls itself: one `index` argument marked
    `{rvnn.recursion_depth}` is the depth, each recursive call passes a
    smaller depth, and the base case (depth 0) is selected with `scf.if` on
    the depth (or anything that folds once the depth is a constant). This
    pass expands such recursion at compile time, so the model never unrolls
    it by hand:
    - every call of a self-recursive function from outside it must pass a
      compile-time constant depth `d` (`0 <= d <= max-depth`);
    - the call is pointed at the specialisation `@<f>_depth<d>`: a private
      clone of `@<f>` with the depth argument replaced by the constant and
      removed from the signature, then simplified with the canonicalizer's
      patterns, which fold the base-case test and take the selected branch;
    - the recursive calls left in a specialisation must now pass a constant
      smaller depth and are pointed at their own specialisations, one per
      depth (shared by all calls at that depth), until depth 0, which must
      call itself no more.
    The result is a call tree of non-recursive functions that `inline`
    (next in `rvnn-front`) turns into straight-line code; the recursive
    original is erased when it is private and no longer called.

    Errors, at the offending op: a call whose depth is not a constant, is
    negative or exceeds `max-depth`; a recursive call that does not decrease
    the depth, or a depth-0 instance that still calls itself (unbounded
    recursion); a self-recursive function without a depth argument, with a
    non-`index` depth argument or with two; mutual recursion (a call cycle
    through more than one function).

    Example: `rvnn-opt models/self_iru.mlir --rvnn-link-library=path=models/cells.mlir --rvnn-expand-recursion`
    shows `@self_iru_cell` at depths 2, 1 and 0.
  }];
  let options = [
    Option<"maxDepth", "max-depth", "int64_t", /*default=*/"16",
           "Largest recursion depth a call may request (each depth is one "
           "specialisation; the expanded instances grow like 2^depth for a "
           "binary recursion)">
  ];
  // The library a model links may bring scf.if: its folds must be loaded
  // when the pass collects the canonicalization patterns.
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def RvnnInferShapes : Pass<"rvnn-infer-shapes", "::mlir::ModuleOp"> {
  let summary = "Refine dynamic tensor dims from operand shapes";
  let description = [{
    Cells are written with fully dynamic shapes and inlined into models whose
    hidden sizes are static; this pass recovers the static dims. Ops are
    visited in order (nested regions included) and result types are joined
    with what the operands imply, never loosened:
    - ops implementing `InferShapedTypeOpInterface` (every `Rvnn_ShapedOp`),
      `InferTypeOpInterface` or `ReifyRankedShapedTypeOpInterface`;
    - ops with `SameOperandsAndResultType` (upstream elementwise ops such as
      `arith.addf`, `math.tanh`; `rvnn.softmax`), which take the join of all
      operand and result types, with `tensor.cast`s on the operands that are
      less static.
    A static dim that contradicts a static dim of the current type is an
    error. An op that no longer verifies with refined operands keeps its
    original types (casts back; a warning for shape-inferring ops, whose
    operands then provably disagree). Block arguments and results of region-carrying ops never change
    (loop state may shrink per step). Uses that cannot take a refined type
    (calls, terminators, region ops, any op not listed above) get a
    `tensor.cast` back to the old type, so the module always verifies; run
    `canonicalize` afterwards to fold the casts. A function's result types
    are refined when it has no symbol uses; otherwise its returns cast back.
    Runs on the module because it rewrites function signatures and must see
    their symbol uses.
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def RvnnFoldSliceConcat : Pass<"rvnn-fold-slice-concat"> {
  let summary = "Concatenated unit slices of one tensor as one collapse_shape";
  let description = [{
    A `tensor.concat` along dim `d` of the slices `x[..., j, ...]` of one
    tensor `x` (`j = 0 .. K-1` in order, `K` the static size of `x`'s dim `d`,
    which each slice drops; offset 0 and the whole size on every other dim;
    unit strides) is `x` with dims `d` and `d+1` merged: a
    `tensor.collapse_shape`, which the runtime executes as a view where the
    concat copied, and whose backward is a reshape where the concat's was a
    slice per input and a concatenation. The GRC cell's `[l; r]` of a
    tree's children `[N, 2, D]` (BBT-GRC, BKT-GRC's chunks, CRvNN's and
    EBT-GRC's pairs when they come from one tensor) is one.

    Example: `rvnn-opt models/bbt_grc.mlir --rvnn-front=library=models/cells.mlir`
    shows `tensor.collapse_shape %children [[0], [1, 2]]` where the cell
    concatenated its children.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def RvnnHoistStepInvariant : Pass<"rvnn-hoist-step-invariant"> {
  let summary = "Batch the state-independent part of a recurrence over all "
                "steps";
  let description = [{
    In the body of every `rvnn.recurse`, finds the ops that do not depend on
    the loop state and computes them once, before the loop, for all steps
    together; the body keeps only what reads the state. This is FastTrees'
    observation ("tree induction need not be autoregressive") as a compiler
    transformation: a model is written as a plain recurrence, and whatever
    its gates compute from the inputs alone (ON-LSTM's input projections,
    FastTrees' whole master-gate computation) becomes one batched computation
    over the sequence.

    Two kinds of ops leave the body:
    - memory-effect-free ops that read only values defined before the loop
      (loop-invariant code motion);
    - ops whose operands are step slices or loop-invariant: a step slice is
      `tensor.extract_slice %x[.., %t, ..] [.., 1, ..]` of a value `%x`
      defined before the loop, at the step counter `%t` along one dim, with
      unit strides and the other offsets and sizes loop-invariant. Its whole
      range along that dim is cut before the loop, and every op that reads
      only step slices (and invariant weights) is rewritten to run on the
      whole range, the step dim being one more batch dim: elementwise ops
      (arith, math, rvnn's unary ops), `rvnn.linear` (invariant weight and
      bias; the step dim is not the feature dim), `rvnn.cumax` and
      `rvnn.softmax` (the step dim is not theirs), `rvnn.broadcast_like`,
      `tensor.extract_slice` along other dims, `tensor.expand_shape` and
      `tensor.collapse_shape` (the step dim a group of its own), `tensor.cast`,
      and `tensor.dim` along another dim (the whole's size).
    A use that stays in the body reads step `%t` of the batched value with a
    `tensor.extract_slice`. Ops with memory effects (`rvnn.dropout`) and ops
    with regions stay where they are. The batched ops compute every step of
    the sequence, also steps a loop with per-sample halting would not run;
    their values at the steps it runs are unchanged.

    Each batched value the body reads costs a slice a step, and in the
    backward a slice cotangent a step (the runtime adds it into the step's
    window of the batched value's gradient). So batched elementwise ops
    whose values only the body reads (or each other) stay in the body, a
    connected group of them at a time, when that leaves fewer batched values
    for the body to read: FastTrees' products of its two master gates
    (omega = f * i, f - omega, i - omega) stay, and the body reads the two
    gates instead of the three products; the elementwise fusion then puts
    the products in the step's kernel.

    Runs in `rvnn-front` after CSE, so that the casts and shape queries of
    inlined cells are folded first.

    Example: `rvnn-opt models/on_lstm.mlir --rvnn-front=library=models/cells.mlir`
    shows ON-LSTM's input projection as one linear over the whole sequence
    before the loop.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def RvnnExportPlan : Pass<"rvnn-export-plan", "::mlir::ModuleOp"> {
  let summary = "Write the module as a compiled-model directory";
  let description = [{
    Serialises the module (after `rvnn-compile`) to `dir/plan.json` and
    `dir/manifest.json` (docs/compiled-model-format.md), each written to a
    temporary file and renamed. The module itself is unchanged. This is the
    last step of `rvnn-run compile`.

    Example: `rvnn-opt models/bbt_grc.mlir --rvnn-compile=library=models/cells.mlir --rvnn-export-plan=dir=out/bbt_grc`
  }];
  let options = [
    Option<"dir", "dir", "std::string", /*default=*/"\"\"",
           "Compiled-model directory to write">,
    Option<"cpu", "cpu", "std::string", /*default=*/"\"\"",
           "x86-64 level of the CPU kernels (x86-64-v3, x86-64-v4, ...); "
           "default: the newest this machine runs, tuned for its CPU">
  ];
}

#endif // RVNN_TRANSFORMS_PASSES_TD
