// rvnn_exec.expose_structure: records the value a model exposes as its
// induced structure, when the caller asked for it (ExecutionContext).
#include "Handlers.h"

#include "rvnn/Runtime/StructureTrace.h"

namespace rvnn::runtime {
namespace {

using Expose = exec::ExposeStructureOp;

void exposeStructure(Executor &executor, const PlanOp &op, Frame &frame) {
  StructureTrace *trace = executor.context().structureTrace;
  if (!trace)
    return;
  StructureRecord record{
      enumAttr(op, Expose::attr::kind, contract::parseStructureKind),
      hasAttr(op, Expose::attr::arity)
          ? attrAs<int64_t>(op, Expose::attr::arity)
          : 0,
      hasAttr(op, Expose::attr::factor)
          ? attrAs<int64_t>(op, Expose::attr::factor)
          : 1,
      frame.tensor(op, Expose::operand::value).detach().to(torch::kCPU).clone(),
      op.where()};
  trace->push_back(std::move(record));
}

bool hasExposure(const PlanRegion &region) {
  for (const PlanOp &op : region.body) {
    if (op.name == Expose::name)
      return true;
    for (const PlanRegion &nested : op.regions)
      if (hasExposure(nested))
        return true;
  }
  return false;
}

} // namespace

void registerExposeStructureOp(OpRegistry &registry) {
  registry[Expose::name] = exposeStructure;
}

bool exposesStructure(const Plan &plan) {
  for (const auto &entry : plan.functions)
    if (hasExposure(entry.second.body))
      return true;
  return false;
}

} // namespace rvnn::runtime
