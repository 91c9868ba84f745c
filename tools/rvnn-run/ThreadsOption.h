#ifndef RVNN_TOOLS_RVNN_RUN_THREADSOPTION_H
#define RVNN_TOOLS_RVNN_RUN_THREADSOPTION_H

#include "OptionParser.h"

namespace rvnn::cli {

/// Adds `--threads N` (intra-op threads of LibTorch's pool and OpenBLAS's;
/// 0, the default in `target`, leaves both at their defaults) to `parser`.
void addThreadsOption(OptionParser &parser, unsigned &target);

/// Sets both pools to `threads`, unless it is 0.
void applyThreadsOption(unsigned threads);

} // namespace rvnn::cli

#endif // RVNN_TOOLS_RVNN_RUN_THREADSOPTION_H
