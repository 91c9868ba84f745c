#ifndef RVNN_FUZZ_FUZZCOMMON_H
#define RVNN_FUZZ_FUZZCOMMON_H

// Helpers shared by the fuzz targets (fuzz/README.md). A target feeds the
// input to a reader through its normal entry point; the reader's documented
// errors (each target lists which) are caught, anything else escapes and
// libFuzzer reports it as a crash: an uncaught exception of another type
// (e.g. std::out_of_range from a missing check), an abort, a sanitizer
// report, a timeout or a leak.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace rvnn::fuzz {

inline std::string_view bytes(const uint8_t *data, size_t size) {
  return {reinterpret_cast<const char *>(data), size};
}

/// A directory of this process for files the readers take by path:
/// /dev/shm when there is one (no disk writes per input), else $TMPDIR.
inline const std::string &scratchDir() {
  static const std::string dir = [] {
    std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "";
    if (base.empty()) {
      const char *tmp = std::getenv("TMPDIR");
      base = tmp && *tmp ? tmp : "/tmp";
    }
    std::string pattern = base + "/rvnn-fuzz-XXXXXX";
    if (!mkdtemp(pattern.data()))
      std::abort();
    return pattern;
  }();
  return dir;
}

/// Writes `content` to scratchDir()/name and returns the path.
inline std::string writeScratch(const std::string &name,
                                std::string_view content) {
  std::string path = scratchDir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out)
    std::abort();
  return path;
}

/// Prints an expected error when RVNN_FUZZ_VERBOSE is set: running a
/// target on its seeds with it shows that each seed loads (or why not).
inline void expected(const std::exception &error) {
  static const bool verbose = std::getenv("RVNN_FUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "rvnn-fuzz: expected error: %s\n", error.what());
}

/// Splits a multi-file input at kFileSeparator lines.
constexpr std::string_view kFileSeparator = "\n#rvnn-fuzz-file\n";

inline std::vector<std::string_view> splitFiles(std::string_view input) {
  std::vector<std::string_view> parts;
  for (size_t at; (at = input.find(kFileSeparator)) != input.npos;) {
    parts.push_back(input.substr(0, at));
    input.remove_prefix(at + kFileSeparator.size());
  }
  parts.push_back(input);
  return parts;
}

} // namespace rvnn::fuzz

#endif // RVNN_FUZZ_FUZZCOMMON_H
