#include "RecomputeOption.h"

namespace rvnn::cli {

void addRecomputeOption(OptionParser &parser, std::string &target) {
  parser.add("--recompute", "POLICY",
             "what differentiated calls keep for backward, overriding the\n"
             "run configuration's \"recompute\": save (the residuals) or\n"
             "recompute (only the operands; rerun the forward in backward)",
             target);
}

runtime::RecomputePolicy recomputeOption(const OptionParser &parser,
                                         const std::string &text,
                                         const runtime::RunConfig &config) {
  if (!parser.given("--recompute"))
    return config.recompute;
  std::optional<runtime::RecomputePolicy> policy =
      runtime::parseRecomputePolicy(text);
  if (!policy)
    parser.fail("--recompute: expected 'save' or 'recompute', got '" + text +
                "'");
  return *policy;
}

} // namespace rvnn::cli
