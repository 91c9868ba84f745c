#ifndef RVNN_TOOLS_RVNN_RUN_KERNELSOPTION_H
#define RVNN_TOOLS_RVNN_RUN_KERNELSOPTION_H

#include "OptionParser.h"

#include "rvnn/Runtime/Executor.h"

#include <string>

namespace rvnn::cli {

/// Adds `--kernels generated|reference` (how dispatch ops run) to `parser`;
/// the text lands in `target`, whose value is the default.
void addKernelsOption(OptionParser &parser, std::string &target);

/// The kernel mode `text` names; a usage error for anything else.
runtime::KernelMode kernelsOption(const OptionParser &parser,
                                  const std::string &text);

} // namespace rvnn::cli

#endif // RVNN_TOOLS_RVNN_RUN_KERNELSOPTION_H
