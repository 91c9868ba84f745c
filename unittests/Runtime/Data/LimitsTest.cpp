// Input limits (docs/user-guide.md, "Limits"): the readers' line and
// sequence limits, the logic formula depth, the padded batch size and the
// configured batch size.
#include "rvnn/Runtime/Data/Batching.h"
#include "rvnn/Runtime/Data/DataError.h"
#include "rvnn/Runtime/Data/ListOpsReader.h"
#include "rvnn/Runtime/Data/LogicReader.h"
#include "rvnn/Runtime/RunConfig.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace data = rvnn::runtime::data;

namespace {

// The reader limits of lib/Runtime/Data/TsvLines.h.
constexpr std::size_t kMaxLineBytes = std::size_t{16} << 20;
constexpr std::size_t kMaxSequenceWords = 100000;

/// `args` ones under MAX: args + 2 tokens, 2 * args + 8 bytes with the label.
std::string listOpsLine(std::size_t args, std::size_t trailingSpaces = 0) {
  std::string line = "3\t[MAX ";
  for (std::size_t i = 0; i < args; ++i)
    line += "1 ";
  return line + "]" + std::string(trailingSpaces, ' ');
}

std::string listOpsError(const std::string &text) {
  std::istringstream in(text);
  try {
    data::listops::parse(in, "lists.tsv");
  } catch (const data::DataError &error) {
    return error.what();
  }
  return "(parsed)";
}

} // namespace

TEST(Limits, LinesAcrossReadChunksParseWhole) {
  // The reader takes 16 KiB at a time: lines just below, at and above a
  // multiple of that, and a last line without '\n' or with "\r\n".
  for (std::size_t length = 16381; length <= 16387; ++length)
    for (const char *end : {"\n", "\r\n", ""}) {
      const std::size_t pad = length % 2; // lines are 8 + 2 * args bytes
      const std::size_t args = (length - pad - 8) / 2;
      std::istringstream in("1\t[MIN 1 2 ]\n" + listOpsLine(args, pad) + end);
      const auto samples = data::listops::parse(in, "lists.tsv");
      ASSERT_EQ(samples.size(), 2u) << length;
      EXPECT_EQ(samples[1].tokens.size(), args + 2) << length;
    }
}

TEST(Limits, OverlongLineFailsAtItsNumber) {
  std::string line = "3\t[MAX ";
  line.append(kMaxLineBytes, '1'); // one word, never split
  EXPECT_EQ(listOpsError("1\t[MIN 1 2 ]\n" + line + "\n"),
            "lists.tsv:2: the line is longer than 16777216 bytes, the limit "
            "for one data line (kMaxLineBytes)");
}

TEST(Limits, SequenceWordsAreCounted) {
  // MAX, the arguments and ']' are words; so would round brackets be.
  std::istringstream in(listOpsLine(kMaxSequenceWords - 2));
  EXPECT_EQ(data::listops::parse(in, "lists.tsv")[0].tokens.size(),
            kMaxSequenceWords);
  EXPECT_EQ(listOpsError(listOpsLine(kMaxSequenceWords - 1)),
            "lists.tsv:1: the sequence has more than 100000 tokens, the limit "
            "for one sequence (kMaxSequenceWords; round brackets count)");
}

TEST(Limits, LogicFormulaDepth) {
  auto formula = [](std::size_t depth) {
    std::string text;
    for (std::size_t i = 0; i < depth; ++i)
      text += "( not ";
    text += "a";
    for (std::size_t i = 0; i < depth; ++i)
      text += " )";
    return text;
  };
  std::istringstream fits("<\ta\t" + formula(10000) + "\n");
  EXPECT_EQ(data::logic::parse(fits, "logic.tsv").size(), 1u);
  std::istringstream deep("<\ta\t" + formula(10001) + "\n");
  try {
    data::logic::parse(deep, "logic.tsv");
    FAIL() << "parsed";
  } catch (const data::DataError &error) {
    EXPECT_STREQ(error.what(),
                 "logic.tsv:1: second formula nests deeper than 10000 "
                 "brackets, the limit for one formula (kMaxFormulaDepth)");
  }
}

TEST(Limits, PaddedBatchTokens) {
  data::Rng rng(1);
  // 64 x 65536 tokens is exactly the limit; 65 rows are one too many.
  const std::vector<std::size_t> lengths(65, 65536);
  EXPECT_EQ(data::lengthBucketedBatches(lengths, 64, rng).size(), 2u);
  try {
    data::lengthBucketedBatches(lengths, 65, rng);
    FAIL() << "batched";
  } catch (const std::invalid_argument &error) {
    EXPECT_STREQ(error.what(),
                 "a batch of 65 examples up to 65536 tokens long pads to more "
                 "than 4194304 tokens, the limit for one batch "
                 "(kMaxBatchTokens); lower batch_size");
  }
  // A batch size beyond the data is the whole data, without overflow.
  EXPECT_EQ(data::lengthBucketedBatches({1, 2, 3}, SIZE_MAX, rng).size(), 1u);
}

TEST(Limits, ConfiguredBatchSize) {
  const auto path =
      std::filesystem::path(testing::TempDir()) / "rvnn-limits-batch.json";
  auto error = [&](const std::string &batchSize) -> std::string {
    std::ofstream(path) << R"({"task": "listops", "batch_size": )" << batchSize
                        << "}";
    try {
      return std::to_string(rvnn::runtime::readRunConfig(path).batchSize);
    } catch (const std::runtime_error &e) {
      return e.what();
    }
  };
  EXPECT_EQ(error("65536"), "65536");
  EXPECT_EQ(error("65537"),
            path.string() + ": field 'batch_size' is 65537, above 65536, the "
                            "limit for one batch (kMaxBatchSize)");
  EXPECT_EQ(error("-1"), path.string() + ": field 'batch_size' must be an "
                                         "integer >= 1, got -1");
  EXPECT_EQ(error("0"), path.string() + ": field 'batch_size' must be an "
                                        "integer >= 1, got 0");
}
