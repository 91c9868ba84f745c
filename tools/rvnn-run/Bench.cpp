// `rvnn-run bench`: times training steps of a compiled model per length
// bucket and batch size (bench/README.md says what is measured and how the
// eager PyTorch baseline, bench/eager_step.py, mirrors it).

#include "EvalOptions.h"
#include "KernelsOption.h"
#include "OptionParser.h"
#include "Output.h"
#include "RecomputeOption.h"
#include "StepProfile.h"
#include "Subcommands.h"
#include "ThreadsOption.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <sys/resource.h>

#include "rvnn/Runtime/BlasKernels.h"
#include "rvnn/Runtime/CompiledModel.h"
#include "rvnn/Runtime/Data/ListOpsGenerator.h"
#include "rvnn/Runtime/Data/ListOpsVocab.h"
#include "rvnn/Runtime/Device.h"
#include "rvnn/Runtime/HostAllocator.h"
#include "rvnn/Runtime/Ops/JitProduct.h"
#include "rvnn/Runtime/RunConfig.h"
#include "rvnn/Runtime/Threads.h"
#include "rvnn/Runtime/Train/ClipGradNorm.h"
#include "rvnn/Runtime/Train/Optimiser.h"
#include "rvnn/Runtime/Train/TrainerConfig.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>

namespace rvnn::cli {

using namespace rvnn::runtime;

namespace {

constexpr const char *kDescription =
    R"(Times training steps of a compiled model: for every data bucket and
batch size, a fresh model (parameters from --seed, as dump-grads draws them)
and a fresh optimiser (the run configuration's, with its gradient clipping)
run --warmup untimed steps, then --steps timed ones. A step is what training
does: zero the gradients, forward in training mode (dropout on), loss,
backward, clip, optimiser step. Batch k takes rows kB..kB+B-1 of the bucket
(wrapping round), padded to its longest row.

Buckets come from --data files (one bucket each) or, for ListOps, from
--lengths: --samples expressions of L..L+--spread tokens each, generated
with --seed.

--eval-forward runs the forward in evaluation mode (no dropout), where the
model's evaluation options (rvnn.eval_option) take their evaluation
defaults; --option NAME=VALUE sets them as `rvnn-run eval --option` does
(e.g. rir_inference=1: RIR-EBT-GRC's RIR inference, the arithmetic of its
training forward). In training mode the options keep their training values,
so --option needs --eval-forward.

Dispatch ops run the model's generated kernels unless --kernels reference
(on a GPU their CUDA code; kernels with a row reduction or a broadcast
operand have none yet and run their reference bodies there); the table and the JSON say which ran.
On a GPU the table and the JSON also give the peak device memory of each
bucket (LibTorch's caching allocator, torch.cuda.max_memory_allocated). --recompute (default: the run
configuration's "recompute") chooses what differentiated calls keep for
backward.

Prints the median, 10th and 90th percentile step time in milliseconds and
the peak resident set size, as a table and, with --json, as JSON with every
step's time and the median forward, backward and optimiser times.

With --profile, one more step per bucket and batch size runs with the
executor counting what it does: dispatches (kernel + library calls) per
recursion step forward, autograd nodes backward, forward time by op, and
the step's GEMM work against this machine's SGEMM rate (measured in the same
run): the GEMM floor is 3x the forward GEMM FLOPs (backward: two products
per forward one) at that rate, and floor/median is the fraction of the
machine's limit the step reaches. The GEMM replay issues every BLAS call
of a step (forward and backward, recorded from ATen in one more step of
their own, so that the recording does not slow the profiled step's ops)
again by itself, on operands of the same shapes and layouts: the time this
BLAS needs for the step's products, which small or thin products keep
above the floor. The JSON's gemm_shapes lists the recorded calls by kind
(function, operand sizes and strides), the most time first, each with its
calls and its time and rate in GFLOP/s in the recorded step and replayed:
which products run below the SGEMM rate, and whether by their shape
(replayed too) or by the step's state of the caches (in the step only).
The peak RSS is reset before each bucket where Linux allows it
(/proc/self/clear_refs); rss_delta is the peak minus the RSS at the
bucket's start.
)";

/// "1,32" -> {1, 32}; every item must be a positive integer.
std::vector<uint64_t> parseList(const OptionParser &parser,
                                const std::string &option,
                                const std::string &text) {
  std::vector<uint64_t> values;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    if (item.empty())
      continue;
    size_t used = 0;
    uint64_t value = 0;
    try {
      value = std::stoull(item, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    if (used != item.size() || value == 0 || item[0] == '-')
      parser.fail(option + ": '" + item + "' is not a positive integer");
    values.push_back(value);
  }
  return values;
}

struct Bucket {
  std::string name;
  Dataset data;
};

Bucket generateListOps(uint64_t length, uint64_t spread, uint64_t samples,
                       uint64_t seed) {
  data::listops::GeneratorOptions options;
  options.minLength = static_cast<unsigned>(length);
  options.maxLength = static_cast<unsigned>(length + spread);
  options.seed = seed;
  data::listops::Generator generator(options);
  Bucket bucket{"listops " + std::to_string(length) + "-" +
                    std::to_string(length + spread),
                Dataset{Task::ListOps, {}, {}, {}, {}}};
  for (uint64_t i = 0; i < samples; ++i) {
    data::listops::Example example = generator.next();
    std::vector<data::TokenId> tokens =
        data::listops::tokenize(example.sequence);
    bucket.data.lengths.push_back(static_cast<int64_t>(tokens.size()));
    bucket.data.first.push_back(std::move(tokens));
    bucket.data.labels.push_back(example.label);
  }
  return bucket;
}

/// Linear interpolation between the closest ranks (numpy's default), so
/// bench/eager_step.py reports the same statistic.
double percentile(std::vector<double> values, double q) {
  if (values.empty())
    return std::nan("");
  std::sort(values.begin(), values.end());
  const double rank = q / 100.0 * static_cast<double>(values.size() - 1);
  const size_t low = static_cast<size_t>(std::floor(rank));
  const size_t high = std::min(low + 1, values.size() - 1);
  return values[low] +
         (rank - static_cast<double>(low)) * (values[high] - values[low]);
}

/// A field of /proc/self/status in MiB ("VmRSS", "VmHWM"); nullopt where
/// there is none (not Linux).
std::optional<double> procStatusMiB(const std::string &field) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(field + ":", 0) == 0) {
      std::istringstream rest(line.substr(field.size() + 1));
      double kib = 0;
      if (rest >> kib)
        return kib / 1024.0;
    }
  return std::nullopt;
}

/// Resets the peak RSS (VmHWM) to the current RSS; false where the kernel
/// does not allow it, in which case the peak is the process's so far.
bool resetPeakRss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

double peakRssMiB() {
  if (std::optional<double> hwm = procStatusMiB("VmHWM"))
    return *hwm;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0; // KiB on Linux
}

struct Measurement {
  std::string bucket;
  int64_t minLength = 0, maxLength = 0;
  uint64_t batchSize = 0;
  std::vector<double> stepMs, forwardMs, backwardMs, optimiserMs;
  double firstLoss = 0, lastLoss = 0;
  std::optional<StepProfile> profile;
  double peakRss = 0, rssDelta = 0;
  bool peakReset = false;
  std::optional<double> peakDeviceMiB; ///< on a GPU
};

/// "LIBXSMM skx kernels (detected)": what multiplies by a matrix (a 2-D
/// rhs) besides the BLAS, whose kernels the line before names.
std::string describeJitProducts() {
  const std::string kernels = ops::jitProductKernels();
  if (kernels.empty())
    return "the BLAS alone (no LIBXSMM, or its kernels are neither AVX-512 "
           "nor AVX2)";
  const std::string scope =
      ops::jitProductsTakeEveryShape()
          ? ""
          : " for 2 to " + std::to_string(ops::kMaxRowsOfAvx2JitProducts) +
                " rows by a row-major matrix and batches with K or N at most " +
                std::to_string(ops::kMaxNarrowDimOfAvx2BatchedProducts) +
                ", the BLAS for the rest";
  return "LIBXSMM " + kernels + " kernels" + scope + " (" +
         (std::getenv("LIBXSMM_TARGET") ? "LIBXSMM_TARGET" : "detected") + ")";
}

/// "1 thread(s)", or "1 thread(s) (OpenBLAS 2)" where OpenBLAS's pool,
/// which --threads sets and LibTorch's count does not report, differs.
std::string threadCount() {
  const int threads = at::get_num_threads(), blas = runtime::blasThreads();
  std::string text = std::to_string(threads) + " thread(s)";
  if (blas && blas != threads)
    text += " (OpenBLAS " + std::to_string(blas) + ")";
  return text;
}

} // namespace

int runBench(const std::vector<std::string> &args) {
  std::string configPath, modelDir, dataFiles, lengthList, jsonPath;
  std::string batchList = "1", device = "cpu", kernels = "generated";
  std::string recompute = "config", evalOptionText;
  std::uint64_t seed = 1, warmup = 3, steps = 20, samples = 100, spread = 20;
  unsigned threads = 0;
  bool evalForward = false, profile = false;
  OptionParser parser("rvnn-run bench", kDescription);
  parser.add("--config", "FILE",
             "run configuration (task, optimiser, clipping)", configPath);
  parser.add("--model", "DIR", "compiled model (rvnn-run compile)", modelDir);
  parser.add("--data", "FILES", "comma-separated data files, one bucket each",
             dataFiles);
  parser.add("--lengths", "L,...",
             "generate a ListOps bucket of L..L+spread tokens per L",
             lengthList);
  parser.add("--spread", "N", "length range of a generated bucket", spread);
  parser.add("--samples", "N", "examples per generated bucket", samples);
  parser.add("--batch-sizes", "B,...", "comma-separated batch sizes",
             batchList);
  parser.add("--warmup", "N", "untimed steps per bucket and batch size",
             warmup);
  parser.add("--steps", "N", "timed steps per bucket and batch size", steps);
  parser.add("--seed", "N",
             "parameter initialisation, dropout and generated data", seed);
  addThreadsOption(parser, threads);
  parser.add("--device", "NAME", "cpu, cuda or cuda:N", device);
  addKernelsOption(parser, kernels);
  addRecomputeOption(parser, recompute);
  parser.addFlag("--eval-forward",
                 "forward in evaluation mode (no dropout), to compare with\n"
                 "the dropout-free eager references",
                 evalForward);
  addEvalOptionsOption(parser, evalOptionText);
  parser.addFlag("--profile",
                 "count dispatches per recursion step and compare the step\n"
                 "with the machine's GEMM floor (one extra step)",
                 profile);
  parser.add("--json", "FILE", "also write the results as JSON (- : stdout)",
             jsonPath);
  if (!parser.parse(args))
    return 0;
  for (const char *required : {"--config", "--model"})
    if (!parser.given(required))
      parser.fail(std::string("missing ") + required);
  const KernelMode kernelMode = kernelsOption(parser, kernels);
  if (dataFiles.empty() == lengthList.empty())
    parser.fail("give either --data or --lengths");
  if (steps == 0)
    parser.fail("--steps must be at least 1");
  const std::map<std::string, int64_t> options =
      evalOptions(parser, evalOptionText);
  if (!options.empty() && !evalForward)
    parser.fail("--option sets evaluation options: give --eval-forward too "
                "(in training mode the model uses their training values)");
  const std::vector<uint64_t> batchSizes =
      parseList(parser, "--batch-sizes", batchList);
  if (batchSizes.empty())
    parser.fail("--batch-sizes is empty");

  RunConfig config = readRunConfig(configPath);
  const RecomputePolicy recomputePolicy =
      recomputeOption(parser, recompute, config);
  train::TrainerConfig trainer =
      train::TrainerConfig::fromJson(config.training);
  const torch::Device target = selectDevice(device);
  applyThreadsOption(threads);
  const std::string kernelsRan(kernelModeName(kernelMode));

  const double sgemmRate = profile ? measureSgemmRate() : 0;

  std::vector<Bucket> buckets;
  if (!lengthList.empty()) {
    if (config.task != Task::ListOps)
      parser.fail("--lengths generates ListOps; give --data for this task");
    for (uint64_t length : parseList(parser, "--lengths", lengthList))
      buckets.push_back(generateListOps(length, spread, samples, seed));
  } else {
    for (const std::string &file : splitCommaList(dataFiles))
      buckets.push_back({file, readDataset(config.task, file)});
  }

  std::vector<Measurement> results;
  for (const Bucket &bucket : buckets) {
    const Dataset &data = bucket.data;
    if (data.labels.empty())
      throw std::runtime_error(bucket.name + ": no examples");
    for (uint64_t batchSize : batchSizes) {
      Measurement m;
      m.bucket = bucket.name;
      m.minLength = *std::min_element(data.lengths.begin(), data.lengths.end());
      m.maxLength = *std::max_element(data.lengths.begin(), data.lengths.end());
      m.batchSize = batchSize;

      std::vector<Batch> batches;
      for (uint64_t k = 0; k < warmup + steps; ++k) {
        std::vector<size_t> rows;
        for (uint64_t j = 0; j < batchSize; ++j)
          rows.push_back((k * batchSize + j) % data.labels.size());
        batches.push_back(makeBatch(data, rows));
      }

      CompiledModel model(modelDir, target, seed, kernelMode);
      applyRunConfig(config, recomputePolicy, model.executionContext());
      // An option the model does not read is an error naming the model's.
      model.setEvalOptions(options);
      std::vector<torch::Tensor> params;
      for (const auto &[name, param] : model.namedParameters())
        params.push_back(param);
      train::Optimiser optimiser(params, trainer.optimiser);
      HostHeapTrimmer heapTrimmer;

      m.peakReset = resetPeakRss();
      resetPeakDeviceMemory(target);
      const double startRss = procStatusMiB("VmRSS").value_or(0);
      using Clock = std::chrono::steady_clock;
      auto ms = [](Clock::time_point from, Clock::time_point to) {
        return std::chrono::duration<double, std::milli>(to - from).count();
      };
      for (uint64_t k = 0; k < warmup + steps; ++k) {
        const auto start = Clock::now();
        optimiser.zeroGrad();
        torch::Tensor loss = model.loss(batches[k], /*training=*/!evalForward);
        const auto forwardDone = Clock::now();
        loss.backward();
        const auto backwardDone = Clock::now();
        train::GradClip clip;
        if (trainer.clip > 0)
          clip = train::measureGradClip(params, trainer.clip);
        optimiser.step(clip.scale);
        heapTrimmer.afterStep();
        const double value = loss.item<double>();
        if (target.is_cuda())
          torch::cuda::synchronize();
        const auto stop = Clock::now();
        if (!std::isfinite(value))
          throw std::runtime_error(bucket.name + ": non-finite loss at step " +
                                   std::to_string(k));
        if (k == 0)
          m.firstLoss = value;
        m.lastLoss = value;
        if (k < warmup)
          continue;
        m.stepMs.push_back(ms(start, stop));
        m.forwardMs.push_back(ms(start, forwardDone));
        m.backwardMs.push_back(ms(forwardDone, backwardDone));
        m.optimiserMs.push_back(ms(backwardDone, stop));
      }
      if (profile)
        m.profile = profileStep(model, batches[0], /*training=*/!evalForward);
      m.peakRss = peakRssMiB();
      m.rssDelta = m.peakRss - startRss;
      m.peakDeviceMiB = peakDeviceMemoryMiB(target);
      results.push_back(std::move(m));
    }
  }

  std::ostream &table = jsonPath == "-" ? std::cerr : std::cout;
  table << "rvnn bench: " << modelDir << ", " << trainer.optimiser.name;
  if (trainer.clip > 0)
    table << ", clip " << trainer.clip;
  table << ", forward in " << (evalForward ? "evaluation" : "training")
        << " mode";
  const char *separator = " (";
  for (const auto &[name, value] : options) {
    table << separator << name << "=" << value;
    separator = ", ";
  }
  table << (options.empty() ? ", " : "), ") << kernelsRan << " kernels, "
        << recomputePolicyName(recomputePolicy) << " policy, " << threadCount()
        << ", " << warmup << " warm-up + " << steps << " timed steps\n"
        << "BLAS: " << describe(blasKernels()) << "\n"
        << "matrix products: " << describeJitProducts() << "\n";
  table << std::left << std::setw(24) << "bucket" << std::right << std::setw(10)
        << "lengths" << std::setw(7) << "batch" << std::setw(12) << "median ms"
        << std::setw(10) << "p10 ms" << std::setw(10) << "p90 ms"
        << std::setw(14) << "peak RSS MiB" << std::setw(11) << "RSS +MiB"
        << "\n";
  table << std::fixed;
  for (const Measurement &m : results) {
    std::string name = m.bucket;
    if (name.size() > 23)
      name = "..." + name.substr(name.size() - 20);
    table << std::left << std::setw(24) << name << std::right << std::setw(10)
          << (std::to_string(m.minLength) + "-" + std::to_string(m.maxLength))
          << std::setw(7) << m.batchSize << std::setprecision(2)
          << std::setw(12) << percentile(m.stepMs, 50) << std::setw(10)
          << percentile(m.stepMs, 10) << std::setw(10)
          << percentile(m.stepMs, 90) << std::setprecision(1) << std::setw(14)
          << m.peakRss << std::setw(11) << m.rssDelta;
    if (m.peakDeviceMiB)
      table << "  peak device " << *m.peakDeviceMiB << " MiB";
    table << "\n";
    if (!m.profile)
      continue;
    table
        << std::setprecision(2) << "  median forward "
        << percentile(m.forwardMs, 50) << " ms, backward "
        << percentile(m.backwardMs, 50) << " ms, optimiser "
        << percentile(m.optimiserMs, 50) << " ms; GEMM floor "
        << gemmFloorMs(*m.profile, sgemmRate) << " ms at " << sgemmRate / 1e9
        << " GFLOP/s SGEMM = " << std::setprecision(3)
        << gemmFloorMs(*m.profile, sgemmRate) / percentile(m.stepMs, 50)
        << " of the step\n  GEMM replay " << std::setprecision(2)
        << m.profile->gemmReplayMs << " ms (" << m.profile->gemmCalls
        << " BLAS calls of the step, same shapes and layouts, by themselves) = "
        << std::setprecision(3)
        << m.profile->gemmReplayMs / percentile(m.stepMs, 50)
        << " of the step; in the recorded step they took "
        << std::setprecision(2) << m.profile->gemmStepMs << " ms\n";
    printProfile(table, *m.profile);
  }

  if (!jsonPath.empty()) {
    nlohmann::json out = {{"tool", "rvnn"},
                          {"model", modelDir},
                          {"config", configPath},
                          {"device", device},
                          {"threads", at::get_num_threads()},
                          {"blas_threads", runtime::blasThreads()},
                          {"blas", toJson(blasKernels())},
                          {"jit_products", runtime::ops::jitProductKernels()},
                          {"optimiser", trainer.optimiser.name},
                          {"clip", trainer.clip},
                          {"forward_mode", evalForward ? "eval" : "train"},
                          {"options", options},
                          {"kernels", kernelsRan},
                          {"recompute", recomputePolicyName(recomputePolicy)},
                          {"dtype", "float32"},
                          {"seed", seed},
                          {"warmup", warmup},
                          {"steps", steps},
                          {"results", nlohmann::json::array()}};
    if (profile)
      out["sgemm_gflops"] = sgemmRate / 1e9;
    for (const Measurement &m : results) {
      nlohmann::json result = {
          {"bucket", m.bucket},
          {"min_length", m.minLength},
          {"max_length", m.maxLength},
          {"batch_size", m.batchSize},
          {"median_ms", percentile(m.stepMs, 50)},
          {"p10_ms", percentile(m.stepMs, 10)},
          {"p90_ms", percentile(m.stepMs, 90)},
          {"step_ms", m.stepMs},
          {"first_loss", m.firstLoss},
          {"last_loss", m.lastLoss},
          {"peak_rss_mib", m.peakRss},
          {"rss_delta_mib", m.rssDelta},
          {"peak_rss_reset", m.peakReset},
          {"forward_median_ms", percentile(m.forwardMs, 50)},
          {"backward_median_ms", percentile(m.backwardMs, 50)},
          {"optimiser_median_ms", percentile(m.optimiserMs, 50)}};
      if (m.peakDeviceMiB)
        result["peak_device_mib"] = *m.peakDeviceMiB;
      if (m.profile) {
        result["profile"] = toJson(*m.profile);
        result["gemm_floor_ms"] = gemmFloorMs(*m.profile, sgemmRate);
        result["gemm_floor_fraction"] =
            gemmFloorMs(*m.profile, sgemmRate) / percentile(m.stepMs, 50);
        result["gemm_replay_fraction"] =
            m.profile->gemmReplayMs / percentile(m.stepMs, 50);
      }
      out["results"].push_back(std::move(result));
    }
    writeOutput(jsonPath, [&](std::ostream &os) { os << out.dump(1) << "\n"; });
  }
  return 0;
}

} // namespace rvnn::cli
