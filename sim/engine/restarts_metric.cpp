// sim/engine/restarts_metric.cpp — the `restarts_per_job` metric, registered and computed here: the whole recipe for a
// metric is one file like this (docs/extending.md).
#include "sim/engine/metrics.h"

namespace ringsched {
namespace {

// Resizes and resumes per job over the jobs in `window` (0 when the window holds no job).
double restarts_per_job(const RunResult& run, int /*total_gpus*/, const MeasureWindow& window) {
  double restarts = 0.0;
  int jobs = 0;
  for (const auto& j : run.jobs) {
    if (!window.contains(j.id)) continue;
    restarts += j.restarts;
    ++jobs;
  }
  return jobs == 0 ? 0.0 : restarts / static_cast<double>(jobs);
}

const MetricRegistrar restarts_per_job_metric{
    {"restarts_per_job", "count", "restarts/job", 1.0, "%.1f", true, nullptr, "",
     "mean number of resizes and resumes per job (first starts are not restarts)", restarts_per_job},
    70};

}  // namespace
}  // namespace ringsched
