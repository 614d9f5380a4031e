// test/strategies/test_shockwave_run.cpp — epoch-scheduled jobs in the engine: a job alone runs each phase at its
// factor (finish by hand), the oracle belief reports the factor of the phase its progress is in, Shockwave's rho and
// `unfair_jobs` on a 2-job case by hand, and Gavel's policies on the shipped TACC example keep the engine's
// invariants (every job finishes, no job faster than alone, rigid on its scale factor).
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/engine/engine.h"
#include "sim/engine/fairness_metric.h"
#include "sim/engine/metrics.h"
#include "sim/experiments/config.h"
#include "sim/experiments/replicate.h"
#include "strategies/registry.h"
#include "workloads/shockwave.h"

using namespace ringsched;

namespace {

std::shared_ptr<const Catalog> sw_run_catalog() {
  static const auto cat = std::make_shared<const Catalog>(shockwave_catalog(default_shockwave_dir()));
  return cat;
}

// One LM (batch size 10) job on 1 GPU: 1000 steps at factor 1, then 500 at factor 2.
Workload one_scheduled_job() {
  Workload w;
  w.catalog = sw_run_catalog();
  JobTruth j;
  j.class_index = w.catalog->find("LM (batch size 10)");
  j.requested_gpus = 1;
  j.work_samples = 1500.0;
  j.name = "lm";
  auto s = std::make_shared<EpochSchedule>();
  s->phase_end = {1000.0, 1500.0};
  s->factor = {1.0, 2.0};
  s->batch = {10, 20};
  s->epochs = 2;
  s->isolated_s = 12.0;
  j.schedule = s;
  w.jobs.push_back(j);
  return w;
}

}  // namespace

TEST_CASE("strategies::ShockwaveJobs: a job alone runs each phase at its factor", "[shockwave]") {
  const Workload w = one_scheduled_job();
  EngineConfig ec;
  ec.cluster.pools = {GpuPool{"v100", 1, 1, nullptr}};
  ec.scheduler.interval_s = 120.0;
  ec.restart.cost_s = 0.0;
  const nlohmann::json params = nlohmann::json::parse(R"({"round_s": 120})");
  auto strat = find_strategy("max_min_fairness", "test").make(JsonReader(params, "test"));
  auto beliefs = make_belief_source("oracle", "test");
  const RunResult r = simulate(w, *strat, *beliefs, ec);
  REQUIRE(r.jobs.size() == 1);
  // 94.91094148 steps/s on one V100 (tacc_throughputs.json): 1000 / T + 500 / (2 T) = 13.170 s.
  const double t = 94.91094148;
  CHECK(r.jobs[0].finish - r.jobs[0].first_start == Approx(1000.0 / t + 500.0 / (2.0 * t)));
  CHECK(r.jobs[0].isolated_s == 12.0);
  CHECK(r.jobs[0].restarts == 0);
}

TEST_CASE("strategies::ShockwaveJobs: the oracle belief reports the factor of the current phase", "[shockwave]") {
  const Workload w = one_scheduled_job();
  auto source = make_belief_source("oracle", "test");
  JobPublic pub;
  pub.name = "lm";
  BeliefContext ctx{w.catalog.get(), 1};
  auto belief = source->make(pub, ctx, &w.jobs[0]);
  REQUIRE(belief);
  CHECK_FALSE(belief->fixed());
  CHECK(belief->observes());
  const double t = 94.91094148;
  CHECK(belief->throughput_on("v100", 1, 1) == Approx(t));
  belief->observe_progress(999.0);
  CHECK(belief->throughput_on("v100", 1, 1) == Approx(t));
  belief->observe_progress(1000.0);  // the boundary starts the next phase
  CHECK(belief->throughput_on("v100", 1, 1) == Approx(2.0 * t));
  CHECK(belief->total_work() == 1500.0);
}

TEST_CASE("strategies::ShockwaveJobs: rho and unfair_jobs on two jobs by hand", "[shockwave]") {
  RunResult run;
  JobResult a;
  a.id = 0;
  a.arrival = 0.0;
  a.finish = 100.0;
  a.isolated_s = 50.0;
  JobResult b;
  b.id = 1;
  b.arrival = 10.0;
  b.finish = 50.0;
  b.isolated_s = 40.0;
  run.jobs = {a, b};
  run.last_finish = 100.0;
  // 1 GPU: contention max(1, 2 / 1) = 2: rho_a = 100 / (50 x 2) = 1, rho_b = 40 / (40 x 2) = 0.5.
  CHECK(shockwave_rho(a, 2, 1) == 1.0);
  CHECK(shockwave_rho(b, 2, 1) == 0.5);
  // 4 GPUs: contention max(1, 0.5) = 1: rho_a = 2, rho_b = 1 (not above 1.1).
  CHECK(shockwave_rho(a, 2, 4) == 2.0);
  CHECK(shockwave_rho(b, 2, 4) == 1.0);
  CHECK(compute_metrics(run, 4).computed.at("unfair_jobs") == 1.0);
  CHECK(compute_metrics(run, 1).computed.at("unfair_jobs") == 0.0);
  JobResult plain;  // no isolated time: no rho
  CHECK(shockwave_rho(plain, 2, 4) == -1.0);
}

TEST_CASE("strategies::ShockwaveJobs: Gavel's policies on the TACC example keep the invariants", "[shockwave]") {
  const ExperimentConfig c =
      load_experiment(std::string(RINGSCHED_SOURCE_DIR) + "/workloads/examples/shockwave-tacc32.json");
  const Workload wl = make_workload(c, 0, 1);
  REQUIRE(wl.jobs.size() == 120);
  for (const auto& spec : c.strategies) {
    DYNAMIC_SECTION(spec.label) {
      auto strat = find_strategy(spec.name, "test").make(JsonReader(spec.params, "test"));
      auto beliefs = make_belief_source(spec.beliefs, "test");
      const RunResult r = simulate(wl, *strat, *beliefs, engine_config(c, 1, false));
      REQUIRE(r.jobs.size() == 120);
      for (const JobResult& j : r.jobs) {
        const JobTruth& t = wl.jobs[static_cast<std::size_t>(j.id)];
        REQUIRE(t.schedule);
        // Alone on its GPUs: each phase's work at the class speed x the phase's factor.
        const JobClass& cls = wl.catalog->classes[static_cast<std::size_t>(t.class_index)];
        const double speed = class_throughput_on(cls, "v100", t.requested_gpus, 1);
        double alone = 0.0;
        double start = 0.0;
        for (std::size_t p = 0; p < t.schedule->phase_end.size(); ++p) {
          alone += (t.schedule->phase_end[p] - start) / (speed * t.schedule->factor[p]);
          start = t.schedule->phase_end[p];
        }
        CHECK(j.finish - j.arrival >= alone * (1.0 - 1e-9));
        CHECK(j.max_gpus == t.requested_gpus);
        CHECK(j.isolated_s == t.schedule->isolated_s);
      }
    }
  }
}

TEST_CASE("strategies::ShockwaveJobs: a batch change asks Gavel's rounds for a new allocation", "[shockwave][gavel]") {
  // One V100, 360 s rounds, reset_s 0, min_total_duration_perf (allocations proportional to remaining time). Job A:
  // one round of work at factor 1, then 100 rounds' worth at factor 100 (one round); job B: 10 rounds at factor 1.
  // At the start A's belief sees factor 1 (36,360 s left against B's 3,600): A gets ~0.91 of the GPU and runs round 1.
  // Then its batch changes. Without a new allocation A keeps its 0.91 (priority 0.91 / 0.75 against B's 0.09 / 0.25),
  // runs round 2 and ends 2 rounds after its start. With one (Shockwave's _need_to_update_allocation), A has 360 s
  // left against B's 3,600: A ~0.09, B ~0.91, both shares reset: B runs round 2, and A waits rounds for its turn.
  Workload w;
  w.catalog = sw_run_catalog();
  const int lm = w.catalog->find("LM (batch size 10)");
  const double t = 94.91094148;
  for (int i = 0; i < 2; ++i) {
    JobTruth j;
    j.id = i;
    j.class_index = lm;
    j.requested_gpus = 1;
    j.name = i == 0 ? "a" : "b";
    auto s = std::make_shared<EpochSchedule>();
    if (i == 0) {
      j.work_samples = 360.0 * t + 36000.0 * t;
      s->phase_end = {360.0 * t, j.work_samples};
      s->factor = {1.0, 100.0};
      s->batch = {10, 80};
    } else {
      j.work_samples = 3600.0 * t;
      s->phase_end = {j.work_samples};
      s->factor = {1.0};
      s->batch = {10};
    }
    s->epochs = static_cast<int>(s->phase_end.size());
    s->isolated_s = 1.0;
    j.schedule = s;
    w.jobs.push_back(j);
  }
  EngineConfig ec;
  ec.cluster.pools = {GpuPool{"v100", 1, 1, nullptr}};
  ec.scheduler.interval_s = 360.0;
  ec.restart.cost_s = 0.0;
  const nlohmann::json params = nlohmann::json::parse(R"({"round_s": 360, "reset_s": 0})");
  auto strat = find_strategy("min_total_duration_perf", "test").make(JsonReader(params, "test"));
  auto beliefs = make_belief_source("oracle", "test");
  const RunResult r = simulate(w, *strat, *beliefs, ec);
  REQUIRE(r.jobs.size() == 2);
  const JobResult& a = r.jobs[0];
  const JobResult& b = r.jobs[1];
  CHECK(a.first_start < b.first_start);                   // A ran round 1
  CHECK(b.first_start == Approx(a.first_start + 360.0));  // B ran round 2, after A's batch change
  CHECK(a.finish - a.first_start > 720.0 + 1.0);          // A was not left to finish in round 2
}
