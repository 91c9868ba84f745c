#ifndef RVNN_FUZZ_FUZZMODEL_H
#define RVNN_FUZZ_FUZZMODEL_H

// A tiny model for the checkpoint and weights targets: the readers check a
// file against a model's parameter names, shapes and dtypes, and the seeds
// (FuzzSeeds.cpp) are written from the same model so that mutations start
// from files that load.

#include "rvnn/Runtime/Model.h"

#include <ATen/CPUGeneratorImpl.h>
#include <stdexcept>

namespace rvnn::fuzz {

class TinyModel : public runtime::TrainableModel {
public:
  TinyModel() {
    torch::Generator init = at::make_generator<at::CPUGeneratorImpl>(3);
    params.emplace_back("embedding",
                        torch::randn({4, 3}, init).set_requires_grad(true));
    params.emplace_back("head_w",
                        torch::randn({2, 3}, init).set_requires_grad(true));
    params.emplace_back("head_b", torch::zeros({2}).set_requires_grad(true));
  }
  std::vector<std::pair<std::string, torch::Tensor>>
  namedParameters() override {
    return params;
  }
  torch::Tensor loss(const runtime::Batch &, bool) override {
    throw std::logic_error("TinyModel has no loss");
  }
  torch::Tensor logits(const runtime::Batch &) override {
    throw std::logic_error("TinyModel has no logits");
  }
  torch::Generator &generator() override { return gen; }

  std::vector<torch::Tensor> tensors() const {
    std::vector<torch::Tensor> list;
    for (const auto &named : params)
      list.push_back(named.second);
    return list;
  }

private:
  std::vector<std::pair<std::string, torch::Tensor>> params;
  torch::Generator gen = at::make_generator<at::CPUGeneratorImpl>(5);
};

/// The run's seed the checkpoint seeds are written with.
constexpr uint64_t kSeedOfRun = 7;

} // namespace rvnn::fuzz

#endif // RVNN_FUZZ_FUZZMODEL_H
