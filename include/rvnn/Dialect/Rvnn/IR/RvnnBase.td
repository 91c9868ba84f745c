#ifndef RVNN_BASE_TD
#define RVNN_BASE_TD

// Shared by every op group: the dialect, its attributes, type constraints and
// the interfaces ops commonly implement.
include "rvnn/Dialect/Rvnn/IR/RvnnDialect.td"
include "rvnn/Dialect/Rvnn/IR/RvnnAttrs.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Rvnn_FloatTensor : RankedTensorOf<[F32, F64]>;
def Rvnn_IndexTensor : RankedTensorOf<[I64]>;
def Rvnn_Scalar : 0DTensorOf<[F32, F64]>;

// The runtime's seeded random generator (dropout, Gumbel noise, beam
// alignment). Ops that draw from it read and write it: CSE never merges two
// draws, DCE never drops one (that would shift every later draw of a seeded
// run), and draws are never reordered or hoisted. C++ class in RvnnOps.h.
def Rvnn_RandomGenerator : Resource<"::mlir::rvnn::RandomGeneratorResource">;

// The runtime's record of exposed structure values (rvnn.expose_structure).
// Writing it is the op's only effect: DCE and CSE keep every exposure, in
// order. C++ class in RvnnOps.h.
def Rvnn_StructureTrace : Resource<"::mlir::rvnn::StructureTraceResource">;

// Ops whose result shapes follow from operand shapes. The shape-inference
// pass refines dynamic result dims through inferReturnTypeComponents, and the
// op verifier checks results against it (verifyInferredShapes).
class Rvnn_ShapedOp<string mnemonic, list<Trait> traits = []>
    : Rvnn_Op<mnemonic, !listconcat(traits, [InferShapedTypeOpAdaptor])> {
  let hasVerifier = 1;
}

#endif // RVNN_BASE_TD
