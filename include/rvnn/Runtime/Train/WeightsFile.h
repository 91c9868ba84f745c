#ifndef RVNN_RUNTIME_TRAIN_WEIGHTSFILE_H
#define RVNN_RUNTIME_TRAIN_WEIGHTSFILE_H

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <torch/types.h>

#include "rvnn/Runtime/Model.h"

namespace rvnn::runtime::train {

/// Tensors under their parameter names, in the model's order.
using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

/// Files of a model's weights that other tools read (docs/user-guide.md):
///  - Torch: what Python's `torch.save` writes for a plain dict of str ->
///    tensor (the zip format), so `torch.load(FILE)` gives that dict back;
///  - Safetensors: the safetensors format (8-byte little-endian header
///    length, JSON header, raw little-endian tensor data).
enum class WeightsFormat { Torch, Safetensors };

/// "torch" or "safetensors"; throws std::invalid_argument otherwise.
WeightsFormat parseWeightsFormat(const std::string &name);

/// Writes `tensors` to `file` atomically (AtomicFileWriter). Throws
/// std::runtime_error naming the file.
void saveWeights(const std::string &file, const NamedTensors &tensors,
                 WeightsFormat format);

/// Reads a weights file of either format, told apart by its content, not its
/// name. Throws std::runtime_error naming the file and what is wrong with it.
NamedTensors readWeights(const std::string &file);

/// Copies the tensors of a weights file into `model`'s parameters after
/// checking that the file has exactly the model's parameter names, each with
/// the model's shape and dtype. Throws std::runtime_error naming the file and
/// every offending parameter; the model changes only when all of it matches.
void loadWeights(const std::string &file, TrainableModel &model);

/// The safetensors encoding of `tensors` (with `metadata` as the header's
/// __metadata__), and its decoding; decoding checks the header as strictly
/// as the reference reader (offsets covering the data exactly, sizes that
/// agree with dtype and shape) and throws std::runtime_error on a defect.
std::string
encodeSafetensors(const NamedTensors &tensors,
                  const std::map<std::string, std::string> &metadata = {});
NamedTensors decodeSafetensors(std::string_view bytes);

/// The torch.save encoding of `tensors` (torch::pickle_save of a dict), and
/// its decoding: a dict of str -> tensor, as written by encodeTorch or by
/// Python's torch.save; throws std::runtime_error otherwise.
std::string encodeTorch(const NamedTensors &tensors);
NamedTensors decodeTorch(std::string_view bytes);

} // namespace rvnn::runtime::train

#endif // RVNN_RUNTIME_TRAIN_WEIGHTSFILE_H
