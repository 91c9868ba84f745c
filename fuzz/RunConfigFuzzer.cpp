// Fuzzes the run-configuration reader (models/<name>.json): readRunConfig,
// then TrainerConfig::fromJson on its "training" object, as `rvnn-run train`
// does. Expected errors: std::runtime_error (readRunConfig) and
// std::invalid_argument (TrainerConfig::fromJson).

#include "FuzzCommon.h"
#include "rvnn/Runtime/RunConfig.h"
#include "rvnn/Runtime/Train/TrainerConfig.h"

#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string path =
      rvnn::fuzz::writeScratch("config.json", rvnn::fuzz::bytes(data, size));
  rvnn::runtime::RunConfig config;
  try {
    config = rvnn::runtime::readRunConfig(path);
  } catch (const std::runtime_error &error) {
    rvnn::fuzz::expected(error);
    return 0;
  }
  try {
    rvnn::runtime::train::TrainerConfig::fromJson(config.training);
  } catch (const std::invalid_argument &error) {
    rvnn::fuzz::expected(error);
  }
  return 0;
}
