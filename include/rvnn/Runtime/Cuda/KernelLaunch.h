#ifndef RVNN_RUNTIME_CUDA_KERNELLAUNCH_H
#define RVNN_RUNTIME_CUDA_KERNELLAUNCH_H

#include "rvnn/Runtime/KernelLibrary.h"

#include <cstdint>
#include <string>
#include <vector>

#include <c10/core/Device.h>

namespace rvnn::runtime::cuda {

/// Launches entry `symbol` of `code` (rvnn-cuda-v1) on `device`'s current
/// CUDA stream: `descriptors` are the MLIR memref descriptors of its
/// arguments (contiguous device buffers), passed 8 bytes per parameter;
/// one thread per element, `elements` in all (no launch when 0). The code
/// is loaded with the driver API once per process, device and image: the
/// cubin of the device's architecture, else the PTX of the newest
/// architecture the device runs, compiled by the driver. Throws PlanError
/// naming the file, the entry and the driver's error. Linked only against a
/// LibTorch with CUDA (RVNN_RUNTIME_CUDA_KERNELS).
void launchKernel(const CudaKernelCode &code, const std::string &symbol,
                  const std::vector<std::vector<int64_t>> &descriptors,
                  int64_t elements, c10::Device device);

} // namespace rvnn::runtime::cuda

#endif // RVNN_RUNTIME_CUDA_KERNELLAUNCH_H
