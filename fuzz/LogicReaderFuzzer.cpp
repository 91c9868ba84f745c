// Fuzzes the logical-inference reader (Bowman et al. 2015 TSV).
// Expected errors: DataError and std::runtime_error (no examples).

#include "FuzzCommon.h"
#include "rvnn/Runtime/Data/LogicReader.h"

#include <sstream>
#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::istringstream in{std::string(rvnn::fuzz::bytes(data, size))};
  try {
    rvnn::runtime::data::logic::parse(in, "fuzz.tsv");
  } catch (const std::runtime_error &error) {
    rvnn::fuzz::expected(error);
  }
  return 0;
}
