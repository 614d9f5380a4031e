// test/sim/engine/test_idle_rounds.cpp — round-based runs jump over rounds in which no job is active (issue 33): the
// results equal those of walking every round, bit for bit, on every registered strategy that runs on one pool, and a
// 9e11 s gap between two arrivals with 1 s rounds takes a handful of rounds instead of hours.
#include <catch2/catch.hpp>

#include <chrono>
#include <limits>
#include <memory>
#include <string>

#include "sim/beliefs/belief_sources.h"
#include "sim/engine/engine.h"
#include "sim/engine/rounds.h"
#include "strategies/registry.h"
#include "test/sim/linear_catalog.h"
#include "test/sim/same_run.h"
#include "test/sim/scripted_strategy.h"
#include "workloads/io/json_reader.h"
#include "workloads/workload.h"

using namespace ringsched;
using ringsched::test::require_same_run;

using ringsched::test::linear_catalog;

namespace {

JobTruth job(int id, double arrival, double work) {
  JobTruth j;
  j.id = id;
  j.name = "j" + std::to_string(id);
  j.arrival = arrival;
  j.work_samples = work;
  return j;
}

}  // namespace

TEST_CASE("sim::RoundClock: round k starts at k x interval, a jump lands on the first round at or after a time",
          "[sim][rounds]") {
  RoundClock c(7.3);
  CHECK(c.next() == 7.3);
  CHECK(c.next() == 2.0 * 7.3);
  // 100 / 7.3 = 13.7: round 14 (102.2) is the first at or after 100.
  CHECK(c.next_at_or_after(100.0) == 14.0 * 7.3);
  CHECK(c.next() == 15.0 * 7.3);
  // A time already passed gives the next round, never the current one.
  CHECK(c.next_at_or_after(1.0) == 16.0 * 7.3);
  // A round start itself is taken (the arrival is seen by the round at its time).
  RoundClock d(60.0);
  CHECK(d.next_at_or_after(600.0) == 600.0);
  CHECK(d.next_at_or_after(600.5) == 660.0);
  RoundClock e(1.0);
  CHECK(e.next_at_or_after(9e11) == 9e11);
  CHECK(e.next_at_or_after(9e11 + 0.25) == 9e11 + 1.0);
  // A time beyond 2^53 rounds returns (it used to loop forever stepping k by 1, which no longer changes k).
  RoundClock f(1.0);
  CHECK(f.next_at_or_after(1e301) == 1e301);
  CHECK(f.next_at_or_after(std::numeric_limits<double>::infinity()) == std::numeric_limits<double>::infinity());
}

TEST_CASE("sim::Engine: rounds with no job active are skipped with the same results as walking every round",
          "[sim][rounds]") {
  const auto cat = linear_catalog(0.5);
  // Bursts of jobs with idle gaps between them (and before the first), so some rounds have no job active.
  Workload w;
  w.catalog = cat;
  const double arrivals[] = {35.0, 36.5, 40.0, 900.0, 900.0, 931.25, 5000.0, 5003.0, 20000.7, 20001.0};
  int id = 0;
  for (double t : arrivals) {
    w.jobs.push_back(job(id, t, 1500.0 + 700.0 * id));
    ++id;
  }
  int compared = 0;
  for (const StrategyInfo& info : strategy_infos()) {
    if (info.needs_gpu_types) continue;
    for (const double interval : {1.0, 7.3, 60.0}) {
      DYNAMIC_SECTION(info.name << " interval " << interval) {
        EngineConfig ec;
        ec.cluster.nodes = 1;
        ec.cluster.gpus_per_node = 4;
        ec.restart.cost_s = 0.5;
        ec.scheduler.interval_s = interval;
        const nlohmann::json no_params = nlohmann::json::object();
        auto beliefs = make_belief_source(info.default_beliefs, "test");
        auto walked_strategy = info.make(JsonReader(no_params, "test"));
        auto skipped_strategy = info.make(JsonReader(no_params, "test"));
        ec.scheduler.walk_idle_rounds = true;
        const RunResult walked = simulate(w, *walked_strategy, *beliefs, ec);
        ec.scheduler.walk_idle_rounds = false;
        const RunResult skipped = simulate(w, *skipped_strategy, *beliefs, ec);
        require_same_run(walked, skipped, test::EventCount::kMayDiffer);
        // The idle rounds were not handled: before 35 s, and in the gaps up to 900, 5000 and 20000.7 s.
        CHECK(skipped.events_processed < walked.events_processed);
        ++compared;
      }
    }
  }
  CHECK(compared > 0);
}

TEST_CASE("sim::Engine: a 9e11 s gap between two arrivals with 1 s rounds takes a handful of rounds", "[sim][rounds]") {
  Workload w;
  w.catalog = linear_catalog(0.5);
  w.jobs = {job(0, 0.0, 400.0), job(1, 9e11, 4000.0)};
  // Every active job gets all 4 GPUs (one at a time here): 400 samples/s.
  test::ScriptedStrategy all([](const Snapshot& s) {
    return std::vector<int>(s.jobs.size(), s.total_gpus / static_cast<int>(s.jobs.size()));
  });
  auto beliefs = make_belief_source("none", "test");
  EngineConfig ec;
  ec.cluster.nodes = 1;
  ec.cluster.gpus_per_node = 4;
  ec.scheduler.interval_s = 1.0;
  const auto t0 = std::chrono::steady_clock::now();
  const RunResult r = simulate(w, all, *beliefs, ec);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Job 0 is seen by the round at 1 s, runs 400 samples at 400/s and finishes at 2 s; the round at 2 s has no job
  // active and the next one is the round at 9e11 s, where job 1 arrives: it starts there and finishes 10 s later.
  CHECK(r.jobs[0].first_start == 1.0);
  CHECK(r.jobs[0].finish == 2.0);
  CHECK(r.jobs[1].first_start == 9e11);
  CHECK(r.jobs[1].finish == 9e11 + 10.0);
  // Decisions: the round at 1 s, and the rounds at 9e11 .. 9e11 + 9 s while job 1 runs.
  CHECK(r.decisions == 11);
  // Arrivals, completions and the rounds at 1, 2, 9e11 .. 9e11 + 10: no more than a few dozen events.
  CHECK(r.events_processed < 40);
  CHECK(secs < 0.5);
}
