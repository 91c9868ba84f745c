#ifndef RVNN_EXEC_TRANSFORMS_PASSES_TD
#define RVNN_EXEC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RvnnExecCheckContract
    : Pass<"rvnn-exec-check-contract", "::mlir::ModuleOp"> {
  let summary = "Reject any op outside the execution contract";
  let description = [{
    The module may hold only `rvnn_exec` ops (inside the builtin module;
    the nested module marked `rvnn_exec.kernels`, the kernel IR, is not part
    of the program and is skipped): every other op is an error at its location naming it, for example
    `'tensor.pad' is outside the execution contract (rvnn_exec)`, and the
    pass fails. The last step of `rvnn-compile` before export; the plan
    exporter refuses a module that has not passed it.
  }];
}

def RvnnExecBandNeighbourProducts
    : Pass<"rvnn-exec-band-neighbour-products", "::mlir::ModuleOp"> {
  let summary = "Multiply neighbour matrices on their band";
  let description = [{
    A neighbour matrix (`rvnn_exec.neighbour_retrieve`, CRvNN's `L` and
    `R`, `[N, S, S]`) spreads each row's unit of weight over the nearest
    existing positions, so almost all of it is zeros that stay zero under
    small changes of its operands. For every neighbour matrix used as the
    lhs of a batched `rvnn_exec.gemm` (`[N, S, S] · [N, S, D]`, CRvNN's
    `L·h`, `L·(L·h)`, `L·c`), the pass adds one `rvnn_exec.neighbour_band`
    of the same operands and direction after it, and gives it to each such
    gemm as its `band`: the product, and its backward, then run on the
    band (on average a few columns a row instead of `S`). The result and
    every cotangent that reaches a parameter are those of the dense product
    up to summation order: outside the band the matrix is zero, and its
    cotangent there is one that neighbour_retrieve's derivative does not
    read. Gemms that already have a band, transposed ones and unbatched
    ones are left alone.

    Example:
    ```mlir
    %r = rvnn_exec.neighbour_retrieve %e, %m {direction = #rvnn.direction<right>}
        : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
    %y = rvnn_exec.gemm %r, %h accumulate %zero
        : (tensor<?x?x?xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
    ```
    becomes
    ```mlir
    %r = rvnn_exec.neighbour_retrieve %e, %m {direction = #rvnn.direction<right>} ...
    %band = rvnn_exec.neighbour_band %e, %m {direction = #rvnn.direction<right>}
        : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x2xi64>
    %y = rvnn_exec.gemm %r, %h accumulate %zero band %band
        : (tensor<?x?x?xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x2xi64>) -> tensor<?x?x8xf32>
    ```
  }];
}

def RvnnExecFuseElementwise
    : Pass<"rvnn-exec-fuse-elementwise", "::mlir::ModuleOp"> {
  let summary = "Group chains of same-shaped elementwise ops into dispatches";
  let description = [{
    Fusable ops are `rvnn_exec.elementwise` with a float function (all but
    `or`), `sigmoid`, `gelu`, `relu` and `gate`, each only when all its
    operands and its result have one ranked tensor type `T` with `f32` or
    `f64` elements: the kernel is then an N-ary map over same-shaped tensors.
    A `layer_norm` whose input and result have such a type `T` of rank >= 2
    and whose `gamma` and `beta` are 1-D of `T`'s last dim joins too, as a
    row reduction: its gamma and beta become the kernel's row operands. A
    group holds at most one layer norm (a chain through two is cut before
    the second).

    Within one block (never across regions; recurse and balanced_reduce
    bodies are blocks of their own), a fusable op and a fusable producer of
    one of its operands with the same `T` join one group (union-find). A
    group becomes one `rvnn_exec.dispatch` placed where its last op was, so
    a group is valid only if no result of a member is used outside the
    group before that point (its inputs, used by members, are then all
    defined before it). An invalid group is cut after its first member with
    such an early outside use, each part is split into its connected
    components again, and the parts are checked anew until every part is
    valid. Groups of one op stay unfused (with `lone-kernels`, except a
    `gelu`, whose generated kernel's vectorised erf runs forward and
    backward about 2.5x faster than ATen's CPU gelu, and a `layer_norm`,
    whose generated row loop ran forward 1.8x and backward 1.3x faster than
    ATen's in BBT-GRC at batch 32 (bench/README.md, session 39); the compile pipeline sets it on its second run, after
    rvnn-exec-differentiate has split dropouts into a mask and a product
    that the gelu before them joins), and so do groups
    none of whose values is used outside the group (dead code, left to the
    canonicalizer).

    The dispatch's inputs are the values from outside the group that its
    members use (deduplicated, in order of first use), its results the
    member values used outside the group (in program order); its body is
    the members, cloned over block arguments for the inputs. Kernels are
    named `<function>_k<N>`, `N` counting the dispatches of the module in
    program order (skipping names already in use).

    Example: the GRC cell's gating
    ```mlir
    %s = rvnn_exec.sigmoid %a : tensor<?x128xf32>
    %p = rvnn_exec.elementwise <mul> %s, %l : tensor<?x128xf32>
    ```
    becomes
    ```mlir
    %p = rvnn_exec.dispatch "forward_k0" (%a, %l)
        : (tensor<?x128xf32>, tensor<?x128xf32>) -> tensor<?x128xf32> {
    ^bb0(%x: tensor<?x128xf32>, %y: tensor<?x128xf32>):
      %s = rvnn_exec.sigmoid %x : tensor<?x128xf32>
      %p = rvnn_exec.elementwise <mul> %s, %y : tensor<?x128xf32>
      rvnn_exec.yield %p : tensor<?x128xf32>
    }
    ```
  }];
  let options = [
    Option<"loneKernels", "lone-kernels", "bool", /*default=*/"false",
           "Make a dispatch of a gelu or a layer norm that no other op "
           "joins">
  ];
}

def RvnnExecFuseLinearEpilogue
    : Pass<"rvnn-exec-fuse-linear-epilogue", "::mlir::ModuleOp"> {
  let summary = "Move a gemm's bias into the dispatches that read its result";
  let description = [{
    A `gemm` with a `bias` whose result is read only by dispatches, directly
    or through `slice`s that keep its last dim (the GRC cell's gate split
    of `[M, 4D]` into four `[M, D]` windows), loses the bias: the BLAS
    writes the bare product (no copy of the bias into the result first), and
    each dispatch input `v` it feeds gets the matching piece of the bias
    (a slice of it with the window's offset, size and stride along the last
    dim), reshaped to `[1, ..., 1, n]`, as one more input; in the body,
    `v`'s uses read `v + broadcast_like(piece, v)`. The kernel reads the
    piece as a broadcast operand, and its backward gives the bias's
    cotangent as the column sums of `v`'s cotangent, which it computes
    anyway (rvnn-exec-outline-kernels), instead of another pass over the
    gemm's cotangent. The result of `v + b` is ATen's `addmm`'s: the
    product's sum rounded, then the bias added.

    Runs after the first rvnn-exec-fuse-elementwise, before
    differentiation, so that the derived backward sees the moved bias.

    Example:
    ```mlir
    %c = rvnn_exec.gemm %x, %w bias %b {transpose_rhs} : ... -> tensor<?x8xf32>
    %y = rvnn_exec.dispatch "k" (%c, %h) ... {
    ^bb0(%v: tensor<?x8xf32>, %u: tensor<?x8xf32>):
      %s = rvnn_exec.sigmoid %v : tensor<?x8xf32>
      ...
    ```
    becomes
    ```mlir
    %c = rvnn_exec.gemm %x, %w {transpose_rhs} : ... -> tensor<?x8xf32>
    %p = rvnn_exec.reshape %b () : tensor<8xf32> to tensor<1x8xf32>
    %y = rvnn_exec.dispatch "k" (%c, %h, %p) ... {
    ^bb0(%v: tensor<?x8xf32>, %u: tensor<?x8xf32>, %bias: tensor<1x8xf32>):
      %bb = rvnn_exec.broadcast_like %bias, %v : ...
      %vb = rvnn_exec.elementwise <add> %v, %bb : tensor<?x8xf32>
      %s = rvnn_exec.sigmoid %vb : tensor<?x8xf32>
      ...
    ```
  }];
}

def RvnnExecOutlineKernels
    : Pass<"rvnn-exec-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Write the kernel IR (and its backward) of every dispatch";
  let description = [{
    For every `rvnn_exec.dispatch` (kernel `K`, inputs `x_i`, results `y_j`,
    all of one ranked tensor type `T` with `f32` or `f64` elements, except
    the row operands of a layer norm in its body) writes two functions into
    the nested `builtin.module @rvnn_kernels` marked `rvnn_exec.kernels` at
    the end of the top module (replaced if it exists, so the pass is
    idempotent; not created when there is no dispatch):

    - `func.func @K(x_0, ..., x_{n-1}, out_0, ..., out_{m-1}) -> (T x m)`:
      one `linalg.generic` with identity maps and parallel iterators,
      `ins(x) outs(out)` (destination-passing style: the caller allocates
      the outs), whose scalar body evaluates the dispatch body with
      `arith`/`math` ops;
    - `func.func @K_grad(x..., dy_0, ..., dy_{m-1}, dx_0, ..., dx_{n-1})
      -> (T x n)`: one `linalg.generic` with `ins(x, dy) outs(dx)` that
      recomputes the forward scalars from the inputs and runs reverse-mode
      differentiation over them (adjoints accumulated per use; an input on
      no path to a result gets 0). Nothing but the inputs is saved.

    A body with a layer norm (a row reduction over the last dim) gets the
    same two functions as stages of `linalg.generic` ops, each reading every
    input (row operands along the last dim) and recomputing the elementwise
    scalars it needs: the forward materialises the norm's input (a
    temporary, unless it is an input), sums each row (split into lanes of 8
    when the static row length allows, so the sum vectorises), keeps the
    mean and rstd per row, then evaluates the whole body into the outs; the
    backward computes the same statistics, the norm output's cotangent
    (reverse mode over the ops after it), per row `Σ dŷ·γ` and `Σ dŷ·γ·x̂`,
    the row operands' cotangents as column sums, then reverse mode over the
    whole body with the norm's rule `rstd·(dŷ·γ - mean(dŷ·γ) -
    x̂·mean(dŷ·γ·x̂))`. Statistics follow ATen's layer norm (biased variance,
    `1 / sqrt(var + epsilon)`).

    A broadcast operand (a gate's `g`, or the input of a `broadcast_like`:
    a bias from rvnn-exec-fuse-linear-epilogue; its dims `T`'s or 1) is
    read at index 0 in its unit dims; its cotangent is a generic of its own
    that sums the element adjoints over those dims. Where a bias is added
    to an input that nothing else reads by value, the two have one adjoint,
    and the bias's generic sums that input's cotangent instead of
    recomputing the adjoints.

    Scalar expansions and derivatives follow ATen (the runtime's reference):
    `max`/`min` split the gradient on ties, `abs` has derivative `sign(x)`
    (0 at 0), `relu` passes the gradient where its result is > 0, `gelu` is
    the exact erf form. Dispatches stay in the program unchanged (their body
    is the reference implementation); a dispatch whose body holds anything
    but the fusable ops of `rvnn-exec-fuse-elementwise` over one type (with
    at most one layer norm, whose gamma and beta are the only inputs of
    another type) is an error. Dispatches sharing a kernel name must have
    equivalent bodies.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def RvnnExecDifferentiate
    : Pass<"rvnn-exec-differentiate", "::mlir::ModuleOp"> {
  let summary = "Derive the backward of every loop body in reverse mode";
  let description = [{
    For every `recurse` and `balanced_reduce` in an `rvnn_exec.func @G`, the
    loop body is outlined into `@G_body` (its block arguments, then the
    values it captures; index constants are cloned in) and differentiated:

    - `@G_body_fwd` is `@G_body` with every `dropout` split into
      `dropout_mask` and a product (so the backward multiplies by the mask
      the forward drew), returning the body's results and then its
      residuals: the primal values the backward reads. A mask the backward
      reads is not one of them: `@G_body_fwd` reads the draw stream's
      position before it (`draw_position`) and a shape witness of it, and
      `@G_body_bwd` draws it again there (`redraw_dropout_mask`);
    - `@G_body_bwd` takes the residuals, then one cotangent per result, and
      returns the cotangents of the inputs that have one (`grad_inputs`).

    The body becomes `rvnn_exec.call @G_body(...) forward @G_body_fwd
    backward @G_body_bwd`, which the runtime records as one backward step
    per iteration (or per tree level); with the runtime's `recompute` policy
    the step keeps only its inputs and reruns `@G_body_fwd` in backward.

    Only values on a path from a parameter (activity analysis through loop
    state to a fixed point) carry cotangents. The reverse sweep accumulates
    cotangents of values used more than once with `elementwise <add>`, and
    writes the derivatives of `elementwise` `add`/`sub`/`mul`/`div`/`neg`/
    `exp`/`log`, `reshape`, `cast`, `transpose`, `broadcast_like` (as
    `sum_to_like`) and `concat` (as slices) as contract ops; every other op
    gets an `rvnn_exec.vjp` holding the primal op (for a dispatch, the
    runtime calls the generated backward kernel). Shape queries the
    backward needs are emitted on the forward side so that only sizes, not
    tensors, become residuals.

    A body that holds loops (Recursion in Recursion's outer loop, Ordered
    Memory's token loop) is differentiated like a function's body: its inner
    loops' bodies become calls, and so does each straight-line run between
    them. A run with an op that draws random numbers (`topk` with Gumbel
    noise, `beam_align`) on a differentiable path is left unchanged with a
    remark naming the op; it then runs with ATen's autograd as before.
    `-mlir-pass-statistics` counts both outcomes.
  }];
  let statistics = [
    Statistic<"numDifferentiated", "differentiated-runs",
              "loop bodies and straight-line runs differentiated">,
    Statistic<"numKept", "kept-runs",
              "loop bodies and straight-line runs left to autograd">,
  ];
}

#endif // RVNN_EXEC_TRANSFORMS_PASSES_TD
