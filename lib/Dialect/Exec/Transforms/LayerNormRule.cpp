//===- LayerNormRule.cpp - A layer norm in a generated kernel -------------===//
//
// Statistics as ATen's layer norm computes them: the biased variance of the
// centred input, rstd = 1 / sqrt(var + epsilon), both once per row. The
// backward: the row sums Σ dŷ·γ and Σ dŷ·γ·x̂, the input's cotangent
// rstd·(dŷ·γ - mean(dŷ·γ) - x̂·mean(dŷ·γ·x̂)), gamma's and beta's as column
// sums of dŷ·x̂ and dŷ.
//
//===----------------------------------------------------------------------===//

#include "RowReductionKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::rvnn::exec;

namespace {

/// The layer norm's input and its per-row mean and rstd, as tensors.
struct NormInput {
  Value input, mean, rstd;
};

/// The layer norm's input (an input of the kernel, or computed from the
/// inputs by the ops before it), its row means and its rows' rstd.
NormInput emitNormInput(Stages &s, Block &body, LayerNormOp norm) {
  unsigned numInputs = body.getNumArguments();
  NormInput result;
  result.input = s.bodyValues(body, norm.getInput(), norm)[0];
  Value inverseLength = s.inverseRowLength();
  Value sums = s.rowSums(result.input, s.full(), 1,
                         [&](OpBuilder &, Location, ValueRange elements) {
                           return SmallVector<Value>{elements[numInputs]};
                         })[0];
  result.mean = s.rowwise(sums, [&](OpBuilder &gb, Location loc,
                                    ValueRange elements) {
    gb.create<linalg::YieldOp>(
        loc,
        gb.create<arith::MulFOp>(loc, elements[0], inverseLength).getResult());
  });
  Value squares =
      s.rowSums({result.input, result.mean}, {s.full(), s.rows()}, 1,
                [&](OpBuilder &gb, Location loc, ValueRange elements) {
                  Value deviation = gb.create<arith::SubFOp>(
                      loc, elements[numInputs], elements[numInputs + 1]);
                  return SmallVector<Value>{
                      gb.create<arith::MulFOp>(loc, deviation, deviation)};
                })[0];
  Type element = getElementTypeOrSelf(squares.getType());
  double epsilon = norm.getEpsilonAttr().getValueAsDouble();
  result.rstd =
      s.rowwise(squares, [&](OpBuilder &gb, Location loc, ValueRange elements) {
        Value variance =
            gb.create<arith::MulFOp>(loc, elements[0], inverseLength);
        Value shifted = gb.create<arith::AddFOp>(
            loc, variance,
            gb.create<arith::ConstantOp>(loc, element,
                                         gb.getFloatAttr(element, epsilon)));
        Value one = gb.create<arith::ConstantOp>(loc, element,
                                                 gb.getFloatAttr(element, 1.0));
        gb.create<linalg::YieldOp>(
            loc, gb.create<arith::DivFOp>(loc, one,
                                          gb.create<math::SqrtOp>(loc, shifted))
                     .getResult());
      });
  return result;
}

class LayerNormRule : public RowReductionRule {
public:
  LayerNormRule(Stages &s, Block &body, LayerNormOp norm)
      : RowReductionRule(body.getNumArguments()), gamma(norm.getGamma()),
        beta(norm.getBeta()),
        gammaAt(cast<BlockArgument>(gamma).getArgNumber()) {
    NormInput input = emitNormInput(s, body, norm);
    operands = {input.input, input.mean, input.rstd};
    maps = {s.full(), s.rows(), s.rows()};
    inverseLength = s.inverseRowLength();
  }

  /// x̂·γ + β.
  Value result(OpBuilder &b, Location loc, ValueRange elements,
               const DenseMap<Value, Value> &scalar) const override {
    Value scaled = b.create<arith::MulFOp>(loc, normalised(b, loc, elements),
                                           scalar.lookup(gamma));
    return b.create<arith::AddFOp>(loc, scaled, scalar.lookup(beta));
  }

  /// Σ dŷ·γ and Σ dŷ·γ·x̂.
  unsigned numBackwardSums() const override { return 2; }
  SmallVector<Value> backwardTerms(OpBuilder &b, Location loc,
                                   ValueRange elements,
                                   Value d) const override {
    Value g = b.create<arith::MulFOp>(loc, d, elements[gammaAt]);
    Value gx = b.create<arith::MulFOp>(loc, g, normalised(b, loc, elements));
    return {g, gx};
  }

  /// Column sums of dŷ·x̂ (gamma) and dŷ (beta).
  void rowOperandCotangents(Stages &s, Block &body, ValueRange withD,
                            ArrayRef<AffineMap> withDMaps, ValueRange dxs,
                            MutableArrayRef<Value> grads) const override {
    SmallVector<unsigned> positions = s.signature().positions(InputKind::row);
    if (positions.empty())
      return;
    const unsigned dAt = numInputs + operands.size();
    SmallVector<Value> outs;
    for (unsigned position : positions)
      outs.push_back(s.zeros(dxs[position]));
    SmallVector<Value> sums = s.generic(
        withD, withDMaps, outs,
        SmallVector<AffineMap>(positions.size(), s.column()),
        s.columnReduction(),
        [&](OpBuilder &gb, Location loc, ValueRange elements) {
          Value dy = elements[dAt];
          Value dGamma =
              gb.create<arith::MulFOp>(loc, dy, normalised(gb, loc, elements));
          ValueRange running = elements.take_back(positions.size());
          SmallVector<Value> next;
          for (auto [sum, position] : llvm::zip_equal(running, positions)) {
            BlockArgument argument = body.getArgument(position);
            Value total = sum;
            if (argument == gamma)
              total = gb.create<arith::AddFOp>(loc, total, dGamma);
            if (argument == beta)
              total = gb.create<arith::AddFOp>(loc, total, dy);
            next.push_back(total);
          }
          gb.create<linalg::YieldOp>(loc, next);
        });
    for (auto [position, sum] : llvm::zip_equal(positions, sums))
      grads[position] = sum;
  }

  /// The input's rstd·(dŷ·γ - Σ dŷ·γ / D - x̂·Σ dŷ·γ·x̂ / D); gamma's and
  /// beta's are the column sums.
  SmallVector<Value>
  adjoints(OpBuilder &b, Location loc, ValueRange elements, Value d,
           ValueRange sums,
           const DenseMap<Value, Value> &scalar) const override {
    Value g = b.create<arith::MulFOp>(loc, d, scalar.lookup(gamma));
    Value meanG = b.create<arith::MulFOp>(loc, sums[0], inverseLength);
    Value meanGx = b.create<arith::MulFOp>(loc, sums[1], inverseLength);
    Value xhat = normalised(b, loc, elements);
    Value centred =
        b.create<arith::SubFOp>(loc, b.create<arith::SubFOp>(loc, g, meanG),
                                b.create<arith::MulFOp>(loc, xhat, meanGx));
    Value dInput =
        b.create<arith::MulFOp>(loc, elements[numInputs + 2], centred);
    return {dInput, Value(), Value()};
  }

private:
  /// x̂ = (x - mean)·rstd at one element.
  Value normalised(OpBuilder &b, Location loc, ValueRange elements) const {
    Value centred = b.create<arith::SubFOp>(loc, elements[numInputs],
                                            elements[numInputs + 1]);
    return b.create<arith::MulFOp>(loc, centred, elements[numInputs + 2]);
  }

  Value gamma, beta;
  unsigned gammaAt;
  Value inverseLength;
};

} // namespace

std::unique_ptr<RowReductionRule>
rvnn::exec::emitLayerNormStatistics(Stages &s, Block &body, LayerNormOp norm) {
  return std::make_unique<LayerNormRule>(s, body, norm);
}
