// sim/engine/failure_metrics.cpp — the failure metrics (cluster.failures, docs/failures.md), registered and computed
// here over each job's JobFailureStats and the run's exposure by job size: on request, not in default outputs (all 0
// without failures).
#include <functional>

#include "sim/engine/metrics.h"

namespace ringsched {
namespace {

constexpr double kSecondsPerHour = 3600.0;

// The sum of `part` over every job of the run, in GPU-hours (lost GPU time is the cluster's, not the window's).
double gpu_hours(const RunResult& run, const std::function<double(const JobFailureStats&)>& part) {
  double s = 0.0;
  for (const JobResult& j : run.jobs)
    s += part(j.failure);
  return s / kSecondsPerHour;
}

// The mean over the jobs in `window` of one per-job count of JobFailureStats.
double mean_per_job(const RunResult& run, const MeasureWindow& window, int JobFailureStats::*count) {
  int sum = 0;
  int jobs = 0;
  for (const JobResult& j : run.jobs) {
    if (!window.contains(j.id)) continue;
    sum += j.failure.*count;
    ++jobs;
  }
  return jobs == 0 ? 0.0 : static_cast<double>(sum) / static_cast<double>(jobs);
}

double failures_per_job(const RunResult& run, int /*total_gpus*/, const MeasureWindow& window) {
  return mean_per_job(run, window, &JobFailureStats::failures);
}

double preemptions_per_job(const RunResult& run, int /*total_gpus*/, const MeasureWindow& window) {
  return mean_per_job(run, window, &JobFailureStats::preemptions);
}

double gpu_hours_lost(const RunResult& run, int /*total_gpus*/, const MeasureWindow& /*window*/) {
  return gpu_hours(run, [](const JobFailureStats& f) { return f.recompute_gpu_s + f.restart_gpu_s + f.wait_gpu_s; });
}
double recompute_gpu_hours(const RunResult& run, int /*total_gpus*/, const MeasureWindow& /*window*/) {
  return gpu_hours(run, [](const JobFailureStats& f) { return f.recompute_gpu_s; });
}
double failure_restart_gpu_hours(const RunResult& run, int /*total_gpus*/, const MeasureWindow& /*window*/) {
  return gpu_hours(run, [](const JobFailureStats& f) { return f.restart_gpu_s; });
}
double failure_wait_gpu_hours(const RunResult& run, int /*total_gpus*/, const MeasureWindow& /*window*/) {
  return gpu_hours(run, [](const JobFailureStats& f) { return f.wait_gpu_s; });
}
double checkpoint_gpu_hours(const RunResult& run, int /*total_gpus*/, const MeasureWindow& /*window*/) {
  return gpu_hours(run, [](const JobFailureStats& f) { return f.checkpoint_gpu_s; });
}

// Effective training time fraction (Meta's ETTR, pooled): time kept as progress (checkpoint overhead and recomputed
// work taken out) over the time from each job's first start to its finish, summed over the jobs in `window`.
double effective_training_time(const RunResult& run, int /*total_gpus*/, const MeasureWindow& window) {
  if (!run.failures) return 0.0;
  double kept = 0.0;
  double span = 0.0;
  for (const JobResult& j : run.jobs) {
    if (!window.contains(j.id)) continue;
    kept += j.failure.productive_s;
    span += j.finish - j.first_start;
  }
  return span > 0.0 ? kept / span : 0.0;
}

// Jobs' mean time to failure: the time jobs held GPUs over the failures that hit them (0 when none failed).
double job_mttf_h(const RunResult& run, int /*total_gpus*/, const MeasureWindow& /*window*/) {
  double exposure = 0.0;
  int failures = 0;
  for (const FailureSize& s : run.failure_sizes) {
    exposure += s.exposure_s;
    failures += s.failures;
  }
  return failures > 0 ? exposure / static_cast<double>(failures) / kSecondsPerHour : 0.0;
}

const MetricRegistrar failures_per_job_metric{
    {"failures_per_job", "count", "failures/job", 1.0, "%.2f", false, nullptr, "",
     "cluster.failures: mean number of node failures that hit a job", failures_per_job},
    300};
const MetricRegistrar preemptions_per_job_metric{
    {"preemptions_per_job", "count", "preemptions/job", 1.0, "%.2f", false, nullptr, "",
     "cluster.failures.preemptions: mean number of evictions with enough notice to checkpoint (no work lost)",
     preemptions_per_job},
    305};
const MetricRegistrar gpu_hours_lost_metric{
    {"gpu_hours_lost", "gpu_h", "GPU-h lost", 1.0, "%.1f", false, nullptr, "",
     "cluster.failures: GPU-hours of recomputed work, restarts after failures and waiting while evicted (the three "
     "below)",
     gpu_hours_lost},
    310};
const MetricRegistrar recompute_gpu_hours_metric{
    {"recompute_gpu_hours", "gpu_h", "GPU-h recomputed", 1.0, "%.1f", false, nullptr, "",
     "cluster.failures: GPU-hours of work lost since the last checkpoint (computed again)", recompute_gpu_hours},
    320};
const MetricRegistrar failure_restart_gpu_hours_metric{
    {"failure_restart_gpu_hours", "gpu_h", "GPU-h restarting", 1.0, "%.1f", false, nullptr, "",
     "cluster.failures: GPU-hours of the restarts that follow failures (restart cost x GPUs)",
     failure_restart_gpu_hours},
    330};
const MetricRegistrar failure_wait_gpu_hours_metric{
    {"failure_wait_gpu_hours", "gpu_h", "GPU-h waiting", 1.0, "%.1f", false, nullptr, "",
     "cluster.failures: GPU-hours jobs waited between a failure and their restart (wait x the GPUs they lost)",
     failure_wait_gpu_hours},
    340};
const MetricRegistrar checkpoint_gpu_hours_metric{
    {"checkpoint_gpu_hours", "gpu_h", "GPU-h checkpointing", 1.0, "%.1f", false, nullptr, "",
     "cluster.failures: GPU-hours spent writing checkpoints (cost / (interval + cost) of the running time)",
     checkpoint_gpu_hours},
    350};
const MetricRegistrar effective_training_time_metric{
    {"effective_training_time", "fraction", "effective training time", 1.0, "%.3f", false, nullptr, "",
     "cluster.failures: time kept as progress over the time from first start to finish, pooled over jobs (ETTR)",
     effective_training_time},
    360};
const MetricRegistrar job_mttf_h_metric{
    {"job_mttf_h", "h", "job MTTF (h)", 1.0, "%.2f", false, nullptr, "",
     "cluster.failures: time jobs held GPUs / failures that hit them (0 when none failed; by size in the failures "
     "report)",
     job_mttf_h},
    370};

}  // namespace
}  // namespace ringsched
