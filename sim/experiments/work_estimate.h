// sim/experiments/work_estimate.h — how much work a config's runs will be, estimated before running from its
// workload (a trace's rows, or the levels' arrival rates and the catalog's mean job), so that a run that would take
// hours says so with figures: rounds with a job active (round-based runs skip idle rounds), jobs active at once, and
// the size of a Gavel LP policy's program (its solve grows about as the cube of the jobs in it). Estimates only:
// nothing here changes a run.
#pragma once

#include <string>

#include "sim/experiments/config.h"

namespace ringsched {

// Thresholds of large_work_warning.
inline constexpr double kWarnActiveRounds = 1e6;     // rounds with a job active, per run
inline constexpr double kWarnLpJobs = 2000.0;        // jobs active at once under a Gavel LP policy
inline constexpr double kWarnActiveJobs = 200000.0;  // jobs active at once under any policy

struct WorkEstimate {
  int jobs = 0;                 // per run
  double active_jobs = 0.0;     // jobs active at once (the busiest level)
  double active_seconds = 0.0;  // simulated seconds with a job active (the longest level)
  double rounds = 0.0;          // round-based runs: rounds with a job active (0 when event-driven)
  std::string lp_strategy;      // the first Gavel LP policy among the strategies ("" = none)
  int gpu_types = 1;            // the LP's variables are jobs x GPU types
};

WorkEstimate estimate_work(const ExperimentConfig& c);

// One sentence (no "warning:" prefix) when an estimate crosses a threshold, with the figures and what to lower;
// "" otherwise.
std::string large_work_warning(const ExperimentConfig& c);

}  // namespace ringsched
