// test/workloads/test_workload.cpp — Poisson workload generation (determinism, mean gap, class shares, noise) and
// the offered-load arithmetic of rate_for_load, hand-computed.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>

#include "workloads/io/json_reader.h"
#include "workloads/workload.h"

using namespace ringsched;

namespace {

// Class a: fixed global batch 100, step = 0.01 x 100 / w = 1/w s -> 100 w samples/s; 8e5 samples; max 64; weight 1.
// Class b: fixed global batch 100, step = t3 = 1 s -> 100 samples/s on any w; 1e4 samples; max 4; weight 3.
std::shared_ptr<const Catalog> two_class_catalog(double sigma_a = 0.0) {
  const std::string text = R"({"name": "two", "classes": [
    {"name": "a", "weight": 1, "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1,
     "work": {"samples": 800000, "sigma": )" +
                           std::to_string(sigma_a) +
                           R"(}, "gpus": {"max": 64}, "speed": {"kind": "eq5", "t0": 0.01, "t1": 0, "t2": 0, "t3": 0}},
    {"name": "b", "weight": 3, "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1,
     "work": {"samples": 10000}, "gpus": {"max": 4}, "speed": {"kind": "eq5", "t0": 0, "t1": 0, "t2": 0, "t3": 1}}
  ]})";
  return std::make_shared<const Catalog>(parse_catalog(parse_json_text(text, "two.json"), "two.json"));
}

}  // namespace

TEST_CASE("workloads::generate_poisson_workload: same seed gives the same jobs, other seeds differ",
          "[workloads][poisson]") {
  const auto cat = two_class_catalog(0.5);
  const PoissonSpec spec{0.01, 200, 0.2};
  const Workload a = generate_poisson_workload(cat, spec, 42);
  const Workload b = generate_poisson_workload(cat, spec, 42);
  const Workload c = generate_poisson_workload(cat, spec, 43);
  REQUIRE(a.jobs.size() == 200);
  REQUIRE(b.jobs.size() == 200);
  bool any_diff = false;
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    CHECK(a.jobs[i].id == static_cast<int>(i));
    CHECK(a.jobs[i].name == "job-" + std::to_string(i));
    CHECK(a.jobs[i].arrival == b.jobs[i].arrival);  // bitwise equal
    CHECK(a.jobs[i].class_index == b.jobs[i].class_index);
    CHECK(a.jobs[i].work_samples == b.jobs[i].work_samples);
    CHECK(a.jobs[i].speed_factor == b.jobs[i].speed_factor);
    if (i > 0) CHECK(a.jobs[i].arrival >= a.jobs[i - 1].arrival);
    any_diff |= a.jobs[i].arrival != c.jobs[i].arrival;
  }
  CHECK(any_diff);
}

TEST_CASE(
    "workloads::generate_poisson_workload: mean gap is 1/rate, class shares follow weights, noise is "
    "mean-preserving",
    "[workloads][poisson]") {
  const auto cat = two_class_catalog(0.5);
  const int n = 20000;
  const double rate = 1.0 / 250.0;  // one job per 250 s
  const Workload w = generate_poisson_workload(cat, PoissonSpec{rate, n, 0.3}, 7);
  // Mean gap = last arrival / n; its standard error is 250 / sqrt(20000) = 1.77 s, so +-2% (5 s) is ~3 sigma.
  const double mean_gap = w.jobs.back().arrival / n;
  CHECK(mean_gap == Approx(250.0).epsilon(0.02));
  // Class b has weight 3 of 4: share 0.75, standard error sqrt(0.75 x 0.25 / 20000) = 0.0031.
  int b = 0;
  double work_a = 0.0;
  int na = 0;
  double speed = 0.0;
  for (const auto& j : w.jobs) {
    if (j.class_index == 1) {
      ++b;
      CHECK(j.work_samples == 10000.0);  // sigma 0: identical work
    } else {
      work_a += j.work_samples;
      ++na;
    }
    speed += j.speed_factor;
  }
  CHECK(static_cast<double>(b) / n == Approx(0.75).margin(0.012));
  // Lognormal exp(sigma z - sigma^2 / 2) has mean 1: class a mean work ~ 8e5 (sd of the mean with sigma 0.5 over
  // ~5000 jobs is 8e5 x sqrt(e^0.25 - 1) / sqrt(5000) = 0.75%), speed factors ~ 1 (0.43% sd).
  CHECK(work_a / na == Approx(800000.0).epsilon(0.03));
  CHECK(speed / n == Approx(1.0).epsilon(0.015));
}

TEST_CASE("workloads::rate_for_load: offered-load arithmetic by hand", "[workloads][load]") {
  const auto cat = two_class_catalog();
  // Class a on 8 GPUs: 8e5 / (100 x 8) = 1000 s -> 8000 GPU-s. Class b on min(8, 4) = 4 GPUs: 1e4 / 100 = 100 s ->
  // 400 GPU-s. Weighted by 1/4 and 3/4: 2000 + 300 = 2300 GPU-s per job.
  CHECK(gpu_seconds_on_eight(*cat, 8) == Approx(2300.0).epsilon(1e-12));
  // load = rate x 2300 / 64  =>  rate = 0.5 x 64 / 2300 = 0.0139130 jobs/s.
  CHECK(rate_for_load(*cat, 0.5, 64, 8) == Approx(0.5 * 64.0 / 2300.0).epsilon(1e-12));
  CHECK(rate_for_load(*cat, 1.0, 64, 8) == Approx(2.0 * rate_for_load(*cat, 0.5, 64, 8)).epsilon(1e-12));
  // The paper catalog: one job on 8 GPUs takes 8.2e6 x 0.4995477 / 1024 = 4000.28 s = 32002.3 GPU-s, so load 0.9
  // on 64 GPUs is 0.9 x 64 / 32002.3 = 0.00179987 jobs/s = 6.4795 jobs/hour.
  const Catalog paper = load_catalog("paper");
  CHECK(gpu_seconds_on_eight(paper, 8) == Approx(8.2e6 * 0.4995477 / 1024.0 * 8.0).epsilon(1e-6));
  CHECK(rate_for_load(paper, 0.9, 64, 8) * 3600.0 == Approx(6.4795).epsilon(1e-4));
}
