// sim/engine/contention_metrics.cpp — the link-contention metrics (cluster.network, docs/network.md), registered and
// computed here over each job's contention_slowdown and shared_link (RunResult::add_contention): on request, not in
// default outputs.
#include "sim/engine/metrics.h"

namespace ringsched {
namespace {

// Mean of each job's time-averaged slowdown over the jobs in `window` (1 without contention or jobs).
double mean_contention_slowdown(const RunResult& run, int /*total_gpus*/, const MeasureWindow& window) {
  double sum = 0.0;
  int jobs = 0;
  for (const JobResult& j : run.jobs) {
    if (!window.contains(j.id)) continue;
    sum += j.contention_slowdown;
    ++jobs;
  }
  return jobs == 0 ? 1.0 : sum / static_cast<double>(jobs);
}

// Share of the jobs in `window` that ever shared a link with another job.
double shared_link_jobs(const RunResult& run, int /*total_gpus*/, const MeasureWindow& window) {
  int shared = 0;
  int jobs = 0;
  for (const JobResult& j : run.jobs) {
    if (!window.contains(j.id)) continue;
    shared += j.shared_link ? 1 : 0;
    ++jobs;
  }
  return jobs == 0 ? 0.0 : static_cast<double>(shared) / static_cast<double>(jobs);
}

// The same share weighted by each job's GPU-seconds.
double shared_link_gpus(const RunResult& run, int /*total_gpus*/, const MeasureWindow& window) {
  double shared = 0.0;
  double all = 0.0;
  for (const JobResult& j : run.jobs) {
    if (!window.contains(j.id)) continue;
    if (j.shared_link) shared += j.gpu_seconds;
    all += j.gpu_seconds;
  }
  return all > 0.0 ? shared / all : 0.0;
}

// GPU time spent computing rather than waiting on shared links: each job's GPU-seconds divided by its slowdown, over
// the cluster's GPU-seconds from the first arrival to the last completion (Crux's "GPU utilisation" under contention;
// equal to gpu_utilisation without it).
double effective_gpu_utilisation(const RunResult& run, int total_gpus, const MeasureWindow& /*window*/) {
  const double span = run.last_finish - run.first_arrival;
  if (!(span > 0.0) || total_gpus <= 0) return 0.0;
  double useful = 0.0;
  for (const JobResult& j : run.jobs)
    useful += j.gpu_seconds / j.contention_slowdown;
  return useful / (static_cast<double>(total_gpus) * span);
}

const MetricRegistrar mean_contention_slowdown_metric{
    {"mean_contention_slowdown", "ratio", "contention slowdown", 1.0, "%.3f", false, nullptr, "",
     "mean over jobs of each job's time-averaged iteration time shared / alone (cluster.network; 1 = none)",
     mean_contention_slowdown},
    200};
const MetricRegistrar shared_link_jobs_metric{
    {"shared_link_jobs", "fraction", "jobs on a shared link", 1.0, "%.3f", false, nullptr, "",
     "share of jobs that ever shared a network link with another job (cluster.network)", shared_link_jobs},
    210};
const MetricRegistrar shared_link_gpus_metric{
    {"shared_link_gpus", "fraction", "GPU time on a shared link", 1.0, "%.3f", false, nullptr, "",
     "share of GPU-seconds held by jobs that ever shared a network link (cluster.network)", shared_link_gpus},
    220};
const MetricRegistrar effective_gpu_utilisation_metric{
    {"effective_gpu_utilisation", "fraction", "effective GPU utilisation", 1.0, "%.3f", false, nullptr, "",
     "GPU-seconds divided by each job's contention slowdown, over GPUs x makespan (cluster.network; = "
     "gpu_utilisation without contention)",
     effective_gpu_utilisation},
    230};

}  // namespace
}  // namespace ringsched
