// rvnn.diagonal_scan: the diagonal complex linear recurrence of S4D, as a CPU
// kernel with its explicit reverse-scan backward, and as an ATen loop (any
// device, the kernel's oracle). Per sample n and channel d, in scan order k
// (t = k, or S-1-k with `reverse`), with m_t = [mask_t != 0]:
//   x_k = m_t ? a ⊙ x_{k-1} + b·u_t : x_{k-1}      (x_{-1} = 0)
//   y_t = m_t · Re(Σ_p c_p·x_{k,p})
// Backward, with g_t = dy_t and s the adjoint reaching x_k from step k+1
// (s = 0 past the last step), as complex numbers ν = ∂L/∂Re x + i·∂L/∂Im x:
//   ν_k = s + m_t·g_t·conj(c)
//   m_t:  du_t = Re(Σ_p conj(b_p)·ν_{k,p}),  db += ν_k·u_t,
//         da += ν_k·conj(x_{k-1}),  dc += g_t·conj(x_k),  s = conj(a)·ν_k
//   else: s = ν_k.
// The kernel runs in double whatever the operands' type, parallel over the
// channels (each owns its rows of the parameter cotangents); the backward
// recomputes the states of one (n, d) pair at a time (S·P complex numbers).
#include "rvnn/Runtime/Ops/Scan.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/autograd.h>

#include <vector>

namespace rvnn::runtime::ops {

namespace {

using torch::Tensor;
using torch::autograd::variable_list;

/// The operands of one scan as raw pointers into contiguous tensors.
template <typename T> struct ScanOperands {
  const T *u, *aRe, *aIm, *bRe, *bIm, *cRe, *cIm, *mask;
  int64_t samples, length, channels, states;
  bool reverse;

  int64_t step(int64_t k) const { return reverse ? length - 1 - k : k; }
};

/// Runs the recurrence of sample n, channel d; writes y (stride `channels`,
/// when given) and the states after each step into `trace` (`2·P` doubles
/// per step, when given).
template <typename T>
void scanPair(const ScanOperands<T> &s, int64_t n, int64_t d, T *y,
              std::vector<double> *trace) {
  const int64_t P = s.states;
  const T *ar = s.aRe + d * P, *ai = s.aIm + d * P, *br = s.bRe + d * P,
          *bi = s.bIm + d * P, *cr = s.cRe + d * P, *ci = s.cIm + d * P;
  std::vector<double> xr(P, 0.0), xi(P, 0.0);
  for (int64_t k = 0; k < s.length; ++k) {
    const int64_t t = s.step(k);
    const bool live = s.mask[n * s.length + t] != T(0);
    double out = 0;
    if (live) {
      const double ut = s.u[(n * s.length + t) * s.channels + d];
      for (int64_t p = 0; p < P; ++p) {
        const double r =
            double(ar[p]) * xr[p] - double(ai[p]) * xi[p] + double(br[p]) * ut;
        const double i =
            double(ar[p]) * xi[p] + double(ai[p]) * xr[p] + double(bi[p]) * ut;
        xr[p] = r;
        xi[p] = i;
        out += double(cr[p]) * r - double(ci[p]) * i;
      }
    }
    if (y)
      y[(n * s.length + t) * s.channels + d] = T(out);
    if (trace)
      for (int64_t p = 0; p < P; ++p) {
        (*trace)[(k * P + p) * 2] = xr[p];
        (*trace)[(k * P + p) * 2 + 1] = xi[p];
      }
  }
}

template <typename T> void forwardScan(const ScanOperands<T> &s, T *y) {
  at::parallel_for(0, s.channels, 1, [&](int64_t begin, int64_t end) {
    for (int64_t d = begin; d < end; ++d)
      for (int64_t n = 0; n < s.samples; ++n)
        scanPair(s, n, d, y, nullptr);
  });
}

/// The cotangents, each a contiguous output tensor's data.
template <typename T> struct ScanGrads {
  T *u, *aRe, *aIm, *bRe, *bIm, *cRe, *cIm;
};

template <typename T>
void backwardScan(const ScanOperands<T> &s, const T *dy,
                  const ScanGrads<T> &g) {
  const int64_t P = s.states;
  at::parallel_for(0, s.channels, 1, [&](int64_t begin, int64_t end) {
    std::vector<double> trace(s.length * P * 2), sr(P), si(P), dar(P), dai(P),
        dbr(P), dbi(P), dcr(P), dci(P);
    for (int64_t d = begin; d < end; ++d) {
      const T *ar = s.aRe + d * P, *ai = s.aIm + d * P, *br = s.bRe + d * P,
              *bi = s.bIm + d * P, *cr = s.cRe + d * P, *ci = s.cIm + d * P;
      for (auto *acc : {&dar, &dai, &dbr, &dbi, &dcr, &dci})
        std::fill(acc->begin(), acc->end(), 0.0);
      for (int64_t n = 0; n < s.samples; ++n) {
        scanPair<T>(s, n, d, nullptr, &trace);
        std::fill(sr.begin(), sr.end(), 0.0);
        std::fill(si.begin(), si.end(), 0.0);
        for (int64_t k = s.length - 1; k >= 0; --k) {
          const int64_t t = s.step(k);
          const int64_t index = (n * s.length + t) * s.channels + d;
          if (s.mask[n * s.length + t] == T(0)) {
            g.u[index] = T(0); // s passes through unchanged.
            continue;
          }
          const double gt = dy[index], ut = s.u[index];
          const double *x = &trace[k * P * 2];
          const double *prev = k > 0 ? &trace[(k - 1) * P * 2] : nullptr;
          double du = 0;
          for (int64_t p = 0; p < P; ++p) {
            const double xr = x[2 * p], xi = x[2 * p + 1];
            const double pr = prev ? prev[2 * p] : 0.0,
                         pi = prev ? prev[2 * p + 1] : 0.0;
            const double nr = sr[p] + gt * double(cr[p]);
            const double ni = si[p] - gt * double(ci[p]);
            dcr[p] += gt * xr;
            dci[p] -= gt * xi;
            du += double(br[p]) * nr + double(bi[p]) * ni;
            dbr[p] += nr * ut;
            dbi[p] += ni * ut;
            dar[p] += nr * pr + ni * pi;
            dai[p] += ni * pr - nr * pi;
            sr[p] = double(ar[p]) * nr + double(ai[p]) * ni;
            si[p] = double(ar[p]) * ni - double(ai[p]) * nr;
          }
          g.u[index] = T(du);
        }
      }
      for (int64_t p = 0; p < P; ++p) {
        g.aRe[d * P + p] = T(dar[p]);
        g.aIm[d * P + p] = T(dai[p]);
        g.bRe[d * P + p] = T(dbr[p]);
        g.bIm[d * P + p] = T(dbi[p]);
        g.cRe[d * P + p] = T(dcr[p]);
        g.cIm[d * P + p] = T(dci[p]);
      }
    }
  });
}

/// Whether the kernel runs these operands: CPU, float or double, one dtype,
/// u `[N, S, D]`, the parameters `[D, P]` and mask `[N, S]`.
bool cpuTakes(const std::array<Tensor, 8> &operands) {
  const Tensor &u = operands[0], &mask = operands[7];
  const auto type = u.scalar_type();
  if (type != at::kFloat && type != at::kDouble)
    return false;
  for (const Tensor &operand : operands)
    if (!operand.device().is_cpu() || operand.scalar_type() != type)
      return false;
  if (u.dim() != 3 || mask.dim() != 2 || mask.size(0) != u.size(0) ||
      mask.size(1) != u.size(1))
    return false;
  for (size_t i = 1; i < 7; ++i)
    if (operands[i].dim() != 2 || operands[i].size(0) != u.size(2) ||
        operands[i].size(1) != operands[1].size(1))
      return false;
  return true;
}

template <typename T>
ScanOperands<T> scanOperands(const std::array<Tensor, 8> &c, bool reverse) {
  return {c[0].data_ptr<T>(),
          c[1].data_ptr<T>(),
          c[2].data_ptr<T>(),
          c[3].data_ptr<T>(),
          c[4].data_ptr<T>(),
          c[5].data_ptr<T>(),
          c[6].data_ptr<T>(),
          c[7].data_ptr<T>(),
          c[0].size(0),
          c[0].size(1),
          c[0].size(2),
          c[1].size(1),
          reverse};
}

std::array<Tensor, 8> contiguous(const std::array<Tensor, 8> &operands) {
  std::array<Tensor, 8> c;
  for (size_t i = 0; i < 8; ++i)
    c[i] = operands[i].contiguous();
  return c;
}

Tensor forwardCpu(const std::array<Tensor, 8> &operands, bool reverse) {
  const std::array<Tensor, 8> c = contiguous(operands);
  Tensor y = at::empty_like(c[0]);
  AT_DISPATCH_FLOATING_TYPES(c[0].scalar_type(), "diagonal_scan_cpu", [&] {
    forwardScan<scalar_t>(scanOperands<scalar_t>(c, reverse),
                          y.data_ptr<scalar_t>());
  });
  return y;
}

std::array<Tensor, 7> backwardCpu(const std::array<Tensor, 8> &operands,
                                  bool reverse, const Tensor &dy) {
  const std::array<Tensor, 8> c = contiguous(operands);
  const Tensor grad = dy.to(c[0].scalar_type()).contiguous();
  std::array<Tensor, 7> grads;
  for (size_t i = 0; i < 7; ++i)
    grads[i] = at::empty_like(c[i]);
  AT_DISPATCH_FLOATING_TYPES(c[0].scalar_type(), "diagonal_scan_cpu_grad", [&] {
    ScanGrads<scalar_t> g{
        grads[0].data_ptr<scalar_t>(), grads[1].data_ptr<scalar_t>(),
        grads[2].data_ptr<scalar_t>(), grads[3].data_ptr<scalar_t>(),
        grads[4].data_ptr<scalar_t>(), grads[5].data_ptr<scalar_t>(),
        grads[6].data_ptr<scalar_t>()};
    backwardScan<scalar_t>(scanOperands<scalar_t>(c, reverse),
                           grad.data_ptr<scalar_t>(), g);
  });
  return grads;
}

struct DiagonalScanFunction
    : public torch::autograd::Function<DiagonalScanFunction> {
  static Tensor forward(torch::autograd::AutogradContext *ctx, Tensor u,
                        Tensor aRe, Tensor aIm, Tensor bRe, Tensor bIm,
                        Tensor cRe, Tensor cIm, Tensor mask, bool reverse) {
    ctx->save_for_backward({u, aRe, aIm, bRe, bIm, cRe, cIm, mask});
    ctx->saved_data["reverse"] = reverse;
    return forwardCpu({u, aRe, aIm, bRe, bIm, cRe, cIm, mask}, reverse);
  }

  static variable_list backward(torch::autograd::AutogradContext *ctx,
                                variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const bool reverse = ctx->saved_data["reverse"].toBool();
    // A recorded backward (create_graph), or mask's cotangent, takes the
    // differentiable ATen composition.
    if (at::GradMode::is_enabled() || ctx->needs_input_grad(7)) {
      torch::AutoGradMode recording(true);
      variable_list inputs;
      for (const Tensor &operand : saved)
        if (operand.requires_grad())
          inputs.push_back(operand);
      Tensor out = diagonalScanReference(saved[0], saved[1], saved[2], saved[3],
                                         saved[4], saved[5], saved[6], saved[7],
                                         reverse);
      variable_list found = torch::autograd::grad(
          {out}, inputs, {grads[0]}, /*retain_graph=*/true,
          /*create_graph=*/at::GradMode::is_enabled(), /*allow_unused=*/true);
      variable_list result;
      size_t next = 0;
      for (const Tensor &operand : saved)
        result.push_back(operand.requires_grad() ? found[next++] : Tensor());
      result.push_back(Tensor());
      return result;
    }
    std::array<Tensor, 7> cotangents =
        backwardCpu({saved[0], saved[1], saved[2], saved[3], saved[4], saved[5],
                     saved[6], saved[7]},
                    reverse, grads[0]);
    variable_list result(cotangents.begin(), cotangents.end());
    result.push_back(Tensor()); // mask
    result.push_back(Tensor()); // reverse
    return result;
  }
};

} // namespace

Tensor diagonalScan(const Tensor &u, const Tensor &aRe, const Tensor &aIm,
                    const Tensor &bRe, const Tensor &bIm, const Tensor &cRe,
                    const Tensor &cIm, const Tensor &mask, bool reverse) {
  if (!cpuTakes({u, aRe, aIm, bRe, bIm, cRe, cIm, mask}))
    return diagonalScanReference(u, aRe, aIm, bRe, bIm, cRe, cIm, mask,
                                 reverse);
  return DiagonalScanFunction::apply(u, aRe, aIm, bRe, bIm, cRe, cIm, mask,
                                     reverse);
}

Tensor diagonalScanReference(const Tensor &u, const Tensor &aRe,
                             const Tensor &aIm, const Tensor &bRe,
                             const Tensor &bIm, const Tensor &cRe,
                             const Tensor &cIm, const Tensor &mask,
                             bool reverse) {
  const int64_t samples = u.size(0), length = u.size(1);
  const int64_t channels = u.size(2), states = aRe.size(1);
  Tensor xr = at::zeros({samples, channels, states}, u.options());
  Tensor xi = at::zeros_like(xr);
  std::vector<Tensor> outputs(length);
  for (int64_t k = 0; k < length; ++k) {
    const int64_t t = reverse ? length - 1 - k : k;
    Tensor ut = u.select(1, t).unsqueeze(-1);            // [N, D, 1]
    Tensor mt = mask.select(1, t).view({samples, 1, 1}); // [N, 1, 1]
    Tensor nr = aRe * xr - aIm * xi + bRe * ut;
    Tensor ni = aRe * xi + aIm * xr + bIm * ut;
    xr = mt * nr + (1 - mt) * xr;
    xi = mt * ni + (1 - mt) * xi;
    outputs[t] = mt.view({samples, 1}) * (cRe * xr - cIm * xi).sum(-1);
  }
  return at::stack(outputs, 1);
}

std::optional<std::array<Tensor, 7>>
diagonalScanBackward(const Tensor &u, const Tensor &aRe, const Tensor &aIm,
                     const Tensor &bRe, const Tensor &bIm, const Tensor &cRe,
                     const Tensor &cIm, const Tensor &mask, bool reverse,
                     const Tensor &dy) {
  const std::array<Tensor, 8> operands{u, aRe, aIm, bRe, bIm, cRe, cIm, mask};
  if (!cpuTakes(operands) || !dy.device().is_cpu() || dy.sizes() != u.sizes())
    return std::nullopt;
  return backwardCpu(operands, reverse, dy);
}

} // namespace rvnn::runtime::ops
