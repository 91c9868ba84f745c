#include "rvnn/Runtime/Data/LogicReader.h"
#include "rvnn/Runtime/Data/DataError.h"
#include "rvnn/Runtime/Data/LogicGenerator.h"
#include "rvnn/Runtime/Data/LogicVocab.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace data = rvnn::runtime::data;
namespace logic = rvnn::runtime::data::logic;

namespace {

std::vector<logic::Sample> parseText(const std::string &text) {
  std::istringstream in(text);
  return logic::parse(in, "test7");
}

std::string errorOf(const std::string &text) {
  try {
    parseText(text);
  } catch (const data::DataError &error) {
    return error.what();
  }
  return "no error";
}

} // namespace

TEST(LogicReader, ReadsGeneratorOutputBack) {
  logic::GeneratorOptions options;
  options.maxOps = 12;
  logic::Generator generator(options);
  std::vector<logic::Example> examples;
  std::ostringstream file;
  for (int i = 0; i < 200; ++i) {
    examples.push_back(generator.next());
    file << logic::symbol(examples.back().label) << '\t' << examples.back().left
         << '\t' << examples.back().right << '\n';
  }
  std::vector<logic::Sample> samples = parseText(file.str());
  ASSERT_EQ(samples.size(), examples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    EXPECT_EQ(samples[i].label, examples[i].label);
    EXPECT_EQ(samples[i].left, logic::tokenize(examples[i].left));
    EXPECT_EQ(samples[i].right, logic::tokenize(examples[i].right));
  }
}

TEST(LogicReader, VocabularyIdsAreFixed) {
  std::vector<logic::Sample> samples =
      parseText("^\t( a ( and ( not f ) ) )\t( ( not a ) ( or f ) )\r\n\n");
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].label, logic::Relation::Negation);
  // Round brackets are tokens 10 and 11.
  EXPECT_EQ(samples[0].left,
            (std::vector<data::TokenId>{10, 1, 10, 7, 10, 9, 6, 11, 11, 11}));
  EXPECT_EQ(samples[0].right,
            (std::vector<data::TokenId>{10, 10, 9, 1, 11, 10, 8, 6, 11, 11}));
}

TEST(LogicReader, BadLinesNameFileAndLine) {
  const std::string good = "<\ta\t( a ( or b ) )\n";
  EXPECT_EQ(errorOf(good + "<\ta\n"),
            "test7:2: expected 3 tab-separated fields (label, formula, "
            "formula), found 2");
  EXPECT_EQ(errorOf(good + good + "?\ta\tb\n"),
            "test7:3: unknown label '?' (expected one of < > = ^ | # v)");
  EXPECT_EQ(errorOf("#\ta\t( a ( xor b ) )\n"),
            "test7:1: second formula: unknown token 'xor'");
  EXPECT_EQ(errorOf(good + "#\t \tb\n"), "test7:2: first formula is empty");
  EXPECT_EQ(errorOf(good + "#\t( )\tb\n"),
            "test7:2: first formula is malformed: expected a variable or "
            "'(', found ')'");
  EXPECT_EQ(errorOf("#\t( a ( and b )\tb\n"),
            "test7:1: first formula is malformed: formula ends where ')' was "
            "expected");
}

TEST(LogicReader, ReadsFilesAndNamesMissingOnes) {
  const std::string path = testing::TempDir() + "rvnn-logic-reader.tsv";
  std::ofstream(path) << "=\ta\ta\n|\tb\tc\td\n";
  try {
    logic::read(path);
    FAIL() << "a malformed line should throw";
  } catch (const data::DataError &error) {
    EXPECT_EQ(std::string(error.what()).rfind(path + ":2: ", 0), 0u)
        << error.what();
  }
  EXPECT_THROW(logic::read(path + ".missing"), std::runtime_error);
}
