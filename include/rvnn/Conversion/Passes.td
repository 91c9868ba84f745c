#ifndef RVNN_CONVERSION_PASSES_TD
#define RVNN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def RvnnLowerToExec : Pass<"rvnn-lower-to-exec", "::mlir::ModuleOp"> {
  let summary = "Lower a model to the execution dialect";
  let description = [{
    Rewrites the module (after the front end of `rvnn-compile`) into
    `rvnn_exec` ops only, the closed set the runtime executes:
    - `func.func` / `func.return` become `rvnn_exec.func` / `return`;
    - `rvnn.linear` and `linalg.matmul` / `batch_matmul` / `matvec` become
      `rvnn_exec.gemm` library calls (`transpose_rhs`, `bias`, `accumulate`);
    - `arith` and `math` on tensors become `rvnn_exec.elementwise`,
      `compare` and `convert`; `arith` on scalars becomes `index_arith`
      and `constant`;
    - `tensor.dim`, `cast`, `empty`, `extract_slice`, `concat`,
      `collapse_shape`, `expand_shape` and `linalg.transpose` become the
      view ops; a slice's rank reduction is decided here (`dropped_dims`),
      and a collapse's dynamic sizes are computed with `dim` and
      `index_arith`;
    - every other `rvnn` op becomes the `rvnn_exec` op of the same name with
      the same operands, attributes, results and regions.
    An op with no lowering fails the pass with an error at its location
    (`failed to legalize operation`).
  }];
  let dependentDialects = ["::mlir::rvnn::exec::ExecDialect"];
}

#endif // RVNN_CONVERSION_PASSES_TD
