#include "rvnn/Runtime/Ops/Recursion.h"

#include "GradCheck.h"

#include <gtest/gtest.h>
#include <torch/autograd.h>

namespace ops = rvnn::runtime::ops;
using rvnn::runtime::ops::testing::expectGradientsMatchFiniteDifferences;
using rvnn::runtime::ops::testing::uniformDoubles;
using Inputs = std::vector<torch::Tensor>;

namespace {

const auto kDouble = at::TensorOptions().dtype(at::kDouble);

/// Float mask `[N, S]` for the given sample lengths.
torch::Tensor maskOfLengths(const std::vector<int64_t> &lengths, int64_t s) {
  auto len = at::tensor(lengths, at::TensorOptions().dtype(at::kLong));
  return (at::arange(s, len.options()).unsqueeze(0) < len.unsqueeze(1))
      .to(at::kDouble);
}

torch::Tensor maskedSum(const torch::Tensor &children,
                        const torch::Tensor &mask) {
  return (children * mask.unsqueeze(-1)).sum(1);
}

} // namespace

TEST(RecursionOps, PairMergeFourTokens) {
  // Tokens a b c d (one feature each); merge the pair (b, c) into its parent.
  auto h = at::tensor({1.0, 2.0, 3.0, 4.0}, kDouble).view({1, 4, 1});
  auto cand = at::tensor({10.0, 20.0, 30.0}, kDouble).view({1, 3, 1});
  auto sel = at::tensor({0.0, 1.0, 0.0}, kDouble).view({1, 3});
  EXPECT_TRUE(at::equal(ops::pairMerge(h, cand, sel).flatten(),
                        at::tensor({1.0, 20.0, 4.0}, kDouble)));
  // EBT composes only the selected pair: a single candidate broadcasts.
  auto single = at::tensor({99.0}, kDouble).view({1, 1, 1});
  EXPECT_TRUE(at::equal(ops::pairMerge(h, single, sel).flatten(),
                        at::tensor({1.0, 99.0, 4.0}, kDouble)));
  auto first = at::tensor({1.0, 0.0, 0.0}, kDouble).view({1, 3});
  EXPECT_TRUE(at::equal(ops::pairMerge(h, cand, first).flatten(),
                        at::tensor({10.0, 3.0, 4.0}, kDouble)));
}

TEST(RecursionOps, PairMergeGradients) {
  auto h = uniformDoubles({2, 4, 3}, -1, 1, 1);
  auto cand = uniformDoubles({2, 3, 3}, -1, 1, 2);
  auto single = uniformDoubles({2, 1, 3}, -1, 1, 3);
  auto sel = at::softmax(uniformDoubles({2, 3}, -1, 1, 4), -1);
  auto merge = [](const Inputs &in) {
    return ops::pairMerge(in[0], in[1], in[2]);
  };
  expectGradientsMatchFiniteDifferences(merge, {h, cand, sel});
  expectGradientsMatchFiniteDifferences(merge, {h, single, sel});
}

// The CPU kernel against pairMergeReference under autograd: values, every
// gradient, and a recorded backward (create_graph) for double backward; in
// float and double, with leading dims and a broadcast candidate.
TEST(RecursionOps, PairMergeCpuKernelMatchesReference) {
  for (auto [type, tol] :
       {std::pair{at::kFloat, 1e-5}, std::pair{at::kDouble, 1e-12}}) {
    // A named copy: C++17 lambdas cannot capture a structured binding.
    const at::ScalarType dtype = type;
    for (int64_t candRows : {6, 1}) {
      SCOPED_TRACE(std::string(c10::toString(dtype)) + " cand rows " +
                   std::to_string(candRows));
      Inputs in = {uniformDoubles({2, 3, 7, 16}, -1, 1, 1),
                   uniformDoubles({2, 3, candRows, 16}, -1, 1, 2),
                   at::softmax(uniformDoubles({2, 3, 6}, -2, 2, 3), -1),
                   uniformDoubles({2, 3, 6, 16}, -1, 1, 4)};
      auto run = [&](auto op) {
        Inputs leaves;
        for (size_t i = 0; i < 3; ++i)
          leaves.push_back(in[i].to(dtype).requires_grad_());
        auto out = op(leaves[0], leaves[1], leaves[2]);
        auto grads = torch::autograd::grad({out}, leaves, {in[3].to(dtype)},
                                           /*retain_graph=*/true,
                                           /*create_graph=*/true);
        // A second-order term: d/dsel of the gradient of h, summed.
        auto second =
            torch::autograd::grad({grads[0].pow(2).sum()}, {leaves[2]})[0];
        Inputs results = {out.detach(), second.detach()};
        for (const auto &g : grads)
          results.push_back(g.detach());
        return results;
      };
      Inputs kernel = run(ops::pairMerge),
             reference = run(ops::pairMergeReference);
      for (size_t i = 0; i < kernel.size(); ++i)
        EXPECT_TRUE(at::allclose(kernel[i], reference[i], tol, tol))
            << "result " << i << ": max difference "
            << (kernel[i] - reference[i]).abs().max().item<double>();
      // Without create_graph the kernel's own backward runs.
      Inputs leaves;
      for (size_t i = 0; i < 3; ++i)
        leaves.push_back(in[i].to(dtype).requires_grad_());
      ops::pairMerge(leaves[0], leaves[1], leaves[2]).backward(in[3].to(dtype));
      for (size_t i = 0; i < 3; ++i)
        EXPECT_TRUE(at::allclose(leaves[i].grad(), reference[2 + i], tol, tol))
            << "first-order gradient " << i;
    }
  }
}

// The graph-free backward the vjp of pair_merge runs: the reference's
// autograd cotangents, and none for sel unless it is wanted.
TEST(RecursionOps, PairMergeBackwardMatchesReference) {
  Inputs in = {uniformDoubles({2, 3, 7, 16}, -1, 1, 5),
               uniformDoubles({2, 3, 1, 16}, -1, 1, 6),
               at::softmax(uniformDoubles({2, 3, 6}, -2, 2, 7), -1),
               uniformDoubles({2, 3, 6, 16}, -1, 1, 8)};
  Inputs leaves;
  for (size_t i = 0; i < 3; ++i)
    leaves.push_back(in[i].clone().requires_grad_());
  Inputs reference = torch::autograd::grad(
      {ops::pairMergeReference(leaves[0], leaves[1], leaves[2])}, leaves,
      {in[3]});
  for (bool wantSel : {true, false}) {
    SCOPED_TRACE(wantSel ? "sel wanted" : "sel not wanted");
    auto grads = ops::pairMergeBackward(in[0], in[1], in[2], in[3], wantSel);
    ASSERT_TRUE(grads.has_value());
    for (size_t i = 0; i < 2; ++i)
      EXPECT_TRUE(at::allclose((*grads)[i], reference[i], 1e-12, 1e-12))
          << "cotangent " << i;
    ASSERT_EQ((*grads)[2].defined(), wantSel);
    if (wantSel) {
      EXPECT_TRUE(at::allclose((*grads)[2], reference[2], 1e-12, 1e-12));
    }
  }
  // Operands the CPU kernel does not take (a broadcast leading dim) leave
  // the vjp to autograd.
  EXPECT_FALSE(
      ops::pairMergeBackward(in[0], in[1].narrow(0, 0, 1), in[2], in[3], false)
          .has_value());
}

TEST(RecursionOps, ChunkPadsLongSequences) {
  auto x = uniformDoubles({2, 100, 3}, -1, 1, 5);
  auto mask = maskOfLengths({100, 70}, 100);
  auto [chunks, chunkMask] = ops::chunk(x, mask, 30);
  ASSERT_EQ(chunks.sizes(), (std::vector<int64_t>{8, 30, 3}));
  ASSERT_EQ(chunkMask.sizes(), (std::vector<int64_t>{8, 30}));
  EXPECT_TRUE(at::equal(
      chunkMask.sum(1),
      at::tensor({30.0, 30.0, 30.0, 10.0, 30.0, 30.0, 10.0, 0.0}, kDouble)));
  // Chunk-major within a sample: chunk n·4 + c holds tokens 30c .. 30c+29.
  EXPECT_TRUE(at::equal(chunks[5].narrow(0, 3, 2), x[1].narrow(0, 33, 2)));
  EXPECT_TRUE(at::equal(chunks[3].narrow(0, 0, 10), x[0].narrow(0, 90, 10)));
  EXPECT_TRUE(
      at::equal(chunks[3].narrow(0, 10, 20), at::zeros({20, 3}, kDouble)));
}

TEST(RecursionOps, ChunkKeepsShortSequenceWhole) {
  auto x = uniformDoubles({2, 40, 3}, -1, 1, 6);
  auto mask = maskOfLengths({40, 12}, 40);
  auto [chunks, chunkMask] = ops::chunk(x, mask, 30);
  EXPECT_TRUE(at::equal(chunks, x));
  EXPECT_TRUE(at::equal(chunkMask, mask));
  // 45 = size + size/2 is the first length that splits.
  auto longer = uniformDoubles({1, 45, 3}, -1, 1, 7);
  auto [split, splitMask] = ops::chunk(longer, maskOfLengths({45}, 45), 30);
  EXPECT_EQ(split.sizes(), (std::vector<int64_t>{2, 30, 3}));
  EXPECT_EQ(splitMask.sum().item<double>(), 45);
}

TEST(RecursionOps, ChunkInnerDimAndUnchunkRoundTrip) {
  // RIR's state [N, B, S, D] chunked along dim 2, roots back to [N, B, S1, D].
  auto x = uniformDoubles({2, 3, 7, 4}, -1, 1, 8);
  auto mask = maskOfLengths({7, 5}, 7);
  auto [chunks, chunkMask] = ops::chunk(x, mask, 2, /*dim=*/2);
  ASSERT_EQ(chunks.sizes(), (std::vector<int64_t>{8, 3, 2, 4}));
  ASSERT_EQ(chunkMask.sizes(), (std::vector<int64_t>{8, 2}));
  auto firstOfEach = ops::unchunk(chunks.select(2, 0), x, /*dim=*/2);
  ASSERT_EQ(firstOfEach.sizes(), (std::vector<int64_t>{2, 3, 4, 4}));
  for (int64_t c = 0; c < 4; ++c)
    EXPECT_TRUE(at::equal(firstOfEach.select(2, c), x.select(2, 2 * c)));
}

TEST(RecursionOps, ChunkAndUnchunkGradients) {
  auto x = uniformDoubles({1, 2, 5, 2}, -1, 1, 9);
  auto mask = maskOfLengths({4}, 5);
  expectGradientsMatchFiniteDifferences(
      [&](const Inputs &in) {
        return std::get<0>(ops::chunk(in[0], mask, 2, /*dim=*/2));
      },
      {x});
  auto roots = uniformDoubles({3, 2, 2}, -1, 1, 10);
  auto ref = at::zeros({1, 2}, kDouble);
  expectGradientsMatchFiniteDifferences(
      [&](const Inputs &in) { return ops::unchunk(in[0], ref, 2); }, {roots});
}

TEST(RecursionOps, ChunkAndUnchunkBackwardAreAutogradsRules) {
  // What rvnn_exec.vjp's fast rules compute, against ATen autograd through
  // the ops: padded chunks (x and mask), a sequence kept whole, unchunk.
  auto vjpOf = [](const at::Tensor &input, const at::Tensor &output,
                  const at::Tensor &cotangent) {
    return torch::autograd::grad({output}, {input}, {cotangent})[0];
  };
  for (int64_t length : {7, 2}) {
    auto x = uniformDoubles({2, 3, length, 4}, -1, 1, 11).requires_grad_(true);
    auto mask = maskOfLengths({length, 1}, length).requires_grad_(true);
    auto [chunks, chunkMask] = ops::chunk(x, mask, 2, /*dim=*/2);
    auto dChunks = uniformDoubles(chunks.sizes().vec(), -1, 1, 12);
    auto dMask = uniformDoubles(chunkMask.sizes().vec(), -1, 1, 13);
    EXPECT_TRUE(
        at::allclose(ops::chunkBackward(dChunks, x.sizes(), 2, /*dim=*/2),
                     vjpOf(x, chunks, dChunks)))
        << "length " << length;
    EXPECT_TRUE(at::allclose(ops::chunkBackward(dMask, mask.sizes(), 2),
                             vjpOf(mask, chunkMask, dMask)))
        << "length " << length;
  }
  auto roots = uniformDoubles({8, 3, 4}, -1, 1, 14).requires_grad_(true);
  auto result = ops::unchunk(roots, at::zeros({2, 7}, kDouble), 2);
  auto dResult = uniformDoubles(result.sizes().vec(), -1, 1, 15);
  EXPECT_TRUE(at::allclose(ops::unchunkBackward(dResult, roots.sizes(), 2),
                           vjpOf(roots, result, dResult)));
}

TEST(RecursionOps, ChunkDepthCountsTheRoundsOfChunk) {
  // The level count is the number of chunk() rounds, each leaving one item
  // per chunk, that reduce a sequence to one item.
  for (int64_t size : {2, 3, 4, 30}) {
    for (int64_t length = 1; length <= 200; ++length) {
      auto items = at::zeros({1, length, 1}, kDouble);
      auto mask = at::ones({1, length}, kDouble);
      int64_t rounds = 0;
      while (items.size(1) > 1) {
        auto [chunks, chunkMask] = ops::chunk(items, mask, size);
        items = ops::unchunk(chunks.select(1, 0), items, /*dim=*/1);
        mask = ops::unchunk(chunkMask.select(1, 0), mask, /*dim=*/1);
        ++rounds;
      }
      EXPECT_EQ(ops::chunkDepth(length, size), rounds)
          << "length " << length << ", size " << size;
    }
  }
  // RIR's example: 100 -> 120 padded -> 4 -> 1; 2000 -> 67 -> 3 -> 1.
  EXPECT_EQ(ops::chunkDepth(100, 30), 2);
  EXPECT_EQ(ops::chunkDepth(2000, 30), 3);
  EXPECT_EQ(ops::chunkDepth(0, 30), 0);
  EXPECT_THROW(ops::chunkDepth(10, 1), c10::Error);
}

TEST(RecursionOps, BalancedReduceWithSumEqualsSumOverRealTokens) {
  for (int64_t arity : {2, 3}) {
    for (int64_t length : {1, 5, 7, 9}) {
      SCOPED_TRACE("arity " + std::to_string(arity) + ", S " +
                   std::to_string(length));
      // Padding holds garbage that the mask must keep out.
      auto h = uniformDoubles({3, length, 2}, 1, 2, 11 + length);
      auto mask = maskOfLengths({length, (length + 1) / 2, 1}, length);
      auto reduced = ops::balancedReduce(h, mask, arity, maskedSum);
      EXPECT_TRUE(at::allclose(reduced, maskedSum(h, mask)));
    }
  }
}

// Where a batch has many chunks whose children after the first are padding
// (many short rows), the reducer does not see them: they pass their first
// child up, as the reducer's contract says it would. Against a per-sample
// reduction.
TEST(RecursionOps, BalancedReducePassesUnpairedChunksUp) {
  for (bool manyUnpaired : {false, true}) {
    SCOPED_TRACE(manyUnpaired ? "many unpaired chunks" : "few");
    std::vector<int64_t> lengths = {7, 4, 1, 5};
    if (manyUnpaired)
      for (int64_t i = 0; i < 60; ++i)
        lengths.push_back(i % 2 ? 7 : 1);
    const int64_t n = static_cast<int64_t>(lengths.size());
    auto h = uniformDoubles({n, 7, 1}, -1, 1, 30);
    auto mask = maskOfLengths(lengths, 7);
    std::vector<bool> sawOnlyPaired;
    auto reducer = [&](const torch::Tensor &children, const torch::Tensor &m) {
      sawOnlyPaired.push_back(m.select(1, 1).ne(0).all().item<bool>());
      auto l = children.select(1, 0), mr = m.select(1, 1).unsqueeze(-1);
      return mr * (2 * l + 3 * children.select(1, 1) + 1) + (1 - mr) * l;
    };
    auto reduced = ops::balancedReduce(h, mask, 2, reducer);
    for (int64_t i = 0; i < n; ++i) {
      std::vector<double> level;
      for (int64_t j = 0; j < lengths[i]; ++j)
        level.push_back(h[i][j][0].item<double>());
      while (level.size() > 1) {
        std::vector<double> parents;
        for (size_t j = 0; j < level.size(); j += 2)
          parents.push_back(j + 1 < level.size()
                                ? 2 * level[j] + 3 * level[j + 1] + 1
                                : level[j]);
        level = parents;
      }
      EXPECT_NEAR(reduced[i][0].item<double>(), level[0], 1e-12)
          << "sample " << i;
    }
    ASSERT_FALSE(sawOnlyPaired.empty());
    EXPECT_EQ(sawOnlyPaired.front(), manyUnpaired);
  }
}

TEST(RecursionOps, BalancedReduceGradients) {
  auto h = uniformDoubles({2, 5, 2}, -1, 1, 20);
  auto mask = maskOfLengths({5, 4}, 5);
  // BBT's rule with a tanh cell: a padded right child passes the left up.
  auto binary = [](const torch::Tensor &children, const torch::Tensor &m) {
    auto l = children.select(1, 0);
    auto r = children.select(1, 1);
    auto mr = m.select(1, 1).unsqueeze(-1);
    return mr * at::tanh(l + 2 * r) + (1 - mr) * l;
  };
  auto ternary = [](const torch::Tensor &children, const torch::Tensor &m) {
    return at::tanh(maskedSum(children * children, m));
  };
  const std::vector<std::pair<int64_t, ops::ChunkReducer>> cases = {
      {2, binary}, {3, ternary}};
  auto expectGradients = [&](const torch::Tensor &rows,
                             const torch::Tensor &rowMask) {
    for (const auto &[arity, reducer] : cases)
      expectGradientsMatchFiniteDifferences(
          [&](const Inputs &in) {
            return ops::balancedReduce(in[0], rowMask, arity, reducer);
          },
          {rows});
  };
  expectGradients(h, mask);
  // Enough unpaired chunks that the reducer sees only the paired ones (in
  // runs of rows, a sample's last chunks): their children after the first
  // get zero cotangents.
  std::vector<int64_t> lengths;
  for (int64_t i = 0; i < 40; ++i)
    lengths.push_back(i % 2 ? 5 : 1);
  expectGradients(uniformDoubles({40, 5, 2}, -1, 1, 23),
                  maskOfLengths(lengths, 5));
}

TEST(RecursionOps, FreezeHaltedKeepsHaltedRows) {
  auto fresh = uniformDoubles({3, 2, 2}, -1, 1, 21);
  auto old = uniformDoubles({3, 2, 2}, -1, 1, 22);
  auto halted = at::tensor({1, 0, 1}).to(at::kBool);
  auto frozen = ops::freezeHalted(halted, fresh, old);
  EXPECT_TRUE(at::equal(frozen[0], old[0]));
  EXPECT_TRUE(at::equal(frozen[1], fresh[1]));
  EXPECT_TRUE(at::equal(frozen[2], old[2]));
  expectGradientsMatchFiniteDifferences(
      [&](const Inputs &in) { return ops::freezeHalted(halted, in[0], in[1]); },
      {fresh, old});
}
