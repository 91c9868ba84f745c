#ifndef RVNN_EXEC_OPS_TD
#define RVNN_EXEC_OPS_TD

include "rvnn/Dialect/Exec/IR/ExecDialect.td"
include "rvnn/Dialect/Exec/IR/ExecAttrs.td"
// The rvnn ops whose ODS records the mirrored ops below take their operands,
// attributes and results from.
include "rvnn/Dialect/Rvnn/IR/RvnnOps.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// An rvnn op carried into the contract unchanged: operands, attributes,
// results and assembly come from `source`'s ODS record, so they are written
// once. The rvnn verifier ran before lowering; this op keeps the ODS
// constraints.
class Exec_MirrorOp<Op source, string kind, list<Trait> traits = []>
    : Exec_Op<source.opName, kind, traits> {
  let summary = source.summary;
  let description = "Executes `rvnn." # source.opName # "` (same operands, "
                    # "attributes and results); see that op for semantics.";
  let arguments = source.arguments;
  let results = source.results;
  let assemblyFormat = source.assemblyFormat;
}

// Mirrored ops whose assembly omits the operand type (it is the result's).
defvar Exec_SameTypePure = [Pure, SameOperandsAndResultType];

class Exec_Kernel<Op source, list<Trait> traits = [Pure]>
    : Exec_MirrorOp<source, "kernel", traits>;
class Exec_Library<Op source, list<Trait> traits = [Pure]>
    : Exec_MirrorOp<source, "library", traits>;

// Per-row column ranges [lo, hi) of a batched matrix, [B, M, 2].
def Exec_BandTensor : TensorRankOf<[I64], [3]>;

// Ops that draw from the runtime's seeded generator (see rvnn's dialect).
defvar Exec_Draws = [MemoryEffects<[MemRead<Rvnn_RandomGenerator>,
                                    MemWrite<Rvnn_RandomGenerator>]>];

//===----------------------------------------------------------------------===//
// Control: functions, parameters, loops
//===----------------------------------------------------------------------===//

def Exec_FuncOp : Exec_Op<"func", "control", [
    AutomaticAllocationScope, FunctionOpInterface, IsolatedFromAbove]> {
  let summary = "an entry point of the compiled program";
  let description = [{
    A function the runtime calls by name (`@forward`). Its body is one block
    of contract ops ending in `rvnn_exec.return`.

    Example:
    ```mlir
    rvnn_exec.func @forward(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
      rvnn_exec.return %x : tensor<?x4xf32>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
  }];
}

def Exec_ReturnOp : Exec_Op<"return", "control", [
    Pure, HasParent<"FuncOp">, ReturnLike, Terminator]> {
  let summary = "returns from an rvnn_exec.func";
  let description = [{
    Example:
    ```mlir
    rvnn_exec.return %logits : tensor<?x10xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
}

def Exec_ParamOp : Exec_Op<"param", "control", [Symbol]> {
  let summary = "declares a trainable parameter the runtime owns";
  let description = [{
    Executes `rvnn.param`: the runtime allocates the parameter, initialises
    it once with `init` (and `scale`) and updates it in the optimiser step.

    Example:
    ```mlir
    rvnn_exec.param @w : tensor<4x4xf32> init <xavier_uniform>
    ```
  }];
  let arguments = Rvnn_ParamOp.arguments;
  let assemblyFormat = [{
    $sym_name `:` $type `init` $init (`scale` $scale^)? attr-dict
  }];
}

def Exec_ParamGetOp : Exec_MirrorOp<Rvnn_ParamGetOp, "control", [Pure]>;

def Exec_RecurseOp : Exec_Op<"recurse", "control", [
    AttrSizedOperandSegments, RecursiveMemoryEffects, SingleBlock]> {
  let summary = "the recursion loop with its halting policy";
  let description = [{
    Executes `rvnn.recurse`: the body runs on the state tuple (block
    arguments: the step counter, then one per state); `per_sample` halting
    freezes halted samples, whose body yields `halt` last.

    Example:
    ```mlir
    %h = rvnn_exec.recurse <fixed> (%h0) {steps = 3 : i64}
        : (tensor<?x4xf32>) -> tensor<?x4xf32> {
    ^bb0(%t: index, %s: tensor<?x4xf32>):
      rvnn_exec.yield %s : tensor<?x4xf32>
    }
    ```
  }];
  let arguments = Rvnn_RecurseOp.arguments;
  let results = Rvnn_RecurseOp.results;
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $halting `(` $inits `)` (`max_steps` $max_steps^)? attr-dict `:`
    functional-type($inits, $results) $body
  }];
}

def Exec_CallOp : Exec_Op<"call", "control", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a call of a function the compiler differentiated";
  let description = [{
    Runs `callee` on `operands`. When gradients are recorded, runs `forward`
    instead (the callee's results, then its residuals: the values its
    backward needs) and records one backward step: `backward` takes the
    residuals, then one cotangent per result, and returns the cotangents of
    the operands listed in `grad_inputs`, in that order. All three functions
    are compiler-derived (`rvnn-exec-differentiate`). Under the runtime's
    `recompute` policy the step keeps only its operands and reruns `forward`
    in backward, drawing the same random numbers (counter-based draws).

    Example:
    ```mlir
    %h = rvnn_exec.call @step(%x, %w) forward @step_fwd backward @step_bwd
        grad_inputs [0, 1] : (tensor<?x4xf32>, tensor<4x4xf32>)
        -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, FlatSymbolRefAttr:$forward,
                       FlatSymbolRefAttr:$backward,
                       DenseI64ArrayAttr:$grad_inputs,
                       Variadic<AnyType>:$operands);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` `forward` $forward `backward` $backward
    `grad_inputs` $grad_inputs attr-dict `:`
    functional-type($operands, $results)
  }];
}

def Exec_YieldOp : Exec_Op<"yield", "control", [
    Pure, Terminator,
    ParentOneOf<["RecurseOp", "BalancedReduceOp", "DispatchOp", "VjpOp"]>]> {
  let summary = "terminator of recurse, balanced_reduce, dispatch and vjp bodies";
  let description = [{
    Executes `rvnn.yield`: the next state (or the parents, or a dispatch's
    results); with `has_halt` the last operand is the per-sample halt flag.

    Example:
    ```mlir
    rvnn_exec.yield %s : tensor<?x4xf32>
    ```
  }];
  let arguments = Rvnn_YieldOp.arguments;
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
}

def Exec_BalancedReduceOp
    : Exec_MirrorOp<Rvnn_BalancedReduceOp, "control",
                    [RecursiveMemoryEffects, SingleBlock]> {
  let regions = (region SizedRegion<1>:$body);
}

// Records `value` for a runtime that collects the model's structure (the
// rvnn op's only effect, kept so that nothing removes or merges it).
def Exec_ExposeStructureOp
    : Exec_MirrorOp<Rvnn_ExposeStructureOp, "control",
                    [MemoryEffects<[MemWrite<Rvnn_StructureTrace>]>]>;

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

def Exec_ConstantOp : Exec_Op<"constant", "scalar", [
    ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "an index scalar or a dense tensor constant";
  let description = [{
    Example:
    ```mlir
    %c1 = rvnn_exec.constant 1 : index
    %t = rvnn_exec.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs AnyType:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Exec_IndexArithOp : Exec_Op<"index_arith", "scalar", [
    Pure, SameOperandsAndResultType]> {
  let summary = "integer arithmetic on scalars";
  let description = [{
    `floordiv` and `ceildiv` round towards -inf and +inf, `div` and `rem`
    towards zero; `or` is bitwise.

    Example:
    ```mlir
    %n = rvnn_exec.index_arith <mul> %a, %b : index
    ```
  }];
  let arguments = (ins Exec_IndexArithKindAttr:$kind,
                       AnySignlessIntegerOrIndex:$lhs,
                       AnySignlessIntegerOrIndex:$rhs);
  let results = (outs AnySignlessIntegerOrIndex:$result);
  let assemblyFormat = "$kind $lhs `,` $rhs attr-dict `:` type($result)";
}

def Exec_DimOp : Exec_Op<"dim", "scalar", [Pure]> {
  let summary = "the size of one dimension of a tensor";
  let description = [{
    Example:
    ```mlir
    %n = rvnn_exec.dim %x, %c0 : tensor<?x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, Index:$index);
  let results = (outs Index:$result);
  let assemblyFormat = "$source `,` $index attr-dict `:` type($source)";
}

def Exec_DrawPositionOp : Exec_Op<"draw_position", "scalar", [
    MemoryEffects<[MemRead<Rvnn_RandomGenerator>]>]> {
  let summary = "where the stream of random draws stands";
  let description = [{
    The offset of the counter-based draw stream (Philox, keyed by the
    forward pass's seed) at this point: a draw made next starts there.
    `rvnn-exec-differentiate` keeps it, an integer, as the residual of a
    dropout mask the backward reads, which `redraw_dropout_mask` then draws
    again from this position.

    Example:
    ```mlir
    %p = rvnn_exec.draw_position
    ```
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
}

// The outer chunked recursion's level count (a step bound).
def Exec_ChunkDepthOp : Exec_MirrorOp<Rvnn_ChunkDepthOp, "scalar", [Pure]>;

// A run option read at evaluation (the runtime's ExecutionContext::options).
def Exec_EvalOptionOp : Exec_MirrorOp<Rvnn_EvalOptionOp, "scalar", [Pure]>;

//===----------------------------------------------------------------------===//
// Buffers and views
//===----------------------------------------------------------------------===//

def Exec_AllocOp : Exec_Op<"alloc", "view", [Pure]> {
  let summary = "a zero-filled tensor";
  let description = [{
    One size operand per dynamic dim of the result, in order. Zero-filled so
    that accumulating GEMMs (`accumulate`) into it are exact.

    Example:
    ```mlir
    %z = rvnn_exec.alloc (%n) : tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Variadic<Index>:$sizes);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "`(` $sizes `)` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Exec_ShapeWitnessOp
    : Exec_Op<"shape_witness", "view", [Pure, SameOperandsAndResultType]> {
  let summary = "zeros in the shape of a tensor, holding no elements";
  let description = [{
    Stands for `like` where a backward reads it only for its shape
    (rvnn-exec-differentiate keeps the witness as the residual, not `like`):
    one zero element broadcast to `like`'s shape. Where `like` collects its
    gradient (a parameter, or a tensor a loop reads from outside), the
    runtime ties the witness to that collector, so that a slice's vjp adds
    its window cotangent there instead of returning a source-sized one.

    Example:
    ```mlir
    %w = rvnn_exec.shape_witness %x : tensor<?x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$like);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$like attr-dict `:` type($result)";
}

def Exec_CastOp : Exec_Op<"cast", "view", [Pure]> {
  let summary = "the same tensor with a more or less static type";
  let description = [{
    Example:
    ```mlir
    %d = rvnn_exec.cast %x : tensor<?x4xf32> to tensor<?x?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `to` type($result)";
  let hasVerifier = 1;
}

def Exec_ReshapeOp : Exec_Op<"reshape", "view", [Pure]> {
  let summary = "a view with another shape and the same elements";
  let description = [{
    One size operand per dynamic dim of the result, in order.

    Example:
    ```mlir
    %f = rvnn_exec.reshape %x (%ns) : tensor<?x?x4xf32> to tensor<?x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, Variadic<Index>:$sizes);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source `(` $sizes `)` attr-dict `:` type($source) `to` type($result)
  }];
  let hasVerifier = 1;
}

// The window of a tensor that a slice reads (and add_into_window writes):
// static_* hold one entry per dim of the tensor, ShapedType::kDynamic where
// the value is the next operand of the matching group.
defvar Exec_WindowArgs = (ins Variadic<Index>:$offsets,
                              Variadic<Index>:$sizes, Variadic<Index>:$strides,
                              DenseI64ArrayAttr:$static_offsets,
                              DenseI64ArrayAttr:$static_sizes,
                              DenseI64ArrayAttr:$static_strides,
                              DenseI64ArrayAttr:$dropped_dims);

def Exec_SliceOp : Exec_Op<"slice", "view", [
    Pure, AttrSizedOperandSegments]> {
  let summary = "a strided slice, optionally dropping unit dims";
  let description = [{
    `static_offsets`, `static_sizes` and `static_strides` hold one entry per
    source dim, `ShapedType::kDynamic` where the value is the next operand
    of the matching group. `dropped_dims` lists the unit dims of the slice
    that the result drops (rank reduction), decided at compile time.

    Example:
    ```mlir
    %l = rvnn_exec.slice %c [] [%m] [] {static_offsets = array<i64: 0, 0, 0>,
        static_sizes = array<i64: -9223372036854775808, 1, 4>,
        static_strides = array<i64: 1, 1, 1>, dropped_dims = array<i64: 1>}
        : tensor<?x2x4xf32> to tensor<?x4xf32>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$source), Exec_WindowArgs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source `[` $offsets `]` `[` $sizes `]` `[` $strides `]` attr-dict `:`
    type($source) `to` type($result)
  }];
  let hasVerifier = 1;
}

def Exec_AddIntoWindowOp : Exec_Op<"add_into_window", "kernel", [
    Pure, AttrSizedOperandSegments, AllTypesMatch<["into", "result"]>]> {
  let summary = "a tensor with another added into one window of it";
  let description = [{
    `into` with `update` added into the window of it that `rvnn_exec.slice`
    with the same offsets, sizes, strides and dropped dims reads; `update`
    has that slice's type. `rvnn-exec-differentiate` emits it for a slice
    whose source has a cotangent already: the slice's cotangent is added
    into its window of that one, where a vjp would build a zero tensor of the
    source's shape around it and an `elementwise <add>` would follow. The
    runtime adds into `into`'s buffer when this op is the last to read it
    and nothing else holds it, and into a copy otherwise.

    Example:
    ```mlir
    %da = rvnn_exec.add_into_window %dl into %dx [] [%m] []
        {static_offsets = array<i64: 0, 1>,
         static_sizes = array<i64: -9223372036854775808, 4>,
         static_strides = array<i64: 1, 1>, dropped_dims = array<i64>}
        : tensor<?x4xf32> into tensor<?x5xf32>
    ```
  }];
  let arguments = !con((ins Rvnn_FloatTensor:$into, Rvnn_FloatTensor:$update),
                       Exec_WindowArgs);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $update `into` $into `[` $offsets `]` `[` $sizes `]` `[` $strides `]`
    attr-dict `:` type($update) `into` type($into)
  }];
  let hasVerifier = 1;
}

def Exec_ConcatOp : Exec_Op<"concat", "view", [Pure]> {
  let summary = "concatenation along one dimension";
  let description = [{
    Example:
    ```mlir
    %lr = rvnn_exec.concat %l, %r {dim = 1 : i64}
        : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, I64Attr:$dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, $result)";
}

def Exec_TransposeOp : Exec_Op<"transpose", "view", [Pure]> {
  let summary = "a permutation of the dimensions";
  let description = [{
    Result dim `i` is source dim `permutation[i]`.

    Example:
    ```mlir
    %t = rvnn_exec.transpose %x {permutation = array<i64: 1, 0>}
        : tensor<?x4xf32> to tensor<4x?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
}

//===----------------------------------------------------------------------===//
// Library calls
//===----------------------------------------------------------------------===//

def Exec_GemmOp : Exec_Op<"gemm", "library", [
    Pure, AttrSizedOperandSegments]> {
  let summary = "(batched) matrix product with optional bias and accumulator";
  let description = [{
    `lhs · rhs` (or `lhs · rhsᵀ` with `transpose_rhs`) `+ bias + accumulator`,
    with matmul broadcasting: `lhs` `[..., M, K]` (or `[K]`-vector products
    as `[M, K]·[K]`), `rhs` `[K, N]` or batched `[B, K, N]`. `bias` is `[N]`.
    Runs in the BLAS (cuBLAS on the GPU) that LibTorch uses. `rvnn.linear`
    is `transpose_rhs` with the weight `[N, K]`; `linalg.matmul`,
    `batch_matmul` and `matvec` accumulate into their init.

    With `band` (batched products only: `lhs` `[B, M, K]`, `rhs`
    `[B, K, N]`, no `transpose_rhs`), `lhs_band` `[B, M, 2]` holds for row
    `m` of batch entry `b` the columns `[lo, hi)` of `lhs` that the product
    reads: the result is `(lhs ⊙ band) · rhs`, so entries outside the band
    count as zero and get a zero cotangent. The runtime then multiplies on
    the band alone (`rvnn-exec-band-neighbour-products` sets it where `lhs`
    is a neighbour matrix and the band that of `rvnn_exec.neighbour_band`).

    Example:
    ```mlir
    %y = rvnn_exec.gemm %x, %w bias %b {transpose_rhs}
        : (tensor<?x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$lhs, Rvnn_FloatTensor:$rhs,
                       Optional<Rvnn_FloatTensor>:$bias,
                       Optional<Rvnn_FloatTensor>:$accumulator,
                       Optional<Exec_BandTensor>:$lhs_band,
                       UnitAttr:$transpose_rhs);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`bias` $bias^)? (`accumulate` $accumulator^)?
    (`band` $lhs_band^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Exec_EmbeddingOp : Exec_Library<Rvnn_EmbeddingOp>;
def Exec_TopKOp : Exec_Library<Rvnn_TopKOp, Exec_Draws>;
def Exec_ArgMaxOp : Exec_Library<Rvnn_ArgMaxOp>;
def Exec_BeamGatherOp : Exec_Library<Rvnn_BeamGatherOp>;
def Exec_BeamAlignOp : Exec_Library<Rvnn_BeamAlignOp, Exec_Draws>;

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def Exec_DispatchOp : Exec_Op<"dispatch", "kernel", [
    Pure, IsolatedFromAbove, SingleBlock]> {
  let summary = "a call of a generated kernel, with its reference body";
  let description = [{
    Calls the generated kernel `kernel` (and, in training, its
    compiler-derived backward `kernel`_grad) on `inputs`. The body holds the
    contract ops the kernel fuses, over block arguments standing for
    `inputs`, ending in `rvnn_exec.yield` of the results: the runtime runs it
    with the reference implementations under `--kernels reference`, and the
    compiler generates the kernel and its backward from it.

    Example:
    ```mlir
    %r = rvnn_exec.dispatch "forward_k0" (%a, %b)
        : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32> {
    ^bb0(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>):
      %s = rvnn_exec.sigmoid %x : tensor<?x4xf32>
      %p = rvnn_exec.elementwise <mul> %s, %y : tensor<?x4xf32>
      rvnn_exec.yield %p : tensor<?x4xf32>
    }
    ```
  }];
  let arguments = (ins StrAttr:$kernel, Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kernel `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
    $body
  }];
  let hasVerifier = 1;
}

def Exec_VjpOp : Exec_Op<"vjp", "kernel", [
    AttrSizedOperandSegments, IsolatedFromAbove, SingleBlock]> {
  let summary = "the vector-Jacobian product of a primal op";
  let description = [{
    The cotangents of `primals` (those listed in `grad_inputs`, in order)
    given `cotangents` of the results of the body: the body applies one
    primal op to block arguments standing for `primals` and yields its
    results (or several slices of one value, yielding them all: their
    cotangents summed into that value's). The runtime applies the op's derivative: a generated backward
    kernel for a dispatch under `--kernels generated`, ATen's backward
    function for the ops it has one for, and otherwise ATen autograd through
    the op's reference implementation. `rvnn-exec-differentiate` emits it
    for ops whose derivative it does not write as contract ops itself; it
    never emits it for an op that draws random numbers.

    Example:
    ```mlir
    %dx = rvnn_exec.vjp (%x) cotangents (%dy) grad_inputs [0]
        : (tensor<?x4xf32>), (tensor<?x4xf32>) -> tensor<?x4xf32> {
    ^bb0(%a: tensor<?x4xf32>):
      %y = rvnn_exec.gelu %a : tensor<?x4xf32>
      rvnn_exec.yield %y : tensor<?x4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$primals,
                       Variadic<AnyRankedTensor>:$cotangents,
                       DenseI64ArrayAttr:$grad_inputs);
  let results = (outs Variadic<AnyRankedTensor>:$grads);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $primals `)` `cotangents` `(` $cotangents `)` `grad_inputs`
    $grad_inputs attr-dict `:` `(` type($primals) `)` `,`
    `(` type($cotangents) `)` `->` type($grads) $body
  }];
  let hasVerifier = 1;
}

def Exec_SumToLikeOp : Exec_Op<"sum_to_like", "kernel", [
    Pure, AllTypesMatch<["like", "result"]>]> {
  let summary = "sums a broadcast tensor back to the shape it came from";
  let description = [{
    The adjoint of broadcasting: sums `input` over the leading dims it has
    beyond `like` and over the dims where `like` has size 1 (ATen's
    `sum_to_size`). Only `like`'s shape is read.

    Example:
    ```mlir
    %db = rvnn_exec.sum_to_like %dy, %b : tensor<?x4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$input, Rvnn_FloatTensor:$like);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $like attr-dict `:` type($input) `,` type($like)
  }];
}

def Exec_DropoutMaskOp
    : Exec_Op<"dropout_mask", "kernel",
              !listconcat(Exec_Draws, [AllTypesMatch<["input", "result"]>])> {
  let summary = "the multiplier dropout applies";
  let description = [{
    The tensor `m` with `input * m == rvnn_exec.dropout(input)` for the same
    draws: in training 0 where an element is dropped and `1/(1-rate)` (or 1
    without `rescale`) where kept, shared along `shared_dims`; ones at
    evaluation. `rvnn-exec-differentiate` splits dropout into this and a
    product so that backward multiplies by the same mask. Only `input`'s
    shape is read.

    Example:
    ```mlir
    %m = rvnn_exec.dropout_mask %x {rate = 1.000000e-01 : f64}
        : tensor<?x4xf32>
    ```
  }];
  let arguments = Rvnn_DropoutOp.arguments;
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Exec_RedrawDropoutMaskOp
    : Exec_Op<"redraw_dropout_mask", "kernel", [
          MemoryEffects<[MemRead<Rvnn_RandomGenerator>]>,
          AllTypesMatch<["input", "result"]>]> {
  let summary = "a dropout mask drawn again from its stream position";
  let description = [{
    The mask that `rvnn_exec.dropout_mask` with the same `input` shape and
    attributes drew at draw-stream position `position`
    (`rvnn_exec.draw_position` just before it): the same values, element for
    element, from the same seed; the stream does not move. Ones at
    evaluation. The backward reads a mask this way instead of keeping it
    from the forward: the mask costs an integer between the two passes, and
    a second draw. Only `input`'s shape is read.

    Example:
    ```mlir
    %m = rvnn_exec.redraw_dropout_mask %x at %p {rate = 1.000000e-01 : f64}
        : tensor<?x4xf32>
    ```
  }];
  let arguments = !con(Rvnn_DropoutOp.arguments, (ins Index:$position));
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = "$input `at` $position attr-dict `:` type($result)";
}

def Exec_ElementwiseOp : Exec_Op<"elementwise", "kernel", [
    Pure, SameOperandsAndResultType]> {
  let summary = "an elementwise function of same-shaped tensors";
  let description = [{
    `neg`, `exp`, `log`, `tanh`, `sqrt`, `abs`, `erf` take one operand;
    `add`, `sub`, `mul`, `div`, `max`, `min`, `or` (i1 only) take two.

    Example:
    ```mlir
    %s = rvnn_exec.elementwise <add> %a, %b : tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Exec_ElementwiseFnAttr:$fn,
                       Variadic<AnyRankedTensor>:$inputs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$fn $inputs attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Exec_CompareOp : Exec_Op<"compare", "kernel", [
    Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "elementwise floating-point comparison";
  let description = [{
    Example:
    ```mlir
    %gt = rvnn_exec.compare <ogt> %a, %b : tensor<?xf32> -> tensor<?xi1>
    ```
  }];
  let arguments = (ins Exec_ComparePredicateAttr:$predicate,
                       Rvnn_FloatTensor:$lhs, Rvnn_FloatTensor:$rhs);
  let results = (outs RankedTensorOf<[I1]>:$result);
  let assemblyFormat = [{
    $predicate $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)
  }];
}

def Exec_ConvertOp : Exec_Op<"convert", "kernel", [
    Pure, AllShapesMatch<["input", "result"]>]> {
  let summary = "elementwise conversion of i1 to a float type (true is 1)";
  let description = [{
    Example:
    ```mlir
    %f = rvnn_exec.convert %b : tensor<?xi1> -> tensor<?xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I1]>:$input);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Exec_LayerNormOp : Exec_Kernel<Rvnn_LayerNormOp>;
def Exec_DropoutOp
    : Exec_Kernel<Rvnn_DropoutOp,
                  !listconcat(Exec_Draws, [SameOperandsAndResultType])>;
def Exec_GeluOp : Exec_Kernel<Rvnn_GeluOp, Exec_SameTypePure>;
def Exec_SigmoidOp : Exec_Kernel<Rvnn_SigmoidOp, Exec_SameTypePure>;
def Exec_ReluOp : Exec_Kernel<Rvnn_ReluOp, Exec_SameTypePure>;
def Exec_ModeSelectOp : Exec_Kernel<Rvnn_ModeSelectOp, [
    Pure, SameOperandsAndResultElementType, SameOperandsAndResultRank]>;
def Exec_SoftmaxOp : Exec_Kernel<Rvnn_SoftmaxOp, Exec_SameTypePure>;
def Exec_MaskedSoftmaxOp
    : Exec_Kernel<Rvnn_MaskedSoftmaxOp, [Pure, AllTypesMatch<["input", "result"]>]>;
def Exec_CrossEntropyOp : Exec_Kernel<Rvnn_CrossEntropyOp>;
def Exec_BroadcastLikeOp : Exec_Kernel<Rvnn_BroadcastLikeOp>;
def Exec_PoolOp : Exec_Kernel<Rvnn_PoolOp> {
  // rvnn.pool prints its kind with a custom directive of the rvnn dialect.
  let assemblyFormat = [{
    $kind $h `,` $mask attr-dict `:` functional-type(operands, results)
  }];
}
def Exec_ChunkOp : Exec_Kernel<Rvnn_ChunkOp>;
def Exec_UnchunkOp : Exec_Kernel<Rvnn_UnchunkOp>;
def Exec_PairMergeOp : Exec_Kernel<Rvnn_PairMergeOp>;
def Exec_GeometricAttentionOp : Exec_Kernel<Rvnn_GeometricAttentionOp>;
def Exec_MaskedAttentionOp : Exec_Kernel<Rvnn_MaskedAttentionOp>;
def Exec_NeighbourRetrieveOp : Exec_Kernel<Rvnn_NeighbourRetrieveOp>;

def Exec_NeighbourBandOp : Exec_Op<"neighbour_band", "kernel", [
    Pure, AllTypesMatch<["exist", "mask"]>]> {
  let summary = "the columns of each neighbour_retrieve row that can matter";
  let description = [{
    For the neighbour matrix `R` that `rvnn_exec.neighbour_retrieve` builds
    from the same `exist`, `mask` `[N, S]` and `direction`, the band
    `[N, S, 2]`: for row `i` the columns `[lo, hi)` outside which `R_ij` is
    zero and stays zero under small changes of `exist` and `mask` (so its
    cotangent there reaches neither). Towards the right, `lo = i + 1` and
    `hi` is one past the first `j` where the accumulated weight `C_ij`
    exceeds 1 (every later entry is the clamp at a negative remainder), or
    `S` if none does; towards the left, mirrored. A row with `mask_i = 0`
    (zero, but its derivative by `mask_i` is the unmasked row) keeps its
    band. The neighbour matrix is mostly zeros (a row's weight
    spreads over the nearest existing positions), so a product on the band
    does a small part of the dense product's work.

    Example:
    ```mlir
    %band = rvnn_exec.neighbour_band %exist, %mask
        {direction = #rvnn.direction<right>}
        : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x2xi64>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$exist, Rvnn_FloatTensor:$mask,
                       Rvnn_DirectionAttr:$direction);
  let results = (outs Exec_BandTensor:$result);
  let assemblyFormat = "$exist `,` $mask attr-dict `:` functional-type(operands, results)";
}
def Exec_DiagonalScanOp : Exec_Kernel<Rvnn_DiagonalScanOp>;
def Exec_GateOp : Exec_Kernel<Rvnn_GateOp>;
def Exec_CumaxOp : Exec_Kernel<Rvnn_CumaxOp>;
def Exec_SoftDepthMixOp : Exec_Kernel<Rvnn_SoftDepthMixOp>;
def Exec_OneHotOp : Exec_Kernel<Rvnn_OneHotOp>;
def Exec_BeamExpandOp : Exec_Kernel<Rvnn_BeamExpandOp>;
def Exec_BeamAccumulateOp : Exec_Kernel<Rvnn_BeamAccumulateOp>;
def Exec_BeamMarginalizeOp : Exec_Kernel<Rvnn_BeamMarginalizeOp>;

#endif // RVNN_EXEC_OPS_TD
