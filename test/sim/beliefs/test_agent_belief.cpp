// test/sim/beliefs/test_agent_belief.cpp — the `agent` belief: the prior until the job measures itself, the
// hand-computed posterior of its log-linear correction, convergence to what it measures, no read of the truth (a
// poisoned truth catalog), and the engine's reports of measured steps (one per stretch run, with keyed noise).
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "sim/beliefs/agent_belief.h"
#include "sim/beliefs/belief_sources.h"
#include "sim/engine/engine.h"
#include "test/sim/scripted_strategy.h"
#include "test/sim/two_jobs.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;

namespace {

// Fixed global batch 100, step = 0.01 x 100 / w = 1/w s: 100 w samples/s (perfect scaling), at most 8 GPUs.
std::shared_ptr<const Catalog> linear_catalog(double t0 = 0.01) {
  const std::string text = R"({"name": "lin", "classes": [
    {"name": "lin", "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1,
     "work": {"samples": 1000}, "gpus": {"max": 8}, "speed": {"kind": "eq5", "t0": )" +
                           std::to_string(t0) + R"(, "t1": 0, "t2": 0, "t3": 0}}
  ]})";
  return std::make_shared<const Catalog>(parse_catalog(parse_json_text(text, "lin.json"), "lin.json"));
}

class PoisonStepTime final : public models::StepTimeModel {
 public:
  [[nodiscard]] double step_seconds(int, int, double) const override {
    throw std::logic_error("a belief read the truth model");
  }
  [[nodiscard]] std::string kind() const override { return "poison"; }
};

JobPublic lin_job() {
  JobPublic p;
  p.id = 3;
  p.cls.name = "lin";
  p.cls.max_gpus = 8;
  return p;
}

}  // namespace

TEST_CASE("sim::AgentBelief: the prior until the job measures itself, then the hand-computed posterior",
          "[beliefs][agent]") {
  const auto prior = linear_catalog();
  const auto source = make_agent_source(prior, 0.05);
  Catalog truth = *prior;  // the context's catalog: never read when a prior catalog is given
  truth.classes[0].speed = std::make_shared<PoisonStepTime>();
  BeliefContext ctx{&truth, 4};
  auto b = source->make(lin_job(), ctx, nullptr);
  REQUIRE(b);
  CHECK(b->source() == "agent");
  CHECK_FALSE(b->fixed());
  CHECK(b->wants_step_observations());
  CHECK(b->throughput(1, 1) == Approx(100.0));
  CHECK(b->throughput(8, 2) == Approx(800.0));
  CHECK(b->total_work() == Approx(1000.0));
  // One measurement at 1 GPU of 150 samples/s: r = log 1.5, phi = (1, 0, 0, 0). Posterior mean of theta_0 =
  // (r / s^2) / (1 / s^2 + 1 / 0.5^2) = r x 0.25 / (0.25 + 0.0025) = 0.990099 r; the other terms stay 0.
  b->observe_step({1, 1, 100.0, 150.0, ""});
  const double t0 = std::log(1.5) * 0.25 / 0.2525;
  CHECK(b->throughput(1, 1) == Approx(100.0 * std::exp(t0)).epsilon(1e-12));
  CHECK(b->throughput(4, 1) == Approx(400.0 * std::exp(t0)).epsilon(1e-12));  // the speed factor carries over
  CHECK(b->throughput(8, 2) == Approx(800.0 * std::exp(t0)).epsilon(1e-12));
  // Measured 100 times at 8 GPUs on 2 nodes at 0.6 x the prior: the belief there converges to the measurement
  // (within the 1.5x measured at one GPU, which still pulls the shared terms), while one GPU keeps near its own.
  for (int i = 0; i < 100; ++i)
    b->observe_step({8, 2, 100.0, 480.0, ""});
  CHECK(b->throughput(8, 2) == Approx(480.0).epsilon(0.01));
  CHECK(b->throughput(1, 1) == Approx(150.0).epsilon(0.05));
  // Between them, the cross-node penalty learned at 8 GPUs applies to 16 GPUs on 4 nodes too.
  CHECK(b->throughput(16, 4) < 0.7 * 1600.0);
}

TEST_CASE("sim::AgentBelief: the correction's posterior is a ridge regression with the declared prior",
          "[beliefs][agent]") {
  AgentCorrection c(0.1);
  CHECK(c.factor(4, 1) == 1.0);
  // Two measurements: (2 GPUs, 1 node) r = 0.2 and (8 GPUs, 2 nodes) r = -0.3, sigma 0.1. theta solves
  // (Phi^T Phi / s^2 + diag(1 / p^2)) theta = Phi^T r / s^2, Phi = [[1, 1, 0, 0], [1, 3, 1, 1]], p = (.5, .25, .5,
  // .25).
  c.add(2, 1, 0.2);
  c.add(8, 2, -0.3);
  // Solved by hand-written Gaussian elimination on the 4x4 system (computed once with exact fractions):
  const double s2 = 0.01;
  double m[4][5] = {{2 / s2 + 4, 4 / s2, 1 / s2, 1 / s2, (0.2 - 0.3) / s2},
                    {4 / s2, 10 / s2 + 16, 3 / s2, 3 / s2, (0.2 - 0.9) / s2},
                    {1 / s2, 3 / s2, 1 / s2 + 4, 1 / s2, -0.3 / s2},
                    {1 / s2, 3 / s2, 1 / s2, 1 / s2 + 16, -0.3 / s2}};
  for (int i = 0; i < 4; ++i) {
    for (int k = i + 1; k < 4; ++k) {
      const double f = m[k][i] / m[i][i];
      for (int j = i; j < 5; ++j)
        m[k][j] -= f * m[i][j];
    }
  }
  double theta[4];
  for (int i = 3; i >= 0; --i) {
    double s = m[i][4];
    for (int j = i + 1; j < 4; ++j)
      s -= m[i][j] * theta[j];
    theta[i] = s / m[i][i];
  }
  for (std::size_t i = 0; i < 4; ++i)
    CHECK(c.theta()[i] == Approx(theta[i]).epsilon(1e-9));
  CHECK(c.observations() == 2);
  CHECK(std::log(c.factor(16, 4)) == Approx(theta[0] + 4 * theta[1] + theta[2] + 2 * theta[3]).epsilon(1e-9));
  // A measurement of 0 or inf says nothing: ignored.
  c.add(4, 1, std::log(0.0));
  c.add(4, 1, std::nan(""));
  CHECK(c.observations() == 2);
}

TEST_CASE("sim::AgentBelief: without a prior catalog it plans on the context's (in-sample) catalog",
          "[beliefs][agent]") {
  const auto cat = linear_catalog(0.02);
  const auto source = make_belief_source("agent", "test");
  BeliefContext ctx{cat.get(), 4};
  auto b = source->make(lin_job(), ctx, nullptr);
  REQUIRE(b);
  CHECK(b->throughput(2, 1) == Approx(100.0));  // 50 w samples/s
  JobPublic other = lin_job();
  other.cls.name = "unknown";
  CHECK(source->make(other, ctx, nullptr) == nullptr);
}

namespace {

// Records what the engine reports.
class RecordingBelief final : public Belief {
 public:
  explicit RecordingBelief(std::vector<StepObservation>* out) : out_(out) {}
  [[nodiscard]] double throughput(int w, int) const override { return 100.0 * w; }
  [[nodiscard]] double total_work() const override { return 1.0; }
  [[nodiscard]] std::string source() const override { return "recording"; }
  [[nodiscard]] bool wants_step_observations() const override { return true; }
  void observe_step(const StepObservation& o) override { out_->push_back(o); }

 private:
  std::vector<StepObservation>* out_;
};

class RecordingSource final : public BeliefSource {
 public:
  [[nodiscard]] std::string name() const override { return "recording"; }
  [[nodiscard]] std::unique_ptr<Belief> make(const JobPublic& pub, const BeliefContext&,
                                             const JobTruth*) const override {
    return std::make_unique<RecordingBelief>(&seen[static_cast<std::size_t>(pub.id)]);
  }
  mutable std::vector<std::vector<StepObservation>> seen = std::vector<std::vector<StepObservation>>(2);
};

std::vector<std::vector<StepObservation>> run_two_jobs(double sigma, std::uint64_t seed) {
  const Workload w = test::two_jobs(linear_catalog());
  // Equal shares of 4 GPUs on one node.
  test::ScriptedStrategy strat([](const Snapshot& s) {
    return std::vector<int>(s.jobs.size(), s.total_gpus / static_cast<int>(s.jobs.size()));
  });
  RecordingSource src;
  EngineConfig ec;
  ec.cluster.nodes = 1;
  ec.cluster.gpus_per_node = 4;
  ec.restart.cost_s = 10.0;
  ec.step_measurement_sigma = sigma;
  ec.seed = seed;
  (void)simulate(w, strat, src, ec);
  return src.seen;
}

}  // namespace

TEST_CASE("sim::Engine: a job reports one measured step for each stretch it ran, to beliefs that want them",
          "[beliefs][agent]") {
  // Job 0 runs on 4 GPUs from 0 (400 samples/s); the decision at 50 (job 1 arrives) sees that stretch. It resizes to 2
  // (restart until 60, then 200/s); the decision at 100 (job 1 completes) sees that one. It grows back to 4 at 110
  // and completes at 140 with no decision in between: 2 reports. Job 1 runs on 2 GPUs from 50 and completes at 100
  // before any decision sees it running: no report.
  const auto exact = run_two_jobs(0.0, 1);
  REQUIRE(exact[0].size() == 2);
  CHECK(exact[0][0].gpus == 4);
  CHECK(exact[0][0].nodes == 1);
  CHECK(exact[0][0].global_batch == Approx(100.0));
  CHECK(exact[0][0].throughput == Approx(400.0).epsilon(1e-12));
  CHECK(exact[0][1].gpus == 2);
  CHECK(exact[0][1].throughput == Approx(200.0).epsilon(1e-12));
  CHECK(exact[1].empty());
  // With noise: lognormal around the truth, keyed by (seed, job, measurement), so the same seed gives the same numbers.
  const auto noisy = run_two_jobs(0.05, 7);
  REQUIRE(noisy[0].size() == 2);
  CHECK(noisy[0][0].throughput != Approx(400.0).epsilon(1e-9));
  CHECK(std::abs(std::log(noisy[0][0].throughput / 400.0)) < 0.25);
  CHECK(noisy[0][0].throughput == run_two_jobs(0.05, 7)[0][0].throughput);
  CHECK(noisy[0][0].throughput != run_two_jobs(0.05, 8)[0][0].throughput);
}

TEST_CASE("sim::AgentBelief: on GPU types the prior per type, the correction learned against the type each step ran on",
          "[beliefs][agent][pools]") {
  // Prior: 100 w samples/s on the reference, 200 w on "fast", 25 w on "slow".
  const std::string text = R"({"name": "typed", "classes": [
    {"name": "lin", "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1,
     "work": {"samples": 1000}, "gpus": {"max": 8}, "speed": {"kind": "eq5", "t0": 0.01, "t1": 0, "t2": 0, "t3": 0},
     "speed_by_type": {"fast": {"kind": "eq5", "t0": 0.005, "t1": 0, "t2": 0, "t3": 0},
                       "slow": {"kind": "eq5", "t0": 0.04, "t1": 0, "t2": 0, "t3": 0}}}
  ]})";
  const auto prior = std::make_shared<const Catalog>(parse_catalog(parse_json_text(text, "typed.json"), "typed.json"));
  const auto source = make_agent_source(prior, 0.05);
  BeliefContext ctx{prior.get(), 4};
  auto b = source->make(lin_job(), ctx, nullptr);
  REQUIRE(b);
  CHECK(b->throughput_on("fast", 2, 1) == Approx(400.0));
  CHECK(b->throughput_on("slow", 2, 1) == Approx(50.0));
  CHECK(b->throughput_on("tpu", 2, 1) == Approx(200.0));  // a type the prior lacks: its reference speed
  // One step on "slow" at 1 GPU measured at 37.5 samples/s: 1.5 x the slow prior, r = log 1.5 as in the untyped
  // case (not log(37.5 / 100) against the reference), so every type's belief moves by the same factor.
  b->observe_step({1, 1, 100.0, 37.5, "slow"});
  const double f = std::exp(std::log(1.5) * 0.25 / 0.2525);
  CHECK(b->throughput_on("slow", 1, 1) == Approx(25.0 * f).epsilon(1e-12));
  CHECK(b->throughput_on("fast", 1, 1) == Approx(200.0 * f).epsilon(1e-12));
  CHECK(b->throughput(1, 1) == Approx(100.0 * f).epsilon(1e-12));
}
