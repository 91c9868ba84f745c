//===- SoftmaxRule.cpp - A softmax in a generated kernel -----------------===//
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

#include "RowReductionKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::rvnn::exec;

namespace {

/// masked_softmax's floor on every probability before renormalising.
constexpr double kMaskedFloor = 1e-20;

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

/// The masked softmax's p = u / Z.
Value renormalised(Arith &a, const StatsScalars &stats, Value s) {
  return a.div(floored(a, stats, s), stats.total());
}

class SoftmaxRule : public RowReductionRule {
public:
  SoftmaxRule(Stages &s, Block &body, Operation *softmax)
      : RowReductionRule(body.getNumArguments()),
        masked(isa<MaskedSoftmaxOp>(softmax)) {
    SmallVector<Value> inputs(softmax->getOperands());
    operands = s.bodyValues(body, inputs, softmax);
    maps.assign(inputs.size(), s.full());
    Value x = operands.front();
    const unsigned at = numInputs;

    Value max = s.rowFolds(x, s.full(), RowFold::max,
                           [&](OpBuilder &, Location, ValueRange elements) {
                             return SmallVector<Value>{elements[at]};
                           })[0];
    Value sum =
        s.rowSums({x, max}, {s.full(), s.rows()}, 1,
                  [&](OpBuilder &gb, Location loc, ValueRange elements) {
                    Arith a{gb, loc};
                    return SmallVector<Value>{
                        a.exp(a.sub(elements[at], elements[at + 1]))};
                  })[0];
    Value inverseSum =
        s.rowwise(sum, [&](OpBuilder &gb, Location loc, ValueRange elements) {
          Arith a{gb, loc};
          Value one = a.c(1.0, elements[0].getType());
          gb.create<linalg::YieldOp>(loc, a.div(one, elements[0]));
        });
    operands.append({max, inverseSum});
    maps.append({s.rows(), s.rows()});
    if (!masked)
      return;

    Value total = s.rowSums(
        operands, maps, 1,
        [&](OpBuilder &gb, Location loc, ValueRange elements) {
          Arith a{gb, loc};
          StatsScalars stats = statsAt(elements);
          return SmallVector<Value>{floored(a, stats, softmaxScalar(a, stats))};
        })[0];
    operands.push_back(total);
    maps.push_back(s.rows());
  }

  Value result(OpBuilder &b, Location loc, ValueRange elements,
               const DenseMap<Value, Value> &) const override {
    Arith a{b, loc};
    StatsScalars stats = statsAt(elements);
    Value s = softmaxScalar(a, stats);
    return masked ? renormalised(a, stats, s) : s;
  }

  /// Σ dp·s (softmax); Σ dp·p, A = Σ dp·mask·s, D = Σ dp and M = Σ mask·s
  /// (masked).
  unsigned numBackwardSums() const override { return masked ? 4 : 1; }
  SmallVector<Value> backwardTerms(OpBuilder &b, Location loc,
                                   ValueRange elements,
                                   Value dp) const override {
    Arith a{b, loc};
    StatsScalars stats = statsAt(elements);
    Value s = softmaxScalar(a, stats);
    if (!masked)
      return {a.mul(dp, s)};
    Value p = renormalised(a, stats, s);
    Value maskedS = a.mul(stats.mask(), s);
    return {a.mul(dp, p), a.mul(dp, maskedS), dp, maskedS};
  }

  /// The masked closed form reads the row length.
  void beginAdjoints(Stages &s) override {
    if (masked)
      rowLength = s.rowLength();
  }

  /// x's s·(dp - Σ dp·s), or the masked closed form's x and mask
  /// contributions (the file comment).
  SmallVector<Value> adjoints(OpBuilder &b, Location loc, ValueRange elements,
                              Value dp, ValueRange sums,
                              const DenseMap<Value, Value> &) const override {
    Arith a{b, loc};
    StatsScalars stats = statsAt(elements);
    Value s = softmaxScalar(a, stats);
    if (!masked)
      return {a.mul(s, a.sub(dp, sums[0]))};
    Value dpDotP = sums[0], sumA = sums[1], sumD = sums[2], sumM = sums[3];
    Value total = stats.total();
    Value du = a.div(a.sub(dp, dpDotP), total);
    Value ds = a.mul(du, stats.mask());
    Value scale = a.div(a.c(kMaskedFloor, dp.getType()), total);
    Value spread = a.sub(a.mul(rowLength, sumA), a.mul(sumD, sumM));
    Value dsDotS = a.div(a.mul(scale, spread), total);
    Value dx = a.mul(s, a.sub(ds, dsDotS));
    return {dx, a.mul(du, s)};
  }

private:
  StatsScalars statsAt(ValueRange elements) const {
    return {elements, numInputs, masked};
  }

  bool masked;
  Value rowLength;
};

} // namespace

std::unique_ptr<RowReductionRule>
rvnn::exec::emitSoftmaxStatistics(Stages &s, Block &body, Operation *softmax) {
  return std::make_unique<SoftmaxRule>(s, body, softmax);
}
