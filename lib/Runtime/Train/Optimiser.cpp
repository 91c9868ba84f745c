#include "rvnn/Runtime/Train/Optimiser.h"

#include <stdexcept>
#include <string_view>

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/serialize/archive.h>

#include "rvnn/Runtime/Train/ClipGradNorm.h"
#include "rvnn/Runtime/Train/RAdam.h"

namespace rvnn::runtime::train {

namespace {

constexpr std::string_view kLookaheadSuffix = "_lookahead";

std::unique_ptr<torch::optim::Optimizer>
makeBase(std::string_view base, std::vector<torch::Tensor> params,
         const OptimiserConfig &config) {
  const auto betas = std::make_tuple(config.beta1, config.beta2);
  if (base == "adam")
    return std::make_unique<torch::optim::Adam>(
        std::move(params), torch::optim::AdamOptions(config.lr)
                               .betas(betas)
                               .eps(config.eps)
                               .weight_decay(config.weightDecay));
  if (base == "adamw")
    return std::make_unique<torch::optim::AdamW>(
        std::move(params), torch::optim::AdamWOptions(config.lr)
                               .betas(betas)
                               .eps(config.eps)
                               .weight_decay(config.weightDecay));
  if (base == "radam")
    return std::make_unique<RAdam>(std::move(params),
                                   RAdamOptions(config.lr)
                                       .betas(betas)
                                       .eps(config.eps)
                                       .weight_decay(config.weightDecay));
  return nullptr;
}

} // namespace

Optimiser::Optimiser(std::vector<torch::Tensor> params,
                     const OptimiserConfig &config)
    : name_(config.name) {
  std::string_view base = name_;
  const bool withLookahead =
      base.size() > kLookaheadSuffix.size() &&
      base.substr(base.size() - kLookaheadSuffix.size()) == kLookaheadSuffix;
  if (withLookahead)
    base.remove_suffix(kLookaheadSuffix.size());
  try {
    base_ = makeBase(base, std::move(params), config);
  } catch (const c10::Error &error) {
    // LibTorch's own optimisers check their options with TORCH_CHECK.
    throw std::invalid_argument("optimiser " + name_ + ": " +
                                error.what_without_backtrace());
  }
  if (!base_)
    throw std::invalid_argument(
        "unknown optimiser '" + name_ +
        "' (expected adam, adamw or radam, optionally with _lookahead)");
  if (withLookahead)
    lookahead_ = std::make_unique<Lookahead>(
        *base_, LookaheadOptions{config.lookaheadK, config.lookaheadAlpha});
}

void Optimiser::zeroGrad() {
  zeroedGrads_.clear();
  for (auto &group : base_->param_groups())
    for (auto &param : group.params())
      if (param.grad().defined()) {
        zeroedGrads_.push_back(param);
        param.mutable_grad().reset();
      }
}

void Optimiser::step(double gradScale) {
  for (torch::Tensor &param : zeroedGrads_)
    if (!param.grad().defined())
      param.mutable_grad() = torch::zeros_like(param);
  zeroedGrads_.clear();
  if (auto *radam = dynamic_cast<RAdam *>(base_.get()))
    radam->scaleNextGradients(gradScale);
  else
    for (const auto &group : base_->param_groups())
      scaleGradients(group.params(), gradScale);
  if (lookahead_)
    lookahead_->step();
  else
    base_->step();
}

double Optimiser::lr() const {
  return base_->param_groups().front().options().get_lr();
}

void Optimiser::setLr(double lr) {
  for (auto &group : base_->param_groups())
    group.options().set_lr(lr);
}

void Optimiser::save(torch::serialize::OutputArchive &archive) const {
  archive.write("name", c10::IValue(name_));
  // LibTorch's optimisers do not restore options on load, so the learning
  // rate (which the scheduler changes) is saved here.
  archive.write("lr", c10::IValue(lr()));
  torch::serialize::OutputArchive base(archive.compilation_unit());
  base_->save(base);
  archive.write("base", base);
  if (lookahead_) {
    torch::serialize::OutputArchive lookahead(archive.compilation_unit());
    lookahead_->save(lookahead);
    archive.write("lookahead", lookahead);
  }
}

void Optimiser::load(torch::serialize::InputArchive &archive) {
  c10::IValue name;
  if (!archive.try_read("name", name) || !name.isString())
    throw std::runtime_error("optimiser state has no name");
  if (name.toStringRef() != name_)
    throw std::runtime_error("optimiser is '" + name.toStringRef() +
                             "' in the checkpoint but '" + name_ +
                             "' in the configuration");
  c10::IValue lr;
  if (!archive.try_read("lr", lr) || !lr.isDouble())
    throw std::runtime_error("optimiser state has no learning rate");
  torch::serialize::InputArchive base;
  archive.read("base", base);
  base_->load(base);
  if (lookahead_) {
    torch::serialize::InputArchive lookahead;
    archive.read("lookahead", lookahead);
    lookahead_->load(lookahead);
  }
  setLr(lr.toDouble());
}

} // namespace rvnn::runtime::train
