#include "TsvLines.h"

#include "rvnn/Runtime/Data/DataError.h"

#include <array>
#include <stdexcept>

namespace rvnn::runtime::data {

TsvLines::TsvLines(std::istream &in, std::string name)
    : in(in), name(std::move(name)) {}

bool TsvLines::readLine() {
  text.clear();
  std::array<char, 1 << 14> chunk;
  for (;;) {
    in.getline(chunk.data(), chunk.size());
    const auto got = static_cast<std::size_t>(in.gcount());
    if (in.bad())
      return false;
    // Not failed: stopped at a '\n' (extracted and counted) or at the end of
    // the file. Failed and not at the end: the chunk is full, the line goes
    // on.
    const bool whole = !in.fail();
    if (!whole && in.eof())
      return !text.empty();
    text.append(chunk.data(), whole && !in.eof() ? got - 1 : got);
    if (text.size() > kMaxLineBytes) {
      ++number;
      fail("the line is longer than " + std::to_string(kMaxLineBytes) +
           " bytes, the limit for one data line (kMaxLineBytes)");
    }
    if (whole)
      return true;
    in.clear();
  }
}

bool TsvLines::next() {
  while (readLine()) {
    ++number;
    if (!text.empty() && text.back() == '\r')
      text.pop_back();
    if (trimmed(text).empty())
      continue;
    split.clear();
    std::string_view rest = text;
    for (std::size_t tab; (tab = rest.find('\t')) != std::string_view::npos;
         rest.remove_prefix(tab + 1))
      split.push_back(rest.substr(0, tab));
    split.push_back(rest);
    return true;
  }
  if (in.bad())
    throw std::runtime_error(name + ": read error after line " +
                             std::to_string(number));
  return false;
}

void TsvLines::fail(const std::string &problem) const {
  throw DataError(name, number, problem);
}

void TsvLines::checkWordCount(std::string_view field,
                              const std::string &what) const {
  std::size_t words = 0;
  bool inWord = false;
  for (const char c : field) {
    const bool space = c == ' ' || c == '\t';
    if (!space && !inWord && ++words > kMaxSequenceWords)
      fail(what + " has more than " + std::to_string(kMaxSequenceWords) +
           " tokens, the limit for one sequence (kMaxSequenceWords; round "
           "brackets count)");
    inWord = !space;
  }
}

void TsvLines::requireExamples(std::size_t examples) const {
  if (examples > 0)
    return;
  throw std::runtime_error(name + ": no examples: " +
                           (number == 0
                                ? std::string("the file is empty")
                                : std::to_string(number) +
                                      (number == 1 ? " line" : " lines") +
                                      ", all blank or a header"));
}

std::ifstream openDataFile(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw std::runtime_error("cannot open dataset file '" + path + "'");
  return file;
}

std::string_view trimmed(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos)
    return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

} // namespace rvnn::runtime::data
