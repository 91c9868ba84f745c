// The names of the executor's kernel modes and recomputation policies, as
// run configurations and command lines spell them. Apart from the executor
// so that readers of those (and their fuzz targets) need no executor.
#include "rvnn/Runtime/Executor.h"

namespace rvnn::runtime {

std::optional<KernelMode> parseKernelMode(std::string_view name) {
  if (name == "generated")
    return KernelMode::Generated;
  if (name == "reference")
    return KernelMode::Reference;
  return std::nullopt;
}

std::string_view kernelModeName(KernelMode mode) {
  return mode == KernelMode::Generated ? "generated" : "reference";
}

std::optional<RecomputePolicy> parseRecomputePolicy(std::string_view name) {
  if (name == "save")
    return RecomputePolicy::Save;
  if (name == "recompute")
    return RecomputePolicy::Recompute;
  return std::nullopt;
}

std::string_view recomputePolicyName(RecomputePolicy policy) {
  return policy == RecomputePolicy::Save ? "save" : "recompute";
}

} // namespace rvnn::runtime
