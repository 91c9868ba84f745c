// Launching a compiled model's CUDA kernels (rvnn-cuda-v1) through the CUDA
// driver API on LibTorch's current stream. Compiled only against a LibTorch
// with CUDA (lib/Runtime/CMakeLists.txt).
#include "rvnn/Runtime/Cuda/KernelLaunch.h"

#include "rvnn/Runtime/Plan.h"

#include <fstream>
#include <iterator>
#include <map>

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda.h>

namespace rvnn::runtime {

/// One device's loaded image and the entry points resolved so far.
struct DeviceModule {
  CUmodule module = nullptr;
  std::string file;
  std::map<std::string, CUfunction, std::less<>> functions;
};

struct CudaModules {
  std::map<int, DeviceModule> devices;

  ~CudaModules() {
    // At exit the driver may be gone already; nothing to report then.
    for (auto &[device, loaded] : devices)
      cuModuleUnload(loaded.module);
  }
};

namespace cuda {
namespace {

void check(CUresult result, const std::string &what) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = nullptr;
  const char *text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  throw PlanError(what + ": " +
                  (name ? name : "CUDA error " + std::to_string(result)) +
                  (text ? std::string(" (") + text + ")" : ""));
}

std::string readImage(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw PlanError(path + ": cannot open the model's CUDA code");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// 90 for "sm_90"; -1 for anything else.
int archNumber(const std::string &arch) {
  if (arch.rfind("sm_", 0) != 0 || arch.size() < 5 ||
      arch.find_first_not_of("0123456789", 3) != std::string::npos)
    return -1;
  return std::stoi(arch.substr(3));
}

/// The file to load on a device of compute capability `capability` (90 for
/// 9.0): the cubin of exactly that architecture, else the PTX of the newest
/// architecture not above it, which the driver compiles for the device.
std::string chooseImage(const CudaKernelCode &code, int capability) {
  const CudaKernelCode::Image *ptx = nullptr;
  for (const CudaKernelCode::Image &image : code.images) {
    int arch = archNumber(image.arch);
    if (arch == capability && !image.cubin.empty())
      return image.cubin;
    if (arch <= capability && arch >= 0 &&
        (!ptx || arch > archNumber(ptx->arch)))
      ptx = &image;
  }
  if (ptx)
    return ptx->ptx;
  std::string archs;
  for (const CudaKernelCode::Image &image : code.images)
    archs += (archs.empty() ? "" : ", ") + image.arch;
  throw PlanError("the model has no CUDA code for this GPU (sm_" +
                  std::to_string(capability) + "; it has " +
                  (archs.empty() ? std::string("none") : archs) +
                  "); recompile it or use --kernels reference");
}

/// Makes the device's primary context current (LibTorch's CUDA runtime
/// uses the same one) and returns its compute capability.
int enterPrimaryContext(int ordinal) {
  check(cuInit(0), "cuInit");
  CUdevice device = 0;
  check(cuDeviceGet(&device, ordinal), "cuDeviceGet");
  CUcontext current = nullptr;
  check(cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (!current) {
    check(cuDevicePrimaryCtxRetain(&current, device),
          "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(current), "cuCtxSetCurrent");
  }
  int major = 0, minor = 0;
  check(cuDeviceGetAttribute(
            &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
        "cuDeviceGetAttribute");
  check(cuDeviceGetAttribute(
            &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
        "cuDeviceGetAttribute");
  return major * 10 + minor;
}

DeviceModule loadModule(const CudaKernelCode &code, int ordinal) {
  DeviceModule loaded;
  loaded.file = chooseImage(code, enterPrimaryContext(ordinal));
  const std::string image = readImage(loaded.file);
  // PTX goes through the driver's compiler: keep its log for the error.
  char log[4096] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
  CUresult result =
      cuModuleLoadDataEx(&loaded.module, image.c_str(), 2, options, values);
  if (result != CUDA_SUCCESS && log[0])
    check(result, loaded.file + ": cannot load (" + std::string(log) + ")");
  check(result, loaded.file + ": cannot load");
  return loaded;
}

/// Entry `symbol` on device `ordinal`, loading the code there first.
CUfunction entryPoint(const CudaKernelCode &code, const std::string &symbol,
                      int ordinal) {
  std::lock_guard<std::mutex> lock(code.loading);
  if (!code.loaded)
    code.loaded = std::make_shared<CudaModules>();
  auto device = code.loaded->devices.find(ordinal);
  if (device == code.loaded->devices.end())
    device =
        code.loaded->devices.emplace(ordinal, loadModule(code, ordinal)).first;
  DeviceModule &loaded = device->second;
  auto known = loaded.functions.find(symbol);
  if (known != loaded.functions.end())
    return known->second;
  CUfunction function = nullptr;
  check(cuModuleGetFunction(&function, loaded.module, symbol.c_str()),
        loaded.file + ": entry '" + symbol + "'");
  loaded.functions.emplace(symbol, function);
  return function;
}

} // namespace

void launchKernel(const CudaKernelCode &code, const std::string &symbol,
                  const std::vector<std::vector<int64_t>> &descriptors,
                  int64_t elements, c10::Device device) {
  if (elements == 0)
    return;
  const c10::cuda::CUDAGuard guard(device);
  CUfunction function = entryPoint(code, symbol, device.index());
  // One kernel parameter per descriptor word.
  std::vector<void *> params;
  for (const std::vector<int64_t> &descriptor : descriptors)
    for (const int64_t &word : descriptor)
      params.push_back(const_cast<int64_t *>(&word));
  const int64_t blocks = (elements + kCudaBlockSize - 1) / kCudaBlockSize;
  CUstream stream = c10::cuda::getCurrentCUDAStream(device.index()).stream();
  check(cuLaunchKernel(function, static_cast<unsigned>(blocks), 1, 1,
                       static_cast<unsigned>(kCudaBlockSize), 1, 1, 0, stream,
                       params.data(), nullptr),
        "launching '" + symbol + "'");
}

} // namespace cuda
} // namespace rvnn::runtime
