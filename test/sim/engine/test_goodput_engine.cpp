// test/sim/engine/test_goodput_engine.cpp — the engine with goodput-model jobs: one job alone completes when worked
// by hand (test/fixtures/goodput/tiny), round-based scheduling and the first-start restart shift it as documented,
// and the engine's invariants hold for every registered strategy on goodput jobs placed on nodes (most_free), under
// event-driven and round-based scheduling.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "sim/beliefs/belief_sources.h"
#include "sim/engine/engine.h"
#include "strategies/registry.h"
#include "test/sim/scripted_strategy.h"
#include "workloads/goodput_app.h"
#include "workloads/io/json_reader.h"
#include "workloads/pollux.h"
#include "workloads/workload.h"

using namespace ringsched;

namespace {

std::shared_ptr<const Catalog> tiny_catalog() {
  GoodputLimits limits;
  limits.max_epochs = 3;
  const auto app = GoodputApp::load("tiny", std::string(RINGSCHED_TEST_DIR) + "/fixtures/goodput/tiny", limits);
  auto cat = std::make_shared<Catalog>();
  cat->name = "tiny";
  cat->classes.push_back(goodput_job_class("tiny", app, 0.0, 4, false));
  return cat;
}

// One tiny job of global batch 16 arriving at 0 on `gpus` GPUs (all it gets), on nodes x 1 GPU.
double alone_jct(int nodes, bool first_start_restart, double interval_s) {
  Workload wl;
  wl.catalog = tiny_catalog();
  JobTruth t;
  t.id = 0;
  t.name = "tiny-0";
  t.batch_size = 16;
  t.work_samples = wl.catalog->classes[0].work_samples;
  wl.jobs.push_back(t);
  EngineConfig ec;
  ec.cluster.nodes = nodes;
  ec.cluster.gpus_per_node = 1;
  ec.restart.cost_s = 30.0;
  ec.restart.on_first_start = first_start_restart;
  ec.scheduler.interval_s = interval_s;
  test::ScriptedStrategy all([](const Snapshot& s) { return std::vector<int>(s.jobs.size(), s.total_gpus); });
  const auto beliefs = make_belief_source("none", "test");
  const RunResult r = simulate(wl, all, *beliefs, ec);
  REQUIRE(r.jobs.size() == 1);
  return r.jobs[0].finish - r.jobs[0].arrival;
}

}  // namespace

TEST_CASE("sim::Engine: one goodput job alone completes when worked by hand", "[sim][engine][goodput]") {
  // The tiny application: 3 epochs of 90 progress units (the smaller run's progress per epoch); batch 16 runs on its
  // validation-16 statistics, scale 16 / 8 = 2: gain = (var + sqr) / (var / 2 + sqr) = 4 / 2.5 = 1.6 in epoch 0,
  // 2 / 1.5 in epoch 1, 2 / 2 = 1 in epoch 2.
  //
  // One GPU: local batch 16 > 8 per GPU -> one accumulation step of 8; row "1,8": step 1.0, sync 0 -> 2.0 s per
  // optimiser step. Goodput gain / 2.0 units/s: 90 / 0.8 + 90 / (2 / 3) + 90 / 0.5 = 112.5 + 135 + 180 = 427.5 s,
  // plus the 30 s restart of the first start.
  CHECK(alone_jct(1, true, 0.0) == Approx(457.5).epsilon(1e-12));
  CHECK(alone_jct(1, false, 0.0) == Approx(427.5).epsilon(1e-12));
  // Two GPUs on two nodes (placement "11"): 8 per GPU, no accumulation, 1.3 s per step:
  // 90 x 1.3 / 1.6 + 90 x 1.3 x 1.5 / 2 + 90 x 1.3 / 1 = 73.125 + 87.75 + 117 = 277.875 s, plus 30 s.
  CHECK(alone_jct(2, true, 0.0) == Approx(307.875).epsilon(1e-12));
  // Round-based every 60 s: the first decision is at t = 60 (the job waits for it), then 30 s + 427.5 s.
  CHECK(alone_jct(1, true, 60.0) == Approx(60.0 + 30.0 + 427.5).epsilon(1e-12));
}

TEST_CASE("sim::Engine: invariants hold for every strategy on goodput jobs placed on nodes",
          "[sim][engine][goodput][property]") {
  const auto cat = std::make_shared<const Catalog>(pollux_goodput_catalog(default_pollux_dir()));
  for (const auto& info : strategy_infos()) {
    if (info.needs_gpu_types) continue;  // Gavel's policies: their own invariant test on GPU pools
    for (const double interval : {0.0, 60.0}) {
      DYNAMIC_SECTION(info.name << " interval " << interval) {
        EngineConfig ec;
        ec.cluster.nodes = 4;
        ec.cluster.gpus_per_node = 4;
        ec.cluster.placement = "most_free";
        ec.restart.cost_s = 30.0;
        ec.restart.on_first_start = true;
        ec.scheduler.interval_s = interval;
        PoissonSpec spec;
        spec.rate_per_s = rate_for_load(*cat, 1.5, ec.total_gpus(), ec.cluster.gpus_per_node);
        spec.jobs = 12;
        const Workload wl = generate_poisson_workload(cat, spec, 7);
        const nlohmann::json no_params = nlohmann::json::object();
        auto strat = info.make(JsonReader(no_params, "test"));
        auto beliefs = make_belief_source(info.default_beliefs, "test");
        double last_now = -1.0;
        std::map<int, double> done;
        long checks = 0;
        int finished = 0;
        const RunResult rr = simulate(wl, *strat, *beliefs, ec, [&](const EngineCheckView& v) {
          ++checks;
          REQUIRE(v.now >= last_now);
          REQUIRE(v.gpus_in_use <= v.total_gpus);
          int sum = 0;
          for (const auto& j : v.active) {
            sum += j.gpus;
            REQUIRE(j.work_done <= j.work);
            REQUIRE(j.work_done >= done[j.id]);
            REQUIRE((j.gpus == 0) == (j.state == JobState::kWaiting));
            done[j.id] = j.work_done;
          }
          REQUIRE(sum == v.gpus_in_use);
          last_now = v.now;
          finished = v.finished;
        });
        CHECK(checks > 0);
        CHECK(finished == spec.jobs);
        for (const auto& j : rr.jobs) {
          CHECK(j.finish > j.first_start);
          CHECK(j.first_start >= j.arrival);
          CHECK(j.max_gpus <= ec.total_gpus());
          if (interval > 0.0) CHECK(std::fmod(j.first_start, interval) == Approx(0.0).margin(1e-6));
        }
      }
    }
  }
}
