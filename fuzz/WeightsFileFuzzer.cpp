// Fuzzes the weight import of `rvnn-run train --init` and `eval --weights`
// (WeightsFile.cpp): torch.save zip files (LibTorch's unpickler underneath)
// and safetensors. The bytes go to the decoder readWeights picks by content,
// where errors are not yet wrapped, then, when they decode, through
// loadWeights onto a model. Expected errors: std::runtime_error and, from
// LibTorch, c10::Error.

#include "FuzzCommon.h"
#include "FuzzModel.h"
#include "rvnn/Runtime/Train/WeightsFile.h"

#include <stdexcept>

using namespace rvnn::runtime::train;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view bytes = rvnn::fuzz::bytes(data, size);
  // readWeights's choice (decodeWeights in WeightsFile.cpp).
  const bool zip = bytes.substr(0, 4) == std::string_view("PK\x03\x04", 4);
  const bool safetensors = !zip && bytes.size() > 8 && bytes[8] == '{';
  if (!zip && !safetensors)
    return 0;
  try {
    zip ? decodeTorch(bytes) : decodeSafetensors(bytes);
  } catch (const c10::Error &error) {
    rvnn::fuzz::expected(error);
    return 0;
  } catch (const std::runtime_error &error) {
    rvnn::fuzz::expected(error);
    return 0;
  }
  const std::string path = rvnn::fuzz::writeScratch("weights", bytes);
  try {
    rvnn::fuzz::TinyModel model;
    loadWeights(path, model);
  } catch (const std::runtime_error &error) {
    rvnn::fuzz::expected(error);
  }
  return 0;
}
