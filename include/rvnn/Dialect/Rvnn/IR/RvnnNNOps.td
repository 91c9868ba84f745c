#ifndef RVNN_NN_OPS_TD
#define RVNN_NN_OPS_TD

include "rvnn/Dialect/Rvnn/IR/RvnnBase.td"
include "mlir/IR/SymbolInterfaces.td"

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

def Rvnn_ParamOp : Rvnn_Op<"param", [Symbol]> {
  let summary = "declares a trainable parameter";
  let description = [{
    Declares a trainable parameter named `sym_name` with the static tensor type
    `type`, directly in a symbol table (normally the module). Functions read it
    with `rvnn.param_get`; the runtime owns its storage, initialises it once
    with `init` and updates it in the optimiser step.

    Initialisers and the meaning of the optional `scale`:
    - `zeros`, `ones`: take no scale;
    - `constant(v)`: every element is `v` (scale required, any sign);
    - `normal(s)`: N(0, s²); `uniform(s)`: U(-s, s);
    - `xavier_uniform(s)`: Glorot uniform with gain `s`, PyTorch's fans:
      `fan_in = dim 1 · r`, `fan_out = dim 0 · r`, `r` the product of the
      dims after the first two (rank >= 2).
    For `normal`, `uniform` and `xavier_uniform` the scale defaults to 1 and
    must be > 0 (`getEffectiveScale()` applies the default).

    Example:
    ```mlir
    rvnn.param @w1 : tensor<512x256xf32> init xavier_uniform
    rvnn.param @emb : tensor<1000x128xf32> init normal(1.0)
    rvnn.param @gate_bias : tensor<512xf32> init constant(-3.0)
    rvnn.param @ln_beta : tensor<128xf32> init zeros
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<Rvnn_FloatTensor>:$type,
                       Rvnn_InitKindAttr:$init,
                       OptionalAttr<F64Attr>:$scale);
  let assemblyFormat = [{
    $sym_name `:` $type `init` custom<ParamInit>($init, $scale) attr-dict
  }];
  let extraClassDeclaration = [{
    /// The scale the initialiser uses: `scale`, or 1 when it is absent.
    double getEffectiveScale() {
      std::optional<::llvm::APFloat> scale = getScale();
      return scale ? scale->convertToDouble() : 1.0;
    }
  }];
  let hasVerifier = 1;
}

def Rvnn_ParamGetOp : Rvnn_Op<"param_get", [
    Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "reads a parameter";
  let description = [{
    Returns the current value of the parameter `@name`. The result type must
    equal the type in the `rvnn.param` declaration exactly. Within one step of
    the program a parameter is constant, so the op is pure (two reads of the
    same parameter may be merged).

    Example:
    ```mlir
    %w = rvnn.param_get @w1 : tensor<512x256xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$name);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

def Rvnn_LinearOp : Rvnn_ShapedOp<"linear", [Pure]> {
  let summary = "affine map over the last dimension: x·Wᵀ + b";
  let description = [{
    Applies `weight` (`[out, in]`, the PyTorch layout) to the last dimension of
    `input` (`[..., in]`) and adds the optional `bias` (`[out]`). Leading
    dimensions pass through unchanged.

    Example:
    ```mlir
    %y = rvnn.linear %x, %w, %b
        : (tensor<?x?x128xf32>, tensor<512x128xf32>, tensor<512xf32>)
        -> tensor<?x?x512xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$input, Rvnn_FloatTensor:$weight,
                       Optional<Rvnn_FloatTensor>:$bias);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Rvnn_EmbeddingOp : Rvnn_ShapedOp<"embedding", [Pure]> {
  let summary = "row lookup in an embedding table";
  let description = [{
    `result[i..., :] = table[ids[i...], :]` for a `table` `[V, D]` and `ids`
    of any shape `[...]` (`i64`, each in `[0, V)`): the result is
    `[..., D]` with the table's element type.

    Example:
    ```mlir
    %e = rvnn.embedding %table, %ids
        : (tensor<1000x128xf32>, tensor<?x?xi64>) -> tensor<?x?x128xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$table, Rvnn_IndexTensor:$ids);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $table `,` $ids attr-dict `:` functional-type(operands, results)
  }];
}

def Rvnn_LayerNormOp : Rvnn_ShapedOp<"layer_norm", [Pure]> {
  let summary = "layer normalisation over the last dimension";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * gamma + beta`, with the mean and the
    biased variance taken over the last dimension `D` of `input` (`[..., D]`);
    `gamma` and `beta` are `[D]` with the input's element type. `epsilon`
    defaults to 1e-5 and must be > 0.

    Example:
    ```mlir
    %y = rvnn.layer_norm %x, %gamma, %beta
        : (tensor<?x?x128xf32>, tensor<128xf32>, tensor<128xf32>)
        -> tensor<?x?x128xf32>
    %z = rvnn.layer_norm %x, %gamma, %beta {epsilon = 1.0e-06 : f64}
        : (tensor<?x?x128xf32>, tensor<128xf32>, tensor<128xf32>)
        -> tensor<?x?x128xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$input, Rvnn_FloatTensor:$gamma,
                       Rvnn_FloatTensor:$beta,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $gamma `,` $beta attr-dict `:` functional-type(operands, results)
  }];
}

def Rvnn_DropoutOp : Rvnn_ShapedOp<"dropout", [
    SameOperandsAndResultType,
    MemoryEffects<[MemRead<Rvnn_RandomGenerator>,
                   MemWrite<Rvnn_RandomGenerator>]>]> {
  let summary = "dropout (training only)";
  let description = [{
    In training, zeroes each element with probability `rate` and, when
    `rescale` (default true), multiplies the kept elements by `1/(1-rate)`; at
    evaluation it is the identity. `shared_dims` (default none) lists
    dimensions along which one mask value is shared (the mask has size 1 there
    and is broadcast), e.g. NDR's per-position gate drop is
    `shared_dims = array<i64: 2>` with `rescale = false` on `[N, S, D]`.
    `0 <= rate < 1`; `shared_dims` entries are unique and in `[0, rank)`.

    The op is not `Pure`: it draws from the runtime's seeded random generator
    and advances it, which is modelled as a read and a write of the
    `RandomGenerator` resource, so CSE never merges two dropouts of the same
    value (they draw different masks) and passes keep their order. With
    `rate = 0` no random numbers are drawn and the op folds to its input.

    Example:
    ```mlir
    %y = rvnn.dropout %x {rate = 1.000000e-01 : f64} : tensor<?x?x128xf32>
    %g = rvnn.dropout %gate {rate = 5.000000e-02 : f64, rescale = false,
                             shared_dims = array<i64: 2>} : tensor<?x?x512xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$input, F64Attr:$rate,
                       DefaultValuedAttr<BoolAttr, "true">:$rescale,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$shared_dims);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Rvnn_ModeSelectOp : Rvnn_ShapedOp<"mode_select", [
    Pure, SameOperandsAndResultElementType, SameOperandsAndResultRank]> {
  let summary = "a value in training, another at evaluation";
  let description = [{
    The result is `training` when the model runs in training mode and
    `evaluation` otherwise (the mode that switches dropout and Gumbel
    noise); the cotangent flows to the operand the mode selects (the other
    one's is zero).

    The operands have the result's element type and rank but may differ in
    size, so a computation that only training needs can be skipped at
    evaluation by selecting an empty tensor in its place: BT-GRC OneSoft
    composes the pairs of its soft beam in training only. The result's
    static sizes are those both operands have; a size they disagree on, or
    that either leaves dynamic, is dynamic.

    For training-only relaxations that keep the shapes of their evaluation
    form: BT-GRC OneSoft merges the beams beyond the top `beam - 1` into one
    soft beam in training and truncates them at evaluation (model-specs §3),
    by selecting the last row of its beam mixing weights.

    The mode is fixed for a whole forward pass and its backward, so the op
    is pure within one: CSE may merge two selections of the same values.

    Folds to its operand when both operands are the same value.

    Example:
    ```mlir
    %w = rvnn.mode_select %soft, %hard
        : tensor<?x1x?xf32>, tensor<?x1x?xf32> -> tensor<?x1x?xf32>
    %rows = rvnn.mode_select %pairs, %none
        : tensor<?x128xf32>, tensor<0x128xf32> -> tensor<?x128xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$training,
                       Rvnn_FloatTensor:$evaluation);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $training `,` $evaluation attr-dict `:` type($training) `,`
    type($evaluation) `->` type($result)
  }];
  let hasFolder = 1;
}

def Rvnn_EvalOptionOp : Rvnn_Op<"eval_option", [Pure]> {
  let summary = "an index fixed in training, chosen by the run at evaluation";
  let description = [{
    The result is `training` when the model runs in training mode. At
    evaluation it is the value the run gives the option `name` (`rvnn-run
    eval` and `dump-grads` take `--option NAME=VALUE`), or `evaluation` when
    the run gives none. So one compiled model evaluates in several ways
    without recompiling, while training always takes one. `name` is a
    lower-case identifier (`[a-z_][a-z0-9_]*`); the runtime rejects a run
    option that no `rvnn.eval_option` of the model reads.

    RIR-EBT-GRC multiplies its count of aligned outer levels by
    `rir_inference` (1 in training; at evaluation 0 by default, the
    authors' non-RIR inference over the whole sequence, or 1 for RIR
    inference).

    The option is fixed for a whole forward pass and its backward, so the op
    is pure within one. It never folds: its value is only known at run time.

    Example:
    ```mlir
    %rir = rvnn.eval_option "rir_inference" {training = 1 : i64,
                                             evaluation = 0 : i64}
    ```
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$training, I64Attr:$evaluation);
  let results = (outs Index:$value);
  let assemblyFormat = "$name attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

// Unary elementwise ops: T -> T, one class so each op is one line plus docs.
class Rvnn_UnaryElementwiseOp<string mnemonic, string formula>
    : Rvnn_ShapedOp<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "elementwise " # formula;
  let description = [{
    Applies `}] # formula # [{` to every element; the result has the
    input's type.

    Example:
    ```mlir
    %y = rvnn.}] # mnemonic # [{ %x : tensor<?x?x128xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$input);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypeComponents(
        ::mlir::MLIRContext *, ::std::optional<::mlir::Location> location,
        Adaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::ShapedTypeComponents> &inferred) {
      return inferSameAsInput(location, adaptor.getInput(), inferred);
    }
    ::mlir::LogicalResult $cppClass::verify() {
      return ::mlir::rvnn::verifyInferredShapes(getOperation());
    }
  }];
}

def Rvnn_GeluOp
    : Rvnn_UnaryElementwiseOp<"gelu", "GELU(x) = x·Φ(x) (exact, erf form)">;
def Rvnn_SigmoidOp
    : Rvnn_UnaryElementwiseOp<"sigmoid", "σ(x) = 1 / (1 + exp(-x))">;
def Rvnn_ReluOp : Rvnn_UnaryElementwiseOp<"relu", "ReLU(x) = max(x, 0)">;

// Ops that work along one dimension `dim` of their `input`. Negative dims
// count from the end, as in Python: -1 is the last dimension.
class Rvnn_AlongDimOp<string mnemonic, list<Trait> traits = []>
    : Rvnn_ShapedOp<mnemonic, traits> {
  let extraClassDeclaration = [{
    /// `dim` in [0, rank): a negative `dim` counts from the end.
    int64_t getNormalizedDim() {
      int64_t dim = getDim();
      return dim < 0 ? dim + getInput().getType().getRank() : dim;
    }
  }];
}

def Rvnn_SoftmaxOp
    : Rvnn_AlongDimOp<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "softmax along one dimension";
  let description = [{
    `exp(x) / Σ exp(x)` along `dim` (computed stably). `dim` is in
    `[-rank, rank)`; a negative `dim` counts from the end (-1 is the last).

    Example:
    ```mlir
    %p = rvnn.softmax %x {dim = -1 : i64} : tensor<?x?x10xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Rvnn_MaskedSoftmaxOp
    : Rvnn_AlongDimOp<"masked_softmax", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "BTC's masked softmax along one dimension";
  let description = [{
    `p = softmax(x, dim)·mask + 1e-20`, then `p / Σ p` along `dim`: masked
    entries (mask 0) get a near-zero probability and rows that are entirely
    masked stay finite. `mask` has the input's shape and element type.
    `dim` is in `[-rank, rank)`; a negative `dim` counts from the end.

    Example:
    ```mlir
    %p = rvnn.masked_softmax %x, %mask {dim = 1 : i64}
        : tensor<?x?xf32>, tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$input, Rvnn_FloatTensor:$mask,
                       I64Attr:$dim);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $mask attr-dict `:` type($input) `,` type($mask)
  }];
}

//===----------------------------------------------------------------------===//
// Loss, broadcasting, pooling
//===----------------------------------------------------------------------===//

def Rvnn_CrossEntropyOp : Rvnn_ShapedOp<"cross_entropy", [Pure]> {
  let summary = "mean cross-entropy of logits against class labels";
  let description = [{
    `mean_n(logsumexp(logits[n, :]) - logits[n, labels[n]])` for `logits`
    `[N, C]` and `labels` `[N]` (`i64`, each in `[0, C)`). The result is a
    rank-0 tensor with the logits' element type.

    Example:
    ```mlir
    %loss = rvnn.cross_entropy %logits, %labels
        : (tensor<?x10xf32>, tensor<?xi64>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Rvnn_FloatTensor:$logits, Rvnn_IndexTensor:$labels);
  let results = (outs Rvnn_Scalar:$result);
  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` functional-type(operands, results)
  }];
}

def Rvnn_BroadcastLikeOp : Rvnn_ShapedOp<"broadcast_like", [Pure]> {
  let summary = "NumPy broadcast of a tensor to the shape of another";
  let description = [{
    Broadcasts `input` to the shape of `ref` with NumPy's rule: shapes are
    aligned from the right, `input` may have fewer dims than `ref` (missing
    leading dims are added), and each `input` dim is 1 or equal to the `ref`
    dim it is aligned with. The result has `ref`'s shape and `input`'s
    element type; only `ref`'s shape is used, not its values.

    Folds to `input` when `input` is `ref`, or when the input type equals the
    result type and is fully static (nothing to broadcast).

    Example:
    ```mlir
    %g = rvnn.broadcast_like %gate, %h
        : (tensor<?x?x1xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$ref);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `,` $ref attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def Rvnn_PoolOp : Rvnn_ShapedOp<"pool", [Pure]> {
  let summary = "masked pooling over the sequence";
  let description = [{
    Reduces `h` `[N, S, D]` over `S` to `[N, D]`, using `mask` `[N, S]` (1 for
    a real token, right padding; the mask has `h`'s element type):
    - `first`: `h[:, 0]`;
    - `last`: the last real token, `h[n, Σ mask[n] - 1]`;
    - `mean`: `Σ_s mask·h / Σ_s mask` over real tokens;
    - `max`: the maximum over real tokens.

    Example:
    ```mlir
    %y = rvnn.pool mean %h, %mask
        : (tensor<?x?x128xf32>, tensor<?x?xf32>) -> tensor<?x128xf32>
    ```
  }];
  let arguments = (ins Rvnn_PoolKindAttr:$kind, Rvnn_FloatTensor:$h,
                       Rvnn_FloatTensor:$mask);
  let results = (outs Rvnn_FloatTensor:$result);
  let assemblyFormat = [{
    custom<PoolKind>($kind) $h `,` $mask attr-dict `:`
    functional-type(operands, results)
  }];
}

#endif // RVNN_NN_OPS_TD
