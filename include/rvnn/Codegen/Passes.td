#ifndef RVNN_CODEGEN_PASSES_TD
#define RVNN_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def RvnnApproximateMath : Pass<"rvnn-approximate-math"> {
  let summary = "Replace f32 transcendental math ops with polynomial "
                "approximations";
  let description = [{
    Rewrites `math.exp`, `math.expm1`, `math.log`, `math.log1p`, `math.log2`,
    `math.tanh`, `math.erf`, `math.sin`, `math.cos`, `math.asin`,
    `math.acos`, `math.atan`, `math.atan2` and `math.cbrt` on f32 (scalars
    and vectors) into arith and `math.fma`/`math.floor`/`math.absf`/
    `math.copysign`/`math.sqrt` sequences (MLIR's polynomial
    approximations; measured through generated kernels: exp 8e-8 relative
    on [-87, 88], tanh 2.6e-7 absolute on [-20, 20], erf 2.7e-7 absolute on
    [-6, 6], log 8e-8 relative), so generated kernels call no libm function
    for them and LLVM's loop vectoriser can vectorise loops that use them.
    Ops on other types are left alone (code generation lowers the f64 ones
    to libm, which the kernel library links). Runs on any op.

    Example: `rvnn-opt kernels.mlir --rvnn-approximate-math`
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def RvnnAddKernelEntryPoints
    : Pass<"rvnn-add-kernel-entry-points", "::mlir::ModuleOp"> {
  let summary = "Add the packed `rvnn_kernel_<name>(void **args)` entry "
                "points";
  let description = [{
    Runs on the LLVM-dialect module of a lowered kernels module. For every
    C-interface function `_mlir_ciface_<name>` it adds

    ```mlir
    llvm.func @rvnn_kernel_<name>(%args: !llvm.ptr)
    ```

    which loads `args[i]` (a pointer to the memref descriptor of argument
    `i`, in the kernel's argument order; for a scalar argument, a pointer to
    its value, which is loaded) and calls `_mlir_ciface_<name>`.
    This is the uniform ABI the runtime calls (`rvnn-memref-v1`):
    `void rvnn_kernel_<name>(void **args)`, with each descriptor MLIR's
    strided memref `{T *allocated; T *aligned; int64_t offset;
    int64_t sizes[R]; int64_t strides[R]}`.
    A kernel that still returns a value (a result that bufferization could
    not fold into one of its destination arguments) is an error: its C
    interface would take the result descriptor as an extra first argument.

    Example: `rvnn-opt kernels.llvm.mlir --rvnn-add-kernel-entry-points`
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // RVNN_CODEGEN_PASSES_TD
