#ifndef RVNN_RUNTIME_VECTORCLONES_H
#define RVNN_RUNTIME_VECTORCLONES_H

/// Loops over whole tensors (the optimiser's update, the clipping norm) run
/// an AVX2 build of themselves where the CPU has it. The baseline x86-64
/// build vectorises them with SSE, 4 floats a division or square root; AVX2
/// takes 8: RAdam's update of 1.2M floats, 577 against 310 µs. A loop is an
/// always-inline body called from a baseline function and from an
/// RVNN_TARGET_AVX2 one (function multiversioning's target_clones would do
/// it, but Clang does not take it on templates). No FMA: the AVX2 build
/// rounds as the baseline does, bit for bit (tests hold the two builds to
/// that with BaselineBuildsOnly).
#include <atomic>

namespace rvnn::runtime {
namespace detail {
/// How many BaselineBuildsOnly are alive.
inline std::atomic<int> baselineBuildsOnly{0};
} // namespace detail

/// While one lives, useAvx2Builds() is false: a test runs the baseline
/// builds on a CPU that has AVX2 and compares them with the AVX2 ones.
class BaselineBuildsOnly {
public:
  BaselineBuildsOnly() { ++detail::baselineBuildsOnly; }
  ~BaselineBuildsOnly() { --detail::baselineBuildsOnly; }
  BaselineBuildsOnly(const BaselineBuildsOnly &) = delete;
  BaselineBuildsOnly &operator=(const BaselineBuildsOnly &) = delete;
};
} // namespace rvnn::runtime

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RVNN_TARGET_AVX2 __attribute__((target("avx2")))
#define RVNN_ALWAYS_INLINE inline __attribute__((always_inline))
/// For a lambda that an AVX2 function runs: `[&](int i) RVNN_INLINED {...}`
/// (the lambda would otherwise be a baseline function of its own).
#define RVNN_INLINED __attribute__((always_inline))

namespace rvnn::runtime {
/// Whether the AVX2 builds run: where the CPU has AVX2, outside a
/// BaselineBuildsOnly.
inline bool useAvx2Builds() {
  static const bool cpuHasAvx2 = __builtin_cpu_supports("avx2");
  return cpuHasAvx2 &&
         detail::baselineBuildsOnly.load(std::memory_order_relaxed) == 0;
}
} // namespace rvnn::runtime
#else
#define RVNN_TARGET_AVX2
#define RVNN_ALWAYS_INLINE inline
#define RVNN_INLINED

namespace rvnn::runtime {
inline bool useAvx2Builds() { return false; }
} // namespace rvnn::runtime
#endif

#endif // RVNN_RUNTIME_VECTORCLONES_H
