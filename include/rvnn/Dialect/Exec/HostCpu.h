// Which of the execution contract's CPU levels (kKernelCpuLevels) this
// machine runs. Shared by the compiler (the level a kernel library is built
// for by default) and the runtime (the check when it loads one), so both ask
// the same question the same way. Plain C++17.

#ifndef RVNN_DIALECT_EXEC_HOSTCPU_H
#define RVNN_DIALECT_EXEC_HOSTCPU_H

#include "rvnn/Dialect/Exec/ExecContract.h"

#include <string_view>

namespace rvnn::contract {

static_assert(kKernelCpuLevels.size() == 4,
              "hostRunsCpuLevel asks the CPU about each level by name");

/// Whether this machine runs code compiled for `level`, one of
/// kKernelCpuLevels; false for any other name, and off x86-64.
inline bool hostRunsCpuLevel(std::string_view level) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // The builtins take the level's name as a literal.
  __builtin_cpu_init();
  if (level == kKernelCpuLevels[0])
    return true;
  if (level == kKernelCpuLevels[1])
    return __builtin_cpu_supports("x86-64-v2");
  if (level == kKernelCpuLevels[2])
    return __builtin_cpu_supports("x86-64-v3");
  if (level == kKernelCpuLevels[3])
    return __builtin_cpu_supports("x86-64-v4");
#endif
  (void)level;
  return false;
}

/// The newest of kKernelCpuLevels this machine runs; empty off x86-64.
inline std::string_view hostCpuLevel() {
  for (auto level = kKernelCpuLevels.rbegin(); level != kKernelCpuLevels.rend();
       ++level)
    if (hostRunsCpuLevel(*level))
      return *level;
  return {};
}

} // namespace rvnn::contract

#endif // RVNN_DIALECT_EXEC_HOSTCPU_H
