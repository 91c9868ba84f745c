#ifndef RVNN_RUNTIME_DATA_LOGICREADER_H
#define RVNN_RUNTIME_DATA_LOGICREADER_H

#include "rvnn/Runtime/Data/LogicRelation.h"
#include "rvnn/Runtime/Data/Token.h"

#include <istream>
#include <string>
#include <vector>

namespace rvnn::runtime::data::logic {

struct Sample {
  std::vector<TokenId> left;  ///< LogicVocab ids, round brackets included
  std::vector<TokenId> right; ///< likewise
  Relation label;
};

/// Reads a logical-inference file (Bowman et al. 2015):
/// `label<TAB>formula<TAB>formula`, labels `< > = ^ | # v`. Blank lines are
/// skipped. Each formula must parse (see truthMask); labels are taken as
/// written. Every defect (field count, unknown label or token, empty or
/// malformed formula) throws DataError "<file>:<line>: ..."; a file without
/// examples throws DataError "<file>: no examples: ...".
std::vector<Sample> read(const std::string &path);

/// As read(), from a stream; `name` stands for the file in error messages.
std::vector<Sample> parse(std::istream &in, const std::string &name);

} // namespace rvnn::runtime::data::logic

#endif // RVNN_RUNTIME_DATA_LOGICREADER_H
