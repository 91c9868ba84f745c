#include "rvnn/Runtime/Data/LogicVocab.h"

#include "Words.h"

#include <stdexcept>
#include <string>

namespace rvnn::runtime::data::logic {

std::vector<TokenId> tokenize(std::string_view formula) {
  std::vector<TokenId> ids;
  for (std::string_view word : splitWords(formula)) {
    if (word == "(")
      ids.push_back(kOpen);
    else if (word == ")")
      ids.push_back(kClose);
    else if (word.size() == 1 && word[0] >= 'a' &&
             word[0] < 'a' + kNumVariables)
      ids.push_back(kVarA + (word[0] - 'a'));
    else if (word == "and")
      ids.push_back(kAnd);
    else if (word == "or")
      ids.push_back(kOr);
    else if (word == "not")
      ids.push_back(kNot);
    else
      throw std::invalid_argument("unknown token '" + std::string(word) + "'");
  }
  return ids;
}

} // namespace rvnn::runtime::data::logic
