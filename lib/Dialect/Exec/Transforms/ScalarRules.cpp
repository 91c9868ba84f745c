//===- ScalarRules.cpp - Per-element rules of fusable ops -----------------===//
//
// One table entry per element-level function: its arity, its expansion into
// arith/math ops and its reverse-mode rule. Formulas follow ATen (the
// runtime executes every op with it and checks against it): forward as in
// ATen's CPU kernels, derivatives as in derivatives.yaml / FunctionsManual.
//
//===----------------------------------------------------------------------===//

#include "ScalarRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "rvnn/Dialect/Exec/IR/ExecOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::rvnn::exec;

namespace {

/// Builds arith/math ops on scalars of one float type, without fast-math
/// flags.
struct Scalar {
  OpBuilder &b;
  Location loc;
  Type type;

  Value c(double value) {
    // Rounds to nearest for f32, like a C++ double constant in ATen's float
    // kernels.
    return b.create<arith::ConstantOp>(loc, type, b.getFloatAttr(type, value));
  }
  Value add(Value x, Value y) { return b.create<arith::AddFOp>(loc, x, y); }
  Value sub(Value x, Value y) { return b.create<arith::SubFOp>(loc, x, y); }
  Value mul(Value x, Value y) { return b.create<arith::MulFOp>(loc, x, y); }
  Value div(Value x, Value y) { return b.create<arith::DivFOp>(loc, x, y); }
  Value neg(Value x) { return b.create<arith::NegFOp>(loc, x); }
  Value max(Value x, Value y) { return b.create<arith::MaximumFOp>(loc, x, y); }
  Value min(Value x, Value y) { return b.create<arith::MinimumFOp>(loc, x, y); }
  Value exp(Value x) { return b.create<math::ExpOp>(loc, x); }
  Value log(Value x) { return b.create<math::LogOp>(loc, x); }
  Value tanh(Value x) { return b.create<math::TanhOp>(loc, x); }
  Value sqrt(Value x) { return b.create<math::SqrtOp>(loc, x); }
  Value abs(Value x) { return b.create<math::AbsFOp>(loc, x); }
  Value erf(Value x) { return b.create<math::ErfOp>(loc, x); }
  Value cmp(arith::CmpFPredicate predicate, Value x, Value y) {
    return b.create<arith::CmpFOp>(loc, predicate, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return b.create<arith::SelectOp>(loc, condition, x, y);
  }
};

using Forward = Value (*)(Scalar &s, ValueRange x);
/// Returns the contribution to each operand's adjoint; `r` is the forward
/// result, `d` the result's adjoint.
using Backward = SmallVector<Value> (*)(Scalar &s, ValueRange x, Value r,
                                        Value d);

struct Rule {
  unsigned arity;
  Forward forward;
  Backward backward;
};

/// The element-level functions; ElementwiseFn's float functions map onto the
/// first ones.
enum class Fn {
  neg,
  exp,
  log,
  tanh,
  sqrt,
  abs,
  erf,
  add,
  sub,
  mul,
  div,
  max,
  min,
  sigmoid,
  gelu,
  relu,
  gate,
  broadcast
};

using P = arith::CmpFPredicate;

/// maximum/minimum (ATen): on ties each side gets grad / 2, otherwise the
/// selected side gets it all. `lose` is the predicate under which `x[0]`
/// loses (lt for max, gt for min).
SmallVector<Value> maxMinAdjoints(Scalar &s, ValueRange x, Value d, P lose,
                                  P win) {
  Value zero = s.c(0.0);
  Value tie = s.cmp(P::OEQ, x[0], x[1]);
  Value half = s.div(d, s.c(2.0));
  Value shared = s.select(tie, half, d);
  Value loses = s.cmp(lose, x[0], x[1]);
  Value dx0 = s.select(loses, zero, shared);
  Value wins = s.cmp(win, x[0], x[1]);
  Value dx1 = s.select(wins, zero, shared);
  return {dx0, dx1};
}

// Indexed by Fn. Every entry states the ATen formula it follows. Each op is
// emitted by its own statement (or in a braced list, which C++ evaluates
// left to right) so that the op order does not depend on the compiler's
// order of evaluating function arguments.
const Rule kRules[] = {
    // neg: -x; d(-x) = -d.
    {1, [](Scalar &s, ValueRange x) { return s.neg(x[0]); },
     [](Scalar &s, ValueRange, Value, Value d) -> SmallVector<Value> {
       return {s.neg(d)};
     }},
    // exp: grad * result.
    {1, [](Scalar &s, ValueRange x) { return s.exp(x[0]); },
     [](Scalar &s, ValueRange, Value r, Value d) -> SmallVector<Value> {
       return {s.mul(d, r)};
     }},
    // log: grad / self.
    {1, [](Scalar &s, ValueRange x) { return s.log(x[0]); },
     [](Scalar &s, ValueRange x, Value, Value d) -> SmallVector<Value> {
       return {s.div(d, x[0])};
     }},
    // tanh_backward: grad * (1 - y * y).
    {1, [](Scalar &s, ValueRange x) { return s.tanh(x[0]); },
     [](Scalar &s, ValueRange, Value r, Value d) -> SmallVector<Value> {
       Value one = s.c(1.0);
       Value r2 = s.mul(r, r);
       return {s.mul(d, s.sub(one, r2))};
     }},
    // sqrt: grad / (2 * result).
    {1, [](Scalar &s, ValueRange x) { return s.sqrt(x[0]); },
     [](Scalar &s, ValueRange, Value r, Value d) -> SmallVector<Value> {
       Value two = s.c(2.0);
       return {s.div(d, s.mul(two, r))};
     }},
    // abs: grad * sgn(self), sgn = (0 < x) - (x < 0): 0 at 0 (and NaN).
    {1, [](Scalar &s, ValueRange x) { return s.abs(x[0]); },
     [](Scalar &s, ValueRange x, Value, Value d) -> SmallVector<Value> {
       Value zero = s.c(0.0);
       Value one = s.c(1.0);
       Value minusOne = s.c(-1.0);
       Value positive = s.cmp(P::OGT, x[0], zero);
       Value negative = s.cmp(P::OLT, x[0], zero);
       Value nonPositive = s.select(negative, minusOne, zero);
       Value sign = s.select(positive, one, nonPositive);
       return {s.mul(d, sign)};
     }},
    // erf: 2 / sqrt(pi) * exp(-(x * x)) * grad.
    {1, [](Scalar &s, ValueRange x) { return s.erf(x[0]); },
     [](Scalar &s, ValueRange x, Value, Value d) -> SmallVector<Value> {
       Value scale = s.c(2.0 / std::sqrt(M_PI));
       Value x2 = s.mul(x[0], x[0]);
       Value e = s.exp(s.neg(x2));
       return {s.mul(s.mul(scale, e), d)};
     }},
    // add.
    {2, [](Scalar &s, ValueRange x) { return s.add(x[0], x[1]); },
     [](Scalar &, ValueRange, Value, Value d) -> SmallVector<Value> {
       return {d, d};
     }},
    // sub: other gets -grad.
    {2, [](Scalar &s, ValueRange x) { return s.sub(x[0], x[1]); },
     [](Scalar &s, ValueRange, Value, Value d) -> SmallVector<Value> {
       return {d, s.neg(d)};
     }},
    // mul: grad * other, grad * self.
    {2, [](Scalar &s, ValueRange x) { return s.mul(x[0], x[1]); },
     [](Scalar &s, ValueRange x, Value, Value d) -> SmallVector<Value> {
       return {s.mul(d, x[1]), s.mul(d, x[0])};
     }},
    // div: grad / other; -grad * ((self / other) / other).
    {2, [](Scalar &s, ValueRange x) { return s.div(x[0], x[1]); },
     [](Scalar &s, ValueRange x, Value r, Value d) -> SmallVector<Value> {
       Value dx0 = s.div(d, x[1]);
       Value minusD = s.neg(d);
       return {dx0, s.mul(minusD, s.div(r, x[1]))};
     }},
    // maximum (NaN-propagating).
    {2, [](Scalar &s, ValueRange x) { return s.max(x[0], x[1]); },
     [](Scalar &s, ValueRange x, Value, Value d) {
       return maxMinAdjoints(s, x, d, P::OLT, P::OGT);
     }},
    // minimum (NaN-propagating).
    {2, [](Scalar &s, ValueRange x) { return s.min(x[0], x[1]); },
     [](Scalar &s, ValueRange x, Value, Value d) {
       return maxMinAdjoints(s, x, d, P::OGT, P::OLT);
     }},
    // sigmoid: 1 / (1 + exp(-x)); sigmoid_backward: grad * (1 - y) * y.
    {1,
     [](Scalar &s, ValueRange x) {
       Value one = s.c(1.0);
       Value e = s.exp(s.neg(x[0]));
       return s.div(one, s.add(one, e));
     },
     [](Scalar &s, ValueRange, Value r, Value d) -> SmallVector<Value> {
       Value one = s.c(1.0);
       Value oneMinusR = s.sub(one, r);
       return {s.mul(s.mul(d, oneMinusR), r)};
     }},
    // gelu (exact): x * 0.5 * (1 + erf(x * M_SQRT1_2)); GeluBackward:
    // dy * (cdf + x * pdf), cdf = 0.5 * (1 + erf(x * M_SQRT1_2)),
    // pdf = (M_2_SQRTPI * M_SQRT1_2 * 0.5) * exp(x * x * -0.5).
    {1,
     [](Scalar &s, ValueRange x) {
       Value half = s.c(0.5);
       Value one = s.c(1.0);
       Value alpha = s.c(M_SQRT1_2);
       Value halfX = s.mul(x[0], half);
       Value erf = s.erf(s.mul(x[0], alpha));
       return s.mul(halfX, s.add(one, erf));
     },
     [](Scalar &s, ValueRange x, Value, Value d) -> SmallVector<Value> {
       Value half = s.c(0.5);
       Value one = s.c(1.0);
       Value alpha = s.c(M_SQRT1_2);
       Value beta = s.c(M_2_SQRTPI * M_SQRT1_2 * 0.5);
       Value minusHalf = s.c(-0.5);
       Value erf = s.erf(s.mul(x[0], alpha));
       Value cdf = s.mul(half, s.add(one, erf));
       Value x2 = s.mul(x[0], x[0]);
       Value pdf = s.mul(beta, s.exp(s.mul(x2, minusHalf)));
       Value xPdf = s.mul(x[0], pdf);
       return {s.mul(d, s.add(cdf, xPdf))};
     }},
    // relu: max(x, 0) (NaN-propagating, like clamp_min);
    // threshold_backward(grad, result, 0): result <= 0 ? 0 : grad.
    {1,
     [](Scalar &s, ValueRange x) {
       Value zero = s.c(0.0);
       return s.max(x[0], zero);
     },
     [](Scalar &s, ValueRange, Value r, Value d) -> SmallVector<Value> {
       Value zero = s.c(0.0);
       Value off = s.cmp(P::OLE, r, zero);
       return {s.select(off, zero, d)};
     }},
    // gate(g, n, o) = g * n + (1 - g) * o; dg = d * (n - o), dn = d * g,
    // do = d * (1 - g).
    {3,
     [](Scalar &s, ValueRange x) {
       Value one = s.c(1.0);
       Value gn = s.mul(x[0], x[1]);
       Value oneMinusG = s.sub(one, x[0]);
       Value go = s.mul(oneMinusG, x[2]);
       return s.add(gn, go);
     },
     [](Scalar &s, ValueRange x, Value, Value d) -> SmallVector<Value> {
       Value one = s.c(1.0);
       Value dg = s.mul(d, s.sub(x[1], x[2]));
       Value dn = s.mul(d, x[0]);
       Value oneMinusG = s.sub(one, x[0]);
       return {dg, dn, s.mul(d, oneMinusG)};
     }},
    // broadcast_like(x, ref): x's element; ref is read for its shape only
    // (no contribution), x's cotangent sums d over the broadcast dims
    // (KernelStages' broadcast cotangents).
    {2, [](Scalar &, ValueRange x) { return x[0]; },
     [](Scalar &, ValueRange, Value, Value d) -> SmallVector<Value> {
       return {d, Value()};
     }},
};
static_assert(std::size(kRules) == static_cast<size_t>(Fn::broadcast) + 1,
              "one rule per element-level function");

std::optional<Fn> getFn(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<Fn>>(op)
      .Case([](ElementwiseOp op) -> std::optional<Fn> {
        switch (op.getFn()) {
        case ElementwiseFn::neg:
          return Fn::neg;
        case ElementwiseFn::exp:
          return Fn::exp;
        case ElementwiseFn::log:
          return Fn::log;
        case ElementwiseFn::tanh:
          return Fn::tanh;
        case ElementwiseFn::sqrt:
          return Fn::sqrt;
        case ElementwiseFn::abs:
          return Fn::abs;
        case ElementwiseFn::erf:
          return Fn::erf;
        case ElementwiseFn::add:
          return Fn::add;
        case ElementwiseFn::sub:
          return Fn::sub;
        case ElementwiseFn::mul:
          return Fn::mul;
        case ElementwiseFn::div:
          return Fn::div;
        case ElementwiseFn::max:
          return Fn::max;
        case ElementwiseFn::min:
          return Fn::min;
        case ElementwiseFn::logical_or:
          return std::nullopt;
        }
        return std::nullopt;
      })
      .Case([](SigmoidOp) { return Fn::sigmoid; })
      .Case([](GeluOp) { return Fn::gelu; })
      .Case([](ReluOp) { return Fn::relu; })
      .Case([](GateOp) { return Fn::gate; })
      .Case([](BroadcastLikeOp) { return Fn::broadcast; })
      .Default([](Operation *) { return std::nullopt; });
}

const Rule &getRule(Operation *op) {
  std::optional<Fn> fn = getFn(op);
  assert(fn && "not a fusable op");
  return kRules[static_cast<size_t>(*fn)];
}

} // namespace

RankedTensorType rvnn::exec::getFusableType(Operation *op) {
  std::optional<Fn> fn = getFn(op);
  if (!fn || op->getNumResults() != 1 ||
      op->getNumOperands() != kRules[static_cast<size_t>(*fn)].arity)
    return {};
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !isa<Float32Type, Float64Type>(type.getElementType()))
    return {};
  for (OpOperand &operand : op->getOpOperands()) {
    Type operandType = operand.get().getType();
    if (operandType != type && !(isBroadcastOperandUse(operand) &&
                                 isBroadcastOperand(operandType, type)))
      return {};
  }
  return type;
}

bool rvnn::exec::isBroadcastOperandUse(OpOperand &use) {
  return isa<GateOp, BroadcastLikeOp>(use.getOwner()) &&
         use.getOperandNumber() == 0;
}

bool rvnn::exec::isBroadcastOperand(Type operand, RankedTensorType type) {
  auto shaped = dyn_cast<RankedTensorType>(operand);
  if (!shaped || shaped == type || shaped.getRank() != type.getRank() ||
      shaped.getElementType() != type.getElementType())
    return false;
  return llvm::all_of(llvm::zip_equal(shaped.getShape(), type.getShape()),
                      [](auto dims) {
                        auto [own, full] = dims;
                        return own == full || own == 1;
                      });
}

namespace {

/// The type of a rank >= 2 f32 or f64 tensor value, else null.
RankedTensorType rowReducibleType(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() < 2 ||
      !isa<Float32Type, Float64Type>(type.getElementType()))
    return {};
  return type;
}

RankedTensorType layerNormType(LayerNormOp norm) {
  RankedTensorType type = rowReducibleType(norm.getResult());
  if (!type || norm.getInput().getType() != type)
    return {};
  auto isRow = [&](Value operand) {
    auto row = dyn_cast<RankedTensorType>(operand.getType());
    return row && row.getRank() == 1 &&
           row.getElementType() == type.getElementType() &&
           row.getDimSize(0) == type.getShape().back();
  };
  return isRow(norm.getGamma()) && isRow(norm.getBeta()) ? type
                                                         : RankedTensorType();
}

/// A softmax's type if it runs along the last dim and all its operands
/// have its result's type.
RankedTensorType softmaxType(Operation *op, int64_t dim) {
  RankedTensorType type = rowReducibleType(op->getResult(0));
  if (!type || (dim != -1 && dim != type.getRank() - 1) ||
      !llvm::all_of(op->getOperandTypes(),
                    [&](Type operand) { return operand == type; }))
    return {};
  return type;
}

} // namespace

RankedTensorType rvnn::exec::getFusableRowReductionType(Operation *op) {
  return llvm::TypeSwitch<Operation *, RankedTensorType>(op)
      .Case([](LayerNormOp norm) { return layerNormType(norm); })
      .Case<SoftmaxOp, MaskedSoftmaxOp>(
          [](auto softmax) { return softmaxType(softmax, softmax.getDim()); })
      .Default([](Operation *) { return RankedTensorType(); });
}

RankedTensorType rvnn::exec::getKernelMemberType(Operation *op) {
  if (RankedTensorType type = getFusableType(op))
    return type;
  return getFusableRowReductionType(op);
}

bool rvnn::exec::evaluatesTranscendental(Operation *op) {
  std::optional<Fn> fn = getFn(op);
  if (!fn)
    return false;
  switch (*fn) {
  case Fn::exp:
  case Fn::log:
  case Fn::tanh:
  case Fn::sqrt:
  case Fn::erf:
  case Fn::sigmoid:
  case Fn::gelu:
    return true;
  default:
    return false;
  }
}

Value rvnn::exec::emitScalarForward(OpBuilder &b, Location loc, Operation *op,
                                    ValueRange operands) {
  Scalar s{b, loc, operands.front().getType()};
  return getRule(op).forward(s, operands);
}

SmallVector<Value> rvnn::exec::emitScalarAdjoints(OpBuilder &b, Location loc,
                                                  Operation *op,
                                                  ValueRange operands,
                                                  Value result, Value dResult) {
  Scalar s{b, loc, result.getType()};
  SmallVector<Value> adjoints =
      getRule(op).backward(s, operands, result, dResult);
  assert(adjoints.size() == operands.size() && "one adjoint per operand");
  return adjoints;
}
