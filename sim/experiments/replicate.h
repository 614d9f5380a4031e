// sim/experiments/replicate.h — one replicate of an experiment config: its workload (the truth: Poisson arrivals at a
// level's rate, or the trace), its belief source (built from numbers the truth hands out through observation
// channels only), its strategy, and the engine run. Used by the runner, the prediction errors, sweeps and tests.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/table_speed.h"
#include "sim/beliefs/belief_sources.h"
#include "sim/engine/metrics.h"
#include "sim/engine/time_series.h"
#include "sim/experiments/config.h"
#include "sim/experiments/progress.h"

namespace ringsched {

// What every run of an experiment reports, in a runner's table (CellRun) or a sweep's results (SweepRun): which run
// it was, its metrics, and its error if it failed.
struct RunOutcome {
  int level = 0;
  int strategy = 0;
  int replicate = 0;       // the seed index: seed = the config's base seed + replicate
  std::uint64_t seed = 0;  // the run's seed
  RunMetrics metrics;
  std::string error;  // non-empty if the run failed
};

// A run as the runner keeps it: its outcome and what the outputs and belief checks read.
struct CellRun : RunOutcome {
  std::vector<JobResult> jobs;
  std::vector<AllocationEvent> events;
  std::uint64_t events_processed = 0;
  std::uint64_t decisions = 0;      // strategy calls
  std::uint64_t table_lookups = 0;  // measured-table speed lookups of the run (models/table_speed.h)
  std::uint64_t table_clamped = 0;  // of them, outside the measured range (answered by clamping)
  // The same lookups per measured table (truth or belief), with the range the clamped ones asked for.
  std::vector<std::pair<const models::TableStepTime*, models::TableClampStats>> table_clamps;
  BeliefScore belief_score;  // when run with score_beliefs
  // With workload.measure: measured jobs that finished after the last job arrived (the cluster was draining then).
  int measured_after_arrivals = 0;
  // With output.series_s: the run's state at every interval boundary (series.csv; sim/engine/time_series.h).
  std::vector<SeriesPoint> series;
};

// One replicate (used by run_experiment, sweeps and tests). score_beliefs: also score the strategy's beliefs at
// every decision (CellRun::belief_score; the prediction-error row of learning beliefs).
// stop: asked during the run (EngineConfig::stop); true ends it with an error.
CellRun run_cell(const ExperimentConfig& config, int level, int strategy, int seed_index, bool keep_events,
                 LiveProgress* progress = nullptr, bool score_beliefs = false,
                 const std::function<bool()>& stop = nullptr);

// The jobs of one replicate at a level (Poisson arrivals at the level's rate, or the trace).
Workload make_workload(const ExperimentConfig& config, int level, std::uint64_t seed);

// The engine settings of one replicate of this config.
EngineConfig engine_config(const ExperimentConfig& config, std::uint64_t seed, bool keep_events);

// The belief source `name` for one replicate: none, oracle, history (the config's history catalog), agent (history as
// the prior, learning from the job's own measured steps), exploration (the
// job's own noisy measured steps, work from history) or online (Eq. 1 refitted to the losses the job reports, speed
// and prior from history). `wl` and `seed` feed the observation channels; InputError for an unknown name.
std::shared_ptr<const BeliefSource> make_beliefs(const ExperimentConfig& config, const std::string& name,
                                                 std::shared_ptr<const Workload> wl, std::uint64_t seed);

}  // namespace ringsched
