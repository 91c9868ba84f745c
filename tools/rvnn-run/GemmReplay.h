#ifndef RVNN_TOOLS_RVNN_RUN_GEMMREPLAY_H
#define RVNN_TOOLS_RVNN_RUN_GEMMREPLAY_H

#include <cstdint>
#include <string>
#include <vector>

#include <c10/core/ScalarType.h>

namespace rvnn::cli {

/// One BLAS-backed ATen call (mm, addmm, bmm, baddbmm, mv, addmv, dot and
/// their in-place forms) or few-row product of the runtime: the function and
/// its tensor operands' sizes, strides (which say what the BLAS sees
/// transposed) and element type.
struct GemmCall {
  std::string function; ///< "mm", "addmm", ... (in-place forms as these)
  std::vector<std::vector<int64_t>> sizes, strides;
  c10::ScalarType dtype = c10::ScalarType::Float;
  double stepMs = 0;   ///< how long it took in the step that made it
  double replayMs = 0; ///< how long it took replayed (replayGemmsMs)
};

/// Records the GEMM calls that this thread makes into ATen while it lives
/// (an ATen RecordFunction observer), and times each: whatever issues them,
/// the executor's gemm, a vjp rule, ATen's own backward or the deferred
/// weight gradients.
class GemmRecorder {
public:
  GemmRecorder();
  ~GemmRecorder();
  GemmRecorder(const GemmRecorder &) = delete;
  GemmRecorder &operator=(const GemmRecorder &) = delete;

  std::vector<GemmCall> calls;

private:
  uint64_t handle; ///< at::CallbackHandle (ATen's record_function.h)
};

/// The multiply-adds of `call`: its two matrix operands are the last two
/// (the first of an add form is the added term), the first read as rows of
/// its last dim, the second giving the columns (one for a vector).
double gemmMultiplyAdds(const GemmCall &call);

/// The calls of one kind (function, sizes and strides) in a step.
struct GemmShape {
  std::string function;
  std::vector<std::vector<int64_t>> sizes, strides;
  int64_t calls = 0;
  double stepMs = 0;       ///< their time in the step, together
  double replayMs = 0;     ///< their time replayed, together
  double multiplyAdds = 0; ///< together
};

/// `calls` grouped by kind, the kinds that took the most time first.
std::vector<GemmShape> gemmShapes(const std::vector<GemmCall> &calls);

/// The time `calls` take by themselves, issued again in order on operands of
/// the same sizes, strides and type (random values; one buffer per distinct
/// shape): a floor for the step that made them under the same BLAS and
/// thread setting. Milliseconds, the median of `rounds` replays after one
/// warm-up replay; each call's median goes to its replayMs.
double replayGemmsMs(std::vector<GemmCall> &calls, int rounds = 3);

} // namespace rvnn::cli

#endif // RVNN_TOOLS_RVNN_RUN_GEMMREPLAY_H
