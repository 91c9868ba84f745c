// Scalar ops: constants, integer arithmetic on shapes and step counters,
// tensor sizes, the chunked recursion's level count and evaluation options.
#include "Handlers.h"

#include "rvnn/Runtime/Ops/Recursion.h"

#include <algorithm>

namespace rvnn::runtime {
namespace {

using nlohmann::json;

/// An index scalar (`value` is an integer) or a dense tensor (`value` is
/// {"values": [...], "type": ...}).
void constant(Executor &executor, const PlanOp &op, Frame &frame) {
  const ValueType &type = op.resultTypes.at(0);
  const json &value = attr(op, exec::ConstantOp::attr::value);
  if (!type.tensor) {
    frame.setResult(op, 0, value.get<int64_t>());
    return;
  }
  frame.setResult(op, 0, executor.constant(op, [&] {
    std::vector<double> values = value.at("values").get<std::vector<double>>();
    return torch::tensor(values, torch::dtype(torch::kDouble))
        .reshape(type.shape)
        .to(executor.context().device, scalarType(type.dtype));
  }));
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// floordiv and ceildiv round towards -inf and +inf, div and rem towards
/// zero; or is bitwise.
void indexArith(Executor &, const PlanOp &op, Frame &frame) {
  using Kind = contract::IndexArithKind;
  Kind kind = enumAttr(op, exec::IndexArithOp::attr::kind,
                       contract::parseIndexArithKind);
  int64_t a = frame.integer(op, 0);
  int64_t b = frame.integer(op, 1);
  bool divides = kind == Kind::floordiv || kind == Kind::ceildiv ||
                 kind == Kind::div || kind == Kind::rem;
  if (divides && b == 0)
    throw PlanError(op.where() + ": division by zero");
  int64_t result = 0;
  switch (kind) {
  case Kind::add:
    result = a + b;
    break;
  case Kind::sub:
    result = a - b;
    break;
  case Kind::mul:
    result = a * b;
    break;
  case Kind::floordiv:
    result = floorDiv(a, b);
    break;
  case Kind::ceildiv:
    result = -floorDiv(-a, b);
    break;
  case Kind::div:
    result = a / b;
    break;
  case Kind::rem:
    result = a % b;
    break;
  case Kind::max:
    result = std::max(a, b);
    break;
  case Kind::min:
    result = std::min(a, b);
    break;
  case Kind::bit_or:
    result = a | b;
    break;
  }
  frame.setResult(op, 0, result);
}

void dim(Executor &, const PlanOp &op, Frame &frame) {
  torch::Tensor source = frame.tensor(op, 0);
  int64_t index = frame.integer(op, 1);
  if (index < 0 || index >= source.dim())
    throw PlanError(op.where() + ": dim index " + std::to_string(index) +
                    " out of range for rank " + std::to_string(source.dim()));
  frame.setResult(op, 0, source.size(index));
}

/// The level count of the outer chunked recursion over `length` items.
void chunkDepth(Executor &, const PlanOp &op, Frame &frame) {
  frame.setResult(
      op, 0,
      ops::chunkDepth(frame.integer(op, 0),
                      attrAs<int64_t>(op, exec::ChunkDepthOp::attr::size)));
}

/// An evaluation option: fixed in training; at evaluation the run's value, or
/// the op's evaluation default.
void evalOption(Executor &executor, const PlanOp &op, Frame &frame) {
  const ExecutionContext &context = executor.context();
  int64_t value = attrAs<int64_t>(op, exec::EvalOptionOp::attr::training);
  if (!context.training) {
    auto given = context.evalOptions.find(
        stringAttr(op, exec::EvalOptionOp::attr::name));
    value = given != context.evalOptions.end()
                ? given->second
                : attrAs<int64_t>(op, exec::EvalOptionOp::attr::evaluation);
  }
  frame.setResult(op, 0, value);
}

} // namespace

/// The draw stream's offset: an index, whose int64 holds the uint64 offset
/// (offsets stay far below 2^63).
void drawPosition(Executor &executor, const PlanOp &op, Frame &frame) {
  frame.setResult(op, 0, static_cast<int64_t>(executor.context().draws.offset));
}

void registerScalarOps(OpRegistry &r) {
  r[exec::ConstantOp::name] = constant;
  r[exec::IndexArithOp::name] = indexArith;
  r[exec::DimOp::name] = dim;
  r[exec::ChunkDepthOp::name] = chunkDepth;
  r[exec::EvalOptionOp::name] = evalOption;
  r[exec::DrawPositionOp::name] = drawPosition;
}

} // namespace rvnn::runtime
