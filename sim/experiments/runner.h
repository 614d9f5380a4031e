// sim/experiments/runner.h — the replicate runner: levels x strategies x seeds of one experiment config, run on a
// thread pool with results in a fixed order (same output for any thread count); one replicate builds its workload
// (the truth), its belief source (from numbers the truth hands out through observation channels only) and its
// strategy, and runs the engine. In-sample and held-out configs run here alike.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/table_speed.h"
#include "sim/beliefs/belief_sources.h"
#include "sim/engine/metrics.h"
#include "sim/experiments/config.h"
#include "sim/experiments/prediction_errors.h"
#include "sim/experiments/progress.h"

namespace ringsched {

struct CellRun {
  int level = 0;
  int strategy = 0;
  int seed_index = 0;
  std::uint64_t seed = 0;
  RunMetrics metrics;
  std::vector<JobResult> jobs;
  std::vector<AllocationEvent> events;
  std::uint64_t events_processed = 0;
  std::uint64_t decisions = 0;      // strategy calls
  std::uint64_t table_lookups = 0;  // measured-table speed lookups of the run (models/table_speed.h)
  std::uint64_t table_clamped = 0;  // of them, outside the measured range (answered by clamping)
  // The same lookups per measured table (truth or belief), with the range the clamped ones asked for.
  std::vector<std::pair<const models::TableStepTime*, models::TableClampStats>> table_clamps;
  BeliefScore belief_score;  // when run with score_beliefs
  std::string error;         // non-empty if the run failed
};

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
};

// Runs every (level, strategy, seed), then the prediction errors when asked. threads <= 0: all hardware threads.
ExperimentResult run_experiment(const ExperimentConfig& config, int threads, const RunHooks& hooks = {});

// One replicate (used by run_experiment, sweeps and tests). score_beliefs: also score the strategy's beliefs at
// every decision (CellRun::belief_score; the prediction-error row of learning beliefs).
CellRun run_cell(const ExperimentConfig& config, int level, int strategy, int seed_index, bool keep_events,
                 LiveProgress* progress = nullptr, bool score_beliefs = false);

// The jobs of one replicate at a level (Poisson arrivals at the level's rate, or the trace).
Workload make_workload(const ExperimentConfig& config, int level, std::uint64_t seed);

// The engine settings of one replicate of this config.
EngineConfig engine_config(const ExperimentConfig& config, std::uint64_t seed, bool keep_events);

// The belief source `name` for one replicate: none, oracle, history (the config's history catalog), exploration (the
// job's own noisy measured steps, work from history) or online (Eq. 1 refitted to the losses the job reports, speed
// and prior from history). `wl` and `seed` feed the observation channels; InputError for an unknown name.
std::shared_ptr<const BeliefSource> make_beliefs(const ExperimentConfig& config, const std::string& name,
                                                 std::shared_ptr<const Workload> wl, std::uint64_t seed);

}  // namespace ringsched
