#include "rvnn/Runtime/Ops/ConstantElements.h"

#include <map>
#include <mutex>
#include <tuple>

namespace rvnn::runtime::ops {
namespace {

/// What a cached tensor is: the constant, dtype, device and (for rows) the
/// length.
using Key = std::tuple<Constant, at::ScalarType, c10::DeviceType,
                       c10::DeviceIndex, int64_t>;

/// Tensors made once and never destroyed: they must outlive every tensor
/// that views them.
std::mutex &cacheMutex() {
  static auto *mutex = new std::mutex();
  return *mutex;
}

std::map<Key, torch::Tensor> &cache() {
  static auto *tensors = new std::map<Key, torch::Tensor>();
  return *tensors;
}

const torch::Tensor &cached(Constant constant, const torch::Tensor &like,
                            int64_t length) {
  Key key{constant, like.scalar_type(), like.device().type(),
          like.device().index(), length};
  std::lock_guard<std::mutex> lock(cacheMutex());
  auto [it, inserted] = cache().try_emplace(key);
  if (inserted) {
    const double value = constant == Constant::One ? 1.0 : 0.0;
    it->second = length < 0 ? at::full({}, value, like.options())
                            : at::full({length}, value, like.options());
  }
  return it->second;
}

/// The one element of `constant` in `like`'s dtype and device.
const torch::Tensor &element(Constant constant, const torch::Tensor &like) {
  return cached(constant, like, -1);
}

} // namespace

torch::Tensor broadcastConstant(Constant constant, const torch::Tensor &like,
                                at::IntArrayRef sizes) {
  return element(constant, like).expand(sizes);
}

bool isBroadcastConstant(const torch::Tensor &tensor, Constant constant) {
  if (!tensor.defined() || tensor.numel() == 0)
    return false;
  // Most tensors are told apart by their strides, without the cache.
  for (int64_t d = 0; d < tensor.dim(); ++d)
    if (tensor.stride(d) != 0 && tensor.size(d) != 1)
      return false;
  return tensor.is_alias_of(element(constant, tensor));
}

torch::Tensor constantRow(const torch::Tensor &tensor, int64_t length) {
  for (Constant constant : {Constant::Zero, Constant::One})
    if (isBroadcastConstant(tensor, constant))
      return cached(constant, tensor, length);
  return {};
}

} // namespace rvnn::runtime::ops
