#include "rvnn/Runtime/Ops/Attention.h"

#include "GradCheck.h"

#include <gtest/gtest.h>
#include <torch/autograd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace ops = rvnn::runtime::ops;
using rvnn::runtime::ops::testing::expectGradientsMatchFiniteDifferences;
using rvnn::runtime::ops::testing::uniformDoubles;
using Inputs = std::vector<torch::Tensor>;

namespace {

const auto kDouble = at::TensorOptions().dtype(at::kDouble);

torch::Tensor doubles(std::vector<double> values, at::IntArrayRef shape) {
  return at::tensor(values, kDouble).view(shape);
}

/// NDR's geometric attention straight from its definition, in O(S^3):
/// A_ij = P_ij·Π_{k closer to i than j}(1 - P_ik), where a key at the same
/// distance on the right of i counts as closer than one on the left.
torch::Tensor naiveGeometricAttention(const Inputs &in,
                                      const torch::Tensor &mask,
                                      bool normalize) {
  const auto &q = in[0], &k = in[1], &v = in[2], &back = in[3], &front = in[4];
  const double scale = in[5].item<double>(), bias = in[6].item<double>();
  const int64_t n = q.size(0), heads = q.size(1), s = q.size(2);
  auto p = at::zeros({n, heads, s, s}, kDouble);
  auto attention = at::zeros({n, heads, s, s}, kDouble);
  auto qa = q.accessor<double, 4>(), ka = k.accessor<double, 4>();
  auto ba = back.accessor<double, 3>(), fa = front.accessor<double, 3>();
  auto ma = mask.accessor<double, 2>();
  auto pa = p.accessor<double, 4>(), aa = attention.accessor<double, 4>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t i = 0; i < s; ++i)
        for (int64_t j = 0; j < s; ++j) {
          if (i == j || ma[b][j] == 0)
            continue;
          double l = bias + (j > i ? fa[b][h][i] : ba[b][h][i]);
          for (int64_t d = 0; d < q.size(3); ++d)
            l += qa[b][h][i][d] * ka[b][h][j][d] * scale;
          pa[b][h][i][j] = 1 / (1 + std::exp(-l));
        }
      for (int64_t i = 0; i < s; ++i) {
        double rowSum = 0;
        for (int64_t j = 0; j < s; ++j) {
          double a = pa[b][h][i][j];
          for (int64_t c = 0; c < s; ++c) {
            const int64_t dc = std::abs(c - i), dj = std::abs(j - i);
            if (c != j && (dc < dj || (dc == dj && c > i)))
              a *= 1 - pa[b][h][i][c];
          }
          aa[b][h][i][j] = a;
          rowSum += a;
        }
        if (normalize)
          for (int64_t j = 0; j < s; ++j)
            aa[b][h][i][j] /= std::max(rowSum, 1e-12);
      }
    }
  return at::matmul(attention, v);
}

/// q, k, v [2, 2, S, 3], back, front [2, 2, S], scale, bias rank-0.
Inputs geometricInputs(int64_t s, uint64_t seed) {
  return {uniformDoubles({2, 2, s, 3}, -1, 1, seed),
          uniformDoubles({2, 2, s, 3}, -1, 1, seed + 1),
          uniformDoubles({2, 2, s, 3}, -1, 1, seed + 2),
          uniformDoubles({2, 2, s}, -1, 1, seed + 3),
          uniformDoubles({2, 2, s}, -1, 1, seed + 4),
          uniformDoubles({}, 0.5, 1, seed + 5),
          uniformDoubles({}, -0.5, 0.5, seed + 6)};
}

torch::Tensor callGeometric(const Inputs &in, const torch::Tensor &mask,
                            bool normalize) {
  return ops::geometricAttention(in[0], in[1], in[2], in[3], in[4], mask, in[5],
                                 in[6], normalize);
}

/// Output and operand gradients (in double) of a geometric attention `op`
/// on `in` (q, k, v, back, front, scale, bias) cast to `dtype`, for a
/// seeded output cotangent.
template <typename Op>
std::vector<torch::Tensor>
geometricWithGradients(Op op, const Inputs &in, const torch::Tensor &mask,
                       torch::ScalarType dtype, bool normalize) {
  std::vector<torch::Tensor> leaves;
  for (const auto &t : in)
    leaves.push_back(t.to(dtype).requires_grad_());
  auto out = op(leaves[0], leaves[1], leaves[2], leaves[3], leaves[4],
                mask.to(dtype), leaves[5], leaves[6], normalize);
  out.backward(uniformDoubles(out.sizes(), -1, 1, 8).to(dtype));
  std::vector<torch::Tensor> results = {out.detach().to(at::kDouble)};
  for (const auto &leaf : leaves)
    results.push_back(leaf.grad().to(at::kDouble));
  return results;
}

/// Fused and reference results agree within `tol`, each named.
void expectSameResults(const std::vector<torch::Tensor> &fused,
                       const std::vector<torch::Tensor> &reference,
                       double tol) {
  for (size_t i = 0; i < fused.size(); ++i)
    EXPECT_TRUE(at::allclose(fused[i], reference[i], tol, tol))
        << (i == 0 ? "output" : "gradient of input " + std::to_string(i - 1))
        << ": max difference "
        << (fused[i] - reference[i]).abs().max().item<double>();
}

} // namespace

TEST(AttentionOps, GeometricAttentionTiesGoToTheRightKey) {
  // All logits 0, so every open key has P = 1/2; v = I exposes A itself.
  const int64_t s = 3;
  auto zeros = at::zeros({1, 1, s, s}, kDouble);
  auto eye = at::eye(s, kDouble).view({1, 1, s, s});
  auto noBias = at::zeros({1, 1, s}, kDouble);
  auto run = [&](const torch::Tensor &mask) {
    return ops::geometricAttention(zeros, zeros, eye, noBias, noBias, mask,
                                   at::ones({}, kDouble),
                                   at::zeros({}, kDouble), false)
        .view({s, s});
  };
  EXPECT_TRUE(
      at::allclose(run(at::ones({1, s}, kDouble)),
                   doubles({0, .5, .25, .25, 0, .5, .25, .5, 0}, {s, s})));
  // A pad key takes no attention and shadows nothing.
  EXPECT_TRUE(at::allclose(run(doubles({1, 1, 0}, {1, s})),
                           doubles({0, .5, 0, .5, 0, 0, .25, .5, 0}, {s, s})));
}

TEST(AttentionOps, GeometricAttentionMatchesNaiveProduct) {
  const int64_t s = 7;
  auto in = geometricInputs(s, 1);
  // Scale up the logits so products span several orders of magnitude.
  in[0] = in[0] * 3;
  auto mask = doubles({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0}, {2, s});
  for (bool normalize : {false, true}) {
    SCOPED_TRACE(normalize ? "normalized" : "unnormalized");
    auto expected = naiveGeometricAttention(in, mask, normalize);
    EXPECT_TRUE(at::allclose(callGeometric(in, mask, normalize), expected,
                             1e-10, 1e-12));
  }
}

TEST(AttentionOps, GeometricAttentionGradients) {
  auto in = geometricInputs(4, 10);
  auto mask = doubles({1, 1, 1, 1, 1, 1, 1, 0}, {2, 4});
  for (bool normalize : {false, true})
    expectGradientsMatchFiniteDifferences(
        [&](const Inputs &x) { return callGeometric(x, mask, normalize); }, in);
}

// The fused CPU kernel (forward and its own backward) against the ATen
// reference under autograd, in float and double, with pad keys, a sequence
// of one real token (its row attends to nothing: the normalisation floor)
// and both normalisations.
TEST(AttentionOps, GeometricAttentionFusedKernelMatchesReference) {
  const int64_t s = 33;
  auto mask = at::ones({3, s}, kDouble);
  mask.slice(1, 20) = 0;
  mask.slice(1, 1).select(0, 2) = 0;
  for (auto [dtype, tol] :
       {std::pair{torch::kFloat, 1e-4}, std::pair{torch::kDouble, 1e-10}}) {
    for (bool normalize : {false, true}) {
      SCOPED_TRACE(std::string(c10::toString(dtype)) +
                   (normalize ? " normalized" : " unnormalized"));
      Inputs in = {uniformDoubles({3, 2, s, 8}, -2, 2, 1),
                   uniformDoubles({3, 2, s, 8}, -2, 2, 2),
                   uniformDoubles({3, 2, s, 8}, -1, 1, 3),
                   uniformDoubles({3, 2, s}, -1, 1, 4),
                   uniformDoubles({3, 2, s}, -1, 1, 5),
                   uniformDoubles({}, 0.5, 1, 6),
                   uniformDoubles({}, -0.5, 0.5, 7)};
      expectSameResults(geometricWithGradients(ops::geometricAttention, in,
                                               mask, dtype, normalize),
                        geometricWithGradients(ops::geometricAttentionReference,
                                               in, mask, dtype, normalize),
                        tol);
    }
  }
}

// Large logits make most weights products of many small (1 - P): the fused
// kernel flushes the denormal ones to zero while it runs (x86's FTZ/DAZ),
// which must neither move its results off the double reference nor leave
// the thread's floating-point mode changed.
TEST(AttentionOps, GeometricAttentionFlushesDenormalsOnlyWhileItRuns) {
  const int64_t s = 64;
  Inputs in = {uniformDoubles({1, 2, s, 8}, 2, 4, 30),
               uniformDoubles({1, 2, s, 8}, 2, 4, 31),
               uniformDoubles({1, 2, s, 8}, -1, 1, 32),
               uniformDoubles({1, 2, s}, -1, 1, 33),
               uniformDoubles({1, 2, s}, -1, 1, 34),
               uniformDoubles({}, 0.5, 1, 35),
               uniformDoubles({}, -0.5, 0.5, 36)};
  const auto mask = at::ones({1, s}, kDouble);
  const auto weights = naiveGeometricAttention(
      {in[0], in[1], at::eye(s, kDouble).expand({1, 2, s, s}), in[3], in[4],
       in[5], in[6]},
      mask, false);
  ASSERT_GT(((weights > 0) & (weights < 1.2e-38)).sum().item<int64_t>(), 0)
      << "the inputs must give denormal float weights";
#if defined(__SSE2__)
  // The control bits; the low six are sticky exception flags.
  const unsigned modeBits = ~0x3Fu, mode = _mm_getcsr() & modeBits;
#endif
  auto fused = geometricWithGradients(ops::geometricAttention, in, mask,
                                      torch::kFloat, false);
  auto reference = geometricWithGradients(ops::geometricAttentionReference, in,
                                          mask, torch::kDouble, false);
#if defined(__SSE2__)
  EXPECT_EQ(_mm_getcsr() & modeBits, mode);
#endif
  expectSameResults(fused, reference, 1e-3);
}

TEST(AttentionOps, MaskedAttentionMatchesSoftmaxOverOpenKeys) {
  const int64_t s = 4;
  auto q = uniformDoubles({2, 1, s, 2}, -1, 1, 20);
  auto k = uniformDoubles({2, 1, s, 2}, -1, 1, 21);
  auto v = uniformDoubles({2, 1, s, 2}, -1, 1, 22);
  auto mask = doubles({1, 1, 1, 1, 1, 1, 0, 0}, {2, s});
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "bidirectional");
    auto out = ops::maskedAttention(q, k, v, mask, causal);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t i = 0; i < s; ++i) {
        const int64_t open =
            std::min<int64_t>(b == 0 ? s : 2, causal ? i + 1 : s);
        auto scores =
            at::matmul(k[b][0].narrow(0, 0, open), q[b][0][i]) / std::sqrt(2.0);
        auto expected =
            at::matmul(at::softmax(scores, 0), v[b][0].narrow(0, 0, open));
        EXPECT_TRUE(at::allclose(out[b][0][i], expected));
      }
  }
}

TEST(AttentionOps, MaskedAttentionGradients) {
  Inputs in = {uniformDoubles({2, 2, 3, 2}, -1, 1, 23),
               uniformDoubles({2, 2, 3, 2}, -1, 1, 24),
               uniformDoubles({2, 2, 3, 2}, -1, 1, 25)};
  auto mask = doubles({1, 1, 1, 1, 1, 0}, {2, 3});
  for (bool causal : {false, true})
    expectGradientsMatchFiniteDifferences(
        [&](const Inputs &x) {
          return ops::maskedAttention(x[0], x[1], x[2], mask, causal);
        },
        in);
}

TEST(AttentionOps, NeighbourRetrieveByHand) {
  auto exist = doubles({1, .5, .5, 1}, {1, 4});
  auto all = at::ones({1, 4}, kDouble);
  auto right =
      ops::neighbourRetrieve(exist, all, ops::Direction::Right).squeeze(0);
  // Row 0 reaches C = 1 at key 2, so key 3 gets max(0, 1 - C_{0,2}) = 0.
  EXPECT_TRUE(at::allclose(
      right,
      doubles({0, .5, .5, 0, 0, 0, .5, .5, 0, 0, 0, 1, 0, 0, 0, 0}, {4, 4})));
  EXPECT_TRUE(at::allclose(right.sum(1), doubles({1, 1, 1, 0}, {4})));
  auto left =
      ops::neighbourRetrieve(exist, all, ops::Direction::Left).squeeze(0);
  EXPECT_TRUE(at::allclose(
      left,
      doubles({0, 0, 0, 0, 1, 0, 0, 0, .5, .5, 0, 0, 0, .5, .5, 0}, {4, 4})));

  // Crossing C = 1 inside a key: that key gets the remainder 1 - C_{i,j-1}.
  auto partial = ops::neighbourRetrieve(doubles({1, .7, .6, 1}, {1, 4}), all,
                                        ops::Direction::Right)
                     .squeeze(0);
  EXPECT_TRUE(at::allclose(partial.narrow(0, 0, 2),
                           doubles({0, .7, .3, 0, 0, 0, .6, .4}, {2, 4})));

  // Pad keys give nothing and pad rows retrieve nothing.
  auto masked = ops::neighbourRetrieve(exist, doubles({1, 1, 1, 0}, {1, 4}),
                                       ops::Direction::Right)
                    .squeeze(0);
  EXPECT_TRUE(at::allclose(
      masked,
      doubles({0, .5, .5, 0, 0, 0, .5, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {4, 4})));
  EXPECT_TRUE((masked.sum(1) <= 1).all().item<bool>());
}

// The CPU kernel against the ATen composition: values and the gradient of
// exist, both directions, float and double, with padding, with sums that
// reach 1 exactly (the branch point) or cross it inside a key, and with a
// negative weight, after which a row's sum falls back under 1 and its
// entries past the first crossing are not all zero (the kernel sweeps such
// samples' rows to the end).
TEST(AttentionOps, NeighbourRetrieveCpuKernelMatchesReference) {
  auto random = uniformDoubles({3, 9}, 0.05, 0.9, 31);
  auto exact = doubles({.5, .5, .5, .25, .25, .5, 1, .5, .5}, {1, 9});
  auto negative = doubles({.1, .7, .6, -.5, .3, .2, -.4, .1, .3}, {1, 9});
  auto exist = at::cat({random, exact, negative});
  auto mask = at::ones({5, 9}, kDouble);
  mask[1].narrow(0, 6, 3).zero_();
  auto dy = uniformDoubles({5, 9, 9}, -1, 1, 32);
  for (auto [type, tol] :
       {std::pair{at::kFloat, 1e-6}, std::pair{at::kDouble, 1e-14}}) {
    // A named copy: C++17 lambdas cannot capture a structured binding.
    const at::ScalarType dtype = type;
    for (auto direction : {ops::Direction::Left, ops::Direction::Right}) {
      SCOPED_TRACE(std::string(c10::toString(dtype)) +
                   (direction == ops::Direction::Left ? " left" : " right"));
      auto run = [&](auto op) {
        auto leaf = exist.to(dtype).requires_grad_();
        auto out = op(leaf, mask.to(dtype), direction);
        auto grad = torch::autograd::grad({out}, {leaf}, {dy.to(dtype)})[0];
        return Inputs{out.detach(), grad};
      };
      Inputs kernel = run(ops::neighbourRetrieve),
             reference = run(ops::neighbourRetrieveReference);
      EXPECT_TRUE(at::allclose(kernel[0], reference[0], tol, tol)) << "values";
      EXPECT_TRUE(at::allclose(kernel[1], reference[1], tol, tol))
          << "gradient, max difference "
          << (kernel[1] - reference[1]).abs().max().item<double>();
      auto graphFree = ops::neighbourRetrieveBackward(
          exist.to(dtype), mask.to(dtype), direction, dy.to(dtype));
      ASSERT_TRUE(graphFree.has_value());
      EXPECT_TRUE(at::allclose(graphFree->first, reference[1], tol, tol))
          << "graph-free backward";
      EXPECT_FALSE(graphFree->second.defined());
    }
  }
}

// A plain backward (grad mode off inside it) through the CPU kernel with a
// mask that needs a cotangent, as in RIR-CRvNN's inner loop under the outer
// loop's ATen autograd: the kernel's backward recomputes its ATen oracle with
// grad mode on, and both cotangents match the oracle's.
TEST(AttentionOps, NeighbourRetrieveCpuMaskCotangentInPlainBackward) {
  auto exist = uniformDoubles({2, 6}, 0.2, 0.6, 33);
  auto binary = doubles({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, {2, 6});
  // Soft values and a zero inside the row (a pad row with real keys after).
  auto soft = doubles({.9, .3, 1, 0, .6, 1, 1, .5, .8, 1, .2, 0}, {2, 6});
  auto dy = uniformDoubles({2, 6, 6}, -1, 1, 34);
  for (const auto &mask : {binary, soft})
    for (auto direction : {ops::Direction::Left, ops::Direction::Right}) {
      auto run = [&](auto op) {
        auto e = exist.clone().requires_grad_();
        auto m = mask.clone().requires_grad_();
        (op(e, m, direction) * dy).sum().backward();
        return Inputs{e.grad(), m.grad()};
      };
      Inputs kernel = run(ops::neighbourRetrieve),
             reference = run(ops::neighbourRetrieveReference);
      EXPECT_TRUE(at::allclose(kernel[0], reference[0], 1e-12, 1e-12));
      EXPECT_TRUE(at::allclose(kernel[1], reference[1], 1e-12, 1e-12))
          << "mask, max difference "
          << (kernel[1] - reference[1]).abs().max().item<double>();
      auto graphFree = ops::neighbourRetrieveBackward(exist, mask, direction,
                                                      dy, /*maskWanted=*/true);
      ASSERT_TRUE(graphFree.has_value());
      EXPECT_TRUE(at::allclose(graphFree->first, reference[0], 1e-12, 1e-12));
      EXPECT_TRUE(at::allclose(graphFree->second, reference[1], 1e-12, 1e-12));
    }
}

TEST(AttentionOps, NeighbourRetrieveGradients) {
  auto exist = uniformDoubles({2, 6}, 0.2, 0.6, 30);
  auto mask = doubles({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, {2, 6});
  for (auto direction : {ops::Direction::Left, ops::Direction::Right})
    expectGradientsMatchFiniteDifferences(
        [&](const Inputs &in) {
          return ops::neighbourRetrieve(in[0], mask, direction);
        },
        {exist});
}

// The band of a neighbour matrix: by hand, then on random and exact-sum rows
// (both directions, float and double): the matrix is zero outside it, and a
// cotangent outside it changes neither exist's nor mask's cotangent.
TEST(AttentionOps, NeighbourBandByHand) {
  auto exist = doubles({1, .5, .5, 1, .5}, {1, 5});
  auto mask = doubles({1, 1, 1, 1, 0}, {1, 5});
  auto right = ops::neighbourBand(exist, mask, ops::Direction::Right);
  // Row 0: C = .5, 1 (not above 1), 2 at key 3, so [1, 4); key 4 is a pad
  // (weight 0): rows 2 and 3 never exceed 1 and run to the end.
  EXPECT_TRUE(at::equal(
      right[0],
      at::tensor({1, 4, 2, 4, 3, 5, 4, 5, 5, 5}, at::kLong).view({5, 2})));
  // The pad row 4 keeps its band (its derivative by mask_4 is the row).
  auto left = ops::neighbourBand(exist, mask, ops::Direction::Left);
  EXPECT_TRUE(at::equal(
      left[0],
      at::tensor({0, 0, 0, 1, 0, 2, 0, 3, 2, 4}, at::kLong).view({5, 2})));
}

TEST(AttentionOps, NeighbourBandHoldsTheMatrixAndItsCotangent) {
  auto random = uniformDoubles({3, 9}, 0.0, 0.6, 35);
  auto exact = doubles({.5, .5, .5, .25, .25, .5, 1, .5, .5}, {1, 9});
  auto exist = at::cat({random, exact});
  exist[0][4] = 0;
  auto mask = at::ones({4, 9}, kDouble);
  mask[1].narrow(0, 6, 3).zero_();
  mask[2] = doubles({.9, .3, 1, 0, .6, 1, 1, .5, .8}, {9});
  auto dy = uniformDoubles({4, 9, 9}, -1, 1, 36);
  for (auto dtype : {at::kFloat, at::kDouble})
    for (auto direction : {ops::Direction::Left, ops::Direction::Right}) {
      SCOPED_TRACE(std::string(c10::toString(dtype)) +
                   (direction == ops::Direction::Left ? " left" : " right"));
      auto e = exist.to(dtype), m = mask.to(dtype);
      auto band = ops::neighbourBand(e, m, direction);
      auto column = at::arange(9, at::kLong).view({1, 1, 9});
      auto inside = (column >= band.select(-1, 0).unsqueeze(-1)) &
                    (column < band.select(-1, 1).unsqueeze(-1));
      auto matrix = ops::neighbourRetrieveReference(e, m, direction);
      EXPECT_TRUE(
          at::equal(matrix.masked_fill(inside, 0), at::zeros_like(matrix)));
      auto cotangents = [&](const torch::Tensor &g) {
        auto el = e.clone().requires_grad_(), ml = m.clone().requires_grad_();
        auto out = ops::neighbourRetrieveReference(el, ml, direction);
        return torch::autograd::grad({out}, {el, ml}, {g.to(dtype)});
      };
      auto full = cotangents(dy), banded = cotangents(dy * inside);
      EXPECT_TRUE(at::equal(full[0], banded[0])) << "exist";
      EXPECT_TRUE(at::equal(full[1], banded[1])) << "mask";
    }
}
