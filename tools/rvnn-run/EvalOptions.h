#ifndef RVNN_TOOLS_RVNN_RUN_EVALOPTIONS_H
#define RVNN_TOOLS_RVNN_RUN_EVALOPTIONS_H

#include "OptionParser.h"

#include <cstdint>
#include <map>
#include <string>

namespace rvnn::cli {

/// Adds `--option NAME=VALUE[,NAME=VALUE...]` (the values of the model's
/// rvnn.eval_option ops at evaluation) to `parser`; the text lands in
/// `target`.
void addEvalOptionsOption(OptionParser &parser, std::string &target);

/// The NAME=VALUE pairs of `text` (VALUE an integer); a usage error for a
/// malformed item or a name given twice.
std::map<std::string, int64_t> evalOptions(const OptionParser &parser,
                                           const std::string &text);

} // namespace rvnn::cli

#endif // RVNN_TOOLS_RVNN_RUN_EVALOPTIONS_H
