#include "KernelsOption.h"

namespace rvnn::cli {

void addKernelsOption(OptionParser &parser, std::string &target) {
  parser.add("--kernels", "MODE",
             "generated: call the model's generated kernels (kernels.so);\n"
             "reference: run the fused ops' reference implementations",
             target);
}

runtime::KernelMode kernelsOption(const OptionParser &parser,
                                  const std::string &text) {
  std::optional<runtime::KernelMode> mode = runtime::parseKernelMode(text);
  if (!mode)
    parser.fail("--kernels: expected 'generated' or 'reference', got '" + text +
                "'");
  return *mode;
}

} // namespace rvnn::cli
