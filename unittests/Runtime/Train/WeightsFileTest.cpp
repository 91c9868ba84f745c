#include "rvnn/Runtime/Train/WeightsFile.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/serialize.h>

#include "BagModel.h"
#include "TempDir.h"
#include "rvnn/Runtime/Train/Checkpoint.h"

using namespace rvnn::runtime;
using namespace rvnn::runtime::train;
using namespace rvnn::runtime::train::testing;

namespace {

/// Tensors of every dtype both sides know, a scalar, an empty tensor and a
/// non-contiguous view, so the byte layout and the header meet every case.
NamedTensors sampleTensors() {
  return {
      {"embedding", torch::arange(12, torch::kFloat).reshape({3, 4})},
      {"transposed", torch::arange(6, torch::kDouble).reshape({2, 3}).t()},
      {"half", torch::tensor({1.5, -2.0}).to(torch::kHalf)},
      {"bf16", torch::tensor({0.25, 8.0}).to(torch::kBFloat16)},
      {"long", torch::tensor({int64_t{1} << 40, int64_t{-3}})},
      {"int", torch::tensor({7, -7}, torch::kInt)},
      {"short", torch::tensor({300}, torch::kShort)},
      {"i8", torch::tensor({-5}, torch::kChar)},
      {"u8", torch::tensor({250}, torch::kByte)},
      {"flag", torch::tensor({true, false, true})},
      {"scalar", torch::tensor(3.25)},
      {"empty", torch::zeros({0, 5})},
  };
}

void expectSameTensors(const NamedTensors &actual,
                       const NamedTensors &expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i].first, expected[i].first);
    EXPECT_EQ(actual[i].second.scalar_type(), expected[i].second.scalar_type())
        << expected[i].first;
    EXPECT_EQ(actual[i].second.sizes(), expected[i].second.sizes())
        << expected[i].first;
    EXPECT_TRUE(torch::equal(actual[i].second, expected[i].second))
        << expected[i].first;
  }
}

std::string messageOf(const std::function<void()> &action) {
  try {
    action();
  } catch (const std::runtime_error &error) {
    return error.what();
  }
  return "no error";
}

void expectContains(const std::string &text, const std::string &part) {
  EXPECT_NE(text.find(part), std::string::npos)
      << "'" << text << "' should contain '" << part << "'";
}

std::string lengthPrefix(uint64_t length) {
  std::string bytes;
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  return bytes;
}

/// A safetensors file with `header` as its JSON text and `data` after it.
std::string safetensors(const std::string &header, const std::string &data) {
  return lengthPrefix(header.size()) + header + data;
}

std::string floatBytes(std::initializer_list<float> values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.begin(), bytes.size());
  return bytes;
}

std::string decodeError(const std::string &bytes) {
  return messageOf([&] { decodeSafetensors(bytes); });
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

} // namespace

// The layout the format specifies, built by hand: little-endian header
// length, the JSON header padded with spaces to 8 bytes, the raw data.
TEST(WeightsFile, SafetensorsLayoutIsTheSpecifiedOne) {
  const std::string bytes = encodeSafetensors(
      {{"a", torch::tensor({1.0f, 2.0f})}, {"b", torch::tensor({-1.0f})}},
      {{"format", "pt"}});
  std::string header =
      R"({"__metadata__":{"format":"pt"},)"
      R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})";
  header.append((8 - header.size() % 8) % 8, ' ');
  EXPECT_EQ(bytes, safetensors(header, floatBytes({1, 2, -1})));
}

TEST(WeightsFile, SafetensorsRoundTripKeepsOrderDtypesAndValues) {
  const NamedTensors tensors = sampleTensors();
  const std::string bytes = encodeSafetensors(tensors, {{"format", "pt"}});
  uint64_t headerLength = 0;
  std::memcpy(&headerLength, bytes.data(), 8);
  EXPECT_EQ(headerLength % 8, 0u) << "the data should be 8-byte aligned";
  expectSameTensors(decodeSafetensors(bytes), tensors);
}

// Other writers order the data differently (the reference writer sorts by
// dtype); offsets, not the header's order, place each tensor.
TEST(WeightsFile, SafetensorsReadsDataInAnyOrder) {
  const NamedTensors tensors = decodeSafetensors(
      safetensors(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},)"
                  R"("b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                  floatBytes({2, 1})));
  ASSERT_EQ(tensors.size(), 2u);
  EXPECT_EQ(tensors[0].first, "a");
  EXPECT_EQ(tensors[0].second.item<float>(), 1.0f);
  EXPECT_EQ(tensors[1].second.item<float>(), 2.0f);
}

TEST(WeightsFile, SafetensorsRejectsDefects) {
  const std::string good =
      R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  expectContains(decodeError("\x10\0\0"), "no 8-byte header length");
  expectContains(
      decodeError(
          safetensors(good, floatBytes({1, 2})).substr(0, 8 + good.size() / 2)),
      "exceeds the");
  expectContains(decodeError(safetensors("{\"a\":", "")), "not valid JSON");
  expectContains(decodeError(safetensors("[1]", "")), "not a JSON object");
  expectContains(decodeError(safetensors(good, floatBytes({1}))),
                 "truncated file?");
  expectContains(decodeError(safetensors(good, floatBytes({1, 2, 3}))),
                 "span 8 bytes but the data after the header has 12");
  expectContains(
      decodeError(safetensors(
          R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
          floatBytes({1, 2}))),
      "do not span the 12 bytes of F32 [3]");
  expectContains(decodeError(safetensors(
                     R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                     R"("b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                     floatBytes({1, 2}))),
                 "gap or overlap");
  expectContains(
      decodeError(safetensors(
          R"({"a":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}})",
          "x")),
      "tensor 'a': dtype 'F8_E4M3' is not supported");
  expectContains(decodeError(safetensors(R"({"a":{"dtype":"F32"}})", "")),
                 "tensor 'a': expected {");
  expectContains(
      decodeError(safetensors(
          R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}})", "")),
      "shape must be a non-negative integer");
  expectContains(decodeError(safetensors(R"({"__metadata__":{"k":1}})", "")),
                 "__metadata__ 'k' is not a string");
}

TEST(WeightsFile, SafetensorsRejectsReservedAndDuplicateNames) {
  expectContains(messageOf([] {
                   encodeSafetensors({{"__metadata__", torch::zeros({1})}});
                 }),
                 "is reserved");
  expectContains(
      messageOf([] {
        encodeSafetensors({{"a", torch::zeros({1})}, {"a", torch::zeros({1})}});
      }),
      "occurs twice");
}

TEST(WeightsFile, TorchRoundTripKeepsOrderDtypesAndValues) {
  const NamedTensors tensors = sampleTensors();
  const std::string bytes = encodeTorch(tensors);
  EXPECT_EQ(bytes.substr(0, 4), std::string("PK\x03\x04", 4));
  expectSameTensors(decodeTorch(bytes), tensors);
}

TEST(WeightsFile, TorchRejectsWhatIsNotADictOfTensors) {
  auto encode = [](const c10::IValue &value) {
    const std::vector<char> bytes = torch::pickle_save(value);
    return std::string(bytes.begin(), bytes.end());
  };
  c10::List<int64_t> list({1, 2});
  expectContains(messageOf([&] { decodeTorch(encode(list)); }),
                 "it holds a GenericList, not a dict of str -> tensor");
  c10::Dict<std::string, int64_t> numbers;
  numbers.insert("a", 1);
  numbers.insert("b", 2);
  expectContains(messageOf([&] { decodeTorch(encode(numbers)); }),
                 "entry 'a' is a Int, not a tensor");
  expectContains(messageOf([] { decodeTorch("PK\x03\x04garbage"); }),
                 "cannot read it as a torch.save file");
}

// The content, not the name, decides the format.
TEST(WeightsFile, ReadDetectsTheFormatFromTheContent) {
  TempDir dir;
  const NamedTensors tensors = sampleTensors();
  saveWeights(dir / "w.safetensors", tensors, WeightsFormat::Torch);
  saveWeights(dir / "w.pt", tensors, WeightsFormat::Safetensors);
  expectSameTensors(readWeights(dir / "w.safetensors"), tensors);
  expectSameTensors(readWeights(dir / "w.pt"), tensors);
  EXPECT_EQ(readBytes(dir / "w.pt").substr(8, 1), "{");
  EXPECT_FALSE(std::filesystem::exists(dir / "w.pt.tmp"));
}

TEST(WeightsFile, ReadNamesTheFileAndTheProblem) {
  TempDir dir;
  writeBytes(dir / "garbage.bin", "this is not a weights file at all");
  expectContains(messageOf([&] { readWeights(dir / "garbage.bin"); }),
                 "weights file " + (dir / "garbage.bin") +
                     ": neither a torch.save file");
  writeBytes(dir / "legacy.pt", "\x80\x02garbage");
  expectContains(messageOf([&] { readWeights(dir / "legacy.pt"); }),
                 "without the zip container");
  expectContains(messageOf([&] { readWeights(dir / "missing.pt"); }),
                 "weights file " + (dir / "missing.pt") + ": cannot open");
}

TEST(WeightsFile, FormatNames) {
  EXPECT_EQ(parseWeightsFormat("torch"), WeightsFormat::Torch);
  EXPECT_EQ(parseWeightsFormat("safetensors"), WeightsFormat::Safetensors);
  EXPECT_THROW(parseWeightsFormat("onnx"), std::invalid_argument);
}

TEST(WeightsFile, LoadCopiesEveryParameter) {
  TempDir dir;
  BagModel source(4, 1), target(4, 2);
  saveWeights(dir / "w.st", source.namedParameters(),
              WeightsFormat::Safetensors);
  loadWeights(dir / "w.st", target);
  expectSameTensors(target.namedParameters(), source.namedParameters());
}

// Every mismatch is named at once, and the model stays as it was.
TEST(WeightsFile, LoadRejectsAnotherModelAndChangesNothing) {
  TempDir dir;
  BagModel model(4, 1);
  const NamedTensors before = model.namedParameters();
  std::vector<torch::Tensor> saved;
  for (const auto &[name, value] : before)
    saved.push_back(value.detach().clone());

  auto failure = [&](const NamedTensors &tensors) {
    saveWeights(dir / "w.pt", tensors, WeightsFormat::Torch);
    return messageOf([&] { loadWeights(dir / "w.pt", model); });
  };
  const torch::Tensor zeros = torch::zeros({kVocab, 4});
  const std::string renamed = failure({{"embedding", zeros},
                                       {"out.weight", saved[1] + 1},
                                       {"out.bias_renamed", saved[2]}});
  expectContains(renamed, "weights file " + (dir / "w.pt") + ": ");
  expectContains(renamed, "parameter 'out.bias' ([3] float) is missing");
  expectContains(renamed, "'out.bias_renamed' is not a parameter of the model");
  expectContains(
      failure({{"embedding", torch::zeros({kVocab, 5})},
               {"out.weight", saved[1]},
               {"out.bias", saved[2]}}),
      "parameter 'embedding' is [24, 5] float in the file but [24, 4] "
      "float in the model");
  expectContains(failure({{"embedding", zeros.to(torch::kDouble)},
                          {"out.weight", saved[1]},
                          {"out.bias", saved[2]}}),
                 "parameter 'embedding' is [24, 4] double in the file");
  const NamedTensors after = model.namedParameters();
  for (size_t i = 0; i < saved.size(); ++i)
    EXPECT_TRUE(torch::equal(after[i].second, saved[i])) << after[i].first;
}

// Export reads names from the checkpoint alone: the same tensors as the
// model's, best ones by default.
TEST(WeightsFile, CheckpointParametersCarryTheModelsNames) {
  TempDir dir;
  BagModel model(4, 1);
  std::vector<torch::Tensor> values;
  for (const auto &[name, value] : model.namedParameters())
    values.push_back(value);
  Optimiser optimiser(values, OptimiserConfig{});
  TrainState state;
  for (const torch::Tensor &value : values)
    state.bestParameters.push_back(value.detach() * 2);
  saveCheckpoint(dir / "last.pt", model, optimiser, state);

  expectSameTensors(readCheckpointParameters(dir / "last.pt", /*best=*/false),
                    model.namedParameters());
  const NamedTensors best =
      readCheckpointParameters(dir / "last.pt", /*best=*/true);
  ASSERT_EQ(best.size(), 3u);
  EXPECT_EQ(best[1].first, "out.weight");
  EXPECT_TRUE(torch::equal(best[1].second, values[1] * 2));
  expectContains(
      messageOf([&] { readCheckpointParameters(dir / "none.pt", false); }),
      "checkpoint " + (dir / "none.pt") + ": no such file");
}
