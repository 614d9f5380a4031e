// sim/experiments/runner.h — the replicate runner: levels x strategies x seeds of one experiment config, run on a
// thread pool with results in a fixed order (same output for any thread count); one replicate builds its workload
// (the truth), its belief source (from numbers the truth hands out through observation channels only) and its
// strategy, and runs the engine. In-sample and held-out configs run here alike.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/beliefs/belief_sources.h"
#include "sim/engine/metrics.h"
#include "sim/experiments/config.h"
#include "sim/experiments/prediction_errors.h"

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
  std::uint64_t table_lookups = 0;  // measured-table speed lookups of the run (models/table_speed.h)
  std::uint64_t table_clamped = 0;  // of them, outside the measured range (answered by clamping)
  std::string error;                // non-empty if the run failed
};

struct ExperimentResult {
  std::vector<CellRun> runs;                       // ordered by level, then strategy, then seed
  std::vector<PredictionError> prediction_errors;  // when output.prediction_errors
  [[nodiscard]] const CellRun& run(const ExperimentConfig& c, int level, int strategy, int seed_index) const;
  [[nodiscard]] std::uint64_t table_lookups() const;
  [[nodiscard]] std::uint64_t table_clamped() const;
};

// Runs every (level, strategy, seed), then the prediction errors when asked. threads <= 0: all hardware threads.
ExperimentResult run_experiment(const ExperimentConfig& config, int threads);

// One replicate (used by run_experiment, sweeps and tests).
CellRun run_cell(const ExperimentConfig& config, int level, int strategy, int seed_index, bool keep_events);

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
