// sim/engine/fairness_metric.h — Shockwave's (NSDI'23) finish-time fairness per job, rho, and the `unfair_jobs`
// metric (the jobs with rho > 1.1), for jobs whose isolated time is known (JobResult::isolated_s: Shockwave traces);
// every other job's rho (JCT / its run time alone, JobResult::alone_s), and Jain's index.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/engine/engine.h"

namespace ringsched {

// The rho above which `unfair_jobs` counts a job (the 1.1; Shockwave's aggregate_result.py prints 1.05).
inline constexpr double kUnfairRho = 1.1;

// Shockwave's rho (scheduler.py get_finish_time_fairness, its static contention factor): JCT / (isolated time x
// max(1, jobs in the trace / GPUs)), rounded to 5 decimals as it rounds. -1 for a job without an isolated time.
double shockwave_rho(const JobResult& job, std::size_t trace_jobs, int total_gpus);

// A job's finish-time fairness rho: Shockwave's (above) for a job with an isolated time, else JCT / alone_s (its run
// time alone, sim/engine/job_result.h). -1 for a job with neither (goodput-model jobs).
double job_rho(const JobResult& job, std::size_t trace_jobs, int total_gpus);

// Sets each job's alone_s (sim/engine/job_result.h) from the workload's truth (its class, speed factor, request)
// on `cluster` (the pool of the GPU type it ran on last). After the run, not in the engine: its speed lookups on
// measured tables must not count among the run's (table_lookups in summary.json).
void set_alone_times(std::vector<JobResult>& jobs, const Workload& workload, const ClusterConfig& cluster);

// queue_delay_mean, queue_delay_median, queue_delay_p95, jain_index, rho_mean, rho_max (registered in
// sim/engine/queue_fairness_metrics.cpp): the metrics output.breakdown reports.
const std::vector<std::string>& queue_fairness_metric_names();
// jain_index, rho_mean and rho_max are 0 only when no job has a rho (goodput-model jobs): outputs show them absent.
bool zero_means_no_rho(const std::string& metric);

// Jain's fairness index (sum x)^2 / (n x sum x^2) of positive values: 1 when all are equal, 1/n when one holds all;
// 0 for no values.
double jain_index(const std::vector<double>& x);

}  // namespace ringsched
