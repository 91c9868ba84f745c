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
    This is the uniform ABI the runtime calls (`rvnn-memref-v4` on the CPU):
    `void rvnn_kernel_<name>(void **args)`, with each descriptor MLIR's
    strided memref `{T *allocated; T *aligned; int64_t offset;
    int64_t sizes[R]; int64_t strides[R]}` (on the CPU the innermost stride
    is 1 and the others and the offset are the caller's).
    A kernel that still returns a value (a result that bufferization could
    not fold into one of its destination arguments) is an error: its C
    interface would take the result descriptor as an extra first argument.

    The kernel's buffer pointers (each memref argument's aligned pointer,
    the one its loads and stores use) are marked `llvm.noalias`: the ABI has
    the caller pass every destination in memory that no other argument
    reaches (arguments only read may overlap each other), which lets LLVM
    vectorise without run-time overlap checks.

    Example: `rvnn-opt kernels.llvm.mlir --rvnn-add-kernel-entry-points`
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def RvnnCollapseElementwiseDims : Pass<"rvnn-collapse-elementwise-dims"> {
  let summary = "Collapse the iteration space of elementwise linalg.generic "
                "ops to one dimension";
  let description = [{
    Every `linalg.generic` on buffers whose iterators are all parallel and
    whose indexing maps are all the identity (an elementwise op over
    operands of one shape, as every generated kernel is) gets its dimensions
    collapsed into one (upstream `linalg::populateCollapseDimensions`): its
    operands become `memref.collapse_shape` views. Code generation for the
    GPU then has one flat loop to map to blocks and threads, whatever the
    rank. Other ops, generics that use `linalg.index`, and generics on
    tensors (MLIR 19 cannot collapse those with dynamic dimensions) are left
    alone.

    Example: `rvnn-opt buffers.mlir --rvnn-collapse-elementwise-dims`
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def RvnnFuseKernelRows : Pass<"rvnn-fuse-kernel-rows", "::mlir::func::FuncOp"> {
  let summary = "Run a kernel's stages over rows as one loop over its rows";
  let description = [{
    A kernel with a row reduction (a layer norm or a softmax among its
    elementwise ops) is generated as stages, each a `linalg.generic` over
    the whole tensor: per-row statistics, then the results, then (in a
    backward) the column sums of gamma's and beta's gradients. Run one after
    the other, every stage reads the inputs from memory again and writes its
    temporaries out whole. This pass makes the function one `scf.for` over
    the rows (dim 0, dynamic, of every tensor that has them) whose body runs
    every stage on one row (`tensor.extract_slice` of each row operand,
    the stages' tensors of one row, `tensor.insert_slice` into each
    destination), so a row's temporaries stay in the cache; a column
    reduction becomes a value the loop carries.

    The function is left as it is unless every op on rows is a
    `linalg.generic` or `linalg.fill` whose maps put the rows' loop dim
    first in every operand with rows and nowhere else (parallel where the
    results have rows, a reduction where none has: a column reduction read
    only by the return), a `tensor.empty`, `tensor.dim`, or a reshape that
    keeps dim 0 alone; every returned tensor with rows is written into a
    destination argument nothing else reads; and there are at least two such
    stages (one generic is one pass already). Generics that read
    `linalg.index` are left alone.

    Example: `rvnn-opt kernels.mlir --rvnn-fuse-kernel-rows`
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def RvnnVectorizeKernels
    : Pass<"rvnn-vectorize-kernels", "::mlir::func::FuncOp"> {
  let summary = "Vectorise a CPU kernel's linalg ops on f32 buffers in "
                "chunks of their innermost dimension";
  let description = [{
    Every `linalg` op on f32 buffers whose innermost loop has a static
    extent that is a multiple of 8 is tiled: 1 for every other loop, and
    chunks of 16 elements (8 where the extent is not a multiple of 16) of
    the innermost one. Each chunk's op is vectorised (upstream
    `linalg::vectorize`) and the resulting vector ops are lowered to 1-D
    vector loads, stores and arithmetic (leading unit dims dropped,
    broadcasts and permuted reads made explicit; a fold over the chunk adds
    its elements to the running value one after another). Ops with a
    dynamic or other innermost extent, and chunks the vectoriser does not
    take, are left as they are (`convert-linalg-to-loops` lowers them).

    The loops visit the elements in the order the scalar loops of
    `convert-linalg-to-loops` do, so the results are bit-identical; the difference is that the kernel's SIMD is decided
    here rather than by LLVM's loop vectoriser, which turned some row folds
    into gathers.

    Example: `rvnn-opt buffers.mlir --rvnn-vectorize-kernels`
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def RvnnGpuKernelEntryPoints
    : Pass<"rvnn-gpu-kernel-entry-points", "::mlir::ModuleOp"> {
  let summary = "Turn outlined GPU kernels into the `rvnn-cuda-v1` entry "
                "points and drop the host code";
  let description = [{
    Runs on a bufferized kernels module after `gpu-kernel-outlining`, where
    every kernel function `@K` (memref arguments, destination-passing) holds
    one `gpu.launch_func` of its outlined kernel. `gpu-kernel-outlining`
    passes the values the kernel uses in the order it first uses them; the
    runtime needs an order it can know. For every `@K` this pass builds

    ```mlir
    gpu.module @rvnn_kernels {
      gpu.func @rvnn_kernel_K(<the arguments of @K, in order>) kernel
    }
    ```

    whose body is the outlined kernel's, with every launch operand that is
    not an argument of `@K` (a `memref.collapse_shape` of one, a constant)
    recomputed inside the kernel, and erases `@K`, the outlined kernel and
    its module: the host side of a launch is the runtime's (the ABI,
    docs/compiled-model-format.md). The pass checks what the ABI promises
    the runtime and fails naming the kernel otherwise: `@K` does nothing
    but the launch (no allocation, copy or host loop), returns only its own
    arguments (written in place), and launches `(n, 1, 1)` blocks of
    `(cudaBlockSize, 1, 1)` threads (the execution contract's) without
    dynamic shared memory or clusters.

    Example: `rvnn-opt outlined.mlir --rvnn-gpu-kernel-entry-points`
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def RvnnReplaceLibdeviceCalls : Pass<"rvnn-replace-libdevice-calls"> {
  let summary = "Replace calls of libdevice functions that NVPTX has an "
                "instruction for by LLVM intrinsics";
  let description = [{
    `convert-gpu-to-nvvm` lowers every math op it knows to a call of its
    libdevice function (`math.floor` to `__nv_floorf`), even those NVPTX
    selects as one instruction, and marks the LLVM intrinsics illegal. The
    polynomial expansions of `rvnn-approximate-math` use exactly those
    (floor, abs, fma, sqrt, copysign), so without this pass the PTX would
    need libdevice. The pass rewrites calls of `__nv_fabs[f]`,
    `__nv_floor[f]`, `__nv_ceil[f]`, `__nv_trunc[f]`, `__nv_round[f]`,
    `__nv_rint[f]`, `__nv_sqrt[f]`, `__nv_fma[f]`, `__nv_copysign[f]`,
    `__nv_fmin[f]` and `__nv_fmax[f]` into the matching `llvm.intr.*` op
    (what libdevice's definitions are) and erases declarations left
    unused. Calls of other functions (f64 `__nv_exp`, ...) are left alone.
    Runs on any op (the gpu.module after `convert-gpu-to-nvvm`).

    Example: `rvnn-opt nvvm.mlir --rvnn-replace-libdevice-calls`
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // RVNN_CODEGEN_PASSES_TD
