// The generated execution contract (rvnn/Dialect/Exec/ExecContract.h) used as
// the runtime uses it: plain C++17, no MLIR.

#include "rvnn/Dialect/Exec/ExecContract.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace contract = rvnn::contract;

namespace {

// The whole contract is usable in constant expressions.
static_assert(contract::kFormatVersion >= 3);
static_assert(contract::lookupOp("rvnn_exec.gemm") ==
              contract::OpKind::Library);
static_assert(!contract::lookupOp("rvnn.gemm"));
static_assert(contract::parseElementwiseFn("or") ==
              contract::ElementwiseFn::logical_or);
static_assert(contract::keyword(contract::HaltingPolicy::per_sample) ==
              "per_sample");

TEST(ExecContract, FormatFacts) {
  EXPECT_EQ(contract::kFormatVersion, 3);
  EXPECT_EQ(contract::kModelFormat, "rvnn-compiled-model");
  EXPECT_EQ(contract::kPlanFormat, "rvnn-plan");
  EXPECT_EQ(contract::kDialect, "rvnn_exec");
}

TEST(ExecContract, LookupOp) {
  EXPECT_EQ(contract::lookupOp("rvnn_exec.gemm"), contract::OpKind::Library);
  EXPECT_EQ(contract::lookupOp("rvnn_exec.recurse"), contract::OpKind::Control);
  EXPECT_EQ(contract::lookupOp("rvnn_exec.call"), contract::OpKind::Control);
  EXPECT_EQ(contract::lookupOp("rvnn_exec.vjp"), contract::OpKind::Kernel);
  EXPECT_EQ(contract::lookupOp("rvnn_exec.elementwise"),
            contract::OpKind::Kernel);
  EXPECT_EQ(contract::lookupOp("rvnn_exec.slice"), contract::OpKind::View);
  EXPECT_EQ(contract::lookupOp("rvnn_exec.constant"), contract::OpKind::Scalar);
  EXPECT_FALSE(contract::lookupOp("arith.addf"));
  EXPECT_FALSE(contract::lookupOp("rvnn.recurse"));
  EXPECT_FALSE(contract::lookupOp(""));
  EXPECT_FALSE(contract::lookupOp("rvnn_exec."));
  EXPECT_FALSE(contract::lookupOp("rvnn_exec.gemm2"));
}

TEST(ExecContract, OpsSortedUniqueAndInDialect) {
  ASSERT_FALSE(contract::kOps.empty());
  std::string prefix = std::string(contract::kDialect) + ".";
  for (std::size_t i = 0; i < contract::kOps.size(); ++i) {
    const contract::OpInfo &op = contract::kOps[i];
    EXPECT_EQ(op.name.substr(0, prefix.size()), prefix) << op.name;
    if (i > 0) {
      EXPECT_LT(contract::kOps[i - 1].name, op.name) << "at index " << i;
    }
    // Every listed op is found again, with its kind.
    EXPECT_EQ(contract::lookupOp(op.name), op.kind) << op.name;
  }
}

TEST(ExecContract, OpKindKeywords) {
  std::set<std::string_view> keywords;
  for (contract::OpKind kind :
       {contract::OpKind::Control, contract::OpKind::Scalar,
        contract::OpKind::View, contract::OpKind::Library,
        contract::OpKind::Kernel})
    EXPECT_TRUE(keywords.insert(contract::keyword(kind)).second);
  EXPECT_EQ(contract::keyword(contract::OpKind::Library), "library");
  EXPECT_EQ(keywords.size(), 5u);
}

TEST(ExecContract, OpStructs) {
  using Gemm = contract::ops::GemmOp;
  EXPECT_EQ(Gemm::name, "rvnn_exec.gemm");
  EXPECT_EQ(Gemm::kind, contract::OpKind::Library);
  EXPECT_EQ(Gemm::operand::lhs, 0u);
  EXPECT_EQ(Gemm::operand::rhs, 1u);
  EXPECT_EQ(Gemm::operand::bias, 2u);
  EXPECT_EQ(Gemm::operand::accumulator, 3u);
  EXPECT_EQ(Gemm::attr::transpose_rhs, "transpose_rhs");
  EXPECT_EQ(Gemm::attr::operandSegmentSizes, "operandSegmentSizes");

  // Mirrored ops take their attributes from the rvnn op's record.
  EXPECT_EQ(contract::ops::RecurseOp::attr::halting, "halting");
  EXPECT_EQ(contract::ops::RecurseOp::attr::operandSegmentSizes,
            "operandSegmentSizes");
  EXPECT_EQ(contract::ops::ElementwiseOp::attr::fn, "fn");
  EXPECT_EQ(contract::ops::ElementwiseOp::operand::inputs, 0u);
}

// Every value of the enum from 0 to `last`, parsed back from its keyword.
template <typename Enum, typename Parse>
void expectRoundTrip(Enum last, Parse parse) {
  std::set<std::string_view> keywords;
  for (auto raw = 0u; raw <= static_cast<unsigned>(last); ++raw) {
    auto value = static_cast<Enum>(raw);
    std::string_view keyword = contract::keyword(value);
    EXPECT_FALSE(keyword.empty()) << "value " << raw;
    EXPECT_TRUE(keywords.insert(keyword).second) << keyword;
    EXPECT_EQ(parse(keyword), value) << keyword;
  }
  EXPECT_FALSE(parse(""));
  EXPECT_FALSE(parse("no_such_keyword"));
}

TEST(ExecContract, ElementwiseFnRoundTrip) {
  using contract::ElementwiseFn;
  expectRoundTrip(ElementwiseFn::logical_or, contract::parseElementwiseFn);
  EXPECT_EQ(static_cast<unsigned>(ElementwiseFn::neg), 0u);
  EXPECT_EQ(static_cast<unsigned>(ElementwiseFn::logical_or), 13u);
  EXPECT_EQ(contract::keyword(ElementwiseFn::logical_or), "or");
  EXPECT_FALSE(contract::parseElementwiseFn("logical_or"));
}

TEST(ExecContract, HaltingPolicyRoundTrip) {
  using contract::HaltingPolicy;
  expectRoundTrip(HaltingPolicy::per_sample, contract::parseHaltingPolicy);
  EXPECT_EQ(contract::parseHaltingPolicy("fixed"), HaltingPolicy::fixed);
}

TEST(ExecContract, OtherEnumsRoundTrip) {
  expectRoundTrip(contract::ComparePredicate::always_true,
                  contract::parseComparePredicate);
  EXPECT_EQ(contract::keyword(contract::ComparePredicate::always_false),
            "false");
  expectRoundTrip(contract::IndexArithKind::bit_or,
                  contract::parseIndexArithKind);
  EXPECT_EQ(contract::keyword(contract::IndexArithKind::bit_or), "or");
}

} // namespace
