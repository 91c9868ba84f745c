// Helpers shared by the op handlers (ControlOps.cpp .. KernelOps.cpp): reading
// attributes and operand groups of a plan op. Names and keywords come from the
// execution contract; see rvnn/Dialect/Exec/ExecContract.h.
#ifndef RVNN_LIB_RUNTIME_EXEC_HANDLERS_H
#define RVNN_LIB_RUNTIME_EXEC_HANDLERS_H

#include "rvnn/Dialect/Exec/ExecContract.h"
#include "rvnn/Runtime/Executor.h"

#include <array>
#include <string>
#include <string_view>
#include <tuple>

namespace rvnn::runtime {

/// The contract's op records, e.g. exec::GemmOp::attr::transpose_rhs.
namespace exec = rvnn::contract::ops;

void registerControlOps(OpRegistry &registry);
void registerScalarOps(OpRegistry &registry);
void registerViewOps(OpRegistry &registry);
void registerLibraryOps(OpRegistry &registry);
void registerKernelOps(OpRegistry &registry);
void registerDispatchOps(OpRegistry &registry);

const nlohmann::json &attr(const PlanOp &op, std::string_view name);

template <typename T> T attrAs(const PlanOp &op, std::string_view name) {
  return attr(op, name).get<T>();
}

inline bool hasAttr(const PlanOp &op, std::string_view name) {
  return op.attrs.contains(std::string(name));
}

/// An enum attribute, parsed by the contract's parse function for its enum
/// (e.g. contract::parseElementwiseFn).
template <typename Parse>
auto enumAttr(const PlanOp &op, std::string_view name, Parse parse) {
  std::string keyword = attrAs<std::string>(op, name);
  auto value = parse(keyword);
  if (!value)
    throw PlanError(op.where() + ": unknown " + std::string(name) + " '" +
                    keyword + "'");
  return *value;
}

/// The operand positions [begin, begin + size) of one operand group of an op
/// with optional or variadic groups (its `operandSegmentSizes`).
struct OperandGroup {
  size_t begin = 0;
  size_t size = 0;
};
OperandGroup operandGroup(const PlanOp &op, size_t group);

/// Handlers of ops whose result is a function of their tensor operands only.
template <size_t Arity, typename Fn> OpHandler tensors(Fn fn) {
  return [fn](Executor &, const PlanOp &op, Frame &frame) {
    std::array<torch::Tensor, Arity> in;
    for (size_t i = 0; i < Arity; ++i)
      in[i] = frame.tensor(op, i);
    frame.setResult(op, 0, std::apply(fn, in));
  };
}

} // namespace rvnn::runtime

#endif // RVNN_LIB_RUNTIME_EXEC_HANDLERS_H
