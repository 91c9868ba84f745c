#ifndef RVNN_EXEC_DIALECT_TD
#define RVNN_EXEC_DIALECT_TD

include "mlir/IR/OpBase.td"

def Exec_Dialect : Dialect {
  let name = "rvnn_exec";
  let cppNamespace = "::mlir::rvnn::exec";
  let summary = "The closed execution contract between compiler and runtime.";
  let description = [{
    A compiled model is a program in this dialect and nothing else: the
    contract check (`rvnn-exec-check-contract`) rejects any other op, and the
    runtime executes exactly these ops. Every op belongs to one kind, which
    the runtime's profile counts separately:
    - `control`: functions, parameters, the recursion loop with its halting
      policy, balanced reduction, region terminators;
    - `scalar`: index constants and arithmetic for shapes;
    - `view`: buffer allocation, reshapes, slices, concatenation, transposes;
    - `library`: calls into libraries (GEMM through the BLAS or cuBLAS that
      LibTorch uses, gathers, top-k, random draws);
    - `kernel`: compute kernels (elementwise maps, row reductions, the
      attention, gating and beam primitives).
    Kernel IR (what code generation compiles) lives beside the program in a
    nested `builtin.module` marked `rvnn_exec.kernels`.
    Op names, attribute names, enum keywords and the format version are
    generated from this ODS into `rvnn/Dialect/Exec/ExecContract.h`, a plain
    C++ header that the compiler and the LibTorch runtime both include.

    Ops mirrored from the `rvnn` dialect (same operands, attributes and
    results, taken from the rvnn op's ODS record) keep that op's semantics;
    their rvnn documentation is the reference.
  }];
  let dependentDialects = ["::mlir::rvnn::RvnnDialect"];
  let extraClassDeclaration = [{
    /// Marks the nested builtin.module that holds the kernel IR of the
    /// program's dispatches (linalg on tensors, one function per kernel and
    /// per backward). It is code generation's input, not part of the
    /// program: the contract check and the plan export skip it.
    static constexpr ::llvm::StringLiteral kKernelsAttrName =
        "rvnn_exec.kernels";
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
}

// `kind`: control, scalar, view, library or kernel (the dialect description
// says what each means); the contract header records it per op.
class Exec_Op<string mnemonic, string kind, list<Trait> traits = []>
    : Op<Exec_Dialect, mnemonic, traits> {
  string executionKind = kind;
}

// Facts of the compiled-model format that compiler and runtime share; the
// contract header generator reads this record. The kernel ABI: every
// generated kernel K is `void <kernelSymbolPrefix>K(void **args)` (args[i]
// points to the MLIR strided memref descriptor of the i-th argument), its
// backward the same with `kernelGradSuffix` appended to the name. The CUDA
// kernel ABI (`cudaKernelAbi`): the PTX entry `<kernelSymbolPrefix>K` takes
// the fields of every argument's memref descriptor as consecutive parameters
// and is launched with `cudaBlockSize` threads per block, one per element
// (docs/compiled-model-format.md). `cpuLevels`: the x86-64 micro-architecture
// levels (LLVM's CPU names, oldest first) a CPU kernel library may be
// compiled for, the manifest's `kernels.cpu`; the runtime refuses a library
// of a level its CPU does not run.
class Exec_FormatInfo<int version, string model, string plan, string abi,
                      string symbolPrefix, string gradSuffix, string cudaAbi,
                      int cudaThreads, list<string> cpuLevels> {
  int formatVersion = version;
  string modelFormat = model;
  string planFormat = plan;
  string kernelAbi = abi;
  string kernelSymbolPrefix = symbolPrefix;
  string kernelGradSuffix = gradSuffix;
  string cudaKernelAbi = cudaAbi;
  int cudaBlockSize = cudaThreads;
  list<string> kernelCpuLevels = cpuLevels;
}
// Version 3: compiler-derived backward functions (call, vjp) and
// counter-based random draws; version 2: programs in rvnn_exec only, every
// file hashed in the manifest. Kernel ABI v4: besides v3's, broadcast
// operands (the kernel's shape with some dims 1: a gate's g); v3: besides
// the tensors of the kernel's type, 1-D row operands along its last dim (a
// layer norm's gamma and beta); v2: every argument of one type, rows
// strided; v1: contiguous.
def Exec_Format : Exec_FormatInfo<3, "rvnn-compiled-model", "rvnn-plan",
                                  "rvnn-memref-v4", "rvnn_kernel_", "_grad",
                                  "rvnn-cuda-v1", 128,
                                  ["x86-64", "x86-64-v2", "x86-64-v3",
                                   "x86-64-v4"]>;

#endif // RVNN_EXEC_DIALECT_TD
