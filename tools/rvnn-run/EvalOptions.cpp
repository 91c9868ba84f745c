#include "EvalOptions.h"

#include <charconv>

namespace rvnn::cli {

void addEvalOptionsOption(OptionParser &parser, std::string &target) {
  parser.add("--option", "NAME=VALUE,...",
             "evaluate with these values of the model's evaluation options\n"
             "(rvnn.eval_option, e.g. rir_inference=1); the others keep\n"
             "their evaluation defaults",
             target);
}

std::map<std::string, int64_t> evalOptions(const OptionParser &parser,
                                           const std::string &text) {
  std::map<std::string, int64_t> options;
  for (const std::string &item : splitCommaList(text)) {
    const size_t equals = item.find('=');
    if (equals == std::string::npos || equals == 0)
      parser.fail("--option: expected NAME=VALUE, got '" + item + "'");
    const std::string name = item.substr(0, equals);
    const std::string number = item.substr(equals + 1);
    int64_t value = 0;
    auto [end, error] =
        std::from_chars(number.data(), number.data() + number.size(), value);
    if (error != std::errc() || end != number.data() + number.size())
      parser.fail("--option: the value of '" + name +
                  "' must be an integer, got '" + number + "'");
    if (!options.emplace(name, value).second)
      parser.fail("--option: '" + name + "' is given twice");
  }
  return options;
}

} // namespace rvnn::cli
