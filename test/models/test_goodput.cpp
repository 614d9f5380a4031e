// test/models/test_goodput.cpp — models/goodput.h by hand: the efficiency gain, accumulation, fixed-batch
// configurations, the step-time model's pieces, its fit (recovers a model from its own predictions) and the batch
// choice (the best of the 50-batch grid, within the limits).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "models/goodput.h"

using namespace ringsched::models;

TEST_CASE("models::Goodput: efficiency gain from the gradient statistics (hand-computed)", "[goodput]") {
  const GradStats g{2.0, 6.0};  // sqr, var
  // B = 4 B0: (6 + 2) / (6 / 4 + 2) = 8 / 3.5.
  CHECK(efficiency_gain(g, 512.0, 128.0) == Approx(8.0 / 3.5));
  CHECK(efficiency_gain(g, 128.0, 128.0) == Approx(1.0));  // at the initial batch
  // Large batches: bounded by (var + sqr) / sqr = 4, never reached.
  CHECK(efficiency_gain(g, 128.0 * 1e9, 128.0) < 4.0);
  CHECK(efficiency_gain(g, 128.0 * 1e9, 128.0) == Approx(4.0).epsilon(1e-6));
  // Smaller than the initial batch: gain below 1 (the artifact allows it: per-sample efficiency is higher).
  CHECK(efficiency_gain(g, 64.0, 128.0) == Approx(8.0 / 14.0));
  // No statistics: 1.
  CHECK(efficiency_gain(GradStats{0.0, 0.0}, 512.0, 128.0) == 1.0);
}

TEST_CASE("models::Goodput: accumulated steps and fixed-batch configurations (hand-computed)", "[goodput]") {
  // One optimiser step = one full step + accum x (step - sync): 0.5 + 3 x 0.4.
  CHECK(accumulated_step(StepSync{0.5, 0.1}, 3) == Approx(1.7));
  CHECK(accumulated_step(StepSync{0.5, 0.1}, 0) == Approx(0.5));
  // B 2048 on 4 GPUs, at most 256 per GPU: local 512, one accumulation step, atomic 256.
  BatchConfig c = fixed_batch_config(2048, 4, 128, 4096, 256);
  CHECK(c.replicas == 4);
  CHECK(c.accum_steps == 1);
  CHECK(c.atomic_bsz == 256);
  CHECK(c.batch_size() == 2048);
  // B 2000 on 3 GPUs: local ceil(666.7) = 667, accum ceil(667 / 256) - 1 = 2, atomic ceil(667 / 3) = 223.
  c = fixed_batch_config(2000, 3, 128, 4096, 256);
  CHECK(c.accum_steps == 2);
  CHECK(c.atomic_bsz == 223);
  // One GPU above the initial batch: at least one accumulation step (gradient statistics need two micro-batches).
  c = fixed_batch_config(200, 1, 128, 4096, 256);
  CHECK(c.accum_steps == 1);
  CHECK(c.atomic_bsz == 100);
  c = fixed_batch_config(128, 1, 128, 4096, 256);
  CHECK(c.accum_steps == 0);
  CHECK(c.atomic_bsz == 128);
  CHECK(fixed_batch_config(128, 1, 128, 4096, 256, true).accum_steps == 1);  // Optimus's prediction forces it
  // The cap: at most max_batch / (replicas x (accum + 1)) per GPU: 64 GPUs x 100 > 4096 -> 64.
  c = fixed_batch_config(6400, 64, 128, 4096, 256);
  CHECK(c.accum_steps == 0);
  CHECK(c.atomic_bsz == 64);
  // An exact division is not rounded up by floating-point noise (the artifact's 1e-8 tolerance).
  CHECK(fixed_batch_config(3.0 * 0.1 / 0.1 * 100.0, 3, 100, 4096, 256).atomic_bsz == 100);
}

TEST_CASE("models::Goodput: step-time model pieces (hand-computed)", "[goodput]") {
  PerfParams p;
  p.alpha_c = 0.01;
  p.beta_c = 0.001;
  p.alpha_n = 0.2;
  p.beta_n = 0.05;
  p.alpha_r = 0.02;
  p.beta_r = 0.005;
  p.gamma = 2.0;
  CHECK(predict_accum_time(p, 90) == Approx(0.1));
  CHECK(predict_network_time(p, 2, 8) == Approx(0.2 + 0.05 * 6));    // across nodes
  CHECK(predict_network_time(p, 1, 4) == Approx(0.02 + 0.005 * 2));  // within a node
  CHECK(predict_network_time(p, 1, 2) == Approx(0.02 + 0.005 * 1e-8));
  CHECK(predict_network_time(p, 1, 1) < 1e-7);            // one GPU: no synchronisation
  CHECK(predict_optim_time(p, 0.3, 0.4) == Approx(0.5));  // (0.3^2 + 0.4^2)^(1/2)
  p.gamma = 1.0;
  CHECK(predict_optim_time(p, 0.3, 0.4) == Approx(0.7));
  // Throughput: 4 GPUs x 90 x (1 + 1) samples per (1 x 0.1 + optim(0.1, 0.03)) seconds at gamma 1.
  CHECK(model_throughput(p, 1, 4, 90, 1) == Approx(4.0 * 90 * 2 / (0.1 + 0.1 + 0.03)));
}

TEST_CASE("models::Goodput: the fit recovers a step-time model from noisy measurements of it", "[goodput][fit]") {
  PerfParams truth;
  truth.alpha_c = 0.02;
  truth.beta_c = 0.0005;
  truth.alpha_n = 0.08;
  truth.beta_n = 0.004;
  truth.alpha_r = 0.01;
  truth.beta_r = 0.001;
  truth.gamma = 1.5;
  // Measurements with +-2% deterministic noise (real ones are never exact; an exact fit of the compute term makes
  // the RMSLE's square root non-smooth at zero, where L-BFGS-B stops early, in SciPy as here).
  std::vector<ProfilePoint> profile;
  int i = 0;
  for (const auto& [nodes, replicas] : std::vector<std::pair<int, int>>{{1, 1}, {1, 2}, {1, 4}, {2, 8}, {4, 16}}) {
    for (const double b : {32.0, 64.0, 128.0}) {
      const double compute = predict_accum_time(truth, b) * (1.0 + 0.02 * std::sin(1.7 * i));
      const double step = predict_optim_time(truth, compute, predict_network_time(truth, nodes, replicas)) *
                          (1.0 + 0.02 * std::cos(2.3 * i));
      profile.push_back(ProfilePoint{nodes, replicas, b, step, std::max(0.0, step - compute)});
      ++i;
    }
  }
  const PerfParams fit = fit_perf_params(profile);
  // Predictions at the measured points and at an unmeasured one (3 nodes, 12 GPUs, batch 96) within 5%.
  for (const auto& q : profile) {
    CHECK(model_throughput(fit, q.nodes, q.replicas, q.atomic_bsz, 0) ==
          Approx(model_throughput(truth, q.nodes, q.replicas, q.atomic_bsz, 0)).epsilon(0.05));
  }
  CHECK(model_throughput(fit, 3, 12, 96, 0) == Approx(model_throughput(truth, 3, 12, 96, 0)).epsilon(0.05));
  for (double v : fit.as_array())
    CHECK(std::isfinite(v));
  CHECK(fit.gamma >= 1.0);
  CHECK(fit.gamma <= 10.0);
  // A fit is a function of its profile.
  CHECK(fit_perf_params(profile).as_array() == fit.as_array());
}

TEST_CASE("models::Goodput: the fit holds what one profile point cannot inform", "[goodput][fit]") {
  // One GPU, one batch size: alpha_c is half the compute time, the network terms stay at their lower bounds and the
  // inter-node ones are raised to 1.1 x the intra-node ones.
  const std::vector<ProfilePoint> one{{1, 1, 64.0, 0.3, 0.0}};
  const PerfParams p = fit_perf_params(one);
  CHECK(p.alpha_c == Approx(0.15));
  CHECK(p.alpha_r == Approx(1e-8));
  CHECK(p.alpha_n == Approx(1.1e-8));
  CHECK(model_throughput(p, 1, 1, 64, 0) == Approx(64.0 / 0.3).epsilon(0.01));
}

TEST_CASE("models::Goodput: the fit refuses profiles it cannot use", "[goodput][fit]") {
  CHECK_THROWS_AS(fit_perf_params({}), std::invalid_argument);
  CHECK_THROWS_AS(fit_perf_params({{1, 1, 64.0, 0.1, 0.2}}), std::invalid_argument);  // sync > step
  CHECK_THROWS_AS(fit_perf_params({{2, 1, 64.0, 0.3, 0.1}}), std::invalid_argument);  // more nodes than GPUs
  CHECK_THROWS_AS(fit_perf_params({{1, 1, 0.0, 0.3, 0.1}}), std::invalid_argument);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(fit_perf_params({{1, 1, 64.0, nan, 0.1}}), std::invalid_argument);
  CHECK_THROWS_AS(fit_perf_params({{1, 1, 64.0, std::numeric_limits<double>::infinity(), 0.1}}), std::invalid_argument);
}

TEST_CASE("models::Goodput: the batch choice is the best configuration of its 50-batch grid", "[goodput]") {
  GoodputModel m;
  m.perf = PerfParams{0.02, 0.0005, 0.08, 0.004, 0.01, 0.001, 1.5};
  m.grad = GradStats{1.0, 20.0};
  m.init_batch = 128;
  m.max_batch = 8192;
  m.min_atomic = 16;
  m.max_atomic = 256;
  for (const auto& [nodes, replicas] : std::vector<std::pair<int, int>>{{1, 1}, {1, 4}, {2, 8}, {8, 32}}) {
    BatchConfig cfg;
    const double g = m.optimize(nodes, replicas, cfg);
    REQUIRE(g > 0.0);
    CHECK(cfg.replicas == replicas);
    CHECK(cfg.atomic_bsz >= 16);
    CHECK(cfg.atomic_bsz <= 256);
    CHECK(g == m.evaluate(nodes, replicas, cfg.atomic_bsz, cfg.accum_steps));
    // No configuration of the grid (numpy.geomspace from max(init, min atomic x replicas) to max) does better.
    const double lo = std::max(128.0, 16.0 * replicas);
    for (int i = 0; i < 50; ++i) {
      const double b = lo * std::pow(8192.0 / lo, i / 49.0);
      const double local = b / replicas;
      int accum = static_cast<int>(std::ceil(local / 256 - 1e-8)) - 1;
      if (replicas == 1 && local > 128 + 1e-8) accum = std::max(accum, 1);
      const int atomic = static_cast<int>(std::ceil(local / (accum + 1) - 1e-8));
      if (atomic < 16 || atomic > 256) continue;
      CHECK(m.evaluate(nodes, replicas, atomic, accum) <= g * (1 + 1e-12));
    }
  }
  // With large gradient noise (var >> sqr) larger batches pay off: the chosen batch grows with the noise.
  BatchConfig quiet;
  BatchConfig noisy;
  m.grad = GradStats{1.0, 0.1};
  m.optimize(1, 4, quiet);
  m.grad = GradStats{1.0, 1000.0};
  m.optimize(1, 4, noisy);
  CHECK(noisy.batch_size() > quiet.batch_size());
  // No valid configuration (minimum atomic above the maximum batch per GPU): goodput 0.
  m.min_atomic = 300;
  BatchConfig none;
  CHECK(m.optimize(1, 4, none) == 0.0);
}
