#include "rvnn/Runtime/Train/Checkpoint.h"
#include "rvnn/Runtime/Train/Trainer.h"

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <sys/resource.h>

#include <gtest/gtest.h>

#include "BagModel.h"
#include "TempDir.h"

using namespace rvnn::runtime;
using namespace rvnn::runtime::train;
using namespace rvnn::runtime::train::testing;

namespace {

/// Everything random and stateful at once: dropout, shuffled batches,
/// Lookahead (k 5), evaluations every 3 steps with a plateau patience of 0 so
/// the learning rate moves.
TrainerConfig resumeConfig(const std::string &dir, int64_t maxSteps) {
  TrainerConfig config;
  config.optimiser.lr = 0.01;
  config.seed = 7;
  config.maxSteps = maxSteps;
  config.evalEvery = 3;
  config.logEvery = 2;
  config.lrSchedule.patience = 0;
  config.patience = 100;
  config.restoreBest = false;
  config.checkpointDir = dir;
  return config;
}

std::string messageOf(const std::function<void()> &action) {
  try {
    action();
  } catch (const std::runtime_error &error) {
    return error.what();
  }
  return "";
}

void expectContains(const std::string &text, const std::string &part) {
  EXPECT_NE(text.find(part), std::string::npos)
      << "'" << text << "' should contain '" << part << "'";
}

struct Fixture {
  BagModel model;
  Optimiser optimiser;
  TrainState state;
  explicit Fixture(int64_t dim = 8,
                   const std::string &optimiserName = "radam_lookahead")
      : model(dim, 1), optimiser(values(model), config(optimiserName)) {}

  static std::vector<torch::Tensor> values(BagModel &model) {
    std::vector<torch::Tensor> tensors;
    for (auto &entry : model.namedParameters())
      tensors.push_back(entry.second);
    return tensors;
  }
  static OptimiserConfig config(const std::string &name) {
    OptimiserConfig config;
    config.name = name;
    return config;
  }
};

} // namespace

// Train 2N steps in one go, versus N steps, then a new model with other
// initial values and generator seed (and a disturbed global generator)
// resumed to 2N: every parameter and the generator must agree bit for bit.
// N = 11 stops mid-epoch (4 batches each) and mid-Lookahead-cycle.
TEST(Checkpoint, ResumeIsBitExact) {
  TempDir dir;
  const std::vector<Batch> train = makeBatches(4, 16, 1);
  const std::vector<Batch> dev = makeBatches(2, 16, 2);
  auto batches = [&](int) { return train; };

  BagModel straight(8, 1);
  const FitResult full =
      Trainer(resumeConfig(dir / "full", 22)).fit(straight, batches, dev);
  ASSERT_EQ(full.steps, 22);

  {
    BagModel first(8, 1);
    const FitResult half =
        Trainer(resumeConfig(dir / "split", 11)).fit(first, batches, dev);
    ASSERT_EQ(half.steps, 11);
  }
  torch::manual_seed(12345);
  BagModel resumed(8, 99);
  TrainerConfig config = resumeConfig(dir / "split", 22);
  config.resume = true;
  const FitResult rest = Trainer(config).fit(resumed, batches, dev);
  ASSERT_EQ(rest.steps, 22);

  const auto expected = straight.namedParameters();
  const auto actual = resumed.namedParameters();
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE(torch::equal(expected[i].second, actual[i].second))
        << expected[i].first;
  EXPECT_TRUE(torch::equal(straight.generator().get_state(),
                           resumed.generator().get_state()));
  auto evals = [](const FitResult &result) {
    std::vector<nlohmann::json> records;
    for (const auto &record : result.history)
      if (record["type"] == "eval")
        records.push_back(record);
    return records;
  };
  EXPECT_EQ(evals(full), evals(rest));
  EXPECT_EQ(evals(full).size(), 7u);

  // The metrics file holds the resumed history once: nothing logged after
  // the checkpoint is repeated.
  std::ifstream metrics(dir / "split/metrics.jsonl");
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(metrics, line);)
    lines.push_back(nlohmann::json::parse(line));
  EXPECT_EQ(lines, rest.history);
  EXPECT_EQ(lines.size(), full.history.size());
}

TEST(Checkpoint, FailedWriteKeepsThePreviousCheckpoint) {
  TempDir dir;
  const std::string file = dir / "last.pt";
  Fixture saved;
  saveCheckpoint(file, saved.model, saved.optimiser, saved.state);
  const std::string before = readBytes(file);

  {
    torch::NoGradGuard noGrad;
    saved.model.namedParameters()[0].second.add_(1);
  }
  std::filesystem::create_directory(file + ".tmp");
  expectContains(messageOf([&] {
                   saveCheckpoint(file, saved.model, saved.optimiser,
                                  saved.state);
                 }),
                 file);
  EXPECT_EQ(readBytes(file), before);

  Fixture loaded;
  loadCheckpoint(file, loaded.model, loaded.optimiser, loaded.state);
  EXPECT_TRUE(torch::equal(loaded.model.namedParameters()[0].second,
                           Fixture().model.namedParameters()[0].second));
}

/// Caps the size of files this process writes (RLIMIT_FSIZE) while alive,
/// with SIGXFSZ ignored, so that a write past the cap fails with EFBIG the
/// way one on a full disk fails with ENOSPC.
class FileSizeCap {
public:
  explicit FileSizeCap(rlim_t bytes) {
    EXPECT_EQ(::getrlimit(RLIMIT_FSIZE, &saved_), 0);
    previousHandler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit capped = saved_;
    capped.rlim_cur = bytes;
    EXPECT_EQ(::setrlimit(RLIMIT_FSIZE, &capped), 0);
  }
  ~FileSizeCap() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, previousHandler_);
  }

private:
  rlimit saved_{};
  void (*previousHandler_)(int) = nullptr;
};

// A write that fails in the middle of the archive (a full disk) is an error
// naming the file, not an abort from the archive writer's destructor, and
// leaves the previous checkpoint and no temporary file.
TEST(Checkpoint, WriteErrorMidArchiveIsAnError) {
  TempDir dir;
  const std::string file = dir / "last.pt";
  Fixture saved(/*dim=*/64);
  saveCheckpoint(file, saved.model, saved.optimiser, saved.state);
  const std::string before = readBytes(file);
  ASSERT_GT(before.size(), 4096u);

  std::string message;
  {
    FileSizeCap cap(before.size() / 2);
    message = messageOf([&] {
      saveCheckpoint(file, saved.model, saved.optimiser, saved.state);
    });
  }
  expectContains(message, "cannot write " + file);
  expectContains(message, std::strerror(EFBIG));
  EXPECT_EQ(readBytes(file), before);
  EXPECT_FALSE(std::filesystem::exists(file + ".tmp"));
}

TEST(Checkpoint, WrongShapeNamesTheParameter) {
  TempDir dir;
  const std::string file = dir / "last.pt";
  Fixture saved(8);
  saveCheckpoint(file, saved.model, saved.optimiser, saved.state);

  Fixture other(6);
  const torch::Tensor untouched =
      other.model.namedParameters()[0].second.detach().clone();
  const std::string message = messageOf(
      [&] { loadCheckpoint(file, other.model, other.optimiser, other.state); });
  expectContains(message, file);
  expectContains(message, "'embedding'");
  expectContains(message, "[24,8]");
  expectContains(message, "[24,6]");
  EXPECT_TRUE(torch::equal(other.model.namedParameters()[0].second, untouched));
}

TEST(Checkpoint, MismatchedOptimiserOrSeedIsNamed) {
  TempDir dir;
  const std::string file = dir / "last.pt";
  Fixture saved(8, "adam");
  saveCheckpoint(file, saved.model, saved.optimiser, saved.state);

  Fixture radam(8);
  expectContains(messageOf([&] {
                   loadCheckpoint(file, radam.model, radam.optimiser,
                                  radam.state);
                 }),
                 "optimiser is 'adam' in the checkpoint");
  Fixture reseeded(8, "adam");
  reseeded.state.seed = 3;
  expectContains(messageOf([&] {
                   loadCheckpoint(file, reseeded.model, reseeded.optimiser,
                                  reseeded.state);
                 }),
                 "seed is 0 in the checkpoint but 3");
}

TEST(Checkpoint, CorruptOrMissingFileIsNamed) {
  TempDir dir;
  const std::string file = dir / "last.pt";
  std::ofstream(file) << "not a checkpoint";
  Fixture target;
  const std::string corrupt = messageOf([&] {
    loadCheckpoint(file, target.model, target.optimiser, target.state);
  });
  expectContains(corrupt, file);
  expectContains(corrupt, "not a readable checkpoint");
  const std::string missing = messageOf([&] {
    loadCheckpoint(dir / "none.pt", target.model, target.optimiser,
                   target.state);
  });
  expectContains(missing, dir / "none.pt");
}

// Neither a fresh run into a used directory nor a resume with the wrong model
// may replace the checkpoint that is there.
TEST(Checkpoint, FailedRunsLeaveCheckpointsAlone) {
  TempDir dir;
  const std::vector<Batch> train = makeBatches(2, 8, 1);
  auto batches = [&](int) { return train; };
  TrainerConfig config;
  config.epochs = 1;
  config.logEvery = 0;
  config.checkpointDir = dir.str();
  BagModel model(8, 1);
  Trainer(config).fit(model, batches, train);
  const std::string before = readBytes(dir / "last.pt");

  BagModel fresh(8, 1);
  expectContains(messageOf([&] { Trainer(config).fit(fresh, batches, train); }),
                 "overwrite");
  config.resume = true;
  config.epochs = 2;
  BagModel wrong(6, 1);
  expectContains(messageOf([&] { Trainer(config).fit(wrong, batches, train); }),
                 "'embedding'");
  EXPECT_EQ(readBytes(dir / "last.pt"), before);
}
