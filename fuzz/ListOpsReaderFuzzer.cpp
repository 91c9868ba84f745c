// Fuzzes the ListOps reader (both public formats: Nangia & Bowman TSV and
// LRA's `Source<TAB>Target` TSV; one reader tells them apart by line 1).
// Expected errors: DataError and std::runtime_error (no examples).

#include "FuzzCommon.h"
#include "rvnn/Runtime/Data/ListOpsReader.h"

#include <sstream>
#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::istringstream in{std::string(rvnn::fuzz::bytes(data, size))};
  try {
    rvnn::runtime::data::listops::parse(in, "fuzz.tsv");
  } catch (const std::runtime_error &error) {
    rvnn::fuzz::expected(error);
  }
  return 0;
}
