#ifndef RVNN_TOOLS_RVNN_RUN_OUTPUT_H
#define RVNN_TOOLS_RVNN_RUN_OUTPUT_H

#include <functional>
#include <ostream>
#include <string>

namespace rvnn::cli {

/// Runs `write` on standard output when `path` is "-", else writes what it
/// wrote to `path` atomically (train::writeFileAtomically: whole or not at
/// all). Throws std::runtime_error naming the file and the system's reason
/// when it cannot be written (a full disk must not leave a truncated file).
void writeOutput(const std::string &path,
                 const std::function<void(std::ostream &)> &write);

} // namespace rvnn::cli

#endif // RVNN_TOOLS_RVNN_RUN_OUTPUT_H
