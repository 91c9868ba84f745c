//===- FuseLinearEpilogue.cpp - A gemm's bias into its dispatches ---------===//
//
// rvnn-exec-fuse-linear-epilogue: a gemm whose result only dispatches read
// (directly or through slices that keep its last dim) runs without its
// bias; each dispatch adds the matching piece of the bias to the input it
// reads, as a broadcast operand of its kernel.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Builders.h"
#include "rvnn/Dialect/Exec/IR/ExecOps.h"
#include "rvnn/Dialect/Exec/Transforms/Passes.h"

#include <array>
#include <map>

namespace mlir::rvnn::exec {
#define GEN_PASS_DEF_RVNNEXECFUSELINEAREPILOGUE
#include "rvnn/Dialect/Exec/Transforms/Passes.h.inc"
} // namespace mlir::rvnn::exec

using namespace mlir;
using namespace mlir::rvnn::exec;

namespace {

/// Whether every use of `value` is an input of a dispatch.
bool onlyDispatchesRead(Value value) {
  return llvm::all_of(value.getUsers(),
                      [](Operation *user) { return isa<DispatchOp>(user); });
}

/// Whether `slice` keeps its source's last dim, its window there static.
bool keepsLastDim(SliceOp slice) {
  int64_t last = slice.getSource().getType().getRank() - 1;
  return !llvm::is_contained(slice.getDroppedDims(), last) &&
         !ShapedType::isDynamic(slice.getStaticOffsets()[last]) &&
         !ShapedType::isDynamic(slice.getStaticSizes()[last]) &&
         !ShapedType::isDynamic(slice.getStaticStrides()[last]);
}

/// The values the gemm's bias moves into: its result and slices of it in
/// its block that keep the last dim, each read only by dispatches; empty
/// where anything else reads the result.
SmallVector<Value> biasedValues(GemmOp gemm) {
  Value result = gemm.getResult();
  SmallVector<Value> values{result};
  for (Operation *user : result.getUsers()) {
    if (isa<DispatchOp>(user))
      continue;
    auto slice = dyn_cast<SliceOp>(user);
    if (!slice || slice->getBlock() != gemm->getBlock() ||
        !keepsLastDim(slice) || !onlyDispatchesRead(slice.getResult()))
      return {};
    values.push_back(slice.getResult());
  }
  // In program order, for a stable order of the dispatch's new inputs.
  llvm::sort(llvm::drop_begin(values), [](Value a, Value b) {
    return a.getDefiningOp()->isBeforeInBlock(b.getDefiningOp());
  });
  return values;
}

/// The pieces of biases that dispatches add, one per bias and window: two
/// gemms with one bias (a cell called twice) share them, so the derived
/// backward sees each window sliced once, and the slices tile the bias.
class BiasPieces {
public:
  /// The piece of `bias` that `value` (a gemm's result or a slice of it)
  /// needs, as `[1, ..., 1, n]` of `value`'s rank, built after `bias`.
  Value get(Value bias, Value value) {
    auto slice = value.getDefiningOp<SliceOp>();
    auto type = cast<RankedTensorType>(value.getType());
    // A window's offset, size and stride; the whole bias is offset -1.
    std::array<int64_t, 4> window = {-1, type.getShape().back(), 1,
                                     type.getRank()};
    if (slice)
      window = {slice.getStaticOffsets().back(), slice.getStaticSizes().back(),
                slice.getStaticStrides().back(), type.getRank()};
    Value &piece = pieces[{bias.getAsOpaquePointer(), window}];
    if (!piece) {
      // After the bias, the pieces in the order they were asked for.
      Value &last = lastPiece[bias.getAsOpaquePointer()];
      piece = build(last ? last : bias, bias, window);
      last = piece;
    }
    return piece;
  }

private:
  static Value build(Value after, Value bias,
                     const std::array<int64_t, 4> &window) {
    auto [offset, size, stride, rank] = window;
    OpBuilder builder(bias.getContext());
    builder.setInsertionPointAfterValue(after);
    Location loc = bias.getLoc();
    auto biasType = cast<RankedTensorType>(bias.getType());
    Value piece = bias;
    if (offset >= 0)
      piece = builder.create<SliceOp>(
          loc, biasType.clone({size}), bias, ValueRange{}, ValueRange{},
          ValueRange{}, ArrayRef<int64_t>{offset}, ArrayRef<int64_t>{size},
          ArrayRef<int64_t>{stride}, ArrayRef<int64_t>{});
    SmallVector<int64_t> shape(rank, 1);
    shape.back() = size;
    return builder.create<ReshapeOp>(loc, biasType.clone(shape), piece,
                                     ValueRange{});
  }

  std::map<std::pair<const void *, std::array<int64_t, 4>>, Value> pieces;
  DenseMap<const void *, Value> lastPiece;
};

/// Gives `dispatch` `piece` as one more input, added in its body to the
/// block argument of input `position`.
void addToInput(DispatchOp dispatch, unsigned position, Value piece) {
  dispatch.getInputsMutable().append(piece);
  Block &body = dispatch.getBody().front();
  BlockArgument input = body.getArgument(position);
  BlockArgument bias = body.addArgument(piece.getType(), piece.getLoc());
  auto reads = [&](Operation &op) {
    return llvm::is_contained(op.getOperands(), input);
  };
  auto firstRead = llvm::find_if(body, reads);
  OpBuilder builder(&body, firstRead == body.end() ? body.begin() : firstRead);
  Location loc = dispatch.getLoc();
  Value broadcast =
      builder.create<BroadcastLikeOp>(loc, input.getType(), bias, input);
  Value sum = builder.create<ElementwiseOp>(
      loc, input.getType(), ElementwiseFn::add, ValueRange{input, broadcast});
  input.replaceAllUsesExcept(
      sum, SmallPtrSet<Operation *, 2>{broadcast.getDefiningOp(),
                                       sum.getDefiningOp()});
}

/// Moves `gemm`'s bias into the dispatches that read its result, where
/// only they do.
void fuseBias(GemmOp gemm, BiasPieces &pieces) {
  Value bias = gemm.getBias();
  auto resultType = cast<RankedTensorType>(gemm.getType());
  if (!bias || resultType.getRank() < 2 ||
      resultType.isDynamicDim(resultType.getRank() - 1))
    return;
  SmallVector<Value> values = biasedValues(gemm);
  if (values.empty())
    return;
  for (Value value : values) {
    SmallVector<OpOperand *> reads;
    for (OpOperand &use : value.getUses())
      if (isa<DispatchOp>(use.getOwner()))
        reads.push_back(&use);
    for (OpOperand *read : reads)
      addToInput(cast<DispatchOp>(read->getOwner()), read->getOperandNumber(),
                 pieces.get(bias, value));
  }
  gemm.getBiasMutable().clear();
}

struct FuseLinearEpiloguePass
    : public mlir::rvnn::exec::impl::RvnnExecFuseLinearEpilogueBase<
          FuseLinearEpiloguePass> {
  void runOnOperation() override {
    BiasPieces pieces;
    getOperation().walk([&](GemmOp gemm) { fuseBias(gemm, pieces); });
  }
};

} // namespace
