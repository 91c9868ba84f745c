#include "rvnn/Runtime/Data/ListOpsVocab.h"

#include "Words.h"

#include <stdexcept>
#include <string>

namespace rvnn::runtime::data::listops {

namespace {
constexpr std::string_view kTexts[kVocabSize] = {
    "<pad>", "[MIN", "[MAX", "[MED", "[SM", "]", "0", "1",
    "2",     "3",    "4",    "5",    "6",   "7", "8", "9"};
} // namespace

std::string_view tokenText(TokenId id) {
  if (id < 0 || id >= kVocabSize)
    throw std::out_of_range("ListOps token id " + std::to_string(id) +
                            " out of range");
  return kTexts[id];
}

std::vector<TokenId> tokenize(std::string_view sequence) {
  std::vector<TokenId> ids;
  for (std::string_view word : splitWords(sequence)) {
    if (word == "(" || word == ")")
      continue;
    // Digits are most of the tokens; test them before the table.
    if (word.size() == 1 && word[0] >= '0' && word[0] <= '9') {
      ids.push_back(kDigit0 + (word[0] - '0'));
      continue;
    }
    TokenId id = kMin;
    while (id < kDigit0 && kTexts[id] != word)
      ++id;
    if (id == kDigit0)
      throw std::invalid_argument("unknown token '" + std::string(word) + "'");
    ids.push_back(id);
  }
  return ids;
}

std::vector<std::pair<int64_t, int64_t>>
bracketSpans(std::string_view sequence) {
  std::vector<std::pair<int64_t, int64_t>> spans;
  std::vector<int64_t> opened;
  int64_t position = 0;
  for (std::string_view word : splitWords(sequence)) {
    if (word == "(") {
      opened.push_back(position);
    } else if (word == ")") {
      if (opened.empty())
        return {};
      spans.push_back({opened.back(), position});
      opened.pop_back();
    } else {
      ++position;
    }
  }
  if (!opened.empty())
    return {};
  return spans;
}

} // namespace rvnn::runtime::data::listops
