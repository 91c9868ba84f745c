#include "rvnn/Runtime/Data/LogicGenerator.h"

#include "rvnn/Runtime/Data/LogicFormula.h"
#include "rvnn/Runtime/Data/LogicVocab.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace rvnn::runtime::data::logic {

Generator::Generator(const GeneratorOptions &options)
    : options(options), rng(options.seed) {
  if (options.minOps > options.maxOps)
    throw std::invalid_argument(
        "min operators " + std::to_string(options.minOps) +
        " exceeds max operators " + std::to_string(options.maxOps));
  if (options.maxOps > kMostOperators)
    throw std::invalid_argument(
        "max operators " + std::to_string(options.maxOps) +
        " exceeds the limit of " + std::to_string(kMostOperators));
  if (options.pairVariables < 1 || options.pairVariables > kNumVariables)
    throw std::invalid_argument(
        "variables per pair " + std::to_string(options.pairVariables) +
        " is not in 1.." + std::to_string(kNumVariables));
  for (int i = 0; i < kNumVariables; ++i)
    variables[i] = static_cast<char>('a' + i);
}

Example Generator::next() {
  const auto larger =
      static_cast<unsigned>(rng.between(options.minOps, options.maxOps));
  const auto smaller = static_cast<unsigned>(rng.between(0, larger));
  // The pair's variables: a random choice of pairVariables distinct ones in
  // the first places (a partial Fisher-Yates shuffle).
  for (unsigned i = 0; i < options.pairVariables; ++i)
    std::swap(variables[i], variables[i + rng.below(kNumVariables - i)]);
  const bool largerLeft = rng.below(2) == 0;
  Formula left = contingentFormula(largerLeft ? larger : smaller);
  Formula right = contingentFormula(largerLeft ? smaller : larger);
  Example example;
  example.label = relationBetween(left.truth, right.truth);
  example.left = std::move(left.text);
  example.right = std::move(right.text);
  return example;
}

Generator::Formula Generator::contingentFormula(unsigned operators) {
  constexpr std::uint64_t kTrueEverywhere = ~std::uint64_t{0};
  while (true) {
    Formula formula;
    emitFormula(operators, formula.text);
    // Truth values come from the public parser, the definition the tests pin
    // down.
    formula.truth = truthMask(formula.text);
    if (formula.truth != 0 && formula.truth != kTrueEverywhere)
      return formula;
  }
}

void Generator::emitFormula(unsigned operators, std::string &out) {
  if (operators == 0) {
    out += variables[rng.below(options.pairVariables)];
    return;
  }
  const auto op = rng.below(3);
  if (op == 0) {
    out += "( not ";
    emitFormula(operators - 1, out);
    out += " )";
    return;
  }
  const auto left = static_cast<unsigned>(rng.between(0, operators - 1));
  out += "( ";
  emitFormula(left, out);
  out += op == 1 ? " ( and " : " ( or ";
  emitFormula(operators - 1 - left, out);
  out += " ) )";
}

void writeTsv(Generator &generator, std::uint64_t count, std::ostream &out) {
  for (std::uint64_t i = 0; i < count; ++i) {
    Example example = generator.next();
    out << symbol(example.label) << '\t' << example.left << '\t'
        << example.right << '\n';
  }
}

} // namespace rvnn::runtime::data::logic
