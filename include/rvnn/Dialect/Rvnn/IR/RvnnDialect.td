#ifndef RVNN_DIALECT_TD
#define RVNN_DIALECT_TD

include "mlir/IR/OpBase.td"

def Rvnn_Dialect : Dialect {
  let name = "rvnn";
  let cppNamespace = "::mlir::rvnn";
  let summary = "Primitives of recursive neural models: recursion, soft-mask "
                "attention, gating and beams.";
  let description = [{
    The `rvnn` dialect adds what upstream MLIR lacks to express latent-tree and
    recursive neural models (CRvNN, NDR, beam-tree RvNNs, RIR, FastTrees,
    Self-IRU) as compositions of primitives. Values are builtin ranked tensors
    of `f32` (masks are `f32` with 1 for a real token, indices are `i64`).
    Dimension names used below: `N` batch, `B` beams, `S` sequence length,
    `D` hidden size. Batch and length are usually dynamic (`?`).

    No op is a whole model or a whole cell: cells such as GRC are functions
    written from these ops and upstream `func`, `arith`, `math` and `tensor`
    ops, so fusion passes can see inside them.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
  let useDefaultAttributePrinterParser = 1;
  // Index results that fold (rvnn.chunk_depth) become arith.constant.
  let hasConstantMaterializer = 1;
}

class Rvnn_Op<string mnemonic, list<Trait> traits = []>
    : Op<Rvnn_Dialect, mnemonic, traits>;

#endif // RVNN_DIALECT_TD
