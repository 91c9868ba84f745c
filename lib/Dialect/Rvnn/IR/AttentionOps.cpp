// Soft-mask attention: geometric attention, masked attention and the
// neighbour retriever.
#include "rvnn/Dialect/Rvnn/IR/RvnnOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::rvnn;

#define GET_OP_CLASSES
#include "rvnn/Dialect/Rvnn/IR/RvnnAttentionOps.cpp.inc"

namespace {
/// Streams an error message into a string; converts to failure().
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

/// Binds the named dimensions shared by an op's operands (N, H, S, Dh): the
/// first operand that gives a name a static size fixes it and every other
/// operand must agree. All operands must also share one element type. The
/// same checks serve verify() and inferReturnTypeComponents, so errors are
/// collected as text and reported by the caller.
class DimBinder {
public:
  /// Checks the operand `name` of type `type` against `layout`, e.g.
  /// {"N", "S"}, and refines the bindings with its static sizes.
  LogicalResult bind(StringRef name, Type type, ArrayRef<StringRef> layout) {
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

  /// The bound size of `dimName` (dynamic if no operand fixed it).
  int64_t get(StringRef dimName) const {
    auto it = bindings.find(dimName);
    return it == bindings.end() ? ShapedType::kDynamic : it->second.size;
  }

  Type getElementType() const { return elementType; }
  StringRef getError() const { return message; }

private:
  struct Binding {
    int64_t size = ShapedType::kDynamic;
    StringRef from;
  };

  ErrorStream fail() { return ErrorStream(message); }

  llvm::StringMap<Binding> bindings;
  Type elementType;
  StringRef elementFrom;
  std::string message;
};
} // namespace

// Operand layouts.
static constexpr StringRef kHeads[] = {"N", "H", "S", "Dh"};
static constexpr StringRef kBias[] = {"N", "H", "S"};
static constexpr StringRef kSeq[] = {"N", "S"};

/// Binds every (name, value, layout) triple in order; stops at the first
/// mismatch.
static LogicalResult
bindAll(DimBinder &binder,
        ArrayRef<std::tuple<StringRef, Value, ArrayRef<StringRef>>> operands) {
  for (auto [name, value, layout] : operands)
    if (failed(binder.bind(name, value.getType(), layout)))
      return failure();
  return success();
}

/// Infers a result `[dims...]` (named by `layout`) of the bound element type.
static LogicalResult
inferFromBinding(const DimBinder &binder, ArrayRef<StringRef> layout,
                 SmallVectorImpl<ShapedTypeComponents> &inferred) {
  SmallVector<int64_t> dims = llvm::map_to_vector(
      layout, [&](StringRef dimName) { return binder.get(dimName); });
  inferred.emplace_back(dims, binder.getElementType());
  return success();
}

//===----------------------------------------------------------------------===//
// GeometricAttentionOp
//===----------------------------------------------------------------------===//

static LogicalResult bindOperands(DimBinder &binder,
                                  GeometricAttentionOp::Adaptor adaptor) {
  return bindAll(binder, {{"q", adaptor.getQ(), kHeads},
                          {"k", adaptor.getK(), kHeads},
                          {"v", adaptor.getV(), kHeads},
                          {"back", adaptor.getBack(), kBias},
                          {"front", adaptor.getFront(), kBias},
                          {"mask", adaptor.getMask(), kSeq},
                          {"scale", adaptor.getScale(), {}},
                          {"bias", adaptor.getBias(), {}}});
}

LogicalResult GeometricAttentionOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    GeometricAttentionOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  DimBinder binder;
  if (failed(bindOperands(binder, adaptor)))
    return emitOptionalError(location, binder.getError());
  return inferFromBinding(binder, kHeads, inferred);
}

LogicalResult GeometricAttentionOp::verify() {
  DimBinder binder;
  if (failed(bindOperands(binder, Adaptor(*this))))
    return emitOpError(binder.getError());
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// MaskedAttentionOp
//===----------------------------------------------------------------------===//

static LogicalResult bindOperands(DimBinder &binder,
                                  MaskedAttentionOp::Adaptor adaptor) {
  return bindAll(binder, {{"q", adaptor.getQ(), kHeads},
                          {"k", adaptor.getK(), kHeads},
                          {"v", adaptor.getV(), kHeads},
                          {"mask", adaptor.getMask(), kSeq}});
}

LogicalResult MaskedAttentionOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    MaskedAttentionOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  DimBinder binder;
  if (failed(bindOperands(binder, adaptor)))
    return emitOptionalError(location, binder.getError());
  return inferFromBinding(binder, kHeads, inferred);
}

LogicalResult MaskedAttentionOp::verify() {
  DimBinder binder;
  if (failed(bindOperands(binder, Adaptor(*this))))
    return emitOpError(binder.getError());
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// NeighbourRetrieveOp
//===----------------------------------------------------------------------===//

static LogicalResult bindOperands(DimBinder &binder,
                                  NeighbourRetrieveOp::Adaptor adaptor) {
  return bindAll(binder, {{"exist", adaptor.getExist(), kSeq},
                          {"mask", adaptor.getMask(), kSeq}});
}

LogicalResult NeighbourRetrieveOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    NeighbourRetrieveOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  static constexpr StringRef kPairs[] = {"N", "S", "S"};
  DimBinder binder;
  if (failed(bindOperands(binder, adaptor)))
    return emitOptionalError(location, binder.getError());
  return inferFromBinding(binder, kPairs, inferred);
}

LogicalResult NeighbourRetrieveOp::verify() {
  DimBinder binder;
  if (failed(bindOperands(binder, Adaptor(*this))))
    return emitOpError(binder.getError());
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// DiagonalScanOp
//===----------------------------------------------------------------------===//

static LogicalResult bindOperands(DimBinder &binder,
                                  DiagonalScanOp::Adaptor adaptor) {
  static constexpr StringRef kInput[] = {"N", "S", "D"};
  static constexpr StringRef kDiagonal[] = {"D", "P"};
  return bindAll(binder, {{"u", adaptor.getU(), kInput},
                          {"a_re", adaptor.getARe(), kDiagonal},
                          {"a_im", adaptor.getAIm(), kDiagonal},
                          {"b_re", adaptor.getBRe(), kDiagonal},
                          {"b_im", adaptor.getBIm(), kDiagonal},
                          {"c_re", adaptor.getCRe(), kDiagonal},
                          {"c_im", adaptor.getCIm(), kDiagonal},
                          {"mask", adaptor.getMask(), kSeq}});
}

LogicalResult DiagonalScanOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    DiagonalScanOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  static constexpr StringRef kOutput[] = {"N", "S", "D"};
  DimBinder binder;
  if (failed(bindOperands(binder, adaptor)))
    return emitOptionalError(location, binder.getError());
  return inferFromBinding(binder, kOutput, inferred);
}

LogicalResult DiagonalScanOp::verify() {
  DimBinder binder;
  if (failed(bindOperands(binder, Adaptor(*this))))
    return emitOpError(binder.getError());
  return verifyInferredShapes(getOperation());
}
