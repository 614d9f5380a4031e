// sim/engine/time_series.h — a run's state sampled every interval (series.csv, --series): GPUs held, queued and
// running jobs at t = 0, dt, 2 dt, ... up to the first boundary at or after the last finish, computed exactly from the
// run's allocation log (every start, resize, preemption, resume, migration, failure and finish the engine made).
#pragma once

#include <vector>

#include "sim/engine/engine.h"

namespace ringsched {

// The state at one boundary t, after every allocation change at times <= t.
struct SeriesPoint {
  double time = 0.0;
  int busy_gpus = 0;     // GPUs held by jobs (restart pauses included, as gpu_utilisation counts them)
  int queued_jobs = 0;   // arrived (arrival <= t), unfinished (finish > t), holding no GPUs
  int running_jobs = 0;  // holding GPUs
};

// Most rows one run's series may have; more is an InputError naming output.series_s / --series.
inline constexpr double kMaxSeriesRows = 10'000'000.0;

// Boundaries k x interval_s, k = 0 .. ceil(last finish / interval_s). `events` in time order (RunResult::events, all
// recorded); `jobs` the run's jobs (arrival, finish). InputError when the run would need more than kMaxSeriesRows.
std::vector<SeriesPoint> time_series(const std::vector<JobResult>& jobs, const std::vector<AllocationEvent>& events,
                                     double interval_s);

}  // namespace ringsched
