// bench/bench_heldout.cpp — held-out evaluation speed: reading and fitting one Pollux application's tables (target
// < 50 ms), table lookups, and a small held-out block.
#include <benchmark/benchmark.h>

#include "sim/experiments/builtin_configs.h"
#include "sim/experiments/runner.h"
#include "sim/fitting/speed_fit.h"
#include "workloads/io/json_reader.h"
#include "workloads/pollux.h"

using namespace ringsched;

namespace {

// Read placements.csv + scalability.csv + validation files of one application and fit the paper and two-level
// protocols.
void BM_LoadAndFitApp(benchmark::State& state) {
  const std::string name = pollux_app_names()[static_cast<std::size_t>(state.range(0))];
  for (auto _ : state) {
    const PolluxApp app = load_pollux_app(default_pollux_dir(), name);
    const auto pts = pollux_speed_points(app);
    for (auto p : {FitProtocol::kPaper, FitProtocol::kTwoLevel}) {
      const FitOutcome o = fit_with_protocol(p, pts, pollux_model_size(name), 4, app.dir);
      benchmark::DoNotOptimize(o.quality.mape_heldout);
    }
  }
  state.SetLabel(name);
}
BENCHMARK(BM_LoadAndFitApp)->DenseRange(0, 5)->Unit(benchmark::kMillisecond);

// The two-node protocol on one application's points (already read): three net variants, each with its
// leave-one-probe-out folds, then the leave-one-GPU-count-out check and every unprofiled prediction.
void BM_FitTwoNode(benchmark::State& state) {
  const std::string name = pollux_app_names()[static_cast<std::size_t>(state.range(0))];
  const auto app = pollux_app(default_pollux_dir(), name);
  const auto pts = pollux_speed_points(*app);
  for (auto _ : state) {
    const FitOutcome o = fit_with_protocol(FitProtocol::kTwoNode, pts, pollux_model_size(name), 0, app->dir);
    benchmark::DoNotOptimize(o.quality.mape_heldout);
  }
  state.SetLabel(name + " (" + std::to_string(pts.size()) + " points)");
}
BENCHMARK(BM_FitTwoNode)->DenseRange(0, 5)->Unit(benchmark::kMillisecond);

// The same with --model phys (issue 37): three phys variants with their folds, the 2,000-sample posterior and an
// interval at every unprofiled point (target: < 1 s for one application).
void BM_FitTwoNodePhys(benchmark::State& state) {
  const std::string name = pollux_app_names()[static_cast<std::size_t>(state.range(0))];
  const auto app = pollux_app(default_pollux_dir(), name);
  const auto pts = pollux_speed_points(*app);
  FitRequest r;
  r.protocol = FitProtocol::kTwoNode;
  r.model_size = pollux_model_size(name);
  r.origin = app->dir;
  r.speed_model.model = "phys";
  r.speed_model.hardware.model_mparams = r.model_size;
  for (auto _ : state) {
    const FitOutcome o = fit_with_request(r, pts);
    benchmark::DoNotOptimize(o.quality.mape_heldout);
  }
  state.SetLabel(name + " (" + std::to_string(pts.size()) + " points)");
}
BENCHMARK(BM_FitTwoNodePhys)->DenseRange(0, 5)->Unit(benchmark::kMillisecond);

void BM_TableLookup(benchmark::State& state) {
  const auto app = pollux_app(default_pollux_dir(), "cifar10");
  int w = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(app->table->step_seconds(w, (w + 3) / 4, 182.0 * w));
    w = w % 64 + 1;
  }
}
BENCHMARK(BM_TableLookup);

// The built-in held-out config at 2 seeds, one thread: parsing (training runs, history fits) plus the runs and the
// prediction-error table.
void BM_HeldoutBlockSmall(benchmark::State& state) {
  nlohmann::json doc = parse_json_text(builtin_config_text("held-out"), "builtin:heldout");
  doc["seeds"] = 2;
  for (auto _ : state) {
    const ExperimentConfig c = parse_experiment(doc, "builtin:heldout", "");
    const ExperimentResult r = run_experiment(c, 1);
    benchmark::DoNotOptimize(r.runs.size());
  }
}
BENCHMARK(BM_HeldoutBlockSmall)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
