// sim/engine/fairness_metric.h — Shockwave's (NSDI'23) finish-time fairness per job, rho, and the `unfair_jobs`
// metric (the jobs with rho > 1.1), for jobs whose isolated time is known (JobResult::isolated_s: Shockwave traces).
#pragma once

#include <cstddef>

#include "sim/engine/engine.h"

namespace ringsched {

// The rho above which `unfair_jobs` counts a job (the 1.1; Shockwave's aggregate_result.py prints 1.05).
inline constexpr double kUnfairRho = 1.1;

// Shockwave's rho (scheduler.py get_finish_time_fairness, its static contention factor): JCT / (isolated time x
// max(1, jobs in the trace / GPUs)), rounded to 5 decimals as it rounds. -1 for a job without an isolated time.
double shockwave_rho(const JobResult& job, std::size_t trace_jobs, int total_gpus);

}  // namespace ringsched
