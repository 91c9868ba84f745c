#ifndef RVNN_LIB_RUNTIME_DATA_TSVLINES_H
#define RVNN_LIB_RUNTIME_DATA_TSVLINES_H

#include <cstddef>
#include <fstream>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace rvnn::runtime::data {

/// Input limits (docs/user-guide.md, "Limits"): far above any public dataset
/// (LRA ListOps lines have at most 2000 tokens), far below what exhausts the
/// memory, so a runaway file fails at its line with the limit's name instead
/// of an allocator abort later. Both are checked before anything is stored
/// per token.
/// Bytes in one line: a file without line breaks is not read into memory.
constexpr std::size_t kMaxLineBytes = std::size_t{16} << 20;
/// Whitespace-separated words, round brackets included, in one sequence.
constexpr std::size_t kMaxSequenceWords = 100000;

/// Walks a tab-separated text stream line by line for the dataset readers,
/// keeping the line number for error messages. A trailing '\r' is dropped
/// (files written on Windows) and blank lines are skipped. A line longer than
/// kMaxLineBytes fails (DataError) once that many bytes are read.
class TsvLines {
public:
  TsvLines(std::istream &in, std::string name);

  /// Moves to the next non-blank line; false at the end of the input.
  bool next();

  const std::string &line() const { return text; }
  const std::vector<std::string_view> &fields() const { return split; }
  std::size_t lineNumber() const { return number; }

  /// Throws DataError "<name>:<line>: <problem>" for the current line.
  [[noreturn]] void fail(const std::string &problem) const;

  /// Fails unless `field` has at most kMaxSequenceWords words; counts
  /// without storing them. `what` names the field in the message.
  void checkWordCount(std::string_view field, const std::string &what) const;

  /// Throws std::runtime_error "<name>: no examples (...)" when `examples`
  /// is 0 at the end of the input: training, evaluating or timing on no rows
  /// would otherwise report a NaN accuracy or loss instead of the mistake.
  void requireExamples(std::size_t examples) const;

private:
  /// Reads the next line into `text`, without its '\n'; false at the end.
  bool readLine();

  std::istream &in;
  std::string name;
  std::string text;
  std::vector<std::string_view> split;
  std::size_t number = 0;
};

/// Opens a dataset file; throws std::runtime_error naming it on failure.
std::ifstream openDataFile(const std::string &path);

/// `text` without leading and trailing spaces and tabs.
std::string_view trimmed(std::string_view text);

} // namespace rvnn::runtime::data

#endif // RVNN_LIB_RUNTIME_DATA_TSVLINES_H
