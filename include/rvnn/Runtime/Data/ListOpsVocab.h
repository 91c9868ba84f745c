#ifndef RVNN_RUNTIME_DATA_LISTOPSVOCAB_H
#define RVNN_RUNTIME_DATA_LISTOPSVOCAB_H

#include "rvnn/Runtime/Data/Token.h"

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace rvnn::runtime::data::listops {

/// The fixed ListOps vocabulary, so ids mean the same in every dataset:
///   0 <pad>, 1 [MIN, 2 [MAX, 3 [MED, 4 [SM, 5 ], 6..15 the digits 0..9.
/// The round brackets of the binary parse have no id: tokenize() drops them,
/// as models must induce the structure themselves.
constexpr TokenId kMin = 1;
constexpr TokenId kMax = 2;
constexpr TokenId kMed = 3;
constexpr TokenId kSm = 4;
constexpr TokenId kClose = 5;
constexpr TokenId kDigit0 = 6;
constexpr TokenId kVocabSize = 16;

constexpr bool isOperator(TokenId id) { return id >= kMin && id <= kSm; }
constexpr bool isDigit(TokenId id) {
  return id >= kDigit0 && id < kDigit0 + 10;
}

/// The text of a token id ("[MAX", "]", "7"); "<pad>" for 0.
std::string_view tokenText(TokenId id);

/// Splits a sequence on whitespace, drops `(` and `)`, and maps the rest to
/// ids. Throws std::invalid_argument("unknown token '...'") on anything else.
std::vector<TokenId> tokenize(std::string_view sequence);

/// The spans [begin, end) of token positions (as tokenize() numbers them)
/// that the round-bracket pairs of `sequence` enclose, in the order their
/// `)` closes: the gold binary parse of Nangia & Bowman's format, e.g.
/// "( ( [MAX 2 ) 9 ] )" gives [0, 2) and [0, 4). Empty when the sequence
/// has no round brackets or they do not pair up.
std::vector<std::pair<int64_t, int64_t>>
bracketSpans(std::string_view sequence);

} // namespace rvnn::runtime::data::listops

#endif // RVNN_RUNTIME_DATA_LISTOPSVOCAB_H
