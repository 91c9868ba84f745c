#include "OptionParser.h"
#include "Subcommands.h"

#include <iostream>
#include <stdexcept>

#include "rvnn/Runtime/Train/Checkpoint.h"
#include "rvnn/Runtime/Train/WeightsFile.h"

namespace rvnn::cli {

using namespace rvnn::runtime;

int runExport(const std::vector<std::string> &args) {
  std::string checkpoint, format, output;
  bool latest = false;
  OptionParser parser(
      "rvnn-run export",
      "Writes a checkpoint's parameters under the model's own names\n"
      "(embedding, cell_w1, ...) in a format other tools read: torch, what\n"
      "Python's torch.save writes for a plain dict of tensors (torch.load\n"
      "gives the dict back), or safetensors. The checkpoint lists the names,\n"
      "so no compiled model is needed. `train --init` and `eval --weights`\n"
      "read either format back.\n");
  parser.add("--checkpoint", "FILE", "checkpoint (best.pt or last.pt)",
             checkpoint);
  parser.add("--format", "NAME", "torch or safetensors", format);
  parser.add("--output", "FILE", "weights file to write (atomically)", output);
  parser.alias("-o", "--output");
  parser.addFlag("--latest", "the checkpoint's latest parameters, not its best",
                 latest);
  if (!parser.parse(args))
    return 0;
  for (const char *required : {"--checkpoint", "--format", "--output"})
    if (!parser.given(required))
      parser.fail(std::string("missing ") + required);
  train::WeightsFormat weightsFormat;
  try {
    weightsFormat = train::parseWeightsFormat(format);
  } catch (const std::invalid_argument &error) {
    parser.fail(error.what());
  }

  const train::NamedTensors params =
      train::readCheckpointParameters(checkpoint, /*best=*/!latest);
  train::saveWeights(output, params, weightsFormat);
  std::cout << "wrote " << params.size() << " parameters to " << output << "\n";
  return 0;
}

} // namespace rvnn::cli
