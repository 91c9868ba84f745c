//===- RowNormKernel.cpp - Kernels with a layer norm ----------------------===//

#include "RowNormKernel.h"
#include "KernelScalars.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::rvnn::exec;

namespace {

/// The layer norm's input and its per-row mean and rstd, as tensors; as
/// generic operands in this order (statsOperands, statsMaps).
struct NormInput {
  Value input, mean, rstd;
};

SmallVector<Value> statsOperands(const NormInput &norm) {
  return {norm.input, norm.mean, norm.rstd};
}
SmallVector<AffineMap> statsMaps(const Stages &s) {
  return {s.full(), s.rows(), s.rows()};
}

/// x̂ = (x - mean)·rstd at one element, the stats operands at
/// `elements[first..first+2]`.
Value normalised(OpBuilder &b, Location loc, ValueRange elements,
                 unsigned first) {
  Value centred =
      b.create<arith::SubFOp>(loc, elements[first], elements[first + 1]);
  return b.create<arith::MulFOp>(loc, centred, elements[first + 2]);
}

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

/// The layer norm's scalar x̂·γ + β at one element.
Value normScalar(OpBuilder &b, Location loc, LayerNormOp norm,
                 ValueRange elements, unsigned statsAt,
                 const DenseMap<Value, Value> &scalar) {
  Value scaled =
      b.create<arith::MulFOp>(loc, normalised(b, loc, elements, statsAt),
                              scalar.lookup(norm.getGamma()));
  return b.create<arith::AddFOp>(loc, scaled, scalar.lookup(norm.getBeta()));
}

/// The body's scalars at one element of a full-space stage whose operands
/// are the dispatch's inputs, then the stats operands at `statsAt`.
void emitScalarsWithNorm(OpBuilder &b, Location loc, Block &body,
                         LayerNormOp norm, ValueRange elements,
                         unsigned statsAt, DenseMap<Value, Value> &scalar) {
  emitForwardScalars(b, loc, body, elements.take_front(body.getNumArguments()),
                     scalar, [&](Operation *) {
                       return normScalar(b, loc, norm, elements, statsAt,
                                         scalar);
                     });
}

} // namespace

void rvnn::exec::emitRowNormKernel(OpBuilder &b, DispatchOp dispatch,
                                   const KernelSignature &signature) {
  Location loc = dispatch.getLoc();
  Block &body = dispatch.getBody().front();
  auto norm = cast<LayerNormOp>(signature.rowReduction);
  unsigned numInputs = dispatch.getInputs().size();
  KernelFunction kernel = beginForwardKernel(b, dispatch);
  OpBuilder &fb = kernel.builder;
  Stages s(fb, loc, signature, kernel.inputs);
  NormInput input = emitNormInput(s, body, norm);

  SmallVector<Value> results = emitBodyResults(
      s, body, statsOperands(input), statsMaps(s), kernel.outs,
      [&](OpBuilder &gb, Location loc, ValueRange elements,
          DenseMap<Value, Value> &scalar) {
        emitScalarsWithNorm(gb, loc, body, norm, elements, numInputs, scalar);
      });
  fb.create<func::ReturnOp>(loc, results);
}

void rvnn::exec::emitRowNormKernelGrad(OpBuilder &b, DispatchOp dispatch,
                                       const KernelSignature &signature,
                                       StringRef name) {
  Location loc = dispatch.getLoc();
  Block &body = dispatch.getBody().front();
  auto norm = cast<LayerNormOp>(signature.rowReduction);
  unsigned numInputs = dispatch.getInputs().size();
  unsigned numResults = dispatch.getNumResults();
  KernelFunction kernel = beginBackwardKernel(b, dispatch, name);
  OpBuilder &fb = kernel.builder;
  ValueRange dys = kernel.dys, dxs = kernel.outs;
  Stages s(fb, loc, signature, kernel.inputs);
  NormInput input = emitNormInput(s, body, norm);
  const unsigned statsAt = numInputs, dyAt = statsAt + 3;
  unsigned gammaAt = cast<BlockArgument>(norm.getGamma()).getArgNumber();

  // 1. dŷ: the layer norm output's cotangent, from the ops after it; a norm
  //    that only a result reads has that result's cotangent.
  Value dNorm = emitReductionCotangent(
      s, body, norm, statsOperands(input), statsMaps(s), dys,
      [&](OpBuilder &gb, Location loc, ValueRange elements,
          DenseMap<Value, Value> &scalar) {
        emitScalarsWithNorm(gb, loc, body, norm, elements, statsAt, scalar);
      });

  // Stage operands from here: the stats, then dŷ.
  SmallVector<Value> withDNorm = statsOperands(input);
  withDNorm.push_back(dNorm);
  SmallVector<AffineMap> withDNormMaps = statsMaps(s);
  withDNormMaps.push_back(s.full());

  // 2. Per row: Σ dŷ·γ and Σ dŷ·γ·x̂.
  SmallVector<Value> rowSums =
      s.rowSums(withDNorm, withDNormMaps, 2,
                [&](OpBuilder &gb, Location loc, ValueRange elements) {
                  Value g = gb.create<arith::MulFOp>(loc, elements[dyAt],
                                                     elements[gammaAt]);
                  Value gx = gb.create<arith::MulFOp>(
                      loc, g, normalised(gb, loc, elements, statsAt));
                  return SmallVector<Value>{g, gx};
                });

  // 3. The row operands' cotangents: column sums of dŷ·x̂ (gamma) and dŷ
  //    (beta).
  SmallVector<unsigned> rowPositions = signature.positions(InputKind::row);
  SmallVector<Value> rowGrads;
  if (!rowPositions.empty()) {
    SmallVector<Value> outs;
    for (unsigned position : rowPositions)
      outs.push_back(s.zeros(dxs[position]));
    rowGrads = s.generic(
        withDNorm, withDNormMaps, outs,
        SmallVector<AffineMap>(rowPositions.size(), s.column()),
        s.columnReduction(),
        [&](OpBuilder &gb, Location loc, ValueRange elements) {
          Value dy = elements[dyAt];
          Value dGamma = gb.create<arith::MulFOp>(
              loc, dy, normalised(gb, loc, elements, statsAt));
          ValueRange sums = elements.take_back(rowPositions.size());
          SmallVector<Value> next;
          for (auto [sum, position] : llvm::zip_equal(sums, rowPositions)) {
            BlockArgument argument = body.getArgument(position);
            Value total = sum;
            if (argument == norm.getGamma())
              total = gb.create<arith::AddFOp>(loc, total, dGamma);
            if (argument == norm.getBeta())
              total = gb.create<arith::AddFOp>(loc, total, dy);
            next.push_back(total);
          }
          gb.create<linalg::YieldOp>(loc, next);
        });
  }

  // 4. Reverse mode over the whole body, the layer norm's input through
  //    rstd·(dŷ·γ - Σ dŷ·γ / D - x̂·Σ dŷ·γ·x̂ / D).
  SmallVector<Value> last = statsOperands(input);
  llvm::append_range(last, dys);
  llvm::append_range(last, rowSums);
  SmallVector<AffineMap> lastMaps = statsMaps(s);
  lastMaps.append(numResults, s.full());
  lastMaps.append({s.rows(), s.rows()});
  const unsigned rowSumsAt = dyAt + numResults;
  Value inverseLength = s.inverseRowLength();
  auto inputAdjoints = [&](OpBuilder &gb, Location loc, ValueRange elements,
                           ArrayRef<unsigned> positions) {
    DenseMap<Value, Value> scalar, adjoint;
    emitScalarsWithNorm(gb, loc, body, norm, elements, statsAt, scalar);
    emitReverseSweep(
        gb, loc, body, elements.slice(dyAt, numResults), scalar, adjoint,
        [&](Operation *, Value d) -> SmallVector<Value> {
          Value g =
              gb.create<arith::MulFOp>(loc, d, scalar.lookup(norm.getGamma()));
          Value meanG =
              gb.create<arith::MulFOp>(loc, elements[rowSumsAt], inverseLength);
          Value meanGx = gb.create<arith::MulFOp>(loc, elements[rowSumsAt + 1],
                                                  inverseLength);
          Value xhat = normalised(gb, loc, elements, statsAt);
          Value centred = gb.create<arith::SubFOp>(
              loc, gb.create<arith::SubFOp>(loc, g, meanG),
              gb.create<arith::MulFOp>(loc, xhat, meanGx));
          Value dInput =
              gb.create<arith::MulFOp>(loc, elements[statsAt + 2], centred);
          return {dInput, Value(), Value()};
        });
    return argumentAdjoints(gb, loc, body, positions, adjoint);
  };
  SmallVector<Value> grads(numInputs);
  s.inputCotangents(last, lastMaps, dxs, inputAdjoints, grads);
  for (auto [position, grad] : llvm::zip_equal(rowPositions, rowGrads))
    grads[position] = grad;
  fb.create<func::ReturnOp>(loc, grads);
}
