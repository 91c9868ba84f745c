#ifndef RVNN_RUNTIME_DATA_LISTOPSREADER_H
#define RVNN_RUNTIME_DATA_LISTOPSREADER_H

#include "rvnn/Runtime/Data/Token.h"

#include <cstdint>
#include <istream>
#include <string>
#include <utility>
#include <vector>

namespace rvnn::runtime::data::listops {

struct Sample {
  std::vector<TokenId> tokens; ///< ListOpsVocab ids, round brackets dropped
  int label;                   ///< 0-9
  /// The gold parse's spans over `tokens` (bracketSpans()); empty when the
  /// line has no round brackets.
  std::vector<std::pair<int64_t, int64_t>> brackets;
};

/// Reads a ListOps file in either public format, told apart by line 1:
///  - Nangia & Bowman TSV, no header: `label<TAB>sequence`, with or without
///    the round-bracket parse tokens;
///  - LRA TSV: header `Source<TAB>Target`, then `sequence<TAB>label`.
/// Blank lines are skipped. Labels are taken as written, not recomputed: the
/// public generators take MED as int(np.median), which differs from ours on
/// even counts. Every other defect (field count, label not 0-9, unknown
/// token, empty or malformed sequence) throws DataError "<file>:<line>: ...";
/// a file without examples throws DataError "<file>: no examples: ...".
std::vector<Sample> read(const std::string &path);

/// As read(), from a stream; `name` stands for the file in error messages.
std::vector<Sample> parse(std::istream &in, const std::string &name);

} // namespace rvnn::runtime::data::listops

#endif // RVNN_RUNTIME_DATA_LISTOPSREADER_H
