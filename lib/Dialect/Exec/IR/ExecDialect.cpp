#include "rvnn/Dialect/Exec/IR/ExecDialect.h"
#include "rvnn/Dialect/Exec/IR/ExecOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::rvnn::exec;

#include "rvnn/Dialect/Exec/IR/ExecDialect.cpp.inc"
#include "rvnn/Dialect/Exec/IR/ExecEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "rvnn/Dialect/Exec/IR/ExecAttrs.cpp.inc"

void ExecDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "rvnn/Dialect/Exec/IR/ExecAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "rvnn/Dialect/Exec/IR/ExecOps.cpp.inc"
      >();
}

Operation *ExecDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || typed.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, typed);
}
