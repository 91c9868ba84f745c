#include "rvnn/Runtime/Train/Trainer.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include <torch/types.h>

#include "rvnn/Runtime/HostAllocator.h"
#include "rvnn/Runtime/Report/RunPlots.h"
#include "rvnn/Runtime/Train/BatchOrder.h"
#include "rvnn/Runtime/Train/Checkpoint.h"
#include "rvnn/Runtime/Train/ClipGradNorm.h"
#include "rvnn/Runtime/Train/EarlyStopping.h"
#include "rvnn/Runtime/Train/Evaluate.h"
#include "rvnn/Runtime/Train/MetricsLog.h"
#include "rvnn/Runtime/Train/Optimiser.h"
#include "rvnn/Runtime/Train/Progress.h"
#include "rvnn/Runtime/Train/ReduceLROnPlateau.h"

namespace rvnn::runtime::train {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using BatchSource = std::function<std::vector<Batch>(int epoch)>;

std::vector<torch::Tensor>
values(const std::vector<std::pair<std::string, torch::Tensor>> &named) {
  std::vector<torch::Tensor> tensors;
  for (const auto &entry : named)
    tensors.push_back(entry.second);
  return tensors;
}

std::string format(double value, int precision) {
  std::ostringstream text;
  text.precision(precision);
  text << value;
  return text.str();
}

/// One call of Trainer::fit: the model, its optimiser and schedules, and the
/// bookkeeping between steps.
class Run {
public:
  Run(const TrainerConfig &config, TrainableModel &model,
      const std::vector<Batch> &dev);
  FitResult fit(const BatchSource &trainBatches);

private:
  void openCheckpointDir();
  void trainStep(const Batch &batch);
  void logTraining();
  /// Evaluates on dev and updates the schedules; true when early stopping
  /// says to stop.
  bool evaluateAndSchedule(int64_t epoch);
  void record(nlohmann::json record);
  /// curves.svg and accuracy.svg beside the metrics file, if there is one.
  void writePlots();
  /// Writes last.pt, and before it best.pt when `alsoBest`.
  void saveLast(bool alsoBest = false);

  const TrainerConfig &config_;
  TrainableModel &model_;
  const std::vector<Batch> &dev_;
  std::vector<torch::Tensor> params_;
  Optimiser optimiser_;
  HostHeapTrimmer heapTrimmer_;
  ReduceLROnPlateau plateau_;
  EarlyStopping earlyStop_;
  TrainState state_;
  Progress progress_;
  MetricsLog metrics_;
  std::string plotDir_;
  std::string lastPath_;
  std::string bestPath_;
  int64_t savedStep_ = -1;

  // Since the last training record (a resumed run starts these afresh).
  double lossSum_ = 0;
  double gradNormSum_ = 0;
  int64_t loggedSteps_ = 0;
  Clock::time_point logStart_ = Clock::now();
};

Run::Run(const TrainerConfig &config, TrainableModel &model,
         const std::vector<Batch> &dev)
    : config_(config), model_(model), dev_(dev),
      params_(values(model.namedParameters())),
      optimiser_(params_, config.optimiser), plateau_(config.lrSchedule),
      earlyStop_(config.patience),
      progress_(std::cerr, Progress::stderrIsTerminal()) {
  if (params_.empty())
    throw std::invalid_argument("fit: the model has no parameters");
  state_.seed = config.seed;
  if (!config.checkpointDir.empty()) {
    lastPath_ = (fs::path(config.checkpointDir) / "last.pt").string();
    bestPath_ = (fs::path(config.checkpointDir) / "best.pt").string();
  }
  openCheckpointDir();
  std::string metricsPath = config.metricsFile;
  if (metricsPath.empty() && !config.checkpointDir.empty())
    metricsPath = (fs::path(config.checkpointDir) / "metrics.jsonl").string();
  if (!metricsPath.empty()) {
    metrics_ = MetricsLog(metricsPath, state_.history);
    plotDir_ = fs::path(metricsPath).parent_path().string();
    if (plotDir_.empty())
      plotDir_ = ".";
  }
}

void Run::openCheckpointDir() {
  if (config_.resume) {
    if (lastPath_.empty())
      throw std::invalid_argument("resume: no checkpoint_dir configured");
    loadCheckpoint(lastPath_, model_, optimiser_, state_);
    plateau_.setState(state_.plateau);
    earlyStop_.setState(state_.earlyStop);
    savedStep_ = state_.step;
    progress_.message("resumed from " + lastPath_ + " at epoch " +
                      std::to_string(state_.epoch + 1) + ", step " +
                      std::to_string(state_.step));
    return;
  }
  if (lastPath_.empty())
    return;
  // A fresh run must not destroy an earlier run's checkpoints by accident.
  for (const std::string &path : {lastPath_, bestPath_})
    if (fs::exists(path) && !config_.overwrite)
      throw std::runtime_error(
          path + " exists: resume that run, set overwrite, or choose "
                 "another checkpoint_dir");
  fs::create_directories(config_.checkpointDir);
}

FitResult Run::fit(const BatchSource &trainBatches) {
  std::string stopReason = "epochs";
  bool stop = earlyStop_.shouldStop();
  if (stop)
    stopReason = "early_stopping";
  while (!stop && state_.epoch < config_.epochs) {
    if (config_.maxSteps > 0 && state_.step >= config_.maxSteps) {
      stopReason = "max_steps";
      break;
    }
    const std::vector<Batch> batches =
        trainBatches(static_cast<int>(state_.epoch));
    const auto count = static_cast<int64_t>(batches.size());
    if (count == 0 || state_.batchInEpoch > count)
      throw std::runtime_error(
          "fit: epoch " + std::to_string(state_.epoch + 1) + " has " +
          std::to_string(count) + " training batches" +
          (count == 0 ? std::string()
                      : ", the checkpoint has trained on " +
                            std::to_string(state_.batchInEpoch)));
    std::vector<std::size_t> order(batches.size());
    if (config_.shuffle)
      order = batchOrder(batches.size(), config_.seed, state_.epoch);
    else
      std::iota(order.begin(), order.end(), std::size_t{0});

    progress_.startEpoch(state_.epoch, config_.epochs, count,
                         state_.batchInEpoch);
    while (!stop && state_.batchInEpoch < count) {
      if (config_.maxSteps > 0 && state_.step >= config_.maxSteps) {
        stop = true;
        stopReason = "max_steps";
        break;
      }
      trainStep(batches[order[state_.batchInEpoch]]);
      if (config_.logEvery > 0 && state_.step % config_.logEvery == 0)
        logTraining();
      if (config_.evalEvery > 0 && state_.step % config_.evalEvery == 0 &&
          !dev_.empty()) {
        stop = evaluateAndSchedule(state_.epoch);
        if (stop)
          stopReason = "early_stopping";
      } else if (config_.checkpointEvery > 0 &&
                 state_.step % config_.checkpointEvery == 0) {
        saveLast();
      }
    }
    if (stop)
      break;
    // The epoch counts as done before its evaluation, so that the checkpoint
    // written there resumes with the next epoch rather than evaluating again.
    const int64_t finished = state_.epoch;
    ++state_.epoch;
    state_.batchInEpoch = 0;
    if (config_.evalEvery == 0 && !dev_.empty()) {
      stop = evaluateAndSchedule(finished);
      if (stop)
        stopReason = "early_stopping";
    } else {
      saveLast();
    }
  }
  progress_.finish();
  if (savedStep_ != state_.step)
    saveLast();
  writePlots();

  FitResult result;
  result.steps = state_.step;
  result.epochs = state_.epoch;
  result.stopReason = stopReason;
  result.hasBest = earlyStop_.hasBest();
  if (result.hasBest) {
    result.bestDevAccuracy = earlyStop_.state().best;
    result.bestStep = earlyStop_.state().bestStep;
  }
  if (config_.restoreBest && !state_.bestParameters.empty()) {
    torch::NoGradGuard noGrad;
    for (size_t i = 0; i < params_.size(); ++i)
      params_[i].copy_(state_.bestParameters[i]);
  }
  progress_.message("stopped (" + stopReason + ") after " +
                    std::to_string(state_.step) + " steps" +
                    (result.hasBest
                         ? ", best dev accuracy " +
                               format(result.bestDevAccuracy, 4) + " at step " +
                               std::to_string(result.bestStep)
                         : std::string()));
  result.history = std::move(state_.history);
  return result;
}

void Run::trainStep(const Batch &batch) {
  optimiser_.zeroGrad();
  torch::Tensor loss = model_.loss(batch, /*training=*/true);
  const double value = loss.item<double>();
  // Stop before the step so that the parameters and the last checkpoint
  // stay finite.
  if (!std::isfinite(value))
    throw std::runtime_error("fit: training loss is " + format(value, 6) +
                             " at epoch " + std::to_string(state_.epoch + 1) +
                             ", step " + std::to_string(state_.step + 1));
  loss.backward();
  GradClip clip;
  if (config_.clip > 0)
    clip = measureGradClip(params_, config_.clip);
  gradNormSum_ += clip.totalNorm;
  optimiser_.step(clip.scale);
  heapTrimmer_.afterStep();
  ++state_.batchInEpoch;
  ++state_.step;
  lossSum_ += value;
  ++loggedSteps_;
  progress_.update(state_.batchInEpoch, lossSum_ / loggedSteps_,
                   optimiser_.lr());
}

void Run::logTraining() {
  const double seconds =
      std::chrono::duration<double>(Clock::now() - logStart_).count();
  const double steps = static_cast<double>(loggedSteps_);
  nlohmann::json entry = {{"type", "train"},
                          {"epoch", state_.epoch},
                          {"step", state_.step},
                          {"loss", lossSum_ / steps},
                          {"lr", optimiser_.lr()},
                          {"steps_per_s", seconds > 0 ? steps / seconds : 0.0}};
  if (config_.clip > 0)
    entry["grad_norm"] = gradNormSum_ / steps;
  if (!progress_.interactive())
    progress_.message(
        "epoch " + std::to_string(state_.epoch + 1) + " step " +
        std::to_string(state_.step) + ": loss " + format(lossSum_ / steps, 5) +
        ", lr " + format(optimiser_.lr(), 3) +
        (config_.clip > 0 ? ", grad norm " + format(gradNormSum_ / steps, 4)
                          : std::string()) +
        ", " + format(entry["steps_per_s"].get<double>(), 3) + " steps/s");
  record(std::move(entry));
  lossSum_ = 0;
  gradNormSum_ = 0;
  loggedSteps_ = 0;
  logStart_ = Clock::now();
}

bool Run::evaluateAndSchedule(int64_t epoch) {
  // Evaluation must not advance the model's generator, or how often one
  // evaluates would change the training that follows.
  at::Generator &generator = model_.generator();
  torch::Tensor generatorState;
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    generatorState = generator.get_state();
  }
  const EvalResult result = evaluate(model_, dev_, config_.bucketEdges);
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(generatorState);
  }

  const double accuracy = result.accuracy();
  optimiser_.setLr(plateau_.step(accuracy, optimiser_.lr()));
  const bool improved = earlyStop_.update(accuracy, state_.step, epoch);
  if (improved) {
    torch::NoGradGuard noGrad;
    state_.bestParameters.clear();
    for (const auto &param : params_)
      state_.bestParameters.push_back(param.detach().clone());
  }
  const EarlyStopping::State &early = earlyStop_.state();
  record({{"type", "eval"},
          {"epoch", epoch},
          {"step", state_.step},
          {"dev", result.toJson()},
          {"improved", improved},
          {"best", early.best},
          {"bad_evals", early.badEvals},
          {"lr", optimiser_.lr()}});
  progress_.message("eval epoch " + std::to_string(epoch + 1) + " step " +
                    std::to_string(state_.step) + ": dev accuracy " +
                    format(accuracy, 4) + " (best " + format(early.best, 4) +
                    " at step " + std::to_string(early.bestStep) + ", " +
                    std::to_string(early.badEvals) + "/" +
                    std::to_string(config_.patience) +
                    " without improvement), lr " + format(optimiser_.lr(), 3));
  saveLast(/*alsoBest=*/improved);
  // After the checkpoints, so that a killed run has plots of its latest one.
  writePlots();
  return earlyStop_.shouldStop();
}

void Run::record(nlohmann::json entry) {
  metrics_.append(entry);
  state_.history.push_back(std::move(entry));
}

void Run::saveLast(bool alsoBest) {
  state_.plateau = plateau_.state();
  state_.earlyStop = earlyStop_.state();
  // best.pt before last.pt: a run killed between the two writes redoes this
  // evaluation when resumed and writes the same best.pt again, whereas the
  // other order would leave best.pt behind the best that last.pt records.
  if (alsoBest && !bestPath_.empty())
    saveCheckpoint(bestPath_, model_, optimiser_, state_);
  if (!lastPath_.empty())
    saveCheckpoint(lastPath_, model_, optimiser_, state_);
  savedStep_ = state_.step;
}

void Run::writePlots() {
  if (!plotDir_.empty())
    report::writeTrainingPlots(plotDir_, state_.history);
}

} // namespace

Trainer::Trainer(TrainerConfig config) : config_(std::move(config)) {}

FitResult Trainer::fit(TrainableModel &model, const BatchSource &trainBatches,
                       const std::vector<Batch> &devBatches) {
  Run run(config_, model, devBatches);
  return run.fit(trainBatches);
}

} // namespace rvnn::runtime::train
