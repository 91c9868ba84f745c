// Structure: values a model exposes as the tree it induces.
#include "rvnn/Dialect/Rvnn/IR/RvnnOps.h"

using namespace mlir;
using namespace mlir::rvnn;

#define GET_OP_CLASSES
#include "rvnn/Dialect/Rvnn/IR/RvnnStructureOps.cpp.inc"

/// The ranks `kind` allows, and whether its elements are floats (or i64).
static std::pair<SmallVector<int64_t>, bool> expectedForm(StructureKind kind) {
  switch (kind) {
  case StructureKind::merge_selection:
    return {{2, 3}, true};
  case StructureKind::beam_parent:
    return {{2}, false};
  case StructureKind::balanced:
  case StructureKind::composition:
  case StructureKind::existence:
    return {{2}, true};
  }
  llvm_unreachable("unknown structure kind");
}

/// An attribute that only some kinds take: required (and >= `least`) where
/// `wanted`, absent elsewhere.
static LogicalResult verifyKindAttr(ExposeStructureOp op, StringRef name,
                                    std::optional<uint64_t> value, bool wanted,
                                    bool required, uint64_t least) {
  StringRef kind = stringifyStructureKind(op.getKind());
  if (!wanted && value)
    return op.emitOpError()
           << "'" << name << "' is not an attribute of kind '" << kind << "'";
  if (wanted && required && !value)
    return op.emitOpError()
           << "kind '" << kind << "' requires the '" << name << "' attribute";
  if (!value)
    return success();
  return verifyAtLeast(op, ("'" + name + "'").str(),
                       static_cast<int64_t>(*value),
                       static_cast<int64_t>(least));
}

LogicalResult ExposeStructureOp::verify() {
  auto type = cast<RankedTensorType>(getValue().getType());
  auto [ranks, isFloat] = expectedForm(getKind());
  StringRef kind = stringifyStructureKind(getKind());
  if (!llvm::is_contained(ranks, type.getRank()))
    return emitOpError() << "kind '" << kind << "' takes a tensor of rank "
                         << (ranks.size() == 1 ? std::to_string(ranks[0])
                                               : "2 or 3")
                         << ", got " << type;
  Type element = type.getElementType();
  if (isFloat ? !isa<FloatType>(element) : !element.isInteger(64))
    return emitOpError() << "kind '" << kind << "' takes "
                         << (isFloat ? "float" : "i64") << " elements, got "
                         << type;
  if (failed(verifyKindAttr(*this, "arity", getArity(),
                            getKind() == StructureKind::balanced,
                            /*required=*/true, /*least=*/2)))
    return failure();
  return verifyKindAttr(*this, "factor", getFactor(),
                        getKind() == StructureKind::beam_parent,
                        /*required=*/false, /*least=*/1);
}
