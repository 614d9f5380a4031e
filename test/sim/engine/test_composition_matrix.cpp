// test/sim/engine/test_composition_matrix.cpp — every feature with every other (issue 34): each combination of
// {one pool (the untyped cluster), several pools} x {no placement, a placement policy, a cluster-wide topology, a
// topology per pool, a topology with link contention (issue 36) and contention-aware placement} x {step-time classes,
// goodput classes} x {event-driven, rounds} x {dense, incremental decisions} runs built-in strategies that choose GPU
// types (fifo, srtf, precompute, pollux) with the engine's invariants checked; what stays refused (an explicit graph
// shared by pools) says why. The Python half (a Python strategy in every cell) is python/tests/test_matrix.py;
// docs/design.md "The composition matrix" lists what is refused and why.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine/engine.h"
#include "sim/experiments/config.h"
#include "sim/experiments/replicate.h"
#include "strategies/registry.h"
#include "test/input_error_of.h"
#include "test/sim/same_run.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;
using nlohmann::json;

namespace {

enum class Place { kNone, kPolicy, kClusterTopology, kPoolTopology, kContention };

const char* place_name(Place p) {
  switch (p) {
    case Place::kNone:
      return "no placement";
    case Place::kPolicy:
      return "placement";
    case Place::kClusterTopology:
      return "cluster-wide topology";
    case Place::kPoolTopology:
      return "topology per pool";
    case Place::kContention:
      return "topology with link contention";
  }
  return "";
}

json matrix_two_level() {
  return {{"kind", "two_level"},
          {"intra_node", {{"bandwidth_gb_s", 150}, {"latency_us", 1}}},
          {"inter_node", {{"bandwidth_gb_s", 12.5}, {"latency_us", 5}}}};
}

// 8 GPUs on 2 nodes, or pools of 8 slow (2 nodes) and 4 fast GPUs (1 node).
json matrix_cluster(bool pools, Place place) {
  json c;
  if (!pools) {
    c = {{"nodes", 2}, {"gpus_per_node", 4}};
    if (place != Place::kNone && place != Place::kPolicy) c["topology"] = matrix_two_level();
  } else {
    c["pools"] = json::array({{{"gpu_type", "slow"}, {"nodes", 2}, {"gpus_per_node", 4}},
                              {{"gpu_type", "fast"}, {"nodes", 1}, {"gpus_per_node", 4}}});
    if (place == Place::kClusterTopology || place == Place::kContention) c["topology"] = matrix_two_level();
    if (place == Place::kPoolTopology)
      for (auto& p : c["pools"])
        p["topology"] = matrix_two_level();
  }
  if (place == Place::kPolicy) c["placement"] = {{"policy", "packed"}};
  if (place == Place::kContention) {
    c["placement"] = {{"policy", "contention"}};
    c["network"] = {{"contention", true}};
  }
  return c;
}

json matrix_step_time_catalog() {
  const json eq5_fast = {{"kind", "eq5"}, {"t0", 0.0005}, {"t1", 0.004}, {"t2", 0.0005}, {"t3", 0.01}};
  const json eq5_slow = {{"kind", "eq5"}, {"t0", 0.001}, {"t1", 0.004}, {"t2", 0.0005}, {"t3", 0.02}};
  return {{"name", "matrix-steps"},
          {"classes", json::array({{{"name", "cnn"},
                                    {"batch", {{"mode", "fixed_global"}, {"size", 256}}},
                                    {"model_size_mparams", 25},
                                    {"work", {{"samples", 2000000}, {"sigma", 0.3}}},
                                    {"gpus", {{"min", 1}, {"max", 4}}},
                                    {"speed", eq5_fast},
                                    {"speed_by_type", {{"fast", eq5_fast}, {"slow", eq5_slow}}}}})}};
}

json matrix_goodput_catalog() {
  return {{"name", "matrix-goodput"},
          {"classes", json::array({{{"name", "tiny"},
                                    {"gpus", {{"max", 4}}},
                                    {"goodput",
                                     {{"tables", std::string(RINGSCHED_TEST_DIR) + "/fixtures/goodput/tiny-types"},
                                      {"by_type", "files"},
                                      {"reference_type", "slow"},
                                      {"max_epochs", 3}}}}})}};
}

json matrix_config(bool pools, Place place, bool goodput, bool rounds) {
  json strategies = json::array();
  for (const char* s : {"fifo", "srtf", "precompute", "pollux"}) {
    json spec = {{"name", s}, {"beliefs", "oracle"}};
    if (std::string(s) == "fifo" || std::string(s) == "srtf") spec["params"] = {{"gpus", 2}};
    strategies.push_back(spec);
  }
  json doc = {{"cluster", matrix_cluster(pools, place)},
              {"workload",
               {{"catalog", goodput ? matrix_goodput_catalog() : matrix_step_time_catalog()},
                {"jobs", 6},
                {"arrival", {{"process", "poisson"}}}}},
              {"levels", json::array({{{"name", "busy"}, {"load", goodput ? 4.0 : 0.8}}})},
              {"strategies", strategies},
              {"seeds", 1},
              {"restart", {{"cost_s", 10}}}};
  if (rounds) doc["scheduler"] = {{"interval_s", 60}};
  return doc;
}

// One run with the engine's invariants checked after every batch of events; returns the run.
RunResult matrix_checked_run(const ExperimentConfig& c, int strategy, bool dense) {
  const StrategySpec& spec = c.strategies[static_cast<std::size_t>(strategy)];
  const json& params = spec.params;
  auto strat = find_strategy(spec.name, "matrix").make(JsonReader(params, "matrix"));
  const auto wl = std::make_shared<const Workload>(make_workload(c, 0, 7));
  const auto beliefs = make_beliefs(c, spec.beliefs, wl, 7);
  EngineConfig ec = engine_config(c, 7, true);
  ec.dense_snapshots = dense;
  double last = 0.0;
  std::vector<double> done(wl->jobs.size(), 0.0);
  long violations = 0;
  const RunResult r = simulate(*wl, *strat, *beliefs, ec, [&](const EngineCheckView& v) {
    violations += v.now < last ? 1 : 0;  // time never goes back
    last = v.now;
    violations += v.gpus_in_use > v.total_gpus || v.gpus_in_use < 0 ? 1 : 0;  // GPUs never over-used
    for (std::size_t p = 0; p < v.pool_gpus.size(); ++p)
      violations += v.pool_gpus_in_use[p] > v.pool_gpus[p] || v.pool_gpus_in_use[p] < 0 ? 1 : 0;
    for (const auto& j : v.active) {
      // Work is conserved: progress never goes back and never passes the job's work.
      violations += j.work_done < done[static_cast<std::size_t>(j.id)] || j.work_done > j.work * (1 + 1e-12) ? 1 : 0;
      done[static_cast<std::size_t>(j.id)] = j.work_done;
    }
  });
  CHECK(violations == 0);
  CHECK(r.jobs.size() == 6);
  CHECK(r.decisions > 0);
  const bool pool_topology = std::any_of(c.cluster.pools.begin(), c.cluster.pools.end(),
                                         [](const GpuPool& p) { return p.topology != nullptr; });
  CHECK(r.placed == (!c.cluster.placement.empty() || c.cluster.topology != nullptr || pool_topology));
  double gpu_seconds = 0.0;
  for (const auto& j : r.jobs) {
    CHECK(j.finish >= j.first_start);  // every job completes
    CHECK(j.first_start >= j.arrival);
    CHECK(j.finish > 0.0);
    gpu_seconds += j.gpu_seconds;
  }
  CHECK(std::abs(gpu_seconds - r.allocated_gpu_seconds) <= 1e-9 * std::max(1.0, gpu_seconds));
  if (c.cluster.typed()) {
    double by_pool = 0.0;
    for (double g : r.pool_gpu_seconds)
      by_pool += g;
    CHECK(std::abs(by_pool - r.allocated_gpu_seconds) <= 1e-9 * std::max(1.0, by_pool));
  }
  return r;
}

}  // namespace

TEST_CASE(
    "sim::Composition: every combination of pools, placement, truth kind, scheduling and decision mode runs "
    "with the engine's invariants",
    "[sim][engine][composition][pools][goodput][property]") {
  int ran = 0;
  for (const bool pools : {false, true}) {
    for (const Place place :
         {Place::kNone, Place::kPolicy, Place::kClusterTopology, Place::kPoolTopology, Place::kContention}) {
      for (const bool goodput : {false, true}) {
        for (const bool rounds : {false, true}) {
          const json doc = matrix_config(pools, place, goodput, rounds);
          INFO((pools ? "pools" : "one pool")
               << ", " << place_name(place) << ", " << (goodput ? "goodput" : "step-time") << ", "
               << (rounds ? "rounds" : "event-driven"));
          const ExperimentConfig c = parse_experiment(doc, "matrix.json", RINGSCHED_TEST_DIR);
          if (pools && (place == Place::kClusterTopology || place == Place::kContention)) {
            // A cluster-wide topology of a generated form: each pool takes it over its own nodes.
            for (const GpuPool& p : c.cluster.pools)
              CHECK(p.topology != nullptr);
          }
          for (int k = 0; k < static_cast<int>(c.strategies.size()); ++k) {
            INFO("strategy " << c.strategies[static_cast<std::size_t>(k)].name);
            const RunResult dense = matrix_checked_run(c, k, true);
            const RunResult incremental = matrix_checked_run(c, k, false);
            // Incremental strategies decide incrementally where the engine can (one untyped pool, no placement)
            // and densely elsewhere: either way the same run, bit for bit.
            test::require_same_run(dense, incremental);
            ran += 2;
          }
        }
      }
    }
  }
  CHECK(ran == 40 * 4 * 2);  // 40 cells, 4 strategies, dense and incremental
}

TEST_CASE("sim::Composition: what stays refused says why (an explicit graph shared by pools)",
          "[sim][engine][composition][pools]") {
  // An explicit graph names its nodes, so it cannot be cut into pools; a job spanning pools cannot be asked for at
  // all (an assignment names one pool).
  json doc = matrix_config(true, Place::kNone, false, false);
  doc["cluster"]["topology"] = {{"kind", "graph"}};
  CHECK_THAT(test::error_of([&] { (void)parse_experiment(doc, "matrix.json", RINGSCHED_TEST_DIR); }),
             Catch::Contains("matrix.json: cluster.topology.kind: an explicit graph names its nodes") &&
                 Catch::Contains("give each pool its own"));
}
