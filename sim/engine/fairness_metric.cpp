// sim/engine/fairness_metric.cpp — Shockwave's rho per job and the `unfair_jobs` metric, registered here (see the
// header).
#include "sim/engine/fairness_metric.h"

#include <algorithm>
#include <cmath>

#include "sim/engine/metrics.h"

namespace ringsched {

double shockwave_rho(const JobResult& job, std::size_t trace_jobs, int total_gpus) {
  if (!(job.isolated_s > 0.0) || total_gpus <= 0) return -1.0;
  const double contention = std::max(1.0, static_cast<double>(trace_jobs) / total_gpus);
  return std::round((job.finish - job.arrival) / (job.isolated_s * contention) * 1e5) / 1e5;
}

double job_rho(const JobResult& job, std::size_t trace_jobs, int total_gpus) {
  if (job.isolated_s > 0.0) return shockwave_rho(job, trace_jobs, total_gpus);
  if (!(job.alone_s > 0.0)) return -1.0;
  return (job.finish - job.arrival) / job.alone_s;
}

double jain_index(const std::vector<double>& x) {
  if (x.empty()) return 0.0;
  double sum = 0.0;
  double squares = 0.0;
  for (double v : x) {
    sum += v;
    squares += v * v;
  }
  return squares > 0.0 ? sum * sum / (static_cast<double>(x.size()) * squares) : 0.0;
}

namespace {

// Jobs in `window` with rho > 1.1 (0 when no job has an isolated time).
double unfair_jobs(const RunResult& run, int total_gpus, const MeasureWindow& window) {
  int count = 0;
  for (const JobResult& j : run.jobs)
    if (window.contains(j.id) && shockwave_rho(j, run.jobs.size(), total_gpus) > kUnfairRho) ++count;
  return count;
}

const MetricRegistrar unfair_jobs_metric{
    {"unfair_jobs", "count", "unfair jobs", 1.0, "%.0f", false, nullptr, "",
     "with a shockwave trace: jobs whose finish-time fairness rho = JCT / (isolated time x max(1, jobs / GPUs)) "
     "exceeds 1.1 (docs/shockwave.md)",
     unfair_jobs},
    140};

}  // namespace
}  // namespace ringsched
