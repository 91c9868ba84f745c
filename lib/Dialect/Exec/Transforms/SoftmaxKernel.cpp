//===- SoftmaxKernel.cpp - Kernels with a softmax -------------------------===//
//
// masked_softmax: s = softmax(x), u = s·mask + 1e-20, Z = Σ u, p = u / Z
// (RvnnNNOps.td). Its backward is the runtime's closed form
// (lib/Runtime/Ops/NN.cpp): du = (dp - Σ dp·p) / Z, ds = du·mask,
// Σ ds·s = (1e-20 / Z)·(n·A - D·M) / Z with A = Σ dp·mask·s, D = Σ dp and
// M = Σ mask·s, dx = s·(ds - Σ ds·s), dmask = du·s: summed as written,
// Σ ds·s would be a difference of O(1) terms whose float32 rounding noise
// becomes every masked entry's gradient.
//
//===----------------------------------------------------------------------===//

#include "SoftmaxKernel.h"
#include "KernelScalars.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::rvnn::exec;

namespace {

/// masked_softmax's floor on every probability before renormalising.
constexpr double kMaskedFloor = 1e-20;

/// A softmax's statistics as generic operands: its input x (and mask), the
/// row max, 1 / Σ exp(x - max) (and, masked, Z = Σ u).
struct SoftmaxStats {
  bool masked;
  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;
};

/// The statistics' scalars at one element of a generic whose elements hold
/// the stats operands from `at`.
struct StatsScalars {
  ValueRange elements;
  unsigned at;
  bool masked;

  Value x() const { return elements[at]; }
  Value mask() const { return elements[at + 1]; }
  Value max() const { return elements[at + (masked ? 2 : 1)]; }
  Value inverseSum() const { return elements[at + (masked ? 3 : 2)]; }
  Value total() const { return elements[at + 4]; }
};

/// Scalar arith at one element, without fast-math flags.
struct Arith {
  OpBuilder &b;
  Location loc;

  Value add(Value x, Value y) { return b.create<arith::AddFOp>(loc, x, y); }
  Value sub(Value x, Value y) { return b.create<arith::SubFOp>(loc, x, y); }
  Value mul(Value x, Value y) { return b.create<arith::MulFOp>(loc, x, y); }
  Value div(Value x, Value y) { return b.create<arith::DivFOp>(loc, x, y); }
  Value exp(Value x) { return b.create<math::ExpOp>(loc, x); }
  Value c(double value, Type type) {
    return b.create<arith::ConstantOp>(loc, type, b.getFloatAttr(type, value));
  }
};

/// softmax(x) at one element: exp(x - max)·(1 / Σ).
Value softmaxScalar(Arith &a, const StatsScalars &stats) {
  Value e = a.exp(a.sub(stats.x(), stats.max()));
  return a.mul(e, stats.inverseSum());
}

/// u = s·mask + 1e-20, before renormalising.
Value floored(Arith &a, const StatsScalars &stats, Value s) {
  Value masked = a.mul(s, stats.mask());
  return a.add(masked, a.c(kMaskedFloor, s.getType()));
}

/// The op's result at one element.
Value resultScalar(Arith &a, const StatsScalars &stats) {
  Value s = softmaxScalar(a, stats);
  if (!stats.masked)
    return s;
  return a.div(floored(a, stats, s), stats.total());
}

SoftmaxStats emitStats(Stages &s, Block &body, Operation *softmax) {
  SoftmaxStats stats;
  stats.masked = isa<MaskedSoftmaxOp>(softmax);
  SmallVector<Value> operands(softmax->getOperands());
  stats.operands = s.bodyValues(body, operands, softmax);
  stats.maps.assign(operands.size(), s.full());
  const unsigned at = body.getNumArguments();
  Value x = stats.operands.front();

  Value max = s.rowFolds(x, s.full(), RowFold::max,
                         [&](OpBuilder &, Location, ValueRange elements) {
                           return SmallVector<Value>{elements[at]};
                         })[0];
  Value sum = s.rowSums({x, max}, {s.full(), s.rows()}, 1,
                        [&](OpBuilder &gb, Location loc, ValueRange elements) {
                          Arith a{gb, loc};
                          Value centred = a.sub(elements[at], elements[at + 1]);
                          return SmallVector<Value>{a.exp(centred)};
                        })[0];
  Value inverseSum =
      s.rowwise(sum, [&](OpBuilder &gb, Location loc, ValueRange elements) {
        Arith a{gb, loc};
        Value one = a.c(1.0, elements[0].getType());
        gb.create<linalg::YieldOp>(loc, a.div(one, elements[0]));
      });
  stats.operands.append({max, inverseSum});
  stats.maps.append({s.rows(), s.rows()});
  if (!stats.masked)
    return stats;

  Value total =
      s.rowSums(stats.operands, stats.maps, 1,
                [&](OpBuilder &gb, Location loc, ValueRange elements) {
                  Arith a{gb, loc};
                  StatsScalars scalars{elements, at, true};
                  return SmallVector<Value>{
                      floored(a, scalars, softmaxScalar(a, scalars))};
                })[0];
  stats.operands.push_back(total);
  stats.maps.push_back(s.rows());
  return stats;
}

/// The body's scalars at one element of a full-space stage whose operands
/// are the dispatch's inputs, then the stats operands.
void emitScalarsWithSoftmax(OpBuilder &b, Location loc, Block &body,
                            const SoftmaxStats &stats, ValueRange elements,
                            DenseMap<Value, Value> &scalar) {
  unsigned at = body.getNumArguments();
  emitForwardScalars(b, loc, body, elements.take_front(at), scalar,
                     [&](Operation *) {
                       Arith a{b, loc};
                       return resultScalar(a, {elements, at, stats.masked});
                     });
}

/// The per-row sums the backward needs, at one element: Σ dp·s (softmax);
/// Σ dp·p, A = Σ dp·mask·s, D = Σ dp and M = Σ mask·s (masked).
SmallVector<Value> backwardTerms(Arith &a, const StatsScalars &stats,
                                 Value dp) {
  Value s = softmaxScalar(a, stats);
  if (!stats.masked)
    return {a.mul(dp, s)};
  Value p = a.div(floored(a, stats, s), stats.total());
  Value maskedS = a.mul(stats.mask(), s);
  return {a.mul(dp, p), a.mul(dp, maskedS), dp, maskedS};
}

/// The contributions to the softmax's operands (x, and mask) given dp and
/// the row sums of backwardTerms() from `sumsAt`.
SmallVector<Value> softmaxAdjoints(Arith &a, const StatsScalars &stats,
                                   Value dp, ValueRange elements,
                                   unsigned sumsAt, Value rowLength) {
  Value s = softmaxScalar(a, stats);
  if (!stats.masked)
    return {a.mul(s, a.sub(dp, elements[sumsAt]))};
  Value dpDotP = elements[sumsAt], sumA = elements[sumsAt + 1],
        sumD = elements[sumsAt + 2], sumM = elements[sumsAt + 3];
  Value total = stats.total();
  Value du = a.div(a.sub(dp, dpDotP), total);
  Value ds = a.mul(du, stats.mask());
  Value scale = a.div(a.c(kMaskedFloor, dp.getType()), total);
  Value spread = a.sub(a.mul(rowLength, sumA), a.mul(sumD, sumM));
  Value dsDotS = a.div(a.mul(scale, spread), total);
  Value dx = a.mul(s, a.sub(ds, dsDotS));
  return {dx, a.mul(du, s)};
}

} // namespace

void rvnn::exec::emitSoftmaxKernel(OpBuilder &b, DispatchOp dispatch,
                                   const KernelSignature &signature) {
  Location loc = dispatch.getLoc();
  Block &body = dispatch.getBody().front();
  KernelFunction kernel = beginForwardKernel(b, dispatch);
  OpBuilder &fb = kernel.builder;
  Stages s(fb, loc, signature, kernel.inputs);
  SoftmaxStats stats = emitStats(s, body, signature.rowReduction);
  SmallVector<Value> results = emitBodyResults(
      s, body, stats.operands, stats.maps, kernel.outs,
      [&](OpBuilder &gb, Location loc, ValueRange elements,
          DenseMap<Value, Value> &scalar) {
        emitScalarsWithSoftmax(gb, loc, body, stats, elements, scalar);
      });
  fb.create<func::ReturnOp>(loc, results);
}

void rvnn::exec::emitSoftmaxKernelGrad(OpBuilder &b, DispatchOp dispatch,
                                       const KernelSignature &signature,
                                       StringRef name) {
  Location loc = dispatch.getLoc();
  Block &body = dispatch.getBody().front();
  Operation *softmax = signature.rowReduction;
  unsigned numInputs = dispatch.getInputs().size();
  unsigned numResults = dispatch.getNumResults();
  KernelFunction kernel = beginBackwardKernel(b, dispatch, name);
  OpBuilder &fb = kernel.builder;
  ValueRange dys = kernel.dys, dxs = kernel.outs;
  Stages s(fb, loc, signature, kernel.inputs);
  SoftmaxStats stats = emitStats(s, body, softmax);
  auto scalarsWithSoftmax = [&](OpBuilder &gb, Location loc,
                                ValueRange elements,
                                DenseMap<Value, Value> &scalar) {
    emitScalarsWithSoftmax(gb, loc, body, stats, elements, scalar);
  };

  // 1. dp: the softmax output's cotangent.
  Value dp = emitReductionCotangent(s, body, softmax, stats.operands,
                                    stats.maps, dys, scalarsWithSoftmax);

  // 2. Its row sums.
  SmallVector<Value> withDp(stats.operands);
  withDp.push_back(dp);
  SmallVector<AffineMap> withDpMaps(stats.maps);
  withDpMaps.push_back(s.full());
  const unsigned statsAt = numInputs, dpAt = statsAt + stats.operands.size();
  unsigned numSums = stats.masked ? 4 : 1;
  SmallVector<Value> rowSums =
      s.rowSums(withDp, withDpMaps, numSums,
                [&](OpBuilder &gb, Location loc, ValueRange elements) {
                  Arith a{gb, loc};
                  return backwardTerms(a, {elements, statsAt, stats.masked},
                                       elements[dpAt]);
                });

  // 3. Reverse mode over the whole body, the softmax's operands through its
  //    rule.
  SmallVector<Value> last(stats.operands);
  llvm::append_range(last, dys);
  llvm::append_range(last, rowSums);
  SmallVector<AffineMap> lastMaps(stats.maps);
  lastMaps.append(numResults, s.full());
  lastMaps.append(numSums, s.rows());
  const unsigned dyAt = statsAt + stats.operands.size(),
                 sumsAt = dyAt + numResults;
  Value rowLength = s.rowLength();
  auto inputAdjoints = [&](OpBuilder &gb, Location loc, ValueRange elements,
                           ArrayRef<unsigned> positions) {
    DenseMap<Value, Value> scalar, adjoint;
    scalarsWithSoftmax(gb, loc, elements, scalar);
    emitReverseSweep(gb, loc, body, elements.slice(dyAt, numResults), scalar,
                     adjoint, [&](Operation *, Value d) {
                       Arith a{gb, loc};
                       return softmaxAdjoints(a,
                                              {elements, statsAt, stats.masked},
                                              d, elements, sumsAt, rowLength);
                     });
    return argumentAdjoints(gb, loc, body, positions, adjoint);
  };
  SmallVector<Value> grads(numInputs);
  s.inputCotangents(last, lastMaps, dxs, inputAdjoints, grads);
  fb.create<func::ReturnOp>(loc, grads);
}
