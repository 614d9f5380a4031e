// test/sim/experiments/test_measured_truth.cpp — a config whose class truth is profiler measurement files (the
// `measurement` source of the `table` speed kind, registered by sim/experiments): the table equals compute + the
// all-reduce of the gradient at each measured world size, and history fitted on training runs of it runs. Without
// the profiler's measurement library the source exists and says how to get it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/experiments/runner.h"
#include "test/input_error_of.h"
#include "test/sim/cli_util.h"
#include "workloads/measurement/measurement.h"

using namespace ringsched;
using ringsched::test::error_of;
using ringsched::test::TempDir;

namespace {

nlohmann::json measured_config(const nlohmann::json& files) {
  return {{"cluster", {{"nodes", 2}, {"gpus_per_node", 4}}},
          {"workload",
           {{"catalog",
             {{"name", "profiled"},
              {"classes",
               {{{"name", "mlp"},
                 {"batch", {{"mode", "fixed_per_worker"}, {"size", 16}}},
                 {"model_size_mparams", 0.5},
                 {"work", {{"samples", 1e6}}},
                 {"gpus", {{"max", 8}}},
                 {"speed", {{"kind", "table"}, {"measurement", files}}}}}}}},
            {"jobs", 6},
            {"arrival", {{"process", "poisson"}, {"load", 0.5}}}}},
          {"strategies", {"eight", "precompute"}},
          {"beliefs", {{"history", {{"from", "training_runs"}, {"probes", {1, 2, 4, 8}}}}}},
          {"seeds", 2}};
}

}  // namespace

namespace {

// One world size: compute 10 ms at batch 8 and 18 ms at batch 16 per worker, all-reduce of the 2 MB gradient
// 1 ms x (W - 1), on one node up to 4 workers and 2 nodes at 8.
profiler::Measurement measured(int world) {
  profiler::Measurement m;
  m.machine = {"host", "cpu", "cpu"};
  m.backend = "cpu";
  m.world_size = world;
  m.nodes = world > 4 ? 2 : 1;
  for (int n = 0; n < m.nodes; ++n)
    m.hostnames.push_back("host-" + std::to_string(n));
  m.model.layers = {512, 512, 512, 10};
  m.model.parameters = 512 * 512 + 512 + 512 * 512 + 512 + 512 * 10 + 10;
  m.model.gradient_bytes = 4 * m.model.parameters;
  m.settings = {1, 2, "default"};
  m.compute.push_back({8, profiler::seconds_from_repeats({0.010, 0.010})});
  m.compute.push_back({16, profiler::seconds_from_repeats({0.018, 0.018})});
  if (world > 1) {
    const double t = 1e-3 * (world - 1);
    m.allreduce.push_back({1 << 20, profiler::seconds_from_repeats({t / 2, t / 2})});
    m.allreduce.push_back({1 << 23, profiler::seconds_from_repeats({t * 4, t * 4})});
  }
  m.timestamp = "2026-12-03T00:00:00Z";
  m.command_line = "test";
  return m;
}

}  // namespace

TEST_CASE("sim::MeasuredTruth: profiler measurement files are a class's truth", "[sim][measured]") {
  TempDir tmp;
  nlohmann::json files = nlohmann::json::array();
  for (int w : {1, 2, 4, 8}) {
    const std::string name = "m" + std::to_string(w) + ".json";
    profiler::save_measurement(measured(w), tmp / name);
    files.push_back(name);  // relative to base_dir
  }
  const ExperimentConfig c = parse_experiment(measured_config(files), "cfg.json", tmp.path().string());
  const JobClass& cls = c.workload.catalog->classes[0];
  // W = 1: compute only, 18 ms at batch 16 per worker.
  CHECK(cls.speed->step_seconds(1, 1, 16.0) == Approx(0.018));
  // W = 4 at batch 8: 10 ms + the all-reduce interpolated between the two measured sizes (log-log).
  const auto m4 = measured(4);
  CHECK(cls.speed->step_seconds(4, 1, 32.0) ==
        Approx(0.010 + profiler::allreduce_seconds(m4, m4.model.gradient_bytes)));
  REQUIRE(c.beliefs.history);
  const ExperimentResult r = run_experiment(c, 2);
  for (const auto& run : r.runs)
    CHECK(run.error.empty());
  // A bad file fails with its own name under the JSON path that named it.
  files.push_back("missing.json");
  CHECK(error_of([&] {
          (void)parse_experiment(measured_config(files), "cfg.json", tmp.path().string());
        }).find("cfg.json: workload.catalog.classes[0].speed.measurement: ") == 0);
}
