#include "rvnn/Runtime/Device.h"

#include <stdexcept>

#include <torch/cuda.h>
#ifdef RVNN_RUNTIME_CUDA_KERNELS
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace rvnn::runtime {

bool cudaAvailable() { return torch::cuda::is_available(); }

torch::Device selectDevice(const std::string &name) {
  if (name == "cpu")
    return torch::Device(torch::kCPU);
  if (name.rfind("cuda", 0) != 0)
    throw std::invalid_argument("--device: unknown device '" + name +
                                "' (expected cpu, cuda or cuda:N)");
  if (!cudaAvailable())
    throw std::invalid_argument(
        "--device " + name +
        ": CUDA is not available here (LibTorch built without CUDA, or no "
        "GPU visible); use --device cpu");
  int ordinal = 0;
  if (name.size() > 4) {
    std::size_t used = 0;
    if (name[4] != ':' || name.size() == 5 ||
        (ordinal = std::stoi(name.substr(5), &used), used != name.size() - 5))
      throw std::invalid_argument("--device: malformed CUDA device '" + name +
                                  "' (expected cuda or cuda:N)");
  }
  int count = static_cast<int>(torch::cuda::device_count());
  if (ordinal < 0 || ordinal >= count)
    throw std::invalid_argument("--device " + name + ": only " +
                                std::to_string(count) + " CUDA device(s)");
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(ordinal));
}

void resetPeakDeviceMemory(const torch::Device &device) {
#ifdef RVNN_RUNTIME_CUDA_KERNELS
  if (device.is_cuda())
    c10::cuda::CUDACachingAllocator::resetPeakStats(device.index());
#else
  (void)device;
#endif
}

std::optional<double> peakDeviceMemoryMiB(const torch::Device &device) {
#ifdef RVNN_RUNTIME_CUDA_KERNELS
  if (device.is_cuda()) {
    // allocated_bytes[0]: the aggregate over small and large pools.
    const auto stats =
        c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
    return static_cast<double>(stats.allocated_bytes[0].peak) / (1 << 20);
  }
#else
  (void)device;
#endif
  return std::nullopt;
}

} // namespace rvnn::runtime
