#include "rvnn/Runtime/Train/WeightsFile.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <torch/serialize.h>

#include "StateIO.h"
#include "rvnn/Runtime/Train/AtomicFile.h"

namespace rvnn::runtime::train {

// Safetensors data and its header length are little-endian; tensors are
// copied to and from it byte for byte.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "weights files are written for little-endian hosts only");

namespace {

using Json = nlohmann::ordered_json;

constexpr const char *kMetadataKey = "__metadata__";
/// The reference reader's limit; a larger length means a corrupt file.
constexpr uint64_t kMaxHeaderSize = 100'000'000;

struct DtypeName {
  c10::ScalarType type;
  const char *name;
};

/// The dtypes both LibTorch and safetensors have.
constexpr DtypeName kDtypes[] = {
    {c10::ScalarType::Bool, "BOOL"}, {c10::ScalarType::Byte, "U8"},
    {c10::ScalarType::Char, "I8"},   {c10::ScalarType::Short, "I16"},
    {c10::ScalarType::Int, "I32"},   {c10::ScalarType::Long, "I64"},
    {c10::ScalarType::Half, "F16"},  {c10::ScalarType::BFloat16, "BF16"},
    {c10::ScalarType::Float, "F32"}, {c10::ScalarType::Double, "F64"},
};

const char *safetensorsDtype(c10::ScalarType type) {
  for (const DtypeName &entry : kDtypes)
    if (entry.type == type)
      return entry.name;
  throw std::runtime_error(std::string("dtype ") + c10::toString(type) +
                           " has no safetensors name");
}

c10::ScalarType torchDtype(const std::string &name, const std::string &what) {
  for (const DtypeName &entry : kDtypes)
    if (name == entry.name)
      return entry.type;
  throw std::runtime_error(what + ": dtype '" + name + "' is not supported");
}

void appendUint64(std::string &bytes, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t readUint64(std::string_view bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  return value;
}

torch::Tensor cpuContiguous(const torch::Tensor &tensor) {
  return tensor.detach().to(torch::kCPU).contiguous();
}

/// One tensor of a safetensors header, checked on its own.
struct SafetensorsEntry {
  std::string name;
  c10::ScalarType dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
};

uint64_t nonNegative(const Json &value, const std::string &what) {
  if (!value.is_number_unsigned())
    throw std::runtime_error(what + " must be a non-negative integer, not " +
                             value.dump());
  return value.get<uint64_t>();
}

SafetensorsEntry readEntry(const std::string &name, const Json &info) {
  const std::string what = "tensor '" + name + "'";
  if (!info.is_object() || !info.contains("dtype") || !info.contains("shape") ||
      !info.contains("data_offsets") || !info["dtype"].is_string() ||
      !info["shape"].is_array() || !info["data_offsets"].is_array() ||
      info["data_offsets"].size() != 2)
    throw std::runtime_error(what +
                             ": expected {\"dtype\": string, \"shape\": "
                             "[...], \"data_offsets\": [begin, end]}, found " +
                             info.dump());
  SafetensorsEntry entry{
      name, torchDtype(info["dtype"].get<std::string>(), what), {}, 0, 0};
  uint64_t numel = 1;
  for (const Json &dim : info["shape"]) {
    const uint64_t size = nonNegative(dim, what + " shape");
    if (size > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
        __builtin_mul_overflow(numel, size, &numel))
      throw std::runtime_error(what + ": shape " + info["shape"].dump() +
                               " is too large");
    entry.shape.push_back(static_cast<int64_t>(size));
  }
  entry.begin = nonNegative(info["data_offsets"][0], what + " data_offsets");
  entry.end = nonNegative(info["data_offsets"][1], what + " data_offsets");
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(numel, c10::elementSize(entry.dtype), &bytes) ||
      entry.end < entry.begin || entry.end - entry.begin != bytes)
    throw std::runtime_error(
        what + ": data_offsets " + info["data_offsets"].dump() +
        " do not span the " + std::to_string(bytes) + " bytes of " +
        info["dtype"].get<std::string>() + " " + info["shape"].dump());
  return entry;
}

void checkMetadata(const Json &metadata) {
  if (!metadata.is_object())
    throw std::runtime_error("__metadata__ must be an object of strings");
  for (const auto &[key, value] : metadata.items())
    if (!value.is_string())
      throw std::runtime_error("__metadata__ '" + key + "' is not a string");
}

/// The data must be exactly the tensors' bytes, without gaps or overlaps,
/// as the reference reader requires.
void checkCoverage(std::vector<SafetensorsEntry> entries, uint64_t dataSize) {
  std::sort(entries.begin(), entries.end(),
            [](const auto &a, const auto &b) { return a.begin < b.begin; });
  uint64_t covered = 0;
  for (const SafetensorsEntry &entry : entries) {
    if (entry.begin != covered)
      throw std::runtime_error("tensor '" + entry.name + "' starts at byte " +
                               std::to_string(entry.begin) +
                               " of the data, expected " +
                               std::to_string(covered) + " (gap or overlap)");
    covered = entry.end;
  }
  if (covered != dataSize)
    throw std::runtime_error("the tensors span " + std::to_string(covered) +
                             " bytes but the data after the header has " +
                             std::to_string(dataSize) + " (truncated file?)");
}

Json parseSafetensorsHeader(std::string_view bytes) {
  if (bytes.size() < 8)
    throw std::runtime_error("safetensors file of " +
                             std::to_string(bytes.size()) +
                             " bytes has no 8-byte header length");
  const uint64_t size = readUint64(bytes);
  if (size > kMaxHeaderSize || size > bytes.size() - 8)
    throw std::runtime_error(
        "safetensors header length " + std::to_string(size) + " exceeds the " +
        std::to_string(bytes.size() - 8) + " bytes after it (truncated file?)");
  try {
    Json header = Json::parse(bytes.substr(8, size));
    if (!header.is_object())
      throw std::runtime_error("the safetensors header is not a JSON object");
    return header;
  } catch (const nlohmann::json::exception &error) {
    // parse_error, or out_of_range for a number beyond double.
    throw std::runtime_error(
        std::string("the safetensors header is not valid JSON (") +
        error.what() + ")");
  }
}

/// Tells the formats apart by their first bytes: a zip archive (torch.save)
/// starts with "PK\3\4", a safetensors file with its header length and '{'.
NamedTensors decodeWeights(std::string_view bytes) {
  if (bytes.substr(0, 4) == std::string_view("PK\x03\x04", 4))
    return decodeTorch(bytes);
  if (bytes.size() > 8 && bytes[8] == '{')
    return decodeSafetensors(bytes);
  if (!bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x80)
    throw std::runtime_error("a pickle without the zip container (torch.save "
                             "with _use_new_zipfile_serialization=False); "
                             "save it with the default format");
  throw std::runtime_error("neither a torch.save file (a zip archive) nor a "
                           "safetensors file (8-byte length, then '{')");
}

std::string join(const std::vector<std::string> &parts) {
  std::string text;
  for (const std::string &part : parts)
    text += (text.empty() ? "" : "; ") + part;
  return text;
}

/// The file's tensors in the order of the model's parameters, moved to their
/// devices; throws listing every missing, unexpected or mismatched name.
std::vector<torch::Tensor> matchParameters(const NamedTensors &loaded,
                                           const NamedTensors &params) {
  std::map<std::string, torch::Tensor> byName(loaded.begin(), loaded.end());
  std::vector<std::string> problems;
  std::vector<torch::Tensor> values;
  for (const auto &[name, param] : params) {
    const auto found = byName.find(name);
    if (found == byName.end()) {
      problems.push_back("parameter '" + name + "' (" + describeTensor(param) +
                         ") is missing");
      continue;
    }
    const torch::Tensor &value = found->second;
    if (value.sizes() != param.sizes() || value.dtype() != param.dtype())
      problems.push_back("parameter '" + name + "' is " +
                         describeTensor(value) + " in the file but " +
                         describeTensor(param) + " in the model");
    else
      values.push_back(value.to(param.device()));
    byName.erase(found);
  }
  for (const auto &[name, value] : loaded)
    if (byName.count(name))
      problems.push_back("'" + name + "' is not a parameter of the model");
  if (!problems.empty())
    throw std::runtime_error(join(problems));
  return values;
}

} // namespace

WeightsFormat parseWeightsFormat(const std::string &name) {
  if (name == "torch")
    return WeightsFormat::Torch;
  if (name == "safetensors")
    return WeightsFormat::Safetensors;
  throw std::invalid_argument("unknown weights format '" + name +
                              "' (expected torch or safetensors)");
}

std::string
encodeSafetensors(const NamedTensors &tensors,
                  const std::map<std::string, std::string> &metadata) {
  Json header = Json::object();
  if (!metadata.empty())
    header[kMetadataKey] = metadata;
  std::vector<torch::Tensor> data;
  uint64_t offset = 0;
  for (const auto &[name, tensor] : tensors) {
    if (name == kMetadataKey || header.contains(name))
      throw std::runtime_error(
          "tensor name '" + name + "' " +
          (name == kMetadataKey ? "is reserved" : "occurs twice"));
    data.push_back(cpuContiguous(tensor));
    const uint64_t size = data.back().nbytes();
    header[name] = {{"dtype", safetensorsDtype(tensor.scalar_type())},
                    {"shape", tensor.sizes().vec()},
                    {"data_offsets", Json::array({offset, offset + size})}};
    offset += size;
  }
  std::string text = header.dump();
  // Spaces up to a multiple of 8 align the data for readers that map the
  // file, as the reference writer does.
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string bytes;
  bytes.reserve(8 + text.size() + offset);
  appendUint64(bytes, text.size());
  bytes += text;
  for (const torch::Tensor &tensor : data)
    if (tensor.nbytes() > 0) // an empty tensor may have no storage
      bytes.append(static_cast<const char *>(tensor.data_ptr()),
                   tensor.nbytes());
  return bytes;
}

NamedTensors decodeSafetensors(std::string_view bytes) {
  const Json header = parseSafetensorsHeader(bytes);
  const std::string_view data = bytes.substr(8 + readUint64(bytes));
  std::vector<SafetensorsEntry> entries;
  for (const auto &[name, info] : header.items()) {
    if (name == kMetadataKey)
      checkMetadata(info);
    else
      entries.push_back(readEntry(name, info));
  }
  checkCoverage(entries, data.size());
  NamedTensors tensors;
  for (const SafetensorsEntry &entry : entries) {
    torch::Tensor tensor = torch::empty(entry.shape, entry.dtype);
    if (entry.end > entry.begin) // an empty tensor may have no storage
      std::memcpy(tensor.data_ptr(), data.data() + entry.begin,
                  entry.end - entry.begin);
    tensors.emplace_back(entry.name, tensor);
  }
  return tensors;
}

std::string encodeTorch(const NamedTensors &tensors) {
  c10::Dict<std::string, at::Tensor> dict;
  for (const auto &[name, tensor] : tensors)
    if (!dict.insert(name, cpuContiguous(tensor)).second)
      throw std::runtime_error("tensor name '" + name + "' occurs twice");
  try {
    const std::vector<char> bytes = torch::pickle_save(c10::IValue(dict));
    return {bytes.begin(), bytes.end()};
  } catch (const c10::Error &error) {
    throw std::runtime_error(error.what_without_backtrace());
  }
}

NamedTensors decodeTorch(std::string_view bytes) {
  // LibTorch's unpickler reads less than Python's; say what it takes.
  const std::string cannot =
      "cannot read it as a torch.save file of a plain dict of str -> tensor "
      "with at least 2 entries (not an OrderedDict, nor nn.Parameter "
      "values): ";
  c10::IValue value;
  try {
    checkPickleLengths(bytes);
    value = torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
  } catch (const c10::Error &error) {
    throw std::runtime_error(cannot + error.what_without_backtrace());
  } catch (const std::runtime_error &) {
    throw; // checkPickleLengths: already clear
  } catch (const std::exception &error) {
    // torch::jit::ErrorReport from the type parser: a corrupt type tag.
    const std::string detail = error.what();
    throw std::runtime_error(cannot + "a type tag in it does not parse" +
                             (detail.empty() ? "" : " (" + detail + ")"));
  }
  if (!value.isGenericDict())
    throw std::runtime_error("it holds a " + value.tagKind() +
                             ", not a dict of str -> tensor");
  NamedTensors tensors;
  for (const auto &entry : value.toGenericDict()) {
    if (!entry.key().isString())
      throw std::runtime_error("it has a key of type " + entry.key().tagKind() +
                               ", not str");
    const std::string &name = entry.key().toStringRef();
    if (!entry.value().isTensor())
      throw std::runtime_error("entry '" + name + "' is a " +
                               entry.value().tagKind() + ", not a tensor");
    tensors.emplace_back(name, entry.value().toTensor());
  }
  return tensors;
}

void saveWeights(const std::string &file, const NamedTensors &tensors,
                 WeightsFormat format) {
  std::string bytes;
  try {
    bytes = format == WeightsFormat::Torch
                ? encodeTorch(tensors)
                : encodeSafetensors(tensors, {{"format", "pt"}});
  } catch (const std::exception &error) {
    throw std::runtime_error("cannot write " + file + ": " + error.what());
  }
  writeFileAtomically(file, bytes);
}

NamedTensors readWeights(const std::string &file) {
  try {
    return decodeWeights(readFileBytes(file));
  } catch (const std::exception &error) {
    throw std::runtime_error("weights file " + file + ": " + error.what());
  }
}

void loadWeights(const std::string &file, TrainableModel &model) {
  const NamedTensors loaded = readWeights(file);
  const NamedTensors params = model.namedParameters();
  std::vector<torch::Tensor> values;
  try {
    values = matchParameters(loaded, params);
  } catch (const std::exception &error) {
    throw std::runtime_error("weights file " + file + ": " + error.what());
  }
  torch::NoGradGuard noGrad;
  for (size_t i = 0; i < params.size(); ++i)
    params[i].second.copy_(values[i]);
}

} // namespace rvnn::runtime::train
