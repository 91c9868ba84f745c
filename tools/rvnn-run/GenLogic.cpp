#include "OptionParser.h"
#include "Output.h"
#include "Subcommands.h"

#include "rvnn/Runtime/Data/LogicGenerator.h"

#include <optional>
#include <stdexcept>

namespace rvnn::cli {

namespace data = rvnn::runtime::data;

namespace {

constexpr const char *kDescription =
    R"(Writes random logical-inference pairs (Bowman et al. 2015) as TSV lines
label<TAB>formula<TAB>formula. Formulas over the variables a-f use and, or,
not in the bracketed form of the public files: ( a ( and ( not b ) ) ).
The label is the relation between the sets of the 64 truth assignments that
satisfy each formula, tested in this order:
  =  equal                      <  strict subset (entailment)
  >  strict superset            ^  disjoint, union is all (negation)
  |  disjoint, union not all    v  union is all (cover)
  #  otherwise (independence)

A pair's operator count is that of its larger formula: uniform in
--min-ops..--max-ops; the other formula gets a uniform count up to it. As
in Bowman et al.'s generator, both formulas of a pair use --pair-variables
of the six variables (4, picked at random per pair), and a formula that is
always true or always false is drawn again. The standard split trains on
0-6 operators and tests each count 7..12 alone (e.g. --min-ops 7 --max-ops 7).
)";

} // namespace

int runGenLogic(const std::vector<std::string> &args) {
  data::logic::GeneratorOptions options;
  std::uint64_t count = 1000;
  std::string output = "-";
  OptionParser parser("rvnn-run gen logic", kDescription);
  parser.add("--count", "N", "pairs to write", count);
  parser.add("--seed", "N", "random seed (same seed and options, same bytes)",
             options.seed);
  parser.add("--min-ops", "N", "fewest operators in the larger formula",
             options.minOps);
  parser.add("--max-ops", "N",
             "most operators in the larger formula, <= " +
                 std::to_string(data::logic::kMostOperators),
             options.maxOps);
  parser.add("--pair-variables", "N",
             "how many of a-f one pair's formulas use, 1..6",
             options.pairVariables);
  parser.add("--output", "FILE", "where to write; - is standard output",
             output);
  if (!parser.parse(args))
    return 0;

  std::optional<data::logic::Generator> generator;
  try {
    generator.emplace(options);
  } catch (const std::invalid_argument &error) {
    parser.fail(error.what());
  }
  writeOutput(output, [&](std::ostream &out) {
    data::logic::writeTsv(*generator, count, out);
  });
  return 0;
}

} // namespace rvnn::cli
