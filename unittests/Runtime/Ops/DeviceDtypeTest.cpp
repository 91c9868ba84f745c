#include "rvnn/Runtime/Device.h"
#include "rvnn/Runtime/Ops/Attention.h"
#include "rvnn/Runtime/Ops/Beam.h"
#include "rvnn/Runtime/Ops/Gating.h"
#include "rvnn/Runtime/Ops/NN.h"
#include "rvnn/Runtime/Ops/Recursion.h"

#include "GradCheck.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

// Every op is written once against ATen; these tests run the deterministic
// ones in float32 and (when a GPU is present) on CUDA and compare with the
// float64 CPU results that the other tests check.

namespace ops = rvnn::runtime::ops;
using rvnn::runtime::ops::testing::uniformDoubles;

namespace {

/// Moves a float64 CPU operand to the configuration under test; integer
/// operands (indices) keep their type.
using Convert = std::function<torch::Tensor(const torch::Tensor &)>;

struct OpCase {
  std::string name;
  std::function<torch::Tensor(const Convert &)> run;
};

torch::Tensor mask2x5() {
  return at::tensor({1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0},
                    at::kDouble)
      .view({2, 5});
}

torch::Tensor signedUniform(at::IntArrayRef shape, uint64_t seed) {
  return uniformDoubles(shape, -1, 1, seed);
}

std::vector<OpCase> deterministicOps() {
  const auto longs = at::TensorOptions().dtype(at::kLong);
  auto beamIdx = at::tensor({1, 1, 0, 2}, longs).view({2, 2});
  return {
      {"linear",
       [](const Convert &c) {
         return ops::linear(c(signedUniform({2, 3}, 1)),
                            c(signedUniform({4, 3}, 2)),
                            c(signedUniform({4}, 3)));
       }},
      {"embedding",
       [longs](const Convert &c) {
         return ops::embedding(c(signedUniform({5, 2}, 4)),
                               c(at::tensor({3, 0, 3}, longs)));
       }},
      {"layerNorm",
       [](const Convert &c) {
         return ops::layerNorm(c(signedUniform({2, 4}, 5)),
                               c(signedUniform({4}, 6)),
                               c(signedUniform({4}, 7)));
       }},
      {"gelu",
       [](const Convert &c) { return ops::gelu(c(signedUniform({6}, 8))); }},
      {"maskedSoftmax",
       [](const Convert &c) {
         return ops::maskedSoftmax(c(signedUniform({2, 5}, 9)), c(mask2x5()));
       }},
      {"crossEntropy",
       [longs](const Convert &c) {
         return ops::crossEntropy(c(signedUniform({2, 3}, 10)),
                                  c(at::tensor({2, 0}, longs)));
       }},
      {"pool",
       [](const Convert &c) {
         auto h = c(signedUniform({2, 5, 3}, 11));
         auto m = c(mask2x5());
         return at::stack({ops::pool(h, m, ops::PoolKind::First),
                           ops::pool(h, m, ops::PoolKind::Last),
                           ops::pool(h, m, ops::PoolKind::Mean),
                           ops::pool(h, m, ops::PoolKind::Max)});
       }},
      {"balancedReduce",
       [](const Convert &c) {
         return ops::balancedReduce(
             c(signedUniform({2, 5, 3}, 12)), c(mask2x5()), 2,
             [](const torch::Tensor &children, const torch::Tensor &m) {
               return at::tanh((children * m.unsqueeze(-1)).sum(1));
             });
       }},
      {"chunk",
       [](const Convert &c) {
         auto [chunks, mask] =
             ops::chunk(c(signedUniform({2, 5, 3}, 13)), c(mask2x5()), 2);
         return at::cat({chunks.flatten(), mask.flatten()});
       }},
      {"unchunk",
       [](const Convert &c) {
         return ops::unchunk(c(signedUniform({4, 2, 3}, 14)), c(mask2x5()), 2);
       }},
      {"pairMerge",
       [](const Convert &c) {
         return ops::pairMerge(c(signedUniform({2, 5, 3}, 15)),
                               c(signedUniform({2, 4, 3}, 16)),
                               c(at::softmax(signedUniform({2, 4}, 17), -1)));
       }},
      {"freezeHalted",
       [](const Convert &c) {
         return ops::freezeHalted(c(at::tensor({1, 0}).to(at::kBool)),
                                  c(signedUniform({2, 3}, 18)),
                                  c(signedUniform({2, 3}, 19)));
       }},
      {"geometricAttention",
       [](const Convert &c) {
         return ops::geometricAttention(c(signedUniform({2, 2, 5, 3}, 20)),
                                        c(signedUniform({2, 2, 5, 3}, 21)),
                                        c(signedUniform({2, 2, 5, 3}, 22)),
                                        c(signedUniform({2, 2, 5}, 23)),
                                        c(signedUniform({2, 2, 5}, 24)),
                                        c(mask2x5()), c(signedUniform({}, 25)),
                                        c(signedUniform({}, 26)), true);
       }},
      {"maskedAttention",
       [](const Convert &c) {
         return ops::maskedAttention(c(signedUniform({2, 2, 5, 3}, 27)),
                                     c(signedUniform({2, 2, 5, 3}, 28)),
                                     c(signedUniform({2, 2, 5, 3}, 29)),
                                     c(mask2x5()), true);
       }},
      {"neighbourRetrieve",
       [](const Convert &c) {
         auto exist = c(uniformDoubles({2, 5}, 0.2, 0.9, 30));
         return at::stack(
             {ops::neighbourRetrieve(exist, c(mask2x5()), ops::Direction::Left),
              ops::neighbourRetrieve(exist, c(mask2x5()),
                                     ops::Direction::Right)});
       }},
      {"gate",
       [](const Convert &c) {
         return ops::gate(c(signedUniform({2, 1}, 31)),
                          c(signedUniform({2, 3}, 32)),
                          c(signedUniform({2, 3}, 33)));
       }},
      {"cumax",
       [](const Convert &c) {
         return ops::cumax(c(signedUniform({2, 5}, 34)));
       }},
      {"softDepthMix",
       [](const Convert &c) {
         return ops::softDepthMix(c(signedUniform({2, 1}, 35)),
                                  c(signedUniform({2, 3}, 36)),
                                  c(signedUniform({2, 3}, 37)));
       }},
      {"topk",
       [](const Convert &c) {
         auto [values, indices] = ops::topk(c(signedUniform({2, 5}, 38)),
                                            c(mask2x5()), 2, false, false);
         return at::cat({values, indices.to(values.scalar_type())});
       }},
      {"argmax",
       [](const Convert &c) {
         return ops::argmax(c(signedUniform({2, 5}, 39)), c(mask2x5()));
       }},
      {"oneHot",
       [beamIdx](const Convert &c) {
         return ops::oneHot(c(beamIdx), c(signedUniform({2, 3}, 40)));
       }},
      {"beamGather",
       [beamIdx](const Convert &c) {
         return ops::beamGather(c(signedUniform({2, 3, 2}, 41)), c(beamIdx));
       }},
      {"beamExpand",
       [](const Convert &c) {
         return ops::beamExpand(c(signedUniform({2, 3, 2}, 42)), 2);
       }},
      {"beamAccumulate",
       [longs](const Convert &c) {
         return ops::beamAccumulate(
             c(signedUniform({2, 2}, 43)),
             c(uniformDoubles({2, 2, 3}, 0, 1, 44)),
             c(at::tensor({0, 2, 1, 1, 2, 2, 0, 1}, longs).view({2, 2, 2})));
       }},
      {"beamMarginalize",
       [](const Convert &c) {
         return ops::beamMarginalize(c(signedUniform({2, 5, 3}, 45)),
                                     c(signedUniform({2, 5}, 46)),
                                     c(mask2x5()));
       }},
  };
}

/// Runs every deterministic op under `convert` and compares with float64 CPU.
void expectMatchesDoubleCpu(const Convert &convert, double tol) {
  const Convert identity = [](const torch::Tensor &t) { return t; };
  for (const auto &op : deterministicOps()) {
    SCOPED_TRACE(op.name);
    auto expected = op.run(identity).to(at::kDouble);
    auto actual = op.run(convert).to(at::kCPU).to(at::kDouble);
    ASSERT_EQ(actual.sizes(), expected.sizes());
    EXPECT_TRUE(at::allclose(actual, expected, tol, tol))
        << "max |difference| = " << (actual - expected).abs().max();
  }
}

Convert to(const at::Device &device, at::ScalarType floatType) {
  return [device, floatType](const torch::Tensor &t) {
    return t.is_floating_point() ? t.to(device, floatType) : t.to(device);
  };
}

} // namespace

TEST(OpsDeviceDtype, Float32MatchesFloat64) {
  expectMatchesDoubleCpu(to(at::kCPU, at::kFloat), 1e-5);
}

TEST(OpsDeviceDtype, CudaMatchesCpu) {
  if (!rvnn::runtime::cudaAvailable())
    GTEST_SKIP() << "no GPU";
  expectMatchesDoubleCpu(to(at::kCUDA, at::kDouble), 1e-10);
  expectMatchesDoubleCpu(to(at::kCUDA, at::kFloat), 1e-5);
}

TEST(OpsDeviceDtype, RandomOpsRunOnCuda) {
  if (!rvnn::runtime::cudaAvailable())
    GTEST_SKIP() << "no GPU";
  const auto cuda = at::TensorOptions().device(at::kCUDA).dtype(at::kFloat);
  auto x = at::ones({4, 6}, cuda);
  ops::DrawStream draws{1, 0};
  auto dropped = ops::dropout(x, 0.5, true, {1}, true, &draws);
  EXPECT_TRUE(((dropped == 0) | (dropped == 2)).all().item<bool>());
  auto [values, indices] =
      ops::topk(x, at::ones_like(x), 3, true, true, &draws);
  EXPECT_EQ(indices.device().type(), at::kCUDA);
  auto aligned =
      ops::beamAlign(x, at::ones_like(x), 1.0, ops::AlignMode::Sample, &draws);
  EXPECT_TRUE((aligned.select(1, 0) == 0).all().item<bool>());
}
