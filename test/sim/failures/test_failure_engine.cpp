// test/sim/failures/test_failure_engine.cpp — failures on the running cluster (cluster.failures): the failure
// process's rates (exponential and Weibull), a hand-worked failure with checkpoints, lost work and GPU time, the
// simulated MTTF of a job on N nodes against 1 / (N lambda), the Young/Daly interval against the analytic optimum,
// invariants (GPUs never over-used, work + lost work never drops), determinism and failures-off results.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/cluster/failures/failure_process.h"
#include "sim/engine/engine.h"
#include "strategies/registry.h"
#include "test/sim/linear_catalog.h"
#include "test/sim/scripted_strategy.h"
#include "workloads/io/json_reader.h"
#include "workloads/workload.h"

using namespace ringsched;

namespace {

// One job of `work` samples of the linear class (100 w samples/s on w GPUs) arriving at 0.
Workload faileng_one_job(double work) {
  Workload w;
  w.catalog = test::linear_catalog();
  JobTruth j;
  j.id = 0;
  j.name = "long";
  j.work_samples = work;
  w.jobs = {j};
  return w;
}

// `nodes` nodes of one GPU each, packed placement, the given failures, restart cost `restart_s`.
EngineConfig faileng_config(int nodes, const fail::FailureOptions& f, double restart_s, std::uint64_t seed = 1) {
  EngineConfig ec;
  ec.cluster.nodes = nodes;
  ec.cluster.gpus_per_node = 1;
  ec.cluster.placement = "packed";
  ec.cluster.failures = f;
  ec.restart.cost_s = restart_s;
  ec.seed = seed;
  ec.record_events = false;
  return ec;
}

// Every job gets `gpus` GPUs while that many are usable, else waits.
std::vector<int> faileng_rigid(const Snapshot& s, int gpus) {
  return std::vector<int>(s.jobs.size(), s.total_gpus >= gpus * static_cast<int>(s.jobs.size()) ? gpus : 0);
}

RunResult faileng_run(const Workload& w, const EngineConfig& ec, int gpus, const EngineChecker& checker = nullptr) {
  test::ScriptedStrategy strat([gpus](const Snapshot& s) { return faileng_rigid(s, gpus); });
  auto beliefs = make_belief_source("none", "test");
  return simulate(w, strat, *beliefs, ec, checker);
}

// Failures a process of `nodes` nodes yields by `horizon` (down transitions).
long faileng_count(const fail::FailureOptions& o, int nodes, double horizon) {
  fail::FailureProcess p(o, nodes, nullptr, 7);
  long downs = 0;
  while (p.next_time() <= horizon)
    downs += static_cast<long>(p.step(p.next_time()).down.size());
  return downs;
}

}  // namespace

TEST_CASE("failures::FailureProcess: each node fails once per MTBF + repair (exponential and Weibull)", "[failures]") {
  // 100 nodes, MTBF 10 h, repair 0.1 h, over 10,000 h: a renewal process fails 10,000 / 10.1 = 990.1 times per node.
  fail::FailureOptions o;
  o.node_mtbf_s = 10 * 3600.0;
  o.repair_s = 0.1 * 3600.0;
  const double expected = 100 * 10000.0 / 10.1;
  CHECK(static_cast<double>(faileng_count(o, 100, 10000 * 3600.0)) == Approx(expected).epsilon(0.02));
  o.weibull = true;
  o.shape = 0.7;  // the mean stays 10 h (scale 10 / Gamma(1 + 1/0.7))
  CHECK(static_cast<double>(faileng_count(o, 100, 10000 * 3600.0)) == Approx(expected).epsilon(0.02));
}

TEST_CASE("failures::FailureProcess: a switch takes every node below it down and back together", "[failures]") {
  const Topology t = Topology::fat_tree(4, 1, 2, 1, LinkClass{100.0, 0.0}, LinkClass{10.0, 0.0}, LinkClass{1.0, 0.0});
  fail::FailureOptions o;
  o.switch_mtbf_s = 1000.0;
  o.repair_s = 50.0;
  fail::FailureProcess p(o, 4, &t, 3);
  const fail::HealthChange first = p.step(p.next_time());
  REQUIRE(first.down.size() == 2);  // one leaf of two nodes
  CHECK(t.group_of(0, first.down[0]) == t.group_of(0, first.down[1]));
  const double back = p.next_time();
  fail::HealthChange later = p.step(back);
  while (later.up.empty())
    later = p.step(p.next_time());
  CHECK(later.up == first.down);
}

TEST_CASE("failures::Engine: a failure takes the job back to its last checkpoint (hand-worked)", "[failures]") {
  // 2 nodes of 1 GPU; the job takes both: 200 samples/s, 100,000 samples. Checkpoints every 100 s at no cost.
  // The trace fails node 0 at t = 250 for 100 s: work 50,000 then; the last checkpoint (t = 200) holds 40,000.
  // The job waits until 350 (one node left, it wants 2), restarts (10 s) and runs 60,000 / 200 = 300 s: finish 660.
  fail::FailureOptions f;
  f.trace = {{250.0, 0, 100.0}};
  f.checkpoint.enabled = true;
  f.checkpoint.interval_s = 100.0;
  f.checkpoint.cost_s = 0.0;
  const RunResult r = faileng_run(faileng_one_job(100000.0), faileng_config(2, f, 10.0), 2);
  const JobResult& j = r.jobs[0];
  CHECK(j.finish == Approx(660.0));
  CHECK(j.restarts == 1);
  CHECK(j.failure.failures == 1);
  CHECK(j.failure.lost_work == Approx(10000.0));
  CHECK(j.failure.run_s == Approx(550.0));            // 250 + 300
  CHECK(j.failure.productive_s == Approx(500.0));     // 200 kept + 300
  CHECK(j.failure.recompute_gpu_s == Approx(100.0));  // 50 s x 2 GPUs
  CHECK(j.failure.restart_gpu_s == Approx(20.0));     // 10 s x 2 GPUs
  CHECK(j.failure.wait_gpu_s == Approx(200.0));       // 100 s x 2 GPUs
  CHECK(j.failure.checkpoint_gpu_s == Approx(0.0));
  REQUIRE(r.failure_sizes.size() == 1);
  CHECK(r.failure_sizes[0].gpus == 2);
  CHECK(r.failure_sizes[0].failures == 1);
  CHECK(r.failure_sizes[0].exposure_s == Approx(250.0 + 310.0));  // held 0..250 and 350..660
}

TEST_CASE("failures::Engine: checkpoint cost slows progress by interval / (interval + cost)", "[failures]") {
  // No failure before the end (trace at 10^9 s); checkpoints every 90 s costing 10 s: 200 x 0.9 = 180 samples/s,
  // 90,000 samples take 500 s; 50 s of 500 are checkpoints: 100 GPU-s on 2 GPUs.
  fail::FailureOptions f;
  f.trace = {{1e9, 0, 1.0}};
  f.checkpoint.enabled = true;
  f.checkpoint.interval_s = 90.0;
  f.checkpoint.cost_s = 10.0;
  const RunResult r = faileng_run(faileng_one_job(90000.0), faileng_config(2, f, 10.0), 2);
  CHECK(r.jobs[0].finish == Approx(500.0));
  CHECK(r.jobs[0].failure.checkpoint_gpu_s == Approx(100.0));
  CHECK(r.jobs[0].failure.failures == 0);
}

TEST_CASE("failures::Engine: a job on N nodes fails at rate N lambda (MTTF within 2% of 1 / (N lambda))",
          "[failures]") {
  // 8 nodes, the job holds 4: lambda = 1/h per node, so its MTTF is 0.25 h. Repairs take 36 s and the job restarts at
  // once on the spare nodes; checkpoints every 60 s keep it progressing. 5,000 h of running: about 20,000 failures.
  fail::FailureOptions f;
  f.node_mtbf_s = 3600.0;
  f.repair_s = 36.0;
  f.checkpoint.enabled = true;
  f.checkpoint.interval_s = 60.0;
  const RunResult r = faileng_run(faileng_one_job(400.0 * 5000 * 3600 * 0.9), faileng_config(8, f, 0.0), 4);
  double exposure = 0.0;
  int failures = 0;
  for (const FailureSize& s : r.failure_sizes) {
    CHECK(s.gpus == 4);
    exposure += s.exposure_s;
    failures += s.failures;
  }
  REQUIRE(failures > 15000);
  CHECK(exposure / failures == Approx(3600.0 / 4).epsilon(0.02));
}

TEST_CASE("failures::Engine: Young/Daly's interval loses within 5% of the optimum and less than half or twice it",
          "[failures]") {
  // A job on 4 nodes of MTBF 40 h: M = 10 h = 36,000 s; checkpoint cost C = 60 s. Young/Daly: tau = sqrt(2 C M)
  // = 2,078.5 s; the waste (checkpoint time + recomputed time) / running time is about C / tau + tau / (2 M)
  // = sqrt(2 C / M) = 0.0577 at the optimum (0.069 at tau / 2, 0.071 at 2 tau). About 3,000 failures each.
  const double m = 36000.0;
  const double c = 60.0;
  const auto waste = [&](bool young_daly, double interval) {
    fail::FailureOptions f;
    f.node_mtbf_s = 4 * m;
    f.repair_s = 36.0;
    f.checkpoint = {true, young_daly, young_daly ? 0.0 : interval, c};
    const RunResult r = faileng_run(faileng_one_job(400.0 * 3000 * m * 0.94), faileng_config(8, f, 0.0), 4);
    const JobFailureStats& s = r.jobs[0].failure;
    CHECK(s.failures > 2500);
    return (s.recompute_gpu_s + s.checkpoint_gpu_s) / (4 * s.run_s);
  };
  const double tau = std::sqrt(2 * c * m);
  const double optimum = waste(true, 0.0);
  CHECK(optimum == Approx(std::sqrt(2 * c / m)).epsilon(0.05));
  CHECK(waste(false, tau) == Approx(optimum).epsilon(1e-3));  // the same interval and failure draws
  CHECK(optimum < waste(false, tau / 2));
  CHECK(optimum < waste(false, tau * 2));
}

TEST_CASE("failures::Engine: GPUs are never over-used and work plus lost work never drops", "[failures][property]") {
  // Four jobs of 2 GPUs on 6 nodes failing often (MTBF 0.5 h, repair 0.2 h) with Young/Daly checkpoints.
  Workload w = faileng_one_job(400000.0);
  for (int i = 1; i < 4; ++i) {
    JobTruth j = w.jobs[0];
    j.id = i;
    j.arrival = 100.0 * i;
    w.jobs.push_back(j);
  }
  fail::FailureOptions f;
  f.node_mtbf_s = 1800.0;
  f.repair_s = 720.0;
  f.checkpoint = {true, true, 0.0, 20.0};
  std::vector<double> seen(4, 0.0);
  double last_now = 0.0;
  const auto checker = [&](const EngineCheckView& v) {
    REQUIRE(v.now >= last_now);
    last_now = v.now;
    REQUIRE(v.gpus_in_use <= v.total_gpus);
    for (const auto& j : v.active) {
      REQUIRE(j.work_done <= j.work);
      REQUIRE(j.work_done + j.work_lost >= seen[static_cast<std::size_t>(j.id)] - 1e-6);
      seen[static_cast<std::size_t>(j.id)] = j.work_done + j.work_lost;
    }
  };
  test::ScriptedStrategy strat([](const Snapshot& s) {
    std::vector<int> g(s.jobs.size(), 0);
    int free = s.total_gpus;
    for (auto& x : g) {
      x = free >= 2 ? 2 : 0;
      free -= x;
    }
    return g;
  });
  auto beliefs = make_belief_source("none", "test");
  const RunResult r = simulate(w, strat, *beliefs, faileng_config(6, f, 10.0), checker);
  int failures = 0;
  for (const JobResult& j : r.jobs) {
    CHECK(j.finish > 0.0);
    failures += j.failure.failures;
  }
  CHECK(failures > 0);
}

TEST_CASE("failures::Engine: the same seed gives the same run, another seed another", "[failures]") {
  fail::FailureOptions f;
  f.node_mtbf_s = 3600.0;
  f.checkpoint = {true, false, 300.0, 5.0};
  const Workload w = faileng_one_job(400.0 * 20 * 3600);
  const RunResult a = faileng_run(w, faileng_config(8, f, 10.0, 5), 4);
  const RunResult b = faileng_run(w, faileng_config(8, f, 10.0, 5), 4);
  const RunResult c = faileng_run(w, faileng_config(8, f, 10.0, 6), 4);
  CHECK(a.jobs[0].finish == b.jobs[0].finish);
  CHECK(a.jobs[0].failure.failures == b.jobs[0].failure.failures);
  CHECK(a.jobs[0].failure.lost_work == b.jobs[0].failure.lost_work);
  CHECK(a.jobs[0].finish != c.jobs[0].finish);
}

TEST_CASE("failures::Engine: failures that never come change no job's result", "[failures]") {
  // A trace whose only failure is after the job ends and no checkpoints: the run is the run without failures.
  fail::FailureOptions f;
  f.trace = {{1e9, 0, 1.0}};
  const Workload w = faileng_one_job(123456.0);
  EngineConfig off = faileng_config(4, f, 10.0);
  off.cluster.failures.reset();
  const RunResult with = faileng_run(w, faileng_config(4, f, 10.0), 2);
  const RunResult without = faileng_run(w, off, 2);
  CHECK(with.jobs[0].finish == without.jobs[0].finish);
  CHECK(with.jobs[0].gpu_seconds == without.jobs[0].gpu_seconds);
  CHECK(with.allocated_gpu_seconds == without.allocated_gpu_seconds);
  CHECK(with.failures);
  CHECK_FALSE(without.failures);
}

namespace {

// Samples a linear-class job (100 w samples/s, checkpoint factor `factor`) processed over its allocation log: a
// resize or resume pauses for `restart_s`, a start does not, a preempt (a failure's eviction too) stops it.
double faileng_integrated(const std::vector<AllocationEvent>& log, int job, double restart_s, double factor) {
  double work = 0.0;
  int w = 0;
  double ready = 0.0;
  for (const AllocationEvent& e : log) {
    if (e.job != job) continue;
    if (w > 0 && e.time > ready) work += 100.0 * w * factor * (e.time - ready);
    w = e.to;
    ready = e.time;
    if (e.kind == AllocKind::kResize || e.kind == AllocKind::kResume) ready = e.time + restart_s;
  }
  return work;
}

}  // namespace

TEST_CASE("failures::Engine: every strategy keeps the invariants on a failing cluster and conserves work",
          "[failures][property]") {
  // 4 nodes x 4 GPUs failing every 2 h (repairs 0.2 h), checkpoints every 300 s costing 30 s: progress runs at
  // 300 / 330 of the speed, and the samples processed over each job's log equal its work plus the work it lost.
  fail::FailureOptions f;
  f.node_mtbf_s = 7200.0;
  f.repair_s = 720.0;
  f.checkpoint = {true, false, 300.0, 30.0};
  const double factor = 300.0 / 330.0;
  for (const auto& info : strategy_infos()) {
    if (info.needs_gpu_types || info.places_nodes) continue;
    DYNAMIC_SECTION(info.name) {
      EngineConfig ec = faileng_config(4, f, 10.0, 3);
      ec.cluster.gpus_per_node = 4;
      ec.record_events = true;
      PoissonSpec spec;
      spec.rate_per_s = 1.0 / 900.0;
      spec.jobs = 12;
      Workload w = generate_poisson_workload(test::linear_catalog(), spec, 3);
      for (JobTruth& j : w.jobs)
        j.work_samples = 400.0 * 3600.0;  // an hour on 4 GPUs
      const nlohmann::json no_params = nlohmann::json::object();
      auto strat = info.make(JsonReader(no_params, "test"));
      auto beliefs = make_belief_source(info.default_beliefs, "test");
      std::vector<double> seen(w.jobs.size(), 0.0);
      const auto checker = [&](const EngineCheckView& v) {
        REQUIRE(v.gpus_in_use <= v.total_gpus);
        for (const auto& j : v.active) {
          REQUIRE(j.work_done <= j.work);
          REQUIRE(j.work_done + j.work_lost >= seen[static_cast<std::size_t>(j.id)] * (1 - 1e-12));
          seen[static_cast<std::size_t>(j.id)] = j.work_done + j.work_lost;
        }
      };
      const RunResult r = simulate(w, *strat, *beliefs, ec, checker);
      int failures = 0;
      for (const JobResult& j : r.jobs) {
        CHECK(j.finish > j.first_start);
        failures += j.failure.failures;
        CHECK(faileng_integrated(r.events, j.id, 10.0, factor) == Approx(j.work + j.failure.lost_work).epsilon(1e-9));
      }
      CHECK(failures > 0);
      const auto fails = std::count_if(r.events.begin(), r.events.end(),
                                       [](const AllocationEvent& e) { return e.kind == AllocKind::kFail; });
      CHECK(fails == failures);  // each failure is logged as `fail`, to 0 GPUs
    }
  }
}
