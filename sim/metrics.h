// sim/metrics.h — per-run metrics (JCT mean/median/p95, makespan, queueing delay, GPU utilisation, restarts) and
// aggregation across replicates (mean, sample standard deviation, 95% confidence half-width by Student's t).
#pragma once

#include <string>
#include <vector>

#include "sim/engine.h"

namespace ringsched {

struct RunMetrics {
  int jobs = 0;
  double mean_jct_s = 0.0;
  double median_jct_s = 0.0;
  double p95_jct_s = 0.0;
  double makespan_s = 0.0;       // last completion - first arrival
  double mean_queue_s = 0.0;     // first start - arrival, averaged
  double gpu_utilisation = 0.0;  // allocated GPU-seconds / (GPUs * makespan)
  double restarts_per_job = 0.0;
};

RunMetrics compute_metrics(const RunResult& run, int total_gpus);

// Metric names in output order, and access by name.
const std::vector<std::string>& metric_names();
double metric_value(const RunMetrics& m, const std::string& name);

struct Aggregate {
  int n = 0;
  double mean = 0.0;
  double sd = 0.0;    // sample standard deviation (n - 1)
  double ci95 = 0.0;  // half-width: t(0.975, n-1) * sd / sqrt(n); 0 when n < 2
};

Aggregate aggregate(const std::vector<double>& values);

// Linear-interpolation quantile (type 7) of unsorted values, q in [0, 1].
double quantile(std::vector<double> values, double q);

}  // namespace ringsched
