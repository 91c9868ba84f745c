#ifndef RVNN_RUNTIME_DEVICE_H
#define RVNN_RUNTIME_DEVICE_H

#include <optional>
#include <string>

#include <torch/types.h>

namespace rvnn::runtime {

/// Parses a user's device name ("cpu", "cuda", "cuda:N") and checks that it
/// can run here. Throws std::invalid_argument naming the problem (unknown
/// name, CUDA not built into LibTorch, no GPU, ordinal out of range).
torch::Device selectDevice(const std::string &name);

/// True when this LibTorch has CUDA and at least one device answers.
bool cudaAvailable();

/// Starts a new peak of the memory LibTorch's caching allocator holds for
/// tensors on `device` (a GPU; nothing elsewhere).
void resetPeakDeviceMemory(const torch::Device &device);

/// The peak, in MiB, since the last reset, of the tensor memory allocated on
/// `device` (torch.cuda.max_memory_allocated); nullopt off the GPU or where
/// this runtime was built without CUDA.
std::optional<double> peakDeviceMemoryMiB(const torch::Device &device);

} // namespace rvnn::runtime

#endif // RVNN_RUNTIME_DEVICE_H
