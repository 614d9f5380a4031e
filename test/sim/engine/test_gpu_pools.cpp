// test/sim/engine/test_gpu_pools.cpp — a typed cluster (cluster.pools): each job runs at its class's speed on its
// pool's GPU type, a move between pools is a restart logged as a migration, no pool holds more GPUs than it has,
// and the engine refuses decisions that do not say where jobs run. Hand-worked timelines.
#include <catch2/catch.hpp>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/engine.h"
#include "test/sim/scripted_strategy.h"
#include "test/sim/two_jobs.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;

namespace {

// Fixed global batch 100, perfect scaling: reference 100 w samples/s, "fast" 200 w, "slow" 50 w; max 2 GPUs.
std::shared_ptr<const Catalog> typed_catalog() {
  const std::string text = R"({"name": "typed", "classes": [
    {"name": "lin", "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1,
     "work": {"samples": 1000}, "gpus": {"max": 2},
     "speed": {"kind": "eq5", "t0": 0.01, "t1": 0, "t2": 0, "t3": 0},
     "speed_by_type": {"fast": {"kind": "eq5", "t0": 0.005, "t1": 0, "t2": 0, "t3": 0},
                       "slow": {"kind": "eq5", "t0": 0.02, "t1": 0, "t2": 0, "t3": 0}}}
  ]})";
  return std::make_shared<const Catalog>(parse_catalog(parse_json_text(text, "typed.json"), "typed.json"));
}

EngineConfig two_pools() {
  EngineConfig ec;
  ec.cluster.pools = {GpuPool{"fast", 1, 2, nullptr}, GpuPool{"slow", 1, 2, nullptr}};
  ec.cluster.nodes = 2;
  ec.cluster.gpus_per_node = 2;
  ec.restart.cost_s = 10.0;
  return ec;
}

// Alone: the fast pool. Two jobs: the newest on the fast pool, the other on the slow one.
std::pair<std::vector<int>, std::vector<int>> newest_fast(const Snapshot& s) {
  std::vector<int> gpus(s.jobs.size(), 2);
  std::vector<int> pools(s.jobs.size(), 1);
  pools.back() = 0;
  return {gpus, pools};
}

}  // namespace

TEST_CASE("sim::Engine: on a typed cluster jobs run at their type's speed and a pool move is a restart",
          "[sim][pools]") {
  const Workload w = test::two_jobs(typed_catalog());  // a: 40,000 samples at 0; b: 10,000 at 50
  test::ScriptedPoolStrategy strat(newest_fast);
  auto beliefs = make_belief_source("none", "test");
  std::vector<std::string> problems;
  const RunResult r = simulate(w, strat, *beliefs, two_pools(), [&](const EngineCheckView& v) {
    REQUIRE(v.pool_gpus.size() == 2);
    for (std::size_t p = 0; p < 2; ++p)
      if (v.pool_gpus_in_use[p] > v.pool_gpus[p] || v.pool_gpus_in_use[p] < 0) problems.push_back("pool over");
  });
  CHECK(problems.empty());
  // a: 0..50 on fast (400/s): 20,000. At 50 b takes the fast pool (first start: no pause, 400/s, done at 75) and a
  // moves to slow: paused 50..60, then 100/s: 21,500 by 75. At 75 a moves back to fast: paused 75..85, then 400/s
  // for the remaining 18,500: 46.25 s, done at 131.25.
  REQUIRE(r.jobs.size() == 2);
  CHECK(r.jobs[1].finish == Approx(75.0).epsilon(1e-12));
  CHECK(r.jobs[0].finish == Approx(131.25).epsilon(1e-12));
  CHECK(r.jobs[0].restarts == 2);
  CHECK(r.jobs[0].gpu_type == "fast");
  CHECK(r.jobs[1].gpu_type == "fast");
  REQUIRE(r.pool_gpu_seconds.size() == 2);
  CHECK(r.pool_gpu_seconds[0] == Approx(100.0 + 50.0 + 112.5).epsilon(1e-12));
  CHECK(r.pool_gpu_seconds[1] == Approx(50.0).epsilon(1e-12));
  // start a (fast), start b (fast), a migrates to slow, b finishes, a migrates to fast, a finishes.
  REQUIRE(r.events.size() == 6);
  CHECK(r.events[0].kind == AllocKind::kStart);
  CHECK(r.events[0].pool == 0);
  const auto& to_slow = r.events[1].job == 0 ? r.events[1] : r.events[2];
  CHECK(to_slow.kind == AllocKind::kMigrate);
  CHECK(to_slow.pool == 1);
  CHECK(to_slow.from == 2);
  CHECK(to_slow.to == 2);
  CHECK(r.events[4].kind == AllocKind::kMigrate);
  CHECK(r.events[4].pool == 0);
  CHECK(r.events[5].kind == AllocKind::kFinish);
}

TEST_CASE("sim::Engine: a typed cluster refuses an unknown pool or a pool overfilled", "[sim][pools]") {
  const Workload w = test::two_jobs(typed_catalog());
  auto beliefs = make_belief_source("none", "test");
  auto error_with = [&](test::ScriptedPoolStrategy::Script f) {
    test::ScriptedPoolStrategy strat(std::move(f));
    try {
      (void)simulate(w, strat, *beliefs, two_pools());
    } catch (const std::logic_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  using Catch::Contains;
  CHECK_THAT(error_with([](const Snapshot& s) {
               return std::make_pair(std::vector<int>(s.jobs.size(), 1), std::vector<int>(s.jobs.size(), 2));
             }),
             Contains("pool 2 of 2"));
  CHECK_THAT(error_with([](const Snapshot& s) {
               return std::make_pair(std::vector<int>(s.jobs.size(), 2), std::vector<int>(s.jobs.size(), 0));
             }),
             Contains("allocated 4 fast GPUs of 2"));
}

TEST_CASE("sim::Engine: the snapshot lists the pools and where each job holds GPUs", "[sim][pools]") {
  const Workload w = test::two_jobs(typed_catalog());
  auto beliefs = make_belief_source("oracle", "test");
  std::vector<std::string> seen;
  test::ScriptedPoolStrategy strat([&](const Snapshot& s) {
    REQUIRE(s.pools.size() == 2);
    CHECK(s.pools[0].gpu_type == "fast");
    CHECK(s.pools[1].gpus == 2);
    for (const JobView& j : s.jobs) {
      seen.push_back(j.pub->name + "@" + std::to_string(j.pool) + ":" + std::to_string(j.gpus));
      // oracle beliefs answer per type from the class's speed_by_type
      CHECK(j.belief->throughput_on("fast", 2, 1) == Approx(400.0));
      CHECK(j.belief->throughput_on("slow", 2, 1) == Approx(100.0));
    }
    return newest_fast(s);
  });
  (void)simulate(w, strat, *beliefs, two_pools());
  CHECK(seen == std::vector<std::string>{"a@0:0", "a@0:2", "b@0:0", "a@1:2"});
}

TEST_CASE("sim::Engine: round-based scheduling stops a strategy that leaves every job waiting forever",
          "[sim][pools]") {
  const Workload w = test::two_jobs(typed_catalog());
  test::ScriptedPoolStrategy strat([](const Snapshot& s) {
    return std::make_pair(std::vector<int>(s.jobs.size(), 0), std::vector<int>(s.jobs.size(), 0));
  });
  auto beliefs = make_belief_source("none", "test");
  EngineConfig ec = two_pools();
  ec.scheduler.interval_s = 60.0;
  CHECK_THROWS_WITH(simulate(w, strat, *beliefs, ec),
                    Catch::Contains("left 2 job(s) waiting for 10000 rounds with nothing running"));
}

TEST_CASE("sim::Engine: with a placement policy each pool places its jobs on its own nodes",
          "[sim][pools][placement]") {
  const Workload w = test::two_jobs(typed_catalog());  // a: 40,000 samples at 0; b: 10,000 at 50
  EngineConfig ec;
  ec.cluster.pools = {GpuPool{"fast", 1, 2, nullptr},
                      GpuPool{"slow", 2, 1, nullptr}};  // nodes 0 (fast), 1 and 2 (slow)
  ec.cluster.nodes = 3;
  ec.cluster.gpus_per_node = 2;
  ec.cluster.placement = "packed";
  std::vector<std::vector<int>> seen;
  test::ScriptedPoolStrategy strat([&](const Snapshot& s) {
    REQUIRE(s.cluster != nullptr);
    CHECK(s.cluster->nodes() == 3);
    for (const JobView& j : s.jobs)
      seen.push_back(s.cluster->node_gpus(j.pub->id));
    // a on the slow pool (2 GPUs: both of its nodes), b on the fast one.
    std::vector<int> gpus(s.jobs.size(), 2);
    std::vector<int> pools(s.jobs.size(), 1);
    if (s.jobs.size() == 2) pools[1] = 0;
    return std::make_pair(gpus, pools);
  });
  auto beliefs = make_belief_source("none", "test");
  int over = 0;
  const RunResult r = simulate(w, strat, *beliefs, ec, [&](const EngineCheckView& v) {
    for (std::size_t p = 0; p < v.pool_gpus.size(); ++p)
      over += v.pool_gpus_in_use[p] > v.pool_gpus[p] ? 1 : 0;
  });
  CHECK(over == 0);
  // a: slow at 50 x 2 = 100 samples/s from 0: done at 400. b: fast at 200 x 2 = 400/s from 50: done at 75.
  REQUIRE(r.jobs.size() == 2);
  CHECK(r.jobs[0].finish == Approx(400.0));
  CHECK(r.jobs[1].finish == Approx(75.0));
  CHECK(r.jobs[0].gpu_type == "slow");
  CHECK(r.jobs[1].gpu_type == "fast");
  CHECK(r.placed);
  // Snapshots: a unplaced at 0; at 50 a on nodes 1 and 2, b unplaced; at 75 (b done) a still there.
  REQUIRE(seen.size() >= 3);
  CHECK(seen[0] == std::vector<int>{0, 0, 0});
  CHECK(seen[1] == std::vector<int>{0, 1, 1});
  CHECK(seen[2] == std::vector<int>{0, 0, 0});
}
