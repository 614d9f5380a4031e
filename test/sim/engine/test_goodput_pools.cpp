// test/sim/engine/test_goodput_pools.cpp — goodput-model jobs on a cluster with GPU pools: a job runs on its pool's
// tables (hand-worked on test/fixtures/goodput/tiny-types), a move between pools keeps its progress and switches
// tables, its agent keeps one fit per type, oracle and agent beliefs answer per type, configs refuse goodput classes
// without tables for a pool's type, and workloads/examples/goodput-pools.json runs every strategy with the engine's
// invariants (every job completes, no pool over its GPUs).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/beliefs/agent_belief.h"
#include "sim/beliefs/belief_sources.h"
#include "sim/engine/engine.h"
#include "sim/engine/goodput_job.h"
#include "sim/experiments/config.h"
#include "sim/experiments/replicate.h"
#include "strategies/registry.h"
#include "test/input_error_of.h"
#include "test/sim/cli_util.h"
#include "test/sim/scripted_strategy.h"
#include "workloads/goodput_app.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;

namespace {

const std::string kTinyTypesDir = std::string(RINGSCHED_TEST_DIR) + "/fixtures/goodput/tiny-types";

// tiny on two types, reference slow; fixed batch (adaptive_batch false).
std::shared_ptr<const Catalog> tiny_types_catalog() {
  const std::string text = R"({"name": "tiny-types", "classes": [{"name": "tiny", "gpus": {"max": 4},
    "goodput": {"tables": ")" +
                           kTinyTypesDir +
                           R"(", "by_type": "files", "reference_type": "slow", "max_epochs": 3,
                "adaptive_batch": false}}]})";
  return std::make_shared<const Catalog>(parse_catalog(parse_json_text(text, "tiny-types.json"), "tiny-types.json"));
}

// Pools 0 = slow, 1 = fast, one node of one GPU each; a restart costs 10 s, the first start none.
EngineConfig slow_fast_pools(double interval_s) {
  EngineConfig ec;
  ec.cluster.pools = {GpuPool{"slow", 1, 1, nullptr}, GpuPool{"fast", 1, 1, nullptr}};
  ec.cluster.nodes = 2;
  ec.cluster.gpus_per_node = 1;
  ec.scheduler.interval_s = interval_s;
  ec.restart.cost_s = 10.0;
  ec.restart.on_first_start = false;
  ec.record_events = true;
  return ec;
}

// One tiny job of global batch 16 arriving at 0.
Workload one_tiny_job() {
  Workload wl;
  wl.catalog = tiny_types_catalog();
  JobTruth t;
  t.name = "tiny-0";
  t.batch_size = 16;
  t.work_samples = wl.catalog->classes[0].work_samples;
  wl.jobs.push_back(t);
  return wl;
}

RunResult run_scripted_pools(const test::ScriptedPoolStrategy::Script& script, double interval_s) {
  const Workload wl = one_tiny_job();
  test::ScriptedPoolStrategy strat(script);
  const auto beliefs = make_belief_source("none", "test");
  return simulate(wl, strat, *beliefs, slow_fast_pools(interval_s));
}

std::shared_ptr<const GoodputApp> tiny_type(const std::string& type) {
  return goodput_on(tiny_types_catalog()->classes[0], type);
}

}  // namespace

TEST_CASE("sim::Engine: a goodput job on a GPU pool runs on that type's tables (hand-worked)",
          "[sim][engine][goodput][pools]") {
  // Batch 16 on one GPU: two accumulated steps of 8; gains 1.6, 4/3, 1 in epochs 0..2 (test_goodput_engine.cpp).
  // slow "1,8": 1.0 s -> 2.0 s per optimiser step: 90 x 2 / 1.6 + 90 x 2 x 3 / 4 + 90 x 2 = 427.5 s.
  // fast "1,8": 0.5 s -> 1.0 s per optimiser step: half of it, 213.75 s.
  for (const int pool : {0, 1}) {
    const RunResult r = run_scripted_pools(
        [pool](const Snapshot& s) {
          return std::make_pair(std::vector<int>(s.jobs.size(), 1), std::vector<int>{pool});
        },
        0.0);
    REQUIRE(r.jobs.size() == 1);
    CHECK(r.jobs[0].finish == Approx(pool == 0 ? 427.5 : 213.75).epsilon(1e-12));
    CHECK(r.jobs[0].gpu_type == (pool == 0 ? "slow" : "fast"));
  }
}

TEST_CASE("sim::Engine: a goodput job that moves pool keeps its progress and runs on the new type's tables",
          "[sim][engine][goodput][pools]") {
  // Rounds every 50 s: slow from 50, fast from 100 (a migration: paused 100..110). Epoch 0 on slow: 1.6 / 2.0 =
  // 0.8 units/s, 40 of its 90 units by 100; on fast 1.6 units/s from 110: the other 50 in 31.25 s (epoch end
  // 141.25); then epochs 1 and 2 on fast: 67.5 + 90 s: done at 298.75.
  const RunResult r = run_scripted_pools(
      [](const Snapshot& s) {
        return std::make_pair(std::vector<int>(s.jobs.size(), 1), std::vector<int>{s.now < 100.0 ? 0 : 1});
      },
      50.0);
  REQUIRE(r.jobs.size() == 1);
  CHECK(r.jobs[0].first_start == 50.0);
  CHECK(r.jobs[0].finish == Approx(298.75).epsilon(1e-12));
  CHECK(r.jobs[0].restarts == 1);
  CHECK(r.jobs[0].gpu_type == "fast");
  REQUIRE(r.pool_gpu_seconds.size() == 2);
  CHECK(r.pool_gpu_seconds[0] == Approx(50.0).epsilon(1e-12));
  CHECK(r.pool_gpu_seconds[1] == Approx(198.75).epsilon(1e-12));
  REQUIRE(r.events.size() == 3);
  CHECK(r.events[1].kind == AllocKind::kMigrate);
  CHECK(r.events[1].pool == 1);
}

TEST_CASE("sim::GoodputJob: switching type keeps the epoch and keeps one agent fit per type",
          "[sim][engine][goodput][pools]") {
  GoodputJob job(tiny_type("slow"), 16, false);
  job.reallocate({1});
  job.observe();
  job.next_epoch();
  // Epoch 1 on slow: gain 4/3 per 2.0 s, x 8 samples-equivalent per unit.
  CHECK(job.rate() == Approx(8.0 * (4.0 / 3.0) / 2.0).epsilon(1e-12));
  REQUIRE(job.report().by_type.size() == 1);
  CHECK(job.report().by_type[0].gpu_type == "slow");
  CHECK(job.report().by_type[0].fitted);
  CHECK(job.report().by_type[0].max_profiled_replicas == 1);

  job.use_app(tiny_type("fast"));
  job.reallocate({1});
  CHECK(job.epoch() == 1);
  CHECK(job.epoch_end() == 180.0 * 8.0);
  CHECK(job.rate() == Approx(8.0 * (4.0 / 3.0) / 1.0).epsilon(1e-12));  // 1.0 s per optimiser step on fast
  CHECK_FALSE(job.report().fitted);                                     // nothing measured on fast yet
  CHECK(job.report().max_profiled_replicas == 0);
  REQUIRE(job.report().by_type.size() == 1);  // slow only
  job.observe();
  const GoodputReport rep = job.report();
  REQUIRE(rep.by_type.size() == 2);
  CHECK(rep.by_type[0].gpu_type == "fast");
  CHECK(rep.by_type[1].gpu_type == "slow");
  CHECK(rep.fitted);
  CHECK(rep.on("fast")->fitted);
  CHECK(rep.on("mid") == nullptr);
  // Back to slow: its fit again.
  job.use_app(tiny_type("slow"));
  CHECK(job.report().fitted);
  CHECK(job.report().max_profiled_replicas == 1);
  CHECK(job.report().perf.as_array() == rep.on("slow")->perf.as_array());

  // Tables that count progress otherwise (two epochs, not three) are refused.
  GoodputLimits two;
  two.max_epochs = 2;
  const auto other = GoodputApp::load("tiny", std::string(RINGSCHED_TEST_DIR) + "/fixtures/goodput/tiny", two);
  CHECK_THROWS_AS(job.use_app(other), std::logic_error);
}

TEST_CASE("sim::beliefs: oracle and agent beliefs of a goodput job answer per GPU type",
          "[sim][beliefs][goodput][pools]") {
  const auto cat = tiny_types_catalog();
  JobPublic pub;
  pub.name = "tiny-0";
  pub.cls = class_facts(cat->classes)[0];
  pub.cls.batch_size = 16;
  JobTruth truth;
  BeliefContext ctx{cat.get(), 1, {{"slow", 1}, {"fast", 1}}};
  SECTION("oracle: optimiser steps per second on the type's tables") {
    const auto b = make_belief_source("oracle", "test")->make(pub, ctx, &truth);
    // One GPU: 2 accumulated steps of 8 ("1,8"): 2.0 s on slow, 1.0 s on fast. Two GPUs on two nodes ("11,8",
    // no accumulation): 1.3 s on slow, 0.8 s on fast.
    CHECK(b->throughput_on("slow", 1, 1) == Approx(0.5).epsilon(1e-12));
    CHECK(b->throughput_on("fast", 1, 1) == Approx(1.0).epsilon(1e-12));
    CHECK(b->throughput_on("slow", 2, 2) == Approx(1.0 / 1.3).epsilon(1e-12));
    CHECK(b->throughput_on("fast", 2, 2) == Approx(1.0 / 0.8).epsilon(1e-12));
    CHECK(b->throughput(1, 1) == Approx(0.5).epsilon(1e-12));  // the reference type, slow
  }
  SECTION("agent: the prior on a type it has not run on, its own fit on a type it has") {
    auto b = make_agent_belief(std::shared_ptr<const JobClass>(cat, &cat->classes[0]), 0.0);
    // Unfitted: Pollux's initial assumption (linear) from the class's speed on the type at one GPU, initial batch 8:
    // 8 samples-equivalent per 1.0 s on slow, per 0.5 s on fast.
    CHECK(b->throughput_on("slow", 2, 1) == Approx(16.0).epsilon(1e-12));
    CHECK(b->throughput_on("fast", 2, 1) == Approx(32.0).epsilon(1e-12));
    GoodputJob job(tiny_type("slow"), 16, false);
    job.reallocate({1});
    job.observe();
    b->observe_goodput(job.report());
    CHECK(b->throughput_on("fast", 2, 1) == Approx(32.0).epsilon(1e-12));                 // still never ran there
    CHECK(b->throughput_on("slow", 2, 1) == Approx(b->throughput(2, 1)).epsilon(1e-12));  // its slow fit
    CHECK(b->throughput_on("slow", 2, 1) != Approx(16.0));
  }
}

namespace {

nlohmann::json goodput_pools_config(const std::string& pools, bool by_type) {
  const std::string goodput = R"({"tables": ")" + kTinyTypesDir +
                              (by_type ? R"(", "by_type": "files", "max_epochs": 3})" : R"(", "max_epochs": 3})");
  const std::string tiny_dir = std::string(RINGSCHED_TEST_DIR) + "/fixtures/goodput/tiny";
  const std::string untyped = R"({"tables": ")" + tiny_dir + R"(", "max_epochs": 3})";
  return nlohmann::json::parse(R"({"cluster": {"pools": )" + pools + R"(},
    "workload": {"catalog": {"name": "c", "classes": [{"name": "tiny", "gpus": {"max": 2}, "goodput": )" +
                               (by_type ? goodput : untyped) + R"(}]},
                 "jobs": 4, "arrival": {"process": "poisson"}},
    "levels": [{"name": "l", "load": 1}], "strategies": ["pollux"]})");
}

std::string goodput_pools_error(const nlohmann::json& doc) {
  return test::error_of([&] { (void)parse_experiment(doc, "cfg.json", ""); });
}

}  // namespace

TEST_CASE("sim::Experiment: goodput classes on GPU pools need tables for every pool's type",
          "[sim][pools][goodput][bad-input]") {
  const std::string two = R"([{"gpu_type": "slow", "nodes": 1, "gpus_per_node": 2},
                              {"gpu_type": "fast", "nodes": 1, "gpus_per_node": 2}])";
  const std::string mid = R"([{"gpu_type": "slow", "nodes": 1, "gpus_per_node": 2},
                              {"gpu_type": "mid", "nodes": 1, "gpus_per_node": 2}])";
  CHECK(goodput_pools_error(goodput_pools_config(two, true)).empty());
  CHECK_THAT(goodput_pools_error(goodput_pools_config(two, false)),
             Catch::Contains("class 'tiny'") && Catch::Contains("needs its tables per GPU type (goodput.by_type"));
  CHECK_THAT(goodput_pools_error(goodput_pools_config(mid, true)),
             Catch::Contains("class 'tiny'") &&
                 Catch::Contains("no goodput tables for GPU type 'mid' of cluster.pools (types: fast, slow)"));
}

TEST_CASE("sim::Experiment: goodput-pools.json runs every strategy with the engine's invariants",
          "[sim][pools][goodput][examples]") {
  std::ifstream in(std::string(RINGSCHED_SOURCE_DIR) + "/workloads/examples/goodput-pools.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["workload"]["jobs"] = 10;
  for (const double interval : {60.0, 0.0}) {
    doc["scheduler"]["interval_s"] = interval;
    const ExperimentConfig c = parse_experiment(doc, "goodput-pools.json", RINGSCHED_SOURCE_DIR "/workloads/examples");
    REQUIRE(c.cluster.pools.size() == 2);
    for (std::size_t si = 0; si < c.strategies.size(); ++si) {
      for (std::size_t li = 0; li < c.levels.size(); ++li) {
        DYNAMIC_SECTION(c.strategies[si].label << " " << c.levels[li].name << " interval " << interval) {
          const StrategySpec& spec = c.strategies[si];
          auto strat = find_strategy(spec.name, "test").make(JsonReader(spec.params, "test", "params"));
          auto wl = std::make_shared<const Workload>(make_workload(c, static_cast<int>(li), 1));
          const auto beliefs = make_beliefs(c, spec.beliefs, wl, 1);
          int finished = 0;
          long over = 0;
          const RunResult r =
              simulate(*wl, *strat, *beliefs, engine_config(c, 1, false), [&](const EngineCheckView& v) {
                REQUIRE(v.pool_gpus.size() == 2);
                for (std::size_t p = 0; p < 2; ++p)
                  over += v.pool_gpus_in_use[p] > v.pool_gpus[p] || v.pool_gpus_in_use[p] < 0 ? 1 : 0;
                for (const auto& j : v.active)
                  REQUIRE(j.work_done <= j.work);
                finished = v.finished;
              });
          CHECK(over == 0);
          CHECK(finished == 10);
          for (const auto& j : r.jobs) {
            CHECK(j.finish > j.first_start);
            CHECK((j.gpu_type == "t4" || j.gpu_type == "fast"));
          }
          REQUIRE(r.pool_gpu_seconds.size() == 2);
          CHECK(r.pool_gpu_seconds[0] + r.pool_gpu_seconds[1] > 0.0);
          if (spec.label == "pollux" && c.levels[li].name == "heavy") {
            CHECK(r.pool_gpu_seconds[0] > 0.0);  // pollux chooses types: both pools run jobs at heavy load
            CHECK(r.pool_gpu_seconds[1] > 0.0);
          }
        }
      }
    }
  }
}

TEST_CASE("sim::Engine: every strategy that chooses GPU types runs goodput jobs on pools with the invariants",
          "[sim][engine][goodput][pools][property]") {
  std::ifstream in(std::string(RINGSCHED_SOURCE_DIR) + "/workloads/examples/goodput-pools.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["workload"]["jobs"] = 8;
  const ExperimentConfig c = parse_experiment(doc, "goodput-pools.json", RINGSCHED_SOURCE_DIR "/workloads/examples");
  const auto wl = std::make_shared<const Workload>(make_workload(c, 1, 3));  // heavy
  int strategies = 0;
  for (const auto& info : strategy_infos()) {
    if (!info.gpu_types) continue;
    ++strategies;
    DYNAMIC_SECTION(info.name) {
      // The throughput-agnostic policies plan with one type's throughput (Gavel's v100): this cluster's first.
      nlohmann::json no_params = nlohmann::json::object();
      if (std::find(info.params.begin(), info.params.end(), "reference_type") != info.params.end()) {
        no_params["reference_type"] = doc["cluster"]["pools"][0]["gpu_type"];
      }
      auto strat = info.make(JsonReader(no_params, "test"));
      const auto beliefs = make_beliefs(c, info.default_beliefs, wl, 3);
      int finished = 0;
      long over = 0;
      const RunResult r = simulate(*wl, *strat, *beliefs, engine_config(c, 3, false), [&](const EngineCheckView& v) {
        for (std::size_t p = 0; p < v.pool_gpus.size(); ++p)
          over += v.pool_gpus_in_use[p] > v.pool_gpus[p] || v.pool_gpus_in_use[p] < 0 ? 1 : 0;
        finished = v.finished;
      });
      CHECK(over == 0);
      CHECK(finished == 8);
      for (const auto& j : r.jobs)
        CHECK(j.finish > j.first_start);
    }
  }
  CHECK(strategies >= 4);  // fifo, precompute, optimus, pollux and Gavel's policies
}

TEST_CASE("sim::cli: a per-type goodput table with a bad row exits 2 with one line naming file and line",
          "[sim][cli][goodput][pools][bad-input]") {
  test::TempDir tmp;
  std::filesystem::copy(kTinyTypesDir, tmp.path() / "tables");
  std::ofstream(tmp.path() / "tables" / "placements-fast.csv")
      << "placement,local_bsz,step_time,sync_time\n1,4,0.25,0.0\n1,8,0.5,0.9\n";
  nlohmann::json doc = goodput_pools_config(R"([{"gpu_type": "slow", "nodes": 1, "gpus_per_node": 2},
                                                {"gpu_type": "fast", "nodes": 1, "gpus_per_node": 2}])",
                                            true);
  doc["workload"]["catalog"]["classes"][0]["goodput"]["tables"] = (tmp.path() / "tables").string();
  const std::string cfg = (tmp.path() / "cfg.json").string();
  std::ofstream(cfg) << doc.dump();
  const test::CliResult r = test::run_cli("validate --config " + test::shell_quote(cfg));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("goodput.tables") && Catch::Contains("placements-fast.csv:3: sync_time 0.9 "
                                                                         "exceeds step_time 0.5"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("strategies::Pollux: a goodput job goes to the type it believes fastest and starts there on one GPU",
          "[strategies][pollux][goodput][pools]") {
  // Never run: the agent believes Pollux's linear assumption from the class's speed at one GPU, 8 samples-equivalent
  // per second on slow, 16 on fast; at each pool's fair share (2 GPUs for a lone job) that is 16 against 32: fast.
  // It has profiled nothing there, so Pollux's rule caps it at one GPU; after it ran on one, at two.
  Workload wl = one_tiny_job();
  EngineConfig ec = slow_fast_pools(60.0);
  ec.cluster.pools = {GpuPool{"slow", 1, 2, nullptr}, GpuPool{"fast", 1, 2, nullptr}};
  ec.cluster.gpus_per_node = 2;
  auto strat = find_strategy("pollux", "test").make(JsonReader(nlohmann::json::object(), "test"));
  const auto beliefs = make_belief_source("agent", "test");
  const RunResult r = simulate(wl, *strat, *beliefs, ec);
  REQUIRE(r.events.size() >= 3);
  CHECK(r.events[0].kind == AllocKind::kStart);
  CHECK(r.events[0].pool == 1);
  CHECK(r.events[0].to == 1);
  CHECK(r.events[1].kind == AllocKind::kResize);
  CHECK(r.events[1].pool == 1);
  CHECK(r.events[1].to == 2);
  CHECK(r.jobs[0].gpu_type == "fast");
  REQUIRE(r.pool_gpu_seconds.size() == 2);
  CHECK(r.pool_gpu_seconds[0] == 0.0);
}
