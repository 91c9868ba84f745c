//===- Verifiers.cpp - The rvnn dialect's verifier helpers ----------------===//

#include "rvnn/Dialect/Rvnn/IR/RvnnVerifiers.h"

#include "rvnn/Dialect/Rvnn/IR/RvnnOps.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::rvnn;

namespace {

/// Streams into a message kept for later; converts to failure().
class ErrorStream {
public:
  explicit ErrorStream(std::string &text) : os(text) { text.clear(); }
  template <typename T> ErrorStream &operator<<(const T &value) {
    os << value;
    return *this;
  }
  operator LogicalResult() const { return failure(); }

private:
  llvm::raw_string_ostream os;
};

std::string formatShape(ArrayRef<int64_t> dims) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(
      dims, os,
      [&](int64_t dim) {
        if (ShapedType::isDynamic(dim))
          os << '?';
        else
          os << dim;
      },
      "x");
  return text;
}

} // namespace

NamedTensor mlir::rvnn::named(StringRef name, Value value) {
  return {name, cast<RankedTensorType>(value.getType())};
}

LogicalResult mlir::rvnn::verifyRank(Operation *op, NamedTensor value,
                                     int64_t rank, StringRef layout,
                                     bool atLeast) {
  int64_t actual = value.type.getRank();
  if (atLeast ? actual >= rank : actual == rank)
    return success();
  return op->emitOpError() << "'" << value.name << "' must be " << layout
                           << " (rank " << (atLeast ? ">= " : "") << rank
                           << "), got rank " << actual;
}

LogicalResult mlir::rvnn::verifyDimsMatch(Operation *op, StringRef what,
                                          NamedTensor lhs, unsigned lhsDim,
                                          NamedTensor rhs, unsigned rhsDim) {
  int64_t lhsSize = lhs.type.getDimSize(lhsDim);
  int64_t rhsSize = rhs.type.getDimSize(rhsDim);
  if (dimsCompatible(lhsSize, rhsSize))
    return success();
  return op->emitOpError() << what << " mismatch: '" << lhs.name << "' dim "
                           << lhsDim << " is " << lhsSize << " but '"
                           << rhs.name << "' dim " << rhsDim << " is "
                           << rhsSize;
}

LogicalResult mlir::rvnn::verifySameShape(Operation *op, NamedTensor value,
                                          NamedTensor ref) {
  if (succeeded(verifyCompatibleShape(value.type, ref.type)))
    return success();
  return op->emitOpError() << "'" << value.name << "' type " << value.type
                           << " must have the shape of '" << ref.name
                           << "' type " << ref.type;
}

LogicalResult mlir::rvnn::verifySameElementType(Operation *op,
                                                ArrayRef<NamedTensor> values) {
  Type expected = values.front().type.getElementType();
  for (const NamedTensor &value : values.drop_front()) {
    if (value.type.getElementType() != expected)
      return op->emitOpError()
             << "'" << value.name << "' element type "
             << value.type.getElementType() << " must match '"
             << values.front().name << "' element type " << expected;
  }
  return success();
}

LogicalResult mlir::rvnn::verifyBroadcastable(Operation *op, NamedTensor from,
                                              NamedTensor to) {
  auto emitMismatch = [&]() {
    return op->emitOpError() << "'" << from.name << "' of type " << from.type
                             << " does not broadcast to '" << to.name
                             << "' of type " << to.type << ": ";
  };
  int64_t offset = to.type.getRank() - from.type.getRank();
  if (offset < 0)
    return emitMismatch() << "rank " << from.type.getRank() << " exceeds rank "
                          << to.type.getRank();
  for (auto [index, size] : llvm::enumerate(from.type.getShape())) {
    int64_t target = to.type.getDimSize(offset + index);
    if (size != 1 && !dimsCompatible(size, target))
      return emitMismatch() << "dim " << index << " is " << size
                            << ", expected 1 or " << target;
  }
  return success();
}

LogicalResult mlir::rvnn::verifyDimInRange(Operation *op, int64_t dim,
                                           int64_t rank, bool fromEnd) {
  int64_t lowest = fromEnd ? -rank : 0;
  if (dim < lowest || dim >= rank)
    return op->emitOpError("dim ")
           << dim << " is out of range for rank " << rank << " (expected "
           << lowest << " <= dim < " << rank << ")";
  return success();
}

LogicalResult mlir::rvnn::verifyAtLeast(Operation *op, StringRef what,
                                        int64_t value, int64_t least) {
  if (value >= least)
    return success();
  return op->emitOpError() << what << " must be >= " << least << ", got "
                           << value;
}

LogicalResult mlir::rvnn::verifyInferredShapes(Operation *op) {
  auto shaped = cast<InferShapedTypeOpInterface>(op);
  SmallVector<ShapedTypeComponents> inferred;
  if (failed(shaped.inferReturnTypeComponents(
          op->getContext(), op->getLoc(), op->getOperands(),
          op->getAttrDictionary(), op->getPropertiesStorage(), op->getRegions(),
          inferred)))
    return failure();
  for (auto [index, result, expected] :
       llvm::enumerate(op->getResults(), inferred)) {
    auto type = cast<ShapedType>(result.getType());
    if (expected.getElementType() &&
        expected.getElementType() != type.getElementType())
      return op->emitOpError()
             << "result #" << index << " element type " << type.getElementType()
             << " should be " << expected.getElementType();
    if (!expected.hasRank())
      continue;
    if (failed(verifyCompatibleShape(type.getShape(), expected.getDims())))
      return op->emitOpError() << "result #" << index << " type " << type
                               << " is incompatible with the inferred shape "
                               << formatShape(expected.getDims());
  }
  return success();
}

LogicalResult DimBinder::bind(StringRef name, Type type,
                              ArrayRef<StringRef> layout) {
  auto fail = [&] { return ErrorStream(message); };
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return fail() << "'" << name << "' must be a ranked tensor, got '" << type
                  << "'";
  if (tensor.getRank() != static_cast<int64_t>(layout.size())) {
    ErrorStream error = fail();
    error << "'" << name << "' must have rank " << layout.size() << " ([";
    llvm::interleaveComma(layout, error);
    return error << "]), got '" << type << "'";
  }
  if (!elementType) {
    elementType = tensor.getElementType();
    elementFrom = name;
  } else if (elementType != tensor.getElementType()) {
    return fail() << "'" << name << "' element type '"
                  << tensor.getElementType() << "' does not match '"
                  << elementFrom << "' element type '" << elementType << "'";
  }
  for (auto [index, dimName] : llvm::enumerate(layout)) {
    int64_t size = tensor.getDimSize(index);
    Binding &binding = bindings[dimName];
    if (!dimsCompatible(binding.size, size))
      return fail() << "'" << name << "' dim " << index << " (" << dimName
                    << ") is " << size << ", but " << dimName << " = "
                    << binding.size << " from '" << binding.from << "'";
    if (ShapedType::isDynamic(binding.size) && !ShapedType::isDynamic(size))
      binding = {size, name};
  }
  return success();
}

int64_t DimBinder::get(StringRef dimName) const {
  auto it = bindings.find(dimName);
  return it == bindings.end() ? ShapedType::kDynamic : it->second.size;
}
