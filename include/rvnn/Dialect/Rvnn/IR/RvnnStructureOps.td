#ifndef RVNN_STRUCTURE_OPS_TD
#define RVNN_STRUCTURE_OPS_TD

include "rvnn/Dialect/Rvnn/IR/RvnnBase.td"

// Exposed structure: a model declares which of its values describe the tree
// it induces, so that tools (`rvnn-run parse`) can show that tree without
// knowing the model. `N` batch, `S` tokens, `B` beams, `P` adjacent pairs.

def Rvnn_ExposeStructureOp : Rvnn_Op<"expose_structure", [
    MemoryEffects<[MemWrite<Rvnn_StructureTrace>]>]> {
  let summary = "marks a value as an exposed structure output of the model";
  let description = [{
    Declares that `value` describes the structure the model induces over its
    input tokens. The op computes nothing: the compiler keeps it through
    lowering (`rvnn_exec.expose_structure`, in loop bodies and in the
    compiler-derived functions that run them), and each time it executes,
    a runtime that asked for the model's structure records a copy of
    `value` with `kind`, in execution order (one record per loop iteration
    inside a loop). Writing that record is its only effect, so it is never
    removed, merged or reordered with another exposure.

    Kinds, with the shape `value` must have:
    - `balanced` (`[N, S]` float mask, 1 = real token; `arity` required,
      `>= 2`): the model reduces the tokens by the balanced `arity`-ary tree
      of `rvnn.balanced_reduce` over each row's real tokens.
    - `merge_selection` (`[N, P]` or, with beams, `[N, B, P]` float): at
      this step, the one-hot selection of the adjacent pair merged (entry
      `j`: nodes `j` and `j + 1` of the current sequence become one node in
      place `j`; the sequence shrinks by one per step). Step `t` of a row
      with `L` real tokens merges one of its `L - t` nodes' pairs; the steps
      after `L - 1` are ignored.
    - `beam_parent` (`[N, B]` i64; `factor` optional, default 1): at this
      step, beam `b` continues beam `value[b] / factor` of the previous
      step (the selection `rvnn.beam_gather` with that `factor` makes).
      Beams are ranked: beam 0 after the last step is the top beam, whose
      merges are followed back through the parents.
    - `composition` (`[N, S]` float, aligned with the input tokens): at this
      iteration, the probability that each token's item composes with its
      right neighbour item (CRvNN: the item ceases to exist and its right
      neighbour becomes the composition).
    - `existence` (`[N, S]` float, aligned with the input tokens): each
      token's existence probability after this iteration (shown by
      `rvnn-run parse --trace`).
    How the runtime turns the records into one tree per row is defined in
    docs/user-guide.md ("Looking at induced trees").

    Example:
    ```mlir
    rvnn.expose_structure <merge_selection> %sel : tensor<?x5x?xf32>
    rvnn.expose_structure <beam_parent> %kept {factor = 5 : i64}
        : tensor<?x5xi64>
    rvnn.expose_structure <balanced> %mask {arity = 2 : i64}
        : tensor<?x?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$value, Rvnn_StructureKindAttr:$kind,
                       OptionalAttr<I64Attr>:$arity,
                       OptionalAttr<I64Attr>:$factor);
  let assemblyFormat = "$kind $value attr-dict `:` type($value)";
  let hasVerifier = 1;
}

#endif // RVNN_STRUCTURE_OPS_TD
