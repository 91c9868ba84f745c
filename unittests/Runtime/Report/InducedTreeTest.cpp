#include "rvnn/Runtime/Report/InducedTree.h"

#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "Occurrences.h"
#include "rvnn/Runtime/Data/ListOpsReader.h"
#include "rvnn/Runtime/Data/ListOpsVocab.h"
#include "rvnn/Runtime/Report/BracketF1.h"
#include "rvnn/Runtime/Report/InducedStructure.h"
#include "rvnn/Runtime/Report/TreeSvg.h"

namespace rvnn::runtime::report {
namespace {

using contract::StructureKind;

const std::vector<std::string> kAbcd = {"a", "b", "c", "d", "e", "f", "g"};

TEST(InducedTree, BalancedTreesPassALoneNodeUp) {
  EXPECT_EQ(bracketed(balancedTree(4, 2), kAbcd), "( ( a b ) ( c d ) )");
  EXPECT_EQ(bracketed(balancedTree(5, 2), kAbcd), "( ( ( a b ) ( c d ) ) e )");
  EXPECT_EQ(bracketed(balancedTree(7, 3), kAbcd), "( ( a b c ) ( d e f ) g )");
  EXPECT_EQ(bracketed(balancedTree(1, 2), kAbcd), "a");
}

TEST(InducedTree, MergesJoinAdjacentNodesInPlace) {
  // [a b c d] -> [a (b c) d] -> [(a (b c)) d] -> ((a (b c)) d).
  Tree tree = treeFromMerges(4, {1, 0, 0});
  EXPECT_EQ(bracketed(tree, kAbcd), "( ( a ( b c ) ) d )");
  EXPECT_EQ(nodeSpans(tree), (std::vector<Span>{{0, 4}, {0, 3}, {1, 3}}));
  // Steps after the tree is complete are ignored; a position outside the
  // current nodes and too few steps are errors.
  EXPECT_EQ(bracketed(treeFromMerges(2, {0, 7, 7}), kAbcd), "( a b )");
  EXPECT_THROW(treeFromMerges(3, {2, 0}), std::invalid_argument);
  EXPECT_THROW(treeFromMerges(3, {0}), std::invalid_argument);
}

TEST(InducedTree, CompositionsJoinTheMostProbableItemRightwards) {
  std::vector<std::pair<Span, Span>> joined;
  // Iteration 1: slot 1 (0.9) joins b into c: items a, (b c) in slot 2, d.
  // Iteration 2: slot 0 (0.7) beats slot 2 (0.3): a joins (b c). Slot 1 is
  // no item any more, so its 0.8 is ignored. Then d is joined.
  Tree tree = treeFromCompositions(
      4, {{0.1, 0.9, 0.2, 0.0}, {0.7, 0.8, 0.3, 0.0}}, &joined);
  EXPECT_EQ(bracketed(tree, kAbcd), "( ( a ( b c ) ) d )");
  ASSERT_EQ(joined.size(), 3u);
  EXPECT_EQ(joined[0], (std::pair<Span, Span>{{1, 2}, {2, 3}}));
  EXPECT_EQ(joined[1], (std::pair<Span, Span>{{0, 1}, {1, 3}}));
  EXPECT_EQ(joined[2], (std::pair<Span, Span>{{0, 3}, {3, 4}}));
  // Ties go to the left; without iterations the items join left to right.
  EXPECT_EQ(bracketed(treeFromCompositions(3, {{0.5, 0.5, 0.0}}), kAbcd),
            "( ( a b ) c )");
  EXPECT_EQ(bracketed(treeFromCompositions(3, {}), kAbcd), "( ( a b ) c )");
}

TEST(BracketF1, ScoresSpansOfTwoOrMoreTokensWithoutTheWhole) {
  EXPECT_EQ(scoredSpans({{0, 4}, {0, 1}, {1, 3}, {1, 3}}, 4),
            (std::set<Span>{{1, 3}}));
  BracketScore empty;
  EXPECT_DOUBLE_EQ(empty.f1(), 1.0);
  BracketScore none;
  none.add({{0, 2}}, {{1, 3}});
  EXPECT_DOUBLE_EQ(none.f1(), 0.0);
}

// BBT-GRC's trees are the balanced binary trees over each row, whatever its
// weights. Against the gold parses of these four rows (spans [begin, end)
// over the tokens, round brackets removed; whole rows and single tokens not
// counted):
//   [MAX 2 9 ]            gold {0-2, 0-3}                BBT {0-2, 2-4}
//                         matched 1 of 2 induced, 2 gold
//   [SM 3 4 5 ]           gold {0-2, 0-3, 0-4}           BBT {0-2, 2-4, 0-4}
//                         matched 2 of 3, 3 gold
//   [MIN 7 [MAX 1 2 ] ]   gold {0-2, 2-4, 2-5, 2-6, 0-6}
//                         BBT {0-2, 2-4, 4-6, 0-4, 4-7}   matched 2 of 5, 5
//   [MAX 5 ]              gold {0-2}   BBT {0-2}          matched 1 of 1, 1
// Micro-averaged: 6 matched of 11 induced and 11 gold spans, so precision =
// recall = F1 = 6/11 = 0.5454...
TEST(BracketF1, BalancedTreesOnListOpsByHand) {
  std::istringstream file("9\t( ( ( [MAX 2 ) 9 ) ] )\n"
                          "2\t( ( ( ( [SM 3 ) 4 ) 5 ) ] )\n"
                          "2\t( ( ( [MIN 7 ) ( ( ( [MAX 1 ) 2 ) ] ) ) ] )\n"
                          "5\t( ( [MAX 5 ) ] )\n");
  BracketScore score;
  for (const data::listops::Sample &sample :
       data::listops::parse(file, "listops.tsv")) {
    const int64_t length = static_cast<int64_t>(sample.tokens.size());
    score.add(scoredSpans(nodeSpans(balancedTree(length, 2)), length),
              scoredSpans(sample.brackets, length));
  }
  EXPECT_EQ(score.matched, 6);
  EXPECT_EQ(score.induced, 11);
  EXPECT_EQ(score.gold, 11);
  EXPECT_DOUBLE_EQ(score.precision(), 6.0 / 11);
  EXPECT_DOUBLE_EQ(score.recall(), 6.0 / 11);
  EXPECT_DOUBLE_EQ(score.f1(), 6.0 / 11);
}

TEST(BracketF1, GoldSpansComeFromTheRoundBrackets) {
  EXPECT_EQ(data::listops::bracketSpans("( ( [MAX 2 ) 9 ] )"),
            (std::vector<std::pair<int64_t, int64_t>>{{0, 2}, {0, 4}}));
  EXPECT_TRUE(data::listops::bracketSpans("[MAX 2 9 ]").empty());
  EXPECT_TRUE(data::listops::bracketSpans("( [MAX 2 9 ]").empty());
  EXPECT_TRUE(data::listops::bracketSpans(") [MAX 2 9 ] (").empty());
}

StructureRecord record(StructureKind kind, torch::Tensor value,
                       int64_t factor = 1) {
  return {kind, 0, factor, std::move(value), "model.mlir:1:1"};
}

// Two beams over three tokens. Step 0: beam 0 merges pair 1 (b c), beam 1
// pair 0 (a b). Step 1 ranks beam 1's continuation first: the new beam 0
// continues beam 2 / 2 = 1. Following the top beam back gives ((a b) c),
// not the (a (b c)) of step 0's beam 0.
TEST(InducedStructure, FollowsTheTopBeamBackThroughItsParents) {
  StructureTrace trace;
  trace.push_back(record(StructureKind::merge_selection,
                         torch::tensor({0.f, 1.f, 1.f, 0.f}).view({1, 2, 2})));
  trace.push_back(record(StructureKind::beam_parent,
                         torch::tensor({0, 1}, torch::kLong).view({1, 2}), 2));
  trace.push_back(record(StructureKind::merge_selection,
                         torch::tensor({1.f, 1.f}).view({1, 2, 1})));
  trace.push_back(record(StructureKind::beam_parent,
                         torch::tensor({2, 0}, torch::kLong).view({1, 2}), 2));
  torch::Tensor mask = torch::ones({1, 3});
  InducedRow row = inducedTree(trace, mask, 0, kAbcd);
  EXPECT_EQ(bracketed(row.tree, kAbcd), "( ( a b ) c )");
  ASSERT_EQ(row.derivation.size(), 2u);
  EXPECT_EQ(row.derivation[0], "step 0 (beam 1): pair 0 -> ( a b )");
  EXPECT_EQ(row.derivation[1], "step 1 (beam 0): pair 0 -> ( ( a b ) c )");
}

TEST(InducedStructure, ExcludesPaddingAndNeedsOneKindOfStructure) {
  // Row 1 has 3 real tokens of 5: its balanced tree covers only them.
  torch::Tensor mask = torch::tensor({1.f, 1.f, 1.f, 1.f, 1.f, //
                                      1.f, 1.f, 1.f, 0.f, 0.f})
                           .view({2, 5});
  StructureTrace balanced{record(StructureKind::balanced, mask)};
  balanced[0].arity = 2;
  EXPECT_EQ(bracketed(inducedTree(balanced, mask, 1, kAbcd).tree, kAbcd),
            "( ( a b ) c )");
  EXPECT_THROW(inducedTree({}, mask, 0, kAbcd), std::invalid_argument);
  StructureTrace both = balanced;
  both.push_back(record(StructureKind::composition, mask));
  EXPECT_THROW(inducedTree(both, mask, 0, kAbcd), std::invalid_argument);
}

TEST(TreeSvg, DrawsTokensNodesAndOneLinePerEdge) {
  const std::string svg = renderTreeSvg(treeFromMerges(4, {1, 0, 0}),
                                        {"[MAX", "<2>", "9", "]"}, "row 1");
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  // 3 internal nodes, 4 leaves: 6 edges, 7 dots.
  EXPECT_EQ(testing::count(svg, "<line"), 6u);
  EXPECT_EQ(testing::count(svg, "<circle"), 7u);
  EXPECT_NE(svg.find(">[MAX</text>"), std::string::npos);
  EXPECT_NE(svg.find(">&lt;2&gt;</text>"), std::string::npos);
  EXPECT_NE(svg.find(">row 1</text>"), std::string::npos);
}

} // namespace
} // namespace rvnn::runtime::report
