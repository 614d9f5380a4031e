// test/workloads/test_gavel_jobs.cpp — Gavel's job generator: the distributions its code draws from (scale factors
// 0.7/0.1/0.15/0.05, durations 60 x 10^U(1.5, 3) s or, for 20%, 60 x 10^U(3, 4) s, job types uniform, distributed
// types only for multi-GPU jobs), work = duration x V100 throughput, exponential gaps from t = 0; determinism.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <memory>

#include "models/input_error.h"
#include "workloads/gavel.h"
#include "workloads/gavel_jobs.h"

using namespace ringsched;

namespace {

std::shared_ptr<const Catalog> gavel() {
  static const auto cat = std::make_shared<const Catalog>(gavel_catalog(default_gavel_dir()));
  return cat;
}

// A job's duration: its work over its class's V100 throughput at its scale factor.
double duration_of(const Workload& w, const JobTruth& j) {
  const JobClass& c = w.catalog->classes[static_cast<std::size_t>(j.class_index)];
  return j.work_samples / class_throughput_on(c, "v100", j.requested_gpus, 1);
}

}  // namespace

TEST_CASE("workloads::Gavel: single-GPU jobs: durations, types and arrivals as Gavel's generator draws them",
          "[gavel]") {
  GavelJobsSpec spec;
  spec.rate_per_s = 2.0 / 3600.0;
  spec.jobs = 20000;
  const Workload w = generate_gavel_workload(gavel(), spec, 3);
  REQUIRE(w.jobs.size() == 20000);
  CHECK(w.jobs[0].arrival == 0.0);
  double sum = 0.0;
  int long_jobs = 0;
  std::map<int, int> by_class;
  for (const auto& j : w.jobs) {
    CHECK(j.requested_gpus == 1);
    const double d = duration_of(w, j);
    REQUIRE(d >= 60.0 * std::pow(10.0, 1.5) * (1 - 1e-12));
    REQUIRE(d <= 60.0 * 1e4 * (1 + 1e-12));
    sum += d;
    long_jobs += d > 60.0 * 1000.0 ? 1 : 0;
    ++by_class[j.class_index];
  }
  // Mean duration: 0.8 x E[60 x 10^U(1.5,3)] + 0.2 x E[60 x 10^U(3,4)] = 0.8 x 16,822 + 0.2 x 234,519 = 60,362 s;
  // 20,000 draws of a heavy-tailed mix: within 4%.
  CHECK(sum / 20000.0 == Approx(0.8 * 60.0 * (std::pow(10.0, 3) - std::pow(10.0, 1.5)) / (1.5 * std::log(10.0)) +
                                0.2 * 60.0 * (1e4 - 1e3) / std::log(10.0))
                             .epsilon(0.04));
  CHECK(long_jobs / 20000.0 == Approx(0.2).margin(0.01));
  CHECK(by_class.size() == 26);
  for (const auto& [cls, n] : by_class)
    CHECK(n / 20000.0 == Approx(1.0 / 26.0).margin(0.006));
  // Exponential gaps with mean 1800 s.
  CHECK(w.jobs.back().arrival / 19999.0 == Approx(1800.0).epsilon(0.03));
}

TEST_CASE("workloads::Gavel: multi-GPU jobs: scale factors 0.7/0.1/0.15/0.05, only distributed job types above 1",
          "[gavel]") {
  GavelJobsSpec spec;
  spec.rate_per_s = 1.0 / 3600.0;
  spec.jobs = 20000;
  spec.multi_gpu = true;
  const Workload w = generate_gavel_workload(gavel(), spec, 5);
  std::map<int, int> sf;
  for (const auto& j : w.jobs) {
    ++sf[j.requested_gpus];
    const JobClass& c = w.catalog->classes[static_cast<std::size_t>(j.class_index)];
    REQUIRE(c.max_gpus >= j.requested_gpus);
  }
  REQUIRE(sf.size() == 4);
  CHECK(sf[1] / 20000.0 == Approx(0.70).margin(0.01));
  CHECK(sf[2] / 20000.0 == Approx(0.10).margin(0.01));
  CHECK(sf[4] / 20000.0 == Approx(0.15).margin(0.01));
  CHECK(sf[8] / 20000.0 == Approx(0.05).margin(0.01));
  // Same seed, same jobs.
  const Workload again = generate_gavel_workload(gavel(), spec, 5);
  CHECK(again.jobs[777].work_samples == w.jobs[777].work_samples);
  CHECK(again.jobs[777].arrival == w.jobs[777].arrival);
}

TEST_CASE("workloads::Gavel: the generator needs the reference type in every class", "[gavel]") {
  GavelJobsSpec spec;
  spec.rate_per_s = 1.0;
  spec.jobs = 3;
  spec.reference_type = "a100";
  CHECK_THROWS_WITH(generate_gavel_workload(gavel(), spec, 1), Catch::Contains("no speed on GPU type 'a100'"));
}
