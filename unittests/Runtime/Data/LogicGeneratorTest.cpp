#include "rvnn/Runtime/Data/LogicGenerator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>

namespace logic = rvnn::runtime::data::logic;

namespace {

std::vector<std::string> words(const std::string &text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string word; in >> word;)
    out.push_back(word);
  return out;
}

/// Truth of a formula under one assignment (a map variable -> bool),
/// independent of the library's 64-bit masks.
class FormulaEvaluator {
public:
  FormulaEvaluator(const std::string &formula, unsigned assignment)
      : tokens(words(formula)), assignment(assignment) {}

  bool value() {
    bool result = formula();
    EXPECT_EQ(at, tokens.size());
    return result;
  }

private:
  bool formula() {
    const std::string token = tokens.at(at++);
    if (token != "(")
      return assignment >> (token[0] - 'a') & 1;
    if (tokens.at(at) == "not") {
      ++at;
      bool operand = formula();
      EXPECT_EQ(tokens.at(at++), ")");
      return !operand;
    }
    bool left = formula();
    EXPECT_EQ(tokens.at(at++), "(");
    const std::string op = tokens.at(at++);
    bool right = formula();
    EXPECT_EQ(tokens.at(at++), ")");
    EXPECT_EQ(tokens.at(at++), ")");
    EXPECT_TRUE(op == "and" || op == "or") << op;
    return op == "and" ? left && right : left || right;
  }

  std::vector<std::string> tokens;
  unsigned assignment;
  std::size_t at = 0;
};

std::set<unsigned> models(const std::string &formula) {
  std::set<unsigned> satisfying;
  for (unsigned assignment = 0; assignment < 64; ++assignment)
    if (FormulaEvaluator(formula, assignment).value())
      satisfying.insert(assignment);
  return satisfying;
}

/// The relation from set operations, in the documented order.
char expectedRelation(const std::string &left, const std::string &right) {
  const std::set<unsigned> a = models(left), b = models(right);
  auto within = [](const std::set<unsigned> &x, const std::set<unsigned> &y) {
    return std::includes(y.begin(), y.end(), x.begin(), x.end());
  };
  std::set<unsigned> both, either(a);
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(),
                        std::inserter(both, both.begin()));
  either.insert(b.begin(), b.end());
  if (a == b)
    return '=';
  if (within(a, b))
    return '<';
  if (within(b, a))
    return '>';
  if (both.empty())
    return either.size() == 64 ? '^' : '|';
  return either.size() == 64 ? 'v' : '#';
}

std::size_t operatorCount(const std::string &formula) {
  std::size_t count = 0;
  for (const std::string &word : words(formula))
    count += word == "and" || word == "or" || word == "not";
  return count;
}

std::string generate(const logic::GeneratorOptions &options,
                     std::uint64_t count) {
  logic::Generator generator(options);
  std::ostringstream out;
  logic::writeTsv(generator, count, out);
  return out.str();
}

} // namespace

TEST(LogicGenerator, IndependentEvaluatorAgreesOnHandPairs) {
  EXPECT_EQ(expectedRelation("a", "( a ( or b ) )"), '<');
  EXPECT_EQ(expectedRelation("a", "( not a )"), '^');
  EXPECT_EQ(expectedRelation("( a ( and b ) )", "( a ( and ( not b ) ) )"),
            '|');
  EXPECT_EQ(expectedRelation("( a ( or b ) )", "( ( not a ) ( or c ) )"), 'v');
  EXPECT_EQ(expectedRelation("a", "b"), '#');
}

TEST(LogicGenerator, SameSeedSameBytes) {
  logic::GeneratorOptions options;
  options.seed = 9;
  const std::string first = generate(options, 300);
  EXPECT_EQ(first, generate(options, 300));
  options.seed = 10;
  EXPECT_NE(first, generate(options, 300));
}

TEST(LogicGenerator, OutputIsPinned) {
  logic::GeneratorOptions options;
  options.maxOps = 2;
  EXPECT_EQ(generate(options, 3),
            "#\t( not ( a ( or d ) ) )\tc\n"
            ">\t( ( c ( or e ) ) ( or c ) )\t( e ( and ( not f ) ) )\n"
            "=\te\te\n");
}

TEST(LogicGenerator, LabelsMatchTruthTables) {
  logic::GeneratorOptions options;
  options.maxOps = 8;
  options.seed = 23;
  logic::Generator generator(options);
  std::set<char> labels;
  for (int i = 0; i < 1500; ++i) {
    logic::Example example = generator.next();
    ASSERT_EQ(logic::symbol(example.label),
              expectedRelation(example.left, example.right))
        << example.left << " vs " << example.right;
    labels.insert(logic::symbol(example.label));
  }
  EXPECT_EQ(labels.size(), 7u) << "every relation should occur";
}

TEST(LogicGenerator, OperatorCountsAreRespected) {
  logic::GeneratorOptions options;
  options.minOps = 7;
  options.maxOps = 9;
  logic::Generator generator(options);
  std::set<std::size_t> larger;
  for (int i = 0; i < 300; ++i) {
    logic::Example example = generator.next();
    const std::size_t left = operatorCount(example.left);
    const std::size_t right = operatorCount(example.right);
    const std::size_t most = std::max(left, right);
    ASSERT_GE(most, 7u);
    ASSERT_LE(most, 9u);
    larger.insert(most);
  }
  EXPECT_EQ(larger, (std::set<std::size_t>{7, 8, 9}));
}

std::set<char> variablesOf(const logic::Example &example) {
  std::set<char> variables;
  for (const std::string &formula : {example.left, example.right})
    for (const std::string &word : words(formula))
      if (word.size() == 1 && word[0] >= 'a' && word[0] <= 'f')
        variables.insert(word[0]);
  return variables;
}

TEST(LogicGenerator, PairsShareTheirVariablesAsBowmansGeneratorDoes) {
  logic::GeneratorOptions options;
  options.minOps = 6;
  options.maxOps = 12;
  for (unsigned pairVariables : {1u, 4u, 6u}) {
    options.pairVariables = pairVariables;
    logic::Generator generator(options);
    std::set<char> seen;
    std::size_t most = 0;
    for (int i = 0; i < 400; ++i) {
      const std::set<char> variables = variablesOf(generator.next());
      ASSERT_LE(variables.size(), pairVariables);
      most = std::max(most, variables.size());
      seen.insert(variables.begin(), variables.end());
    }
    EXPECT_EQ(most, pairVariables) << "a pair should use all its variables";
    EXPECT_EQ(seen.size(), 6u) << "every variable should be drawn";
  }
}

TEST(LogicGenerator, NoFormulaIsATautologyOrAContradiction) {
  logic::GeneratorOptions options;
  options.maxOps = 12;
  options.pairVariables = 2;
  logic::Generator generator(options);
  for (int i = 0; i < 1000; ++i) {
    const logic::Example example = generator.next();
    for (const std::string &formula : {example.left, example.right}) {
      const std::size_t satisfying = models(formula).size();
      ASSERT_GT(satisfying, 0u) << formula;
      ASSERT_LT(satisfying, 64u) << formula;
    }
  }
}

TEST(LogicGenerator, BadOptionsAreRejected) {
  logic::GeneratorOptions options;
  options.minOps = 5;
  options.maxOps = 4;
  EXPECT_THROW(logic::Generator{options}, std::invalid_argument);
  options.minOps = 0;
  options.maxOps = logic::kMostOperators + 1;
  EXPECT_THROW(logic::Generator{options}, std::invalid_argument);
  options.maxOps = 6;
  options.pairVariables = 0;
  EXPECT_THROW(logic::Generator{options}, std::invalid_argument);
  options.pairVariables = 7;
  EXPECT_THROW(logic::Generator{options}, std::invalid_argument);
}
