// test/sim/engine/test_restart_cost.cpp — restart-cost semantics on hand-worked two-job scenarios with scripted
// strategies: a resize or resume pauses the job for cost_s + cost_per_gpu_s x new GPUs while it holds the new GPUs, a
// first start does not pause, a preempted job holds nothing. Finish times are computed by hand in the comments.
#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <tuple>

#include "sim/engine/engine.h"
#include "test/sim/linear_catalog.h"
#include "test/sim/scripted_strategy.h"
#include "test/sim/two_jobs.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;

using ringsched::test::linear_catalog;

namespace {

// Job 0 arrives at 0 with 40,000 samples, job 1 at 50 with 10,000.
Workload two_jobs() {
  return test::two_jobs(linear_catalog());
}

// Equal share: total / active GPUs each.
std::vector<int> equal_share(const Snapshot& s) {
  return std::vector<int>(s.jobs.size(), s.total_gpus / static_cast<int>(s.jobs.size()));
}

// The newest job gets every GPU, the others are preempted.
std::vector<int> newest_first(const Snapshot& s) {
  std::vector<int> g(s.jobs.size(), 0);
  g.back() = s.total_gpus;
  return g;
}

RunResult run(std::function<std::vector<int>(const Snapshot&)> f, double cost, double per_gpu) {
  const Workload w = two_jobs();
  test::ScriptedStrategy strat(std::move(f));
  auto beliefs = make_belief_source("none", "test");
  EngineConfig ec;
  ec.cluster.nodes = 1;
  ec.cluster.gpus_per_node = 4;
  ec.restart.cost_s = cost;
  ec.restart.cost_per_gpu_s = per_gpu;
  return simulate(w, strat, *beliefs, ec);
}

}  // namespace

TEST_CASE("sim::Engine: a resize pauses the job for the restart cost while it holds the GPUs", "[sim][restart]") {
  // t = 0: job 0 starts on 4 GPUs (no pause), 400 samples/s; at 50 it has 20,000.
  // t = 50: job 1 arrives; 2 + 2. Job 0 resizes 4 -> 2: paused until 60, then 200/s. Job 1 starts (no pause) at
  //         200/s and finishes at 50 + 10,000 / 200 = 100.
  // t = 100: job 0 has 20,000 + 40 x 200 = 28,000; it resizes 2 -> 4: paused until 110, then 400/s for the
  //          remaining 12,000: finishes at 110 + 30 = 140.
  const RunResult r = run(equal_share, 10.0, 0.0);
  REQUIRE(r.jobs.size() == 2);
  CHECK(r.jobs[0].finish == Approx(140.0).epsilon(1e-12));
  CHECK(r.jobs[1].finish == Approx(100.0).epsilon(1e-12));
  CHECK(r.jobs[0].first_start == 0.0);
  CHECK(r.jobs[1].first_start == 50.0);
  CHECK(r.jobs[0].restarts == 2);
  CHECK(r.jobs[1].restarts == 0);
  CHECK(r.jobs[0].max_gpus == 4);
  CHECK(r.jobs[1].max_gpus == 2);
  // GPU-seconds include the pauses: job 0 4 x 50 + 2 x 50 + 4 x 40 = 460; job 1 2 x 50 = 100.
  CHECK(r.jobs[0].gpu_seconds == Approx(460.0).epsilon(1e-12));
  CHECK(r.jobs[1].gpu_seconds == Approx(100.0).epsilon(1e-12));
  CHECK(r.allocated_gpu_seconds == Approx(560.0).epsilon(1e-12));
  CHECK(r.last_finish == Approx(140.0).epsilon(1e-12));
  // The allocation log, in order.
  REQUIRE(r.events.size() == 6);
  const std::vector<std::tuple<double, int, int, int, AllocKind>> want = {
      {0.0, 0, 0, 4, AllocKind::kStart},    {50.0, 0, 4, 2, AllocKind::kResize},  {50.0, 1, 0, 2, AllocKind::kStart},
      {100.0, 1, 2, 0, AllocKind::kFinish}, {100.0, 0, 2, 4, AllocKind::kResize}, {140.0, 0, 4, 0, AllocKind::kFinish}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto& e = r.events[i];
    CHECK(e.time == Approx(std::get<0>(want[i])).epsilon(1e-12));
    CHECK(e.job == std::get<1>(want[i]));
    CHECK(e.from == std::get<2>(want[i]));
    CHECK(e.to == std::get<3>(want[i]));
    CHECK(e.kind == std::get<4>(want[i]));
  }
}

TEST_CASE("sim::Engine: the per-GPU restart cost uses the new allocation, zero cost does not pause", "[sim][restart]") {
  // cost = 10 + 1 x new GPUs. 4 -> 2 at 50 pauses 12 s (until 62): job 0 has 20,000 + 38 x 200 = 27,600 at 100.
  // 2 -> 4 at 100 pauses 14 s (until 114); 12,400 left at 400/s = 31 s: finishes at 145. Job 1 unchanged: 100.
  const RunResult r = run(equal_share, 10.0, 1.0);
  CHECK(r.jobs[0].finish == Approx(145.0).epsilon(1e-12));
  CHECK(r.jobs[1].finish == Approx(100.0).epsilon(1e-12));
  // No cost: job 0 runs at 200/s from 50 to 100 (30,000 done), then 10,000 at 400/s: finishes at 125.
  const RunResult z = run(equal_share, 0.0, 0.0);
  CHECK(z.jobs[0].finish == Approx(125.0).epsilon(1e-12));
  CHECK(z.jobs[0].restarts == 2);  // resizes still count as restarts
}

TEST_CASE("sim::Engine: preempt holds nothing, resume pays the restart cost", "[sim][restart]") {
  // t = 0: job 0 starts on 4 GPUs; at 50 it has 20,000 and is preempted (4 -> 0); job 1 starts on 4 (400/s) and
  // finishes at 50 + 25 = 75. Job 0 resumes 0 -> 4 at 75, paused until 85, then 20,000 at 400/s: finishes at 135.
  const RunResult r = run(newest_first, 10.0, 0.0);
  CHECK(r.jobs[0].finish == Approx(135.0).epsilon(1e-12));
  CHECK(r.jobs[1].finish == Approx(75.0).epsilon(1e-12));
  CHECK(r.jobs[0].restarts == 1);
  // Job 0: 4 x 50 before the preemption, 4 x 60 after the resume (pause included) = 440 GPU-seconds.
  CHECK(r.jobs[0].gpu_seconds == Approx(440.0).epsilon(1e-12));
  CHECK(r.jobs[1].gpu_seconds == Approx(100.0).epsilon(1e-12));
  REQUIRE(r.events.size() == 6);
  CHECK(r.events[1].kind == AllocKind::kPreempt);
  CHECK(r.events[1].to == 0);
  CHECK(r.events[4].kind == AllocKind::kResume);
  CHECK(r.events[4].time == Approx(75.0).epsilon(1e-12));
}

TEST_CASE("sim::Engine: invalid decisions are rejected with the strategy's name", "[sim][engine]") {
  using Catch::Matchers::Contains;
  auto too_many = [](const Snapshot& s) { return std::vector<int>(s.jobs.size(), s.total_gpus); };
  CHECK_THROWS_WITH(run(too_many, 10.0, 0.0), Contains("strategy 'scripted' allocated 8 GPUs of 4"));
  auto over_max = [](const Snapshot& s) { return std::vector<int>(s.jobs.size(), 5); };
  CHECK_THROWS_WITH(run(over_max, 10.0, 0.0), Contains("gave job a 5 GPUs (limits 1..4)"));
  auto wrong_size = [](const Snapshot&) { return std::vector<int>{}; };
  CHECK_THROWS_WITH(run(wrong_size, 10.0, 0.0), Contains("returned 0 allocations for 1 jobs"));
  // Job 0 waits from 0; at 50 both wait with nothing running, no wake-up and no event left.
  auto starve = [](const Snapshot& s) { return std::vector<int>(s.jobs.size(), 0); };
  CHECK_THROWS_WITH(run(starve, 10.0, 0.0), Contains("left 2 job(s) waiting"));
}
