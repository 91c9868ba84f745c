#include "rvnn/Dialect/Rvnn/IR/RvnnDialect.h"
#include "rvnn/Dialect/Rvnn/IR/RvnnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::rvnn;

#include "rvnn/Dialect/Rvnn/IR/RvnnDialect.cpp.inc"
#include "rvnn/Dialect/Rvnn/IR/RvnnEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "rvnn/Dialect/Rvnn/IR/RvnnAttrs.cpp.inc"

namespace {
/// Cells are functions called from inside rvnn.recurse and
/// rvnn.balanced_reduce bodies; inlining them there is what lets fusion see
/// a whole recursion step. Every rvnn op is legal to inline and to receive
/// inlined code: none depends on its enclosing function.
struct RvnnInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

Operation *RvnnDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto integer = dyn_cast<IntegerAttr>(value);
  if (!integer || !type.isIndex())
    return nullptr;
  return builder.create<arith::ConstantIndexOp>(loc, integer.getInt());
}

void RvnnDialect::initialize() {
  addInterfaces<RvnnInlinerInterface>();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "rvnn/Dialect/Rvnn/IR/RvnnAttrs.cpp.inc"
      >();
  // Each op group is generated from its own .td file.
  addOperations<
#define GET_OP_LIST
#include "rvnn/Dialect/Rvnn/IR/RvnnNNOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "rvnn/Dialect/Rvnn/IR/RvnnRecursionOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "rvnn/Dialect/Rvnn/IR/RvnnAttentionOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "rvnn/Dialect/Rvnn/IR/RvnnGatingOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "rvnn/Dialect/Rvnn/IR/RvnnBeamOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "rvnn/Dialect/Rvnn/IR/RvnnStructureOps.cpp.inc"
      >();
}
