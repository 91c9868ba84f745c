#ifndef RVNN_DIALECT_RVNN_IR_RVNNOPS_H
#define RVNN_DIALECT_RVNN_IR_RVNNOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "rvnn/Dialect/Rvnn/IR/RvnnDialect.h"
#include "rvnn/Dialect/Rvnn/IR/RvnnVerifiers.h"

namespace mlir::rvnn {
/// True when two dimension sizes can describe the same runtime size.
inline bool dimsCompatible(int64_t lhs, int64_t rhs) {
  return ShapedType::isDynamic(lhs) || ShapedType::isDynamic(rhs) || lhs == rhs;
}

/// The runtime's random generator as a side-effect resource
/// (Rvnn_RandomGenerator in RvnnBase.td).
struct RandomGeneratorResource
    : public SideEffects::Resource::Base<RandomGeneratorResource> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RandomGeneratorResource)
  StringRef getName() final { return "rvnn::RandomGenerator"; }
};

/// The runtime's record of exposed structure values as a side-effect
/// resource (Rvnn_StructureTrace in RvnnBase.td).
struct StructureTraceResource
    : public SideEffects::Resource::Base<StructureTraceResource> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(StructureTraceResource)
  StringRef getName() final { return "rvnn::StructureTrace"; }
};

} // namespace mlir::rvnn

#define GET_OP_CLASSES
#include "rvnn/Dialect/Rvnn/IR/RvnnNNOps.h.inc"
#define GET_OP_CLASSES
#include "rvnn/Dialect/Rvnn/IR/RvnnRecursionOps.h.inc"
#define GET_OP_CLASSES
#include "rvnn/Dialect/Rvnn/IR/RvnnAttentionOps.h.inc"
#define GET_OP_CLASSES
#include "rvnn/Dialect/Rvnn/IR/RvnnGatingOps.h.inc"
#define GET_OP_CLASSES
#include "rvnn/Dialect/Rvnn/IR/RvnnBeamOps.h.inc"
#define GET_OP_CLASSES
#include "rvnn/Dialect/Rvnn/IR/RvnnStructureOps.h.inc"

#endif // RVNN_DIALECT_RVNN_IR_RVNNOPS_H
