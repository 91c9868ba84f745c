#ifndef RVNN_RUNTIME_DATA_LOGICVOCAB_H
#define RVNN_RUNTIME_DATA_LOGICVOCAB_H

#include "rvnn/Runtime/Data/Token.h"

#include <string_view>
#include <vector>

namespace rvnn::runtime::data::logic {

/// The fixed logical-inference vocabulary:
///   0 <pad>, 1..6 the variables a..f, 7 and, 8 or, 9 not, 10 (, 11 ).
/// Unlike ListOps' (whose operators' own brackets delimit their arguments),
/// the round brackets are tokens: without them a formula is ambiguous (`not
/// a and b`), and the relation of most pairs of 7 or more operators depends
/// on the bracketing. The published models read them too (the Ordered
/// Memory and CRvNN code keep them in the vocabulary).
constexpr TokenId kVarA = 1;
constexpr TokenId kAnd = 7;
constexpr TokenId kOr = 8;
constexpr TokenId kNot = 9;
constexpr TokenId kOpen = 10;
constexpr TokenId kClose = 11;
constexpr TokenId kVocabSize = 12;

/// Number of propositional variables (a..f).
constexpr int kNumVariables = 6;

/// Splits a formula on whitespace and maps each word to its id. Throws
/// std::invalid_argument("unknown token '...'") on anything else.
std::vector<TokenId> tokenize(std::string_view formula);

} // namespace rvnn::runtime::data::logic

#endif // RVNN_RUNTIME_DATA_LOGICVOCAB_H
