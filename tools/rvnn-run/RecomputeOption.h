#ifndef RVNN_TOOLS_RVNN_RUN_RECOMPUTEOPTION_H
#define RVNN_TOOLS_RVNN_RUN_RECOMPUTEOPTION_H

#include "OptionParser.h"

#include "rvnn/Runtime/Executor.h"
#include "rvnn/Runtime/RunConfig.h"

#include <string>

namespace rvnn::cli {

/// Adds `--recompute save|recompute` (what differentiated calls keep for
/// backward) to `parser`; the text lands in `target`. Without it the run
/// configuration's "recompute" field decides (the default text says so).
void addRecomputeOption(OptionParser &parser, std::string &target);

/// The policy `--recompute` names when given, else the configuration's; a
/// usage error for anything else.
runtime::RecomputePolicy recomputeOption(const OptionParser &parser,
                                         const std::string &text,
                                         const runtime::RunConfig &config);

} // namespace rvnn::cli

#endif // RVNN_TOOLS_RVNN_RUN_RECOMPUTEOPTION_H
