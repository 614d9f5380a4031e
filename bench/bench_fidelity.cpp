// bench/bench_fidelity.cpp — the Pollux artifact's setting (workloads/examples/pollux-artifact.json) on its 8 shipped
// load-1.0 workloads, one thread: the 16 optimus and tiresias runs (target < 0.5 s CPU) and the 8 pollux runs
// (target < 10 s CPU), configs parsed and the applications' tables loaded inside the timed region. Each benchmark
// runs once: the step-time and fit memos (workloads/goodput_app.cpp, sim/engine/goodput_job.cpp) live for the
// process, so a repetition would time warm memos, not what a fresh `ringsched sweep` costs. The Pollux simulator
// itself took 476 s (Optimus) + 118 s (Tiresias) of CPU for the same 16 runs (issue 11, measured side by side).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "sim/experiments/config.h"
#include "sim/experiments/runner.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;

namespace {

const std::string kExample = std::string(RINGSCHED_SOURCE_DIR) + "/workloads/examples/pollux-artifact.json";

// The example's strategies whose labels are in `labels`, on each of the 8 load-1.0 workload files; returns the runs.
std::size_t run_artifact(const std::vector<std::string>& labels) {
  std::size_t runs = 0;
  for (int w = 1; w <= 8; ++w) {
    nlohmann::json doc = read_json_file(kExample);
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& s : doc["strategies"]) {
      for (const auto& l : labels)
        if (s["label"].get<std::string>() == l) kept.push_back(s);
    }
    doc["strategies"] = kept;
    doc["workload"]["trace"]["file"] = "../data/pollux/workloads/load-1.0/workload-" + std::to_string(w) + ".csv";
    const ExperimentConfig c =
        parse_experiment(doc, kExample, std::string(RINGSCHED_SOURCE_DIR) + "/workloads/examples");
    const ExperimentResult r = run_experiment(c, 1);
    for (const auto& run : r.runs) {
      if (!run.error.empty()) throw std::runtime_error(run.error);
    }
    runs += r.runs.size();
  }
  return runs;
}

void BM_ArtifactOptimusTiresias16Runs(benchmark::State& state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(run_artifact({"optimus", "tiresias"}));
}
BENCHMARK(BM_ArtifactOptimusTiresias16Runs)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_ArtifactPollux8Runs(benchmark::State& state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(run_artifact({"pollux"}));
}
BENCHMARK(BM_ArtifactPollux8Runs)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
