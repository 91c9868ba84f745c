#ifndef RVNN_RUNTIME_DATA_LOGICGENERATOR_H
#define RVNN_RUNTIME_DATA_LOGICGENERATOR_H

#include "rvnn/Runtime/Data/LogicRelation.h"
#include "rvnn/Runtime/Data/LogicVocab.h"
#include "rvnn/Runtime/Data/Rng.h"

#include <array>
#include <cstdint>
#include <ostream>
#include <string>

namespace rvnn::runtime::data::logic {

/// A pair's operator count (and, or, not) is that of its larger formula, so
/// one count per run gives one bucket like the public train0..train12.
struct GeneratorOptions {
  unsigned minOps = 0;
  unsigned maxOps = 6;
  /// How many of a..f one pair's formulas draw their variables from: 4 in
  /// Bowman et al.'s generator, so the two formulas share variables and
  /// relations other than independence are common.
  unsigned pairVariables = 4;
  std::uint64_t seed = 1;
};

/// Formulas nest one level per operator; this bounds the recursion.
constexpr unsigned kMostOperators = 1000;

struct Example {
  Relation label;
  std::string left;
  std::string right;
};

/// Random formula pairs over a..f. As in Bowman et al.'s generator, both
/// formulas of a pair draw their variables from the same `pairVariables` of
/// the six, and no formula is a tautology or a contradiction (one is drawn
/// again, with the same operator count); the shapes are this generator's
/// own, so that a run can ask for one operator count. Per pair: the count n is
/// uniform in [minOps, maxOps], a random side gets exactly n operators and the
/// other a uniform count in [0, n]. Each operator is and / or / not with equal
/// chance; a binary operator splits the rest uniformly between its operands.
/// The label comes from truthMask and relationBetween.
class Generator {
public:
  /// Throws std::invalid_argument when minOps > maxOps, maxOps is too big or
  /// pairVariables is not in 1..kNumVariables.
  explicit Generator(const GeneratorOptions &options);

  Example next();

private:
  /// A formula's text and its truthMask.
  struct Formula {
    std::string text;
    std::uint64_t truth;
  };
  /// A formula with `operators` operators over the pair's variables that is
  /// neither always true nor always false.
  Formula contingentFormula(unsigned operators);
  void emitFormula(unsigned operators, std::string &out);

  GeneratorOptions options;
  Rng rng;
  /// The pair's variables: the first options.pairVariables letters.
  std::array<char, kNumVariables> variables;
};

/// Writes `count` pairs as TSV lines `label<TAB>formula<TAB>formula`.
void writeTsv(Generator &generator, std::uint64_t count, std::ostream &out);

} // namespace rvnn::runtime::data::logic

#endif // RVNN_RUNTIME_DATA_LOGICGENERATOR_H
