// bench/bench_engine.cpp — engine throughput: one 1,000-job Poisson workload of the paper catalog on 64 GPUs at
// high contention (offered load 0.9 and 1.5) per strategy (events/s and jobs/s counters), and a whole default
// `table3` run (run_experiment on the built-in config, 2 threads; 320 replicates).
// Targets (issue 2): >= 1M events/s for eight, >= 100k events/s for precompute, table3 < 10 s.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "sim/engine/engine.h"
#include "sim/experiments/builtin_configs.h"
#include "sim/experiments/runner.h"
#include "strategies/registry.h"
#include "workloads/io/json_reader.h"
#include "workloads/workload.h"

namespace {

using namespace ringsched;

// args: strategy index into kStrategies, load x 10.
const char* const kStrategies[] = {"eight", "precompute", "optimus", "exploratory"};

void BM_Engine1000Jobs(benchmark::State& state) {
  const std::string name = kStrategies[state.range(0)];
  const double load = static_cast<double>(state.range(1)) / 10.0;
  auto catalog = std::make_shared<const Catalog>(load_catalog("paper"));
  EngineConfig ec;  // 8 nodes x 8 GPUs, restart 10 s, as in table3
  ec.record_events = false;
  PoissonSpec spec;
  spec.jobs = 1000;
  spec.rate_per_s = rate_for_load(*catalog, load, ec.total_gpus(), ec.cluster.gpus_per_node);
  const Workload wl = generate_poisson_workload(catalog, spec, 1);
  const StrategyInfo info = find_strategy(name, "bench");
  const nlohmann::json no_params = nlohmann::json::object();
  auto beliefs = make_belief_source(info.default_beliefs, "bench");
  std::uint64_t events = 0;
  std::uint64_t decisions = 0;
  for (auto _ : state) {
    auto strat = info.make(JsonReader(no_params, "bench"));
    const RunResult r = simulate(wl, *strat, *beliefs, ec);
    events += r.events_processed;
    decisions += r.decisions;
    benchmark::DoNotOptimize(r.last_finish);
  }
  state.SetLabel(name + " load " + std::to_string(load).substr(0, 3));
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["jobs/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * spec.jobs, benchmark::Counter::kIsRate);
  state.counters["decisions/s"] = benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kIsRate);
  state.counters["events/run"] =
      benchmark::Counter(static_cast<double>(events) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_Engine1000Jobs)
    ->ArgsProduct({{0, 1, 2, 3}, {9, 15}})
    ->ArgNames({"strategy", "load_x10"})
    ->Unit(benchmark::kMillisecond);

void BM_Table3Default(benchmark::State& state) {
  const ExperimentConfig c =
      parse_experiment(parse_json_text(table3_config_text(), "builtin:table3"), "builtin:table3", "");
  std::uint64_t events = 0;
  for (auto _ : state) {
    const ExperimentResult r = run_experiment(c, 2);
    for (const auto& run : r.runs)
      events += run.events_processed;
    benchmark::DoNotOptimize(r.runs.data());
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Table3Default)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
