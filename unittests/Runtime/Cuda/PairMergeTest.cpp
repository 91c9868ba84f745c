#include "rvnn/Runtime/Ops/Recursion.h"

#include "GradCheck.h"

#include <gtest/gtest.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/function.h>
#include <torch/cuda.h>

#include <string>

// On CUDA operands ops::pairMerge runs the CUDA kernels
// (rvnn::runtime::cuda::PairMergeFunction). These tests compare it with the
// ATen reference, ops::pairMerge on the same operands on the CPU, in values,
// gradients and finite differences. They need a GPU (label cuda-gpu) and skip
// without one.

namespace ops = rvnn::runtime::ops;
using rvnn::runtime::ops::testing::expectGradientsMatchFiniteDifferences;
using rvnn::runtime::ops::testing::uniformDoubles;
using Inputs = std::vector<torch::Tensor>;

namespace {

struct Case {
  std::vector<int64_t> lead; // Leading (batch, beam) dims.
  int64_t length;            // S: pairs = S - 1.
  int64_t dim;               // D.
  bool broadcastCand;        // cand [..., 1, D] instead of [..., S-1, D].
  bool oneHot;               // A hard selection instead of a soft one.
};

std::string describe(const Case &c) {
  std::string text = "lead [";
  for (int64_t size : c.lead)
    text += std::to_string(size) + ",";
  return text + "] S " + std::to_string(c.length) + " D " +
         std::to_string(c.dim) + (c.broadcastCand ? " broadcast cand" : "") +
         (c.oneHot ? " one-hot sel" : " soft sel");
}

/// Shapes for the value and gradient comparisons: no leading dims, one pair,
/// no pairs, more than a warp of pairs (the scans go in chunks of 32) and rows
/// longer than a thread block.
const std::vector<Case> &cases() {
  static const std::vector<Case> all = {
      {{}, 2, 1, false, false},      {{3}, 5, 4, false, true},
      {{3}, 5, 4, true, false},      {{2, 3}, 6, 37, true, false},
      {{2, 3}, 6, 37, false, true},  {{2, 2}, 40, 33, false, false},
      {{1, 3}, 70, 300, true, true}, {{1, 2}, 70, 300, false, false},
      {{4}, 1, 5, true, false},      {{2}, 2, 3, true, false},
  };
  return all;
}

std::vector<int64_t> shape(const Case &c, std::initializer_list<int64_t> tail) {
  std::vector<int64_t> sizes = c.lead;
  sizes.insert(sizes.end(), tail);
  return sizes;
}

/// float64 CPU operands {h, cand, sel} for `c`.
Inputs operands(const Case &c, uint64_t seed) {
  const int64_t pairs = c.length - 1;
  auto h = uniformDoubles(shape(c, {c.length, c.dim}), -1, 1, seed);
  auto cand = uniformDoubles(shape(c, {c.broadcastCand ? 1 : pairs, c.dim}), -1,
                             1, seed + 1);
  auto scores = uniformDoubles(shape(c, {pairs}), -2, 2, seed + 2);
  auto sel = pairs == 0 ? scores
             : c.oneHot ? at::one_hot(scores.argmax(-1), pairs).to(at::kDouble)
                        : at::softmax(scores, -1);
  return {h, cand, sel};
}

Inputs convert(const Inputs &xs, const at::Device &device,
               at::ScalarType type) {
  Inputs out;
  for (const auto &x : xs)
    out.push_back(x.to(device, type));
  return out;
}

torch::Tensor merge(const Inputs &in) {
  return ops::pairMerge(in[0], in[1], in[2]);
}

/// Expects `out` to come from the CUDA kernels, not the ATen reference.
void expectFromKernel(const torch::Tensor &out) {
  ASSERT_TRUE(out.grad_fn()) << "pair_merge output records no autograd node";
  const std::string node = out.grad_fn()->name();
  EXPECT_NE(node.find("PairMergeFunction"), std::string::npos)
      << "ops::pairMerge ran " << node << ", not the CUDA kernel";
}

void expectClose(const torch::Tensor &actual, const torch::Tensor &expected,
                 double tol, const std::string &what) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  ASSERT_EQ(actual.scalar_type(), expected.scalar_type()) << what;
  auto a = actual.cpu().to(at::kDouble);
  auto e = expected.cpu().to(at::kDouble);
  EXPECT_TRUE(at::allclose(a, e, tol, tol))
      << what << ": max |kernel - reference| = "
      << (a.numel() ? (a - e).abs().max().item<double>() : 0.0);
}

/// Gradients of Σ out·gradOut with respect to `in`, which become leaves.
Inputs gradients(const Inputs &in, const torch::Tensor &gradOut,
                 bool createGraph = false, Inputs *leavesOut = nullptr) {
  Inputs leaves;
  for (const auto &x : in)
    leaves.push_back(x.detach().clone().requires_grad_(true));
  auto out = merge(leaves);
  auto grads = torch::autograd::grad({out}, leaves, {gradOut},
                                     /*retain_graph=*/createGraph,
                                     /*create_graph=*/createGraph,
                                     /*allow_unused=*/true);
  for (size_t i = 0; i < grads.size(); ++i)
    if (!grads[i].defined())
      grads[i] = at::zeros_like(leaves[i]);
  if (leavesOut)
    *leavesOut = leaves;
  return grads;
}

void expectForwardMatches(at::ScalarType type, double tol) {
  const at::Device gpu(at::kCUDA);
  uint64_t seed = 100;
  for (const auto &c : cases()) {
    SCOPED_TRACE(describe(c));
    auto reference = convert(operands(c, seed += 10), at::kCPU, type);
    auto expected = merge(reference);
    Inputs onGpu;
    for (const auto &x : convert(reference, gpu, type))
      onGpu.push_back(x.requires_grad_(true));
    auto actual = merge(onGpu);
    expectFromKernel(actual);
    ASSERT_TRUE(actual.is_cuda());
    expectClose(actual, expected, tol, "forward");
  }
}

void expectBackwardMatches(at::ScalarType type, double tol) {
  const at::Device gpu(at::kCUDA);
  const char *names[] = {"grad h", "grad cand", "grad sel"};
  uint64_t seed = 300;
  for (const auto &c : cases()) {
    SCOPED_TRACE(describe(c));
    auto reference = convert(operands(c, seed += 10), at::kCPU, type);
    auto gradOut =
        uniformDoubles(shape(c, {c.length - 1, c.dim}), -1, 1, seed + 5)
            .to(type);
    auto expected = gradients(reference, gradOut);
    auto actual = gradients(convert(reference, gpu, type), gradOut.to(gpu));
    for (size_t i = 0; i < 3; ++i)
      expectClose(actual[i], expected[i], tol, names[i]);
  }
}

} // namespace

TEST(PairMergeCuda, ForwardMatchesReferenceFloat32) {
  if (!torch::cuda::is_available())
    GTEST_SKIP() << "no CUDA device";
  expectForwardMatches(at::kFloat, 1e-5);
}

TEST(PairMergeCuda, ForwardMatchesReferenceFloat64) {
  if (!torch::cuda::is_available())
    GTEST_SKIP() << "no CUDA device";
  expectForwardMatches(at::kDouble, 1e-12);
}

TEST(PairMergeCuda, BackwardMatchesReferenceFloat32) {
  if (!torch::cuda::is_available())
    GTEST_SKIP() << "no CUDA device";
  expectBackwardMatches(at::kFloat, 1e-4);
}

TEST(PairMergeCuda, BackwardMatchesReferenceFloat64) {
  if (!torch::cuda::is_available())
    GTEST_SKIP() << "no CUDA device";
  expectBackwardMatches(at::kDouble, 1e-11);
}

TEST(PairMergeCuda, GradientsMatchFiniteDifferences) {
  if (!torch::cuda::is_available())
    GTEST_SKIP() << "no CUDA device";
  // float64 CPU leaves, merged on the GPU: the leaves' gradients flow back
  // through the kernel's backward.
  auto onGpu = [](const Inputs &in) {
    auto out = ops::pairMerge(in[0].cuda(), in[1].cuda(), in[2].cuda());
    if (out.requires_grad()) // Not in the finite-difference evaluations.
      expectFromKernel(out);
    return out.cpu();
  };
  const std::vector<Case> small = {{{2, 3}, 5, 4, false, false},
                                   {{2, 3}, 5, 4, true, false},
                                   {{}, 36, 2, false, false},
                                   {{2}, 3, 3, true, true}};
  uint64_t seed = 500;
  for (const auto &c : small) {
    SCOPED_TRACE(describe(c));
    expectGradientsMatchFiniteDifferences(onGpu, operands(c, seed += 10));
  }
}

TEST(PairMergeCuda, DoubleBackwardMatchesReference) {
  if (!torch::cuda::is_available())
    GTEST_SKIP() << "no CUDA device";
  // A recorded backward (create_graph) switches to differentiable ATen ops;
  // its gradients must match the reference's second derivatives.
  const at::Device gpu(at::kCUDA);
  for (bool broadcast : {false, true}) {
    const Case c{{2, 3}, 6, 5, broadcast, false};
    SCOPED_TRACE(describe(c));
    auto in = operands(c, 700);
    auto gradOut = uniformDoubles(shape(c, {5, 5}), -1, 1, 705);
    auto secondOrder = [&](const at::Device &device) {
      Inputs leaves;
      auto grads = gradients(convert(in, device, at::kDouble),
                             gradOut.to(device), /*createGraph=*/true, &leaves);
      auto scalar = grads[0].sin().sum() + (grads[1] * grads[1]).sum() +
                    grads[2].pow(3).sum();
      auto second = torch::autograd::grad({scalar}, leaves, {},
                                          /*retain_graph=*/false,
                                          /*create_graph=*/false,
                                          /*allow_unused=*/true);
      for (size_t i = 0; i < second.size(); ++i)
        if (!second[i].defined())
          second[i] = at::zeros_like(leaves[i]);
      return second;
    };
    auto expected = secondOrder(at::kCPU);
    auto actual = secondOrder(gpu);
    for (size_t i = 0; i < 3; ++i)
      expectClose(actual[i], expected[i], 1e-11,
                  "second derivative " + std::to_string(i));
  }
}

TEST(PairMergeCuda, NonContiguousOperands) {
  if (!torch::cuda::is_available())
    GTEST_SKIP() << "no CUDA device";
  // Transposed views: the wrapper hands the kernels contiguous copies.
  const at::Device gpu(at::kCUDA);
  auto h = uniformDoubles({3, 7, 6}, -1, 1, 800).transpose(1, 2);    // [3,6,7]
  auto cand = uniformDoubles({3, 7, 5}, -1, 1, 801).transpose(1, 2); // [3,5,7]
  auto sel = at::softmax(uniformDoubles({5, 3}, -1, 1, 802), 0).t(); // [3,5]
  const Inputs reference = {h, cand, sel};
  Inputs onGpu;
  for (const auto &x : reference)
    onGpu.push_back(x.to(gpu)
                        .transpose(-1, -2)
                        .contiguous()
                        .transpose(-1, -2)
                        .requires_grad_(true));
  ASSERT_FALSE(onGpu[0].is_contiguous());
  auto gradOut = uniformDoubles({3, 5, 7}, -1, 1, 803);
  auto out = merge(onGpu);
  expectFromKernel(out);
  expectClose(out, merge(reference), 1e-12, "forward");
  auto expected = gradients(reference, gradOut);
  auto actual = gradients(
      onGpu, gradOut.to(gpu).transpose(1, 2).contiguous().transpose(1, 2));
  for (size_t i = 0; i < 3; ++i)
    expectClose(actual[i], expected[i], 1e-11, "grad " + std::to_string(i));
}

TEST(PairMergeCuda, HalfPrecisionUsesReference) {
  if (!torch::cuda::is_available())
    GTEST_SKIP() << "no CUDA device";
  // The kernels take float and double; other types stay on ATen.
  const Case c{{2}, 5, 4, true, false};
  auto reference = operands(c, 900);
  Inputs onGpu;
  for (const auto &x : convert(reference, at::Device(at::kCUDA), at::kHalf))
    onGpu.push_back(x.requires_grad_(true));
  auto out = merge(onGpu);
  ASSERT_TRUE(out.grad_fn());
  EXPECT_EQ(out.grad_fn()->name().find("PairMergeFunction"), std::string::npos);
  expectClose(out.to(at::kDouble), merge(reference), 1e-2, "half forward");
}
