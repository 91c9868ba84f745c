// A loop body's weight gradient at batch 1 is a [K, N] product of a few rows
// per step, then an out-of-place add into the running sum: both write K·N
// elements per step for a handful of multiply-adds. Collecting the rows and
// multiplying once writes K·N once and runs one large, efficient GEMM. A
// slice of a tensor the loop reads from outside (a projection hoisted out of
// the loop, rvnn-hoist-step-invariant) has a cotangent the size of its window
// per step, but returned as the tensor's gradient it is a tensor of the
// whole size per step: adding the windows into one running gradient costs
// what the windows cost.
//
// The collector is an autograd node between the tensor and all its uses in
// one forward pass, so autograd runs it after every use's backward. The gemm
// vjps (VjpOp.cpp) find it through the weight's grad_fn and hand it their
// rows; rows are multiplied out in chunks, so what waits in the collector
// stays bounded (kPendingBytes). A slice vjp reads its source only for its
// shape, through a shape witness; a witness of a collecting tensor broadcasts
// an element whose storage names the collector, so the vjp finds it there.
#include "GradCollector.h"
#include "rvnn/Runtime/Ops/ConstantElements.h"
#include "rvnn/Runtime/Ops/JitProduct.h"

#include <torch/autograd.h>

#include <array>
#include <cstddef>
#include <vector>

namespace rvnn::runtime {

torch::Tensor transposedProduct(const torch::Tensor &a,
                                const torch::Tensor &b) {
  torch::Tensor product = ops::jitProduct(a.t(), b);
  return product.defined() ? product : a.t().mm(b);
}

namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// Rows (lhs and cotangent) held before they are multiplied out.
constexpr int64_t kPendingBytes = int64_t(16) << 20;

struct Collected : torch::CustomClassHolder {
  struct Rows {
    Tensor lhs, dy;
  };
  /// Pending rows by orientation: [0] lhsᵀ·dy, [1] dyᵀ·lhs.
  std::vector<Rows> pending[2];
  /// Pending rows whose column sums add to the gradient (a bias's).
  std::vector<Tensor> summedRows;
  int64_t pendingBytes = 0;
  /// The products of rows already multiplied out, and the windows added.
  Tensor sum;
  /// The zero element the witnesses tied to this collector broadcast (as
  /// wide as the widest element type).
  alignas(16) std::array<std::byte, 16> zeroElement{};
  /// The deferredZero handed back for this tensor, made once: a loop's vjps
  /// hand back one a step.
  Tensor deferred;

  const Tensor &deferredZeroLike(const Tensor &like) {
    if (!deferred.defined() || deferred.sizes() != like.sizes() ||
        !deferred.options().type_equal(like.options()))
      deferred = deferredZero(like);
    return deferred;
  }

  void add(const Tensor &lhs, const Tensor &dy, bool transposed) {
    pending[transposed].push_back({lhs, dy});
    held(lhs);
    held(dy);
  }

  void addSummed(const Tensor &rows) {
    summedRows.push_back(rows);
    held(rows);
  }

  /// Counts `rows` as waiting; multiplies everything out past kPendingBytes.
  void held(const Tensor &rows) {
    pendingBytes += rows.numel() * rows.element_size();
    if (pendingBytes > kPendingBytes)
      multiplyOut();
  }

  void accumulate(const Tensor &contribution) {
    sum = sum.defined() ? sum.add_(contribution) : contribution;
  }

  void multiplyOut() {
    if (!summedRows.empty()) {
      Tensor rows =
          summedRows.size() == 1 ? summedRows[0] : at::cat(summedRows);
      accumulate(rows.sum(0));
      summedRows.clear();
    }
    for (int transposed : {0, 1}) {
      std::vector<Rows> &rows = pending[transposed];
      if (rows.empty())
        continue;
      std::vector<Tensor> lhs, dy;
      for (const Rows &r : rows) {
        lhs.push_back(r.lhs);
        dy.push_back(r.dy);
      }
      Tensor l = lhs.size() == 1 ? lhs[0] : at::cat(lhs);
      Tensor d = dy.size() == 1 ? dy[0] : at::cat(dy);
      accumulate(transposed ? transposedProduct(d, l)
                            : transposedProduct(l, d));
      rows.clear();
    }
    pendingBytes = 0;
  }
};

struct CollectFunction : torch::autograd::Function<CollectFunction> {
  static Tensor forward(AutogradContext *ctx, const Tensor &param) {
    // When every use deferred its gradient, the cotangent is undefined: kept
    // so, not materialised as a zero tensor the size of the parameter.
    ctx->set_materialize_grads(false);
    ctx->saved_data["collected"] =
        c10::IValue::make_capsule(c10::make_intrusive<Collected>());
    return param.view_as(param);
  }

  static variable_list backward(AutogradContext *ctx, variable_list grads) {
    auto collected = c10::static_intrusive_pointer_cast<Collected>(
        ctx->saved_data["collected"].toCapsule());
    collected->multiplyOut();
    Tensor grad = grads[0];
    if (collected->sum.defined())
      grad = grad.defined() ? collected->sum.add_(grad) : collected->sum;
    collected->sum = Tensor();
    return {grad};
  }
};

/// The collector of a tensor made by collectGrad, or null.
Collected *collectorOf(const Tensor &tensor) {
  auto *node = dynamic_cast<torch::autograd::CppNode<CollectFunction> *>(
      tensor.grad_fn().get());
  if (!node)
    return nullptr;
  return static_cast<Collected *>(
      node->ctx_.saved_data["collected"].toCapsule().get());
}

void releaseCollector(void *collected) {
  c10::raw::intrusive_ptr::decref(static_cast<Collected *>(collected));
}

/// The collector a shape witness is tied to, or null.
Collected *witnessCollector(const Tensor &witness) {
  if (!witness.has_storage())
    return nullptr;
  const c10::DataPtr &data = witness.storage().data_ptr();
  if (data.get_deleter() != releaseCollector)
    return nullptr;
  return static_cast<Collected *>(data.get_context());
}

/// `rows` as a collector holds them: rows that record gradient would keep
/// their graph, and through it the collector, alive (a cycle); the others
/// need no detached alias.
Tensor untracked(const Tensor &rows) {
  return rows.requires_grad() ? rows.detach() : rows;
}

} // namespace

Tensor collectGrad(const Tensor &tensor) {
  if (!torch::GradMode::is_enabled() || !tensor.requires_grad() ||
      collectorOf(tensor))
    return tensor;
  return CollectFunction::apply(tensor);
}

bool collectsGrad(const Tensor &tensor) {
  return collectorOf(tensor) != nullptr;
}

void multiplyOutCollected(const Tensor &tensor) {
  if (Collected *collected = collectorOf(tensor))
    collected->multiplyOut();
}

Tensor deferWeightGrad(const Tensor &weight, const Tensor &lhsRows,
                       const Tensor &dyRows, bool transposed) {
  Collected *collected = collectorOf(weight);
  if (!collected || torch::GradMode::is_enabled())
    return Tensor();
  // Only rows that take less memory than the [K, N] product they replace:
  // many rows make an efficient GEMM of their own, and holding them until
  // the collector runs would raise the backward's peak memory.
  const int64_t k = lhsRows.size(1), n = dyRows.size(1);
  if (lhsRows.size(0) * (k + n) >= k * n)
    return Tensor();
  collected->add(untracked(lhsRows), untracked(dyRows), transposed);
  return collected->deferredZeroLike(weight);
}

Tensor deferBiasGrad(const Tensor &bias, const Tensor &dyRows) {
  Collected *collected = collectorOf(bias);
  if (!collected || torch::GradMode::is_enabled() || bias.dim() != 1 ||
      dyRows.dim() != 2 || dyRows.size(1) != bias.size(0))
    return Tensor();
  collected->addSummed(untracked(dyRows));
  return collected->deferredZeroLike(bias);
}

Tensor shapeWitness(const Tensor &like) {
  Collected *collected = like.is_cpu() ? collectorOf(like) : nullptr;
  if (!collected)
    return deferredZero(like);
  // The storage keeps the collector alive (its element lives there).
  c10::raw::intrusive_ptr::incref(collected);
  Tensor zero = at::for_blob(collected->zeroElement.data(), {})
                    .context(collected, releaseCollector)
                    .options(like.options())
                    .make_tensor();
  return zero.expand(like.sizes());
}

WindowGrad windowGrad(const Tensor &source) {
  Collected *collected = witnessCollector(source);
  if (!collected)
    collected = collectorOf(source);
  if (!collected || torch::GradMode::is_enabled())
    return {};
  if (!collected->sum.defined())
    collected->sum = at::zeros(source.sizes(), source.options());
  return {collected->sum, collected->deferredZeroLike(source)};
}

Tensor deferredZero(const Tensor &like) {
  return ops::broadcastConstant(ops::Constant::Zero, like, like.sizes());
}

bool isDeferredZero(const Tensor &grad) {
  return ops::isBroadcastConstant(grad, ops::Constant::Zero);
}

} // namespace rvnn::runtime
