// sim/experiments/runner.h — the experiment runner: levels x strategies x seeds of one experiment config (each a
// replicate, replicate.h), run on a thread pool with results in a fixed order (same output for any thread count),
// then the prediction errors. In-sample and held-out configs run here alike.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/experiments/config.h"
#include "sim/experiments/prediction_errors.h"
#include "sim/experiments/progress.h"
#include "sim/experiments/replicate.h"

namespace ringsched {

// What --stats reports (sim/cli, summary.json "stats"): the runs' engine counters and the process's cost.
struct RunStats {
  std::size_t runs = 0;
  std::uint64_t events = 0;     // heap events handled, all runs
  std::uint64_t decisions = 0;  // strategy calls, all runs
  double wall_s = 0.0;          // the experiment's wall-clock time
  double cpu_s = 0.0;           // the process's CPU time so far (user + system, every thread)
  double peak_rss_mb = 0.0;     // the process's peak resident memory so far (MiB)
};

// Counters summed over the runs; CPU time and peak memory from getrusage.
RunStats collect_run_stats(const std::vector<CellRun>& runs, double wall_s);

struct ExperimentResult {
  std::vector<CellRun> runs;                       // ordered by level, then strategy, then seed
  std::vector<PredictionError> prediction_errors;  // when output.prediction_errors
  std::optional<RunStats> stats;                   // with --stats
  [[nodiscard]] const CellRun& run(const ExperimentConfig& c, int level, int strategy, int seed_index) const;
  [[nodiscard]] std::uint64_t table_lookups() const;
  [[nodiscard]] std::uint64_t table_clamped() const;
  // Per measured table, over every run (strategy >= 0: that strategy's runs only), unordered.
  [[nodiscard]] std::vector<std::pair<const models::TableStepTime*, models::TableClampStats>> table_clamps(
      int strategy = -1) const;
};

// What a caller sees of run_experiment while it runs (all optional).
struct RunHooks {
  // Each finished run in run order (level, strategy, seed), one call at a time, from a worker thread; the run's jobs
  // and events are dropped from the result afterwards, so memory does not grow with the number of runs (outputs
  // are streamed: jobs.csv and events.csv). A run that finished early waits for the runs before it. An exception
  // from on_run stops the experiment and is rethrown by run_experiment.
  std::function<void(const CellRun&)> on_run;
  LiveProgress* progress = nullptr;  // fed by every run's engine (events, jobs finished) and at each run's end
  // Asked before each run starts and every 65,536 events of a run: true stops the experiment (the Python module's
  // Ctrl-C): the run going on fails with "stopped after N events", every later one with "not run: the experiment was
  // stopped".
  std::function<bool()> stop;
};

// Runs every (level, strategy, seed), then the prediction errors when asked. threads <= 0: all hardware threads.
ExperimentResult run_experiment(const ExperimentConfig& config, int threads, const RunHooks& hooks = {});

}  // namespace ringsched
