#include "rvnn/Runtime/Train/Optimiser.h"
#include "rvnn/Runtime/Train/Lookahead.h"
#include "rvnn/Runtime/Train/RAdam.h"
#include "rvnn/Runtime/VectorClones.h"

#include <cmath>
#include <optional>
#include <sstream>

#include <gtest/gtest.h>
#include <torch/optim/sgd.h>
#include <torch/serialize/archive.h>

using namespace rvnn::runtime::train;

namespace {

torch::Tensor leaf(std::vector<double> values) {
  return torch::tensor(values, torch::kDouble).requires_grad_();
}

/// Gradient of 0.5 * sum(a * x^2).
void quadraticGrad(const torch::Tensor &x, const torch::Tensor &a) {
  x.mutable_grad() = (a * x).detach();
}

} // namespace

TEST(RAdam, DefaultsAreTorchs) {
  RAdamOptions options;
  EXPECT_EQ(options.lr(), 1e-3);
  EXPECT_EQ(std::get<0>(options.betas()), 0.9);
  EXPECT_EQ(std::get<1>(options.betas()), 0.999);
  EXPECT_EQ(options.eps(), 1e-8);
  EXPECT_EQ(options.weight_decay(), 0);
}

// While rho_t <= 5 RAdam is bias-corrected momentum: x1 = x0 - lr * g1, and
// x2 = x1 - lr * m2 / (1 - beta1^2) with m2 = 0.9 * 0.1 * g1 + 0.1 * g2.
TEST(RAdam, FirstStepsAreBiasCorrectedMomentum) {
  torch::Tensor x = leaf({1.0});
  RAdam radam({x}, RAdamOptions(0.1));
  x.mutable_grad() = x.detach().clone(); // gradient of x^2 / 2
  radam.step();
  EXPECT_DOUBLE_EQ(x.item<double>(), 0.9);
  x.mutable_grad() = x.detach().clone();
  radam.step();
  EXPECT_NEAR(x.item<double>(), 0.9 - 0.1 * (0.9 * 0.1 + 0.1 * 0.9) / 0.19,
              1e-14);
}

// Seven steps on a quadratic with L2 weight decay, through both branches
// (rectification starts at step 6), against the formulas of Liu et al. 2020
// evaluated per element in double precision.
TEST(RAdam, MatchesFormulasOnAQuadratic) {
  const std::vector<double> start{1.0, -2.0, 0.5}, curvature{1.0, 3.0, 0.5};
  const double lr = 0.1, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, decay = 0.1;
  torch::Tensor x = leaf(start);
  const torch::Tensor a = torch::tensor(curvature, torch::kDouble);
  RAdam radam({x}, RAdamOptions(lr).weight_decay(decay));

  std::vector<double> ref = start, m(3, 0.0), v(3, 0.0);
  int rectifiedSteps = 0;
  for (int t = 1; t <= 7; ++t) {
    quadraticGrad(x, a);
    radam.step();
    const double rhoInf = 2 / (1 - beta2) - 1;
    const double rhoT =
        rhoInf - 2 * t * std::pow(beta2, t) / (1 - std::pow(beta2, t));
    rectifiedSteps += rhoT > 5;
    for (int i = 0; i < 3; ++i) {
      const double g = curvature[i] * ref[i] + decay * ref[i];
      m[i] = beta1 * m[i] + (1 - beta1) * g;
      v[i] = beta2 * v[i] + (1 - beta2) * g * g;
      const double mHat = m[i] / (1 - std::pow(beta1, t));
      if (rhoT > 5) {
        const double r = std::sqrt((rhoT - 4) * (rhoT - 2) * rhoInf /
                                   ((rhoInf - 4) * (rhoInf - 2) * rhoT));
        const double l =
            std::sqrt(1 - std::pow(beta2, t)) / (std::sqrt(v[i]) + eps);
        ref[i] -= lr * mHat * l * r;
      } else {
        ref[i] -= lr * mHat;
      }
      EXPECT_NEAR(x[i].item<double>(), ref[i], 1e-12 * std::abs(ref[i]))
          << "step " << t << " element " << i;
    }
  }
  EXPECT_EQ(rectifiedSteps, 2);
}

TEST(RAdam, SkipsParametersWithoutGradient) {
  torch::Tensor x = leaf({1.0}), y = leaf({2.0});
  RAdam radam({x, y}, RAdamOptions(0.1));
  x.mutable_grad() = torch::ones_like(x);
  radam.step();
  EXPECT_EQ(y.item<double>(), 2.0);
  EXPECT_EQ(radam.state().size(), 1u);
}

// SGD with lr 0.1 on a constant gradient 1: the fast weight falls by 0.1 per
// step; at step k = 5 slow = 1 + 0.8 * (0.5 - 1) = 0.6 and the parameter
// jumps back to it; at step 10, slow = 0.6 + 0.8 * (0.1 - 0.6) = 0.2.
TEST(Lookahead, SyncsSlowWeightsEveryKSteps) {
  torch::Tensor x = leaf({1.0});
  torch::optim::SGD sgd({x}, torch::optim::SGDOptions(0.1));
  Lookahead lookahead(sgd, {5, 0.8});
  const double expected[] = {0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.4, 0.3, 0.2, 0.2};
  const double slow[] = {1, 1, 1, 1, 0.6, 0.6, 0.6, 0.6, 0.6, 0.2};
  for (int t = 1; t <= 10; ++t) {
    x.mutable_grad() = torch::ones_like(x);
    lookahead.step();
    EXPECT_NEAR(x.item<double>(), expected[t - 1], 1e-12) << "step " << t;
    EXPECT_NEAR(lookahead.slowWeights()[0].item<double>(), slow[t - 1], 1e-12)
        << "step " << t;
    EXPECT_EQ(lookahead.fastSteps(), t % 5);
  }
}

// The sync is slow + alpha (fast - slow) with lerp_'s two forms (from the
// fast end for alpha >= 0.5), each operation rounded, bit for bit against
// ATen's ops: float and double, a length past the vector width, the
// baseline and the AVX2 builds, and (through ATen) a parameter that is not
// contiguous.
TEST(Lookahead, SyncRoundsEachOperationInEveryBuild) {
  for (torch::ScalarType dtype : {torch::kFloat, torch::kDouble})
    for (double alpha : {0.3, 0.8})
      for (bool contiguous : {true, false})
        for (bool baseline : {false, true}) {
          SCOPED_TRACE(std::string(c10::toString(dtype)) + ", alpha " +
                       std::to_string(alpha) +
                       (contiguous ? ", contiguous" : ", strided") +
                       (baseline ? ", baseline build" : ""));
          std::optional<rvnn::runtime::BaselineBuildsOnly> baselineOnly;
          if (baseline)
            baselineOnly.emplace();
          torch::manual_seed(7);
          const torch::Tensor start = torch::randn({1003}, dtype);
          const torch::Tensor grad = torch::randn({1003}, dtype);
          auto parameter = [&] {
            torch::Tensor p = contiguous
                                  ? start.clone()
                                  : torch::empty_strided({1003}, {2}, dtype);
            p.copy_(start);
            p.set_requires_grad(true);
            p.mutable_grad() = grad.clone();
            return p;
          };
          // The fast weights as SGD leaves them, without Lookahead.
          torch::Tensor x = parameter(), fast = parameter();
          torch::optim::SGD sgd({x}, torch::optim::SGDOptions(0.1));
          torch::optim::SGD plain({fast}, torch::optim::SGDOptions(0.1));
          Lookahead lookahead(sgd, {1, alpha});
          lookahead.step();
          plain.step();
          torch::NoGradGuard noGrad;
          // The weight rounded to the element type first, as lerp_ does.
          const torch::Tensor weight = torch::scalar_tensor(alpha, dtype);
          const torch::Tensor step = fast - start;
          const torch::Tensor slow =
              alpha < 0.5 ? start + step * weight : fast - step * (1 - weight);
          EXPECT_TRUE(torch::equal(lookahead.slowWeights()[0], slow));
          EXPECT_TRUE(torch::equal(x, slow));
        }
}

TEST(Optimiser, BuildsEveryKind) {
  for (const std::string name : {"adam", "adamw", "radam", "adam_lookahead",
                                 "adamw_lookahead", "radam_lookahead"}) {
    OptimiserConfig config;
    config.name = name;
    Optimiser optimiser({leaf({1.0})}, config);
    EXPECT_EQ(optimiser.lookahead() != nullptr,
              name.find("_lookahead") != std::string::npos)
        << name;
    optimiser.setLr(0.25);
    EXPECT_EQ(optimiser.lr(), 0.25) << name;
  }
}

TEST(Optimiser, RejectsUnknownNamesAndBadOptions) {
  OptimiserConfig config;
  for (const std::string name : {"sgd", "_lookahead", "radam_lookahead_"}) {
    config.name = name;
    EXPECT_THROW(Optimiser({leaf({1.0})}, config), std::invalid_argument)
        << name;
  }
  config.name = "adam";
  config.beta2 = 1.5;
  EXPECT_THROW(Optimiser({leaf({1.0})}, config), std::invalid_argument);
  config.name = "radam_lookahead";
  config.beta2 = 0.999;
  config.lookaheadAlpha = 0;
  EXPECT_THROW(Optimiser({leaf({1.0})}, config), std::invalid_argument);
}

// Save after three steps, load into a fresh optimiser over a copy of the
// parameters, and take the same four steps: both must agree bit for bit
// (moments, step counters, Lookahead's slow weights and phase, lr).
TEST(Optimiser, StateRoundTripsExactly) {
  const torch::Tensor a = torch::tensor({1.0, 3.0, 0.5}, torch::kDouble);
  for (const std::string name : {"adam", "adamw", "radam", "radam_lookahead"}) {
    OptimiserConfig config;
    config.name = name;
    config.lr = 0.05;
    config.lookaheadK = 2;
    torch::Tensor x = leaf({1.0, -2.0, 0.5});
    Optimiser original({x}, config);
    for (int t = 0; t < 3; ++t) {
      quadraticGrad(x, a);
      original.step();
    }
    original.setLr(0.02);
    torch::serialize::OutputArchive out;
    original.save(out);
    std::stringstream bytes;
    out.save_to(bytes);

    torch::Tensor y = x.detach().clone().requires_grad_();
    Optimiser restored({y}, config);
    torch::serialize::InputArchive in;
    in.load_from(bytes);
    restored.load(in);
    EXPECT_EQ(restored.lr(), 0.02) << name;
    for (int t = 0; t < 4; ++t) {
      quadraticGrad(x, a);
      original.step();
      quadraticGrad(y, a);
      restored.step();
    }
    EXPECT_TRUE(torch::equal(x, y)) << name;
  }
}

// zeroGrad drops the gradients (backward then stores them instead of adding
// them to zeros), yet the steps are those of zeroed gradients: a parameter
// that had a gradient and gets none still takes its step (weight decay,
// momentum), as in PyTorch's zero_grad(set_to_none=False); one that never had
// a gradient is left alone.
TEST(Optimiser, ZeroGradStepsAsZeroedGradients) {
  OptimiserConfig config;
  config.name = "radam";
  config.lr = 0.1;
  config.weightDecay = 0.1;
  torch::Tensor x = leaf({1.0, -2.0}), unused = leaf({3.0});
  Optimiser optimiser({x, unused}, config);
  torch::Tensor reference = leaf({1.0, -2.0});
  RAdam radam({reference}, RAdamOptions(0.1).weight_decay(0.1));

  x.mutable_grad() = torch::ones_like(x);
  reference.mutable_grad() = torch::ones_like(reference);
  optimiser.step();
  radam.step();
  optimiser.zeroGrad();
  EXPECT_FALSE(x.grad().defined());
  reference.mutable_grad().zero_();
  optimiser.step();
  radam.step();
  EXPECT_TRUE(torch::equal(x, reference));
  EXPECT_TRUE(torch::equal(x.grad(), torch::zeros_like(x)));
  EXPECT_EQ(unused.item<double>(), 3.0);
  EXPECT_FALSE(unused.grad().defined());
}

// step(scale) updates as the gradients scaled in place would, whichever
// optimiser applies it (RAdam as it reads them, the others in place).
TEST(Optimiser, StepScalesTheGradients) {
  const torch::Tensor a = torch::tensor({1.0, 3.0, 0.5}, torch::kDouble);
  for (const std::string name : {"adam", "radam", "radam_lookahead"}) {
    OptimiserConfig config;
    config.name = name;
    config.lr = 0.05;
    config.lookaheadK = 2;
    torch::Tensor x = leaf({1.0, -2.0, 0.5}), y = leaf({1.0, -2.0, 0.5});
    Optimiser scaling({x}, config), prescaled({y}, config);
    for (int t = 0; t < 7; ++t) {
      quadraticGrad(x, a);
      scaling.step(0.3);
      quadraticGrad(y, a);
      y.mutable_grad().mul_(0.3);
      prescaled.step();
    }
    EXPECT_TRUE(torch::equal(x, y)) << name;
  }
}

TEST(Optimiser, LoadRejectsAnotherOptimiser) {
  OptimiserConfig config;
  config.name = "adam";
  Optimiser adam({leaf({1.0})}, config);
  torch::serialize::OutputArchive out;
  adam.save(out);
  std::stringstream bytes;
  out.save_to(bytes);

  config.name = "radam_lookahead";
  Optimiser radam({leaf({1.0})}, config);
  torch::serialize::InputArchive in;
  in.load_from(bytes);
  try {
    radam.load(in);
    FAIL() << "loading adam state into radam_lookahead should throw";
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find("'adam'"), std::string::npos)
        << error.what();
  }
}
