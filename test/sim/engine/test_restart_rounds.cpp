// test/sim/engine/test_restart_rounds.cpp — a restart longer than the round (issue 33): under a policy that moves
// jobs every round, a job resumed in one round is still restarting when the next round moves it again, so after the
// free first starts no job ever progresses and the run ticks on towards the clock's horizon (hours, without a word).
// Shown on the engine with a time-sharing script; validation now refuses such configs naming both settings.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <memory>
#include <string>

#include "sim/beliefs/belief_sources.h"
#include "sim/engine/engine.h"
#include "sim/experiments/config.h"
#include "sim/experiments/replicate.h"
#include "strategies/registry.h"
#include "test/input_error_of.h"
#include "test/sim/linear_catalog.h"
#include "test/sim/scripted_strategy.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;
using ringsched::test::error_of;

using ringsched::test::linear_catalog;

namespace {

struct Stop {};

// Two jobs of 1e6 samples arrive at 0; each round of 360 s gives all 4 GPUs (400 samples/s) to one job in turn.
// Returns each job's work done by `until` s (stopping the run there), or -1 when the run ended before.
std::pair<double, double> time_shared(double restart_s, double until) {
  Workload w;
  w.catalog = linear_catalog();
  for (int id = 0; id < 2; ++id) {
    JobTruth j;
    j.id = id;
    j.name = std::string(1, static_cast<char>('a' + id));
    j.work_samples = 1e6;
    w.jobs.push_back(j);
  }
  test::ScriptedStrategy turns([](const Snapshot& s) {
    std::vector<int> g(s.jobs.size(), 0);
    const auto round = static_cast<std::size_t>(std::llround(s.now / 360.0));
    g[round % s.jobs.size()] = s.total_gpus;
    return g;
  });
  auto beliefs = make_belief_source("none", "test");
  EngineConfig ec;
  ec.cluster.nodes = 1;
  ec.cluster.gpus_per_node = 4;
  ec.restart.cost_s = restart_s;
  ec.scheduler.interval_s = 360.0;
  std::pair<double, double> done{-1.0, -1.0};
  const auto checker = [&](const EngineCheckView& v) {
    if (v.now < until) return;
    for (const auto& j : v.active)
      (j.id == 0 ? done.first : done.second) = j.work_done;
    throw Stop{};
  };
  try {
    (void)simulate(w, turns, *beliefs, ec, checker);
  } catch (const Stop&) {
  }
  return done;
}

nlohmann::json round_doc() {
  return parse_json_text(R"({
    "cluster": {"nodes": 1, "gpus_per_node": 4},
    "workload": {"catalog": {"name": "c", "classes": [
      {"name": "lin", "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1,
       "work": {"samples": 1000}, "gpus": {"max": 4}, "speed": {"kind": "eq5", "t0": 0.01, "t1": 0, "t2": 0, "t3": 0}}
    ]}, "jobs": 4, "arrival": {"process": "poisson", "load": 0.5}},
    "strategies": ["eight"], "scheduler": {"interval_s": 360}, "seeds": 1})",
                         "t.json");
}

}  // namespace

TEST_CASE(
    "sim::Engine: with a restart longer than the round, time-shared jobs stop progressing after their first "
    "round",
    "[sim][restart][rounds]") {
  // Round 1 (360 s): a starts (a first start is free) and runs 360 s: 144,000 samples. Round 2: b likewise. From
  // round 3 on each job resumes, restarts for 400 s and is moved at the next round 360 s later: no more progress.
  const auto stuck = time_shared(400.0, 360.0 * 200);
  CHECK(stuck.first == Approx(144000.0));
  CHECK(stuck.second == Approx(144000.0));
  // A 300 s restart leaves 60 s of each turn: 24,000 samples a turn, so by round 20 each job has progressed.
  const auto moving = time_shared(300.0, 360.0 * 20);
  CHECK(moving.first > 144000.0);
  CHECK(moving.second > 144000.0);
}

TEST_CASE("sim::Engine: Gavel's max_min_fairness with 400 s restarts on 360 s rounds finishes no job in 83,000 rounds",
          "[sim][restart][rounds][gavel]") {
  // Gavel's continuous experiment cut to 60 jobs at 20 jobs/hour on 2 GPUs of each type, so jobs share GPUs by turns.
  std::ifstream in(std::string(RINGSCHED_SOURCE_DIR) + "/workloads/examples/gavel-continuous.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["workload"]["jobs"] = 60;
  doc["workload"].erase("measure");
  for (auto& p : doc["cluster"]["pools"])
    p["nodes"] = 2;
  doc["levels"] = nlohmann::json::parse(R"([{"name": "x", "rate_per_hour": 20}])");
  doc["strategies"] = {"max_min_fairness"};
  ExperimentConfig c = parse_experiment(doc, "g.json", std::string(RINGSCHED_SOURCE_DIR) + "/workloads/examples");
  const auto finished_by = [&](double restart_s, double until) {
    c.restart.cost_s = restart_s;  // set after validation, which refuses 400 s
    const StrategySpec& spec = c.strategies[0];
    auto strat = find_strategy(spec.name, "test").make(JsonReader(spec.params, "test"));
    auto wl = std::make_shared<const Workload>(make_workload(c, 0, 1));
    auto beliefs = make_beliefs(c, spec.beliefs, wl, 1);
    int finished = 0;
    try {
      (void)simulate(*wl, *strat, *beliefs, engine_config(c, 1, false), [&](const EngineCheckView& v) {
        finished = v.finished;
        if (v.now > until) throw Stop{};
      });
    } catch (const Stop&) {
    }
    return finished;
  };
  // A 300 s restart: every job is done within about 3e6 s. A 400 s one: none by 3e7 s (the run would go on to the
  // clock's horizon, 1e12 s, about 2.8e9 rounds).
  CHECK(finished_by(300.0, 1e12) == 60);
  CHECK(finished_by(400.0, 3e7) == 0);
}

TEST_CASE("sim::ExperimentConfig: a restart not shorter than the round is refused naming both settings",
          "[sim][restart][rounds][hostile]") {
  nlohmann::json doc = round_doc();
  doc["restart"] = {{"cost_s", 400}};
  CHECK(error_of([&] { (void)parse_experiment(doc, "t.json", ""); }) ==
        "t.json: restart.cost_s: a restart of 400 s (restart.cost_s 400 + restart.cost_per_gpu_s 0 x 4 GPUs) is not "
        "shorter than the round (scheduler.interval_s 360 s): a job moved in one round would still be restarting "
        "when the next may move it again, and under a policy that does so no job ever progresses; shorten the "
        "restart or lengthen the round");
  // Equal is refused too (the restart ends as the next round decides), per-GPU costs count at the largest job.
  doc["restart"] = {{"cost_s", 360}};
  CHECK_THAT(error_of([&] { (void)parse_experiment(doc, "t.json", ""); }), Catch::StartsWith("t.json: restart.cost_s"));
  doc["restart"] = {{"cost_per_gpu_s", 90}};
  CHECK_THAT(error_of([&] { (void)parse_experiment(doc, "t.json", ""); }),
             Catch::StartsWith("t.json: restart.cost_per_gpu_s: a restart of 370 s (restart.cost_s 10 + "
                               "restart.cost_per_gpu_s 90 x 4 GPUs)"));
  // The default 10 s restart with 5 s rounds: the round is to blame.
  doc.erase("restart");
  doc["scheduler"]["interval_s"] = 5;
  CHECK_THAT(error_of([&] { (void)parse_experiment(doc, "t.json", ""); }),
             Catch::StartsWith("t.json: scheduler.interval_s: a restart of 10 s"));
  // Shorter restarts, and event-driven runs, pass.
  doc["scheduler"]["interval_s"] = 360;
  doc["restart"] = {{"cost_s", 359}};
  CHECK_NOTHROW(parse_experiment(doc, "t.json", ""));
  doc["restart"] = {{"cost_s", 4000}};
  doc.erase("scheduler");
  CHECK_NOTHROW(parse_experiment(doc, "t.json", ""));
}
