#include "rvnn/Runtime/Train/RAdamUpdate.h"
#include "rvnn/Runtime/VectorClones.h"

#include <cmath>

namespace rvnn::runtime::train {

RAdamStepScalars RAdamStepScalars::at(int64_t step, double lr, double beta1,
                                      double beta2, double eps,
                                      double weightDecay) {
  RAdamStepScalars scalars;
  scalars.lr = lr;
  scalars.beta1 = beta1;
  scalars.beta2 = beta2;
  scalars.eps = eps;
  scalars.weightDecay = weightDecay;
  const double t = static_cast<double>(step);
  scalars.biasCorrection1 = 1 - std::pow(beta1, t);
  scalars.biasCorrection2 = 1 - std::pow(beta2, t);
  // Length of the approximated simple moving average of the adaptive rate;
  // its variance is tractable (the rectification defined) only above 4, and
  // the paper switches at 5.
  const double rhoInf = 2 / (1 - beta2) - 1;
  const double rhoT =
      rhoInf - 2 * t * std::pow(beta2, t) / scalars.biasCorrection2;
  scalars.rectified = rhoT > 5.0;
  if (scalars.rectified)
    scalars.rectification = std::sqrt((rhoT - 4) * (rhoT - 2) * rhoInf /
                                      ((rhoInf - 4) * (rhoInf - 2) * rhoT));
  return scalars;
}

namespace {

/// Element by element what radamUpdateAten does with tensors. Scalars are
/// rounded to the element type first, as ATen's CPU kernels do. The branches
/// are template parameters and the pointers restrict-qualified so that the
/// loop vectorises (with -fno-math-errno for the square root, see
/// CMakeLists.txt).
template <typename T, bool Decay, bool Rectified>
RVNN_ALWAYS_INLINE void
radamLoopBody(T *__restrict param, const T *__restrict grad, T *__restrict avg,
              T *__restrict avgSq, int64_t n, const RAdamStepScalars &s) {
  const T decay = static_cast<T>(s.weightDecay);
  const T avgWeight = static_cast<T>(1 - s.beta1);
  const T beta2 = static_cast<T>(s.beta2);
  const T sqWeight = static_cast<T>(1 - s.beta2);
  const T correction1 = static_cast<T>(s.biasCorrection1);
  const T lr = static_cast<T>(s.lr);
  const T sqrtCorrection2 = static_cast<T>(std::sqrt(s.biasCorrection2));
  const T eps = static_cast<T>(s.eps);
  const T rect = static_cast<T>(s.rectification);
  const T gradScale = static_cast<T>(s.gradScale);
  for (int64_t i = 0; i < n; ++i) {
    // Exact when the scale is 1.
    T g = grad[i] * gradScale;
    if constexpr (Decay)
      g = g + decay * param[i];
    // lerp_ with a weight below 0.5: self + weight * (end - self).
    const T m = avg[i] + avgWeight * (g - avg[i]);
    const T v = avgSq[i] * beta2 + sqWeight * g * g;
    avg[i] = m;
    avgSq[i] = v;
    const T step = (m / correction1) * lr;
    if constexpr (Rectified)
      param[i] -= step * (sqrtCorrection2 / (std::sqrt(v) + eps)) * rect;
    else
      param[i] -= step;
  }
}

/// radamLoopBody built for AVX2 (VectorClones.h).
template <typename T, bool Decay, bool Rectified>
RVNN_TARGET_AVX2 void radamLoopAvx2(T *param, const T *grad, T *avg, T *avgSq,
                                    int64_t n, const RAdamStepScalars &s) {
  radamLoopBody<T, Decay, Rectified>(param, grad, avg, avgSq, n, s);
}

template <typename T, bool Decay, bool Rectified>
void radamLoop(T *param, const T *grad, T *avg, T *avgSq, int64_t n,
               const RAdamStepScalars &s) {
  if (useAvx2Builds())
    radamLoopAvx2<T, Decay, Rectified>(param, grad, avg, avgSq, n, s);
  else
    radamLoopBody<T, Decay, Rectified>(param, grad, avg, avgSq, n, s);
}

template <typename T>
void radamLoop(T *param, const T *grad, T *avg, T *avgSq, int64_t n,
               const RAdamStepScalars &s) {
  const bool decay = s.weightDecay != 0;
  if (decay && s.rectified)
    radamLoop<T, true, true>(param, grad, avg, avgSq, n, s);
  else if (decay)
    radamLoop<T, true, false>(param, grad, avg, avgSq, n, s);
  else if (s.rectified)
    radamLoop<T, false, true>(param, grad, avg, avgSq, n, s);
  else
    radamLoop<T, false, false>(param, grad, avg, avgSq, n, s);
}

bool fusable(const torch::Tensor &param, const torch::Tensor &grad,
             const torch::Tensor &avg, const torch::Tensor &avgSq) {
  for (const torch::Tensor *t : {&param, &grad, &avg, &avgSq})
    if (!t->device().is_cpu() || !t->is_contiguous() ||
        t->scalar_type() != param.scalar_type() || t->numel() != param.numel())
      return false;
  return param.scalar_type() == torch::kFloat ||
         param.scalar_type() == torch::kDouble;
}

} // namespace

void radamUpdate(torch::Tensor &param, const torch::Tensor &grad,
                 torch::Tensor &avg, torch::Tensor &avgSq,
                 const RAdamStepScalars &scalars) {
  if (!fusable(param, grad, avg, avgSq))
    return radamUpdateAten(param, grad, avg, avgSq, scalars);
  AT_DISPATCH_FLOATING_TYPES(param.scalar_type(), "radamUpdate", [&] {
    radamLoop<scalar_t>(param.data_ptr<scalar_t>(), grad.data_ptr<scalar_t>(),
                        avg.data_ptr<scalar_t>(), avgSq.data_ptr<scalar_t>(),
                        param.numel(), scalars);
  });
}

void radamUpdateAten(torch::Tensor &param, const torch::Tensor &grad,
                     torch::Tensor &avg, torch::Tensor &avgSq,
                     const RAdamStepScalars &s) {
  torch::NoGradGuard noGrad;
  // The operations and their order are torch.optim.RAdam's
  // (_single_tensor_radam), so results agree with PyTorch's.
  torch::Tensor scaled = s.gradScale != 1 ? grad.mul(s.gradScale) : grad;
  torch::Tensor g =
      s.weightDecay != 0 ? scaled.add(param, s.weightDecay) : scaled;
  avg.lerp_(g, 1 - s.beta1);
  avgSq.mul_(s.beta2).addcmul_(g, g, 1 - s.beta2);
  torch::Tensor correctedAvg = avg / s.biasCorrection1;
  if (s.rectified) {
    torch::Tensor adaptiveLr =
        std::sqrt(s.biasCorrection2) / avgSq.sqrt().add_(s.eps);
    param.add_(correctedAvg * s.lr * adaptiveLr * s.rectification, -1.0);
  } else {
    param.add_(correctedAvg * s.lr, -1.0);
  }
}

} // namespace rvnn::runtime::train
