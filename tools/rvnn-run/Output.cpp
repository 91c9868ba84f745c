#include "Output.h"

#include <iostream>
#include <sstream>
#include <stdexcept>

#include "rvnn/Runtime/Train/AtomicFile.h"

namespace rvnn::cli {

void writeOutput(const std::string &path,
                 const std::function<void(std::ostream &)> &write) {
  if (path == "-") {
    write(std::cout);
    if (!std::cout.flush())
      throw std::runtime_error("cannot write to standard output");
    return;
  }
  // Whole or not at all: a full disk must not leave a truncated file that
  // reads as a shorter dataset or an unparsable report.
  std::ostringstream content;
  write(content);
  runtime::train::writeFileAtomically(path, content.str());
}

} // namespace rvnn::cli
