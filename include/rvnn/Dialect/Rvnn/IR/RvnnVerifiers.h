//===- RvnnVerifiers.h - The rvnn dialect's verifier helpers ----*- C++ -*-===//
//
// The one set of checks the rvnn ops' verifiers are written with: operand
// layouts (rank and named dims, DimBinder), shapes and element types shared
// between operands, NumPy broadcasting, dim attributes, lower bounds of
// integer attributes, and result types against the inferred shapes. Each
// failure is an op error naming the operand or attribute.
//
//===----------------------------------------------------------------------===//

#ifndef RVNN_DIALECT_RVNN_IR_RVNNVERIFIERS_H
#define RVNN_DIALECT_RVNN_IR_RVNNVERIFIERS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::rvnn {

/// A tensor operand with the name diagnostics use for it.
struct NamedTensor {
  StringRef name;
  RankedTensorType type;
};

/// `value` (a ranked tensor) under `name`.
NamedTensor named(StringRef name, Value value);

/// `value` must have rank `rank` (at least `rank` when `atLeast`); `layout`
/// spells the expected shape, e.g. "[N, B]".
LogicalResult verifyRank(Operation *op, NamedTensor value, int64_t rank,
                         StringRef layout, bool atLeast = false);

/// Dim `lhsDim` of `lhs` and dim `rhsDim` of `rhs` must be able to hold the
/// same size; `what` names the dimension in the message ("batch dim N").
LogicalResult verifyDimsMatch(Operation *op, StringRef what, NamedTensor lhs,
                              unsigned lhsDim, NamedTensor rhs,
                              unsigned rhsDim);

/// `value` must have the shape of `ref` (dynamic dims match anything).
LogicalResult verifySameShape(Operation *op, NamedTensor value,
                              NamedTensor ref);

/// Every value must have the element type of the first one.
LogicalResult verifySameElementType(Operation *op,
                                    ArrayRef<NamedTensor> values);

/// `from` must broadcast NumPy-style to `to`: aligned from the right, `from`
/// has at most `to`'s rank and each of its dims is 1 or compatible with the
/// matching dim of `to`.
LogicalResult verifyBroadcastable(Operation *op, NamedTensor from,
                                  NamedTensor to);

/// The attribute `dim` must name a dim of a rank-`rank` tensor; with
/// `fromEnd`, negative dims count from the end.
LogicalResult verifyDimInRange(Operation *op, int64_t dim, int64_t rank,
                               bool fromEnd);

/// An integer attribute `what` (quoted in the message as given) must be at
/// least `least`.
LogicalResult verifyAtLeast(Operation *op, StringRef what, int64_t value,
                            int64_t least);

/// Checks every result type of `op` against the shapes its
/// InferShapedTypeOpInterface computes: same rank, same element type, and
/// every static dim equal where both sides are static.
LogicalResult verifyInferredShapes(Operation *op);

/// Checks operands against layouts of named dims (e.g. q [N, H, S, Dh] and
/// mask [N, S]): each operand's rank, one element type for all, and one size
/// per dim name, bound by the first operand with a static size there. The
/// first failure's message is kept for the op to emit (getError()); the
/// bindings give the inferred result shapes.
class DimBinder {
public:
  /// Checks the operand `name` of type `type` against `layout`, e.g.
  /// {"N", "S"}, and refines the bindings with its static sizes.
  LogicalResult bind(StringRef name, Type type, ArrayRef<StringRef> layout);

  /// The bound size of `dimName` (dynamic if no operand fixed it).
  int64_t get(StringRef dimName) const;

  Type getElementType() const { return elementType; }
  StringRef getError() const { return message; }

private:
  struct Binding {
    int64_t size = ShapedType::kDynamic;
    StringRef from;
  };

  llvm::StringMap<Binding> bindings;
  Type elementType;
  StringRef elementFrom;
  std::string message;
};

} // namespace mlir::rvnn

#endif // RVNN_DIALECT_RVNN_IR_RVNNVERIFIERS_H
