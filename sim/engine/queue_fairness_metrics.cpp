// sim/engine/queue_fairness_metrics.cpp — the queueing-delay distribution (queue_delay_mean, _median, _p95) and the
// finish-time fairness metrics (jain_index, rho_mean, rho_max), registered and computed here over the jobs of the
// measurement window: on request (--breakdown prints them, docs/config.md), not in default outputs.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "models/quantile.h"
#include "sim/engine/fairness_metric.h"
#include "sim/engine/metrics.h"

namespace ringsched {
namespace {

// Each job's queueing delay (first start - arrival), in job id order.
std::vector<double> queue_delays(const RunResult& run, const MeasureWindow& window) {
  std::vector<double> d;
  for (const JobResult& j : run.jobs)
    if (window.contains(j.id)) d.push_back(j.first_start - j.arrival);
  return d;
}

double queue_delay_mean(const RunResult& run, int /*total_gpus*/, const MeasureWindow& window) {
  const std::vector<double> d = queue_delays(run, window);
  return d.empty() ? 0.0 : std::accumulate(d.begin(), d.end(), 0.0) / static_cast<double>(d.size());
}

double queue_delay_median(const RunResult& run, int /*total_gpus*/, const MeasureWindow& window) {
  const std::vector<double> d = queue_delays(run, window);
  return d.empty() ? 0.0 : models::quantile(d, 0.5);
}

double queue_delay_p95(const RunResult& run, int /*total_gpus*/, const MeasureWindow& window) {
  const std::vector<double> d = queue_delays(run, window);
  return d.empty() ? 0.0 : models::quantile(d, 0.95);
}

// The rho of each job of the window that has one (job_rho >= 0).
std::vector<double> rhos(const RunResult& run, int total_gpus, const MeasureWindow& window) {
  std::vector<double> out;
  for (const JobResult& j : run.jobs) {
    if (!window.contains(j.id)) continue;
    const double rho = job_rho(j, run.jobs.size(), total_gpus);
    if (rho > 0.0) out.push_back(rho);
  }
  return out;
}

double jain_of_speedups(const RunResult& run, int total_gpus, const MeasureWindow& window) {
  std::vector<double> x = rhos(run, total_gpus, window);
  for (double& v : x)
    v = 1.0 / v;
  return jain_index(x);
}

double rho_mean(const RunResult& run, int total_gpus, const MeasureWindow& window) {
  const std::vector<double> r = rhos(run, total_gpus, window);
  return r.empty() ? 0.0 : std::accumulate(r.begin(), r.end(), 0.0) / static_cast<double>(r.size());
}

double rho_max(const RunResult& run, int total_gpus, const MeasureWindow& window) {
  const std::vector<double> r = rhos(run, total_gpus, window);
  return r.empty() ? 0.0 : *std::max_element(r.begin(), r.end());
}

const MetricRegistrar queue_delay_mean_metric{
    {"queue_delay_mean", "s", "queue delay mean", 1.0 / 60.0, "%.1f", false, nullptr, "min",
     "with --breakdown: mean over jobs of the queueing delay (first start - arrival; = mean_queue_s)",
     queue_delay_mean},
    150};
const MetricRegistrar queue_delay_median_metric{
    {"queue_delay_median", "s", "queue delay median", 1.0 / 60.0, "%.1f", false, nullptr, "min",
     "with --breakdown: median queueing delay (linear-interpolation quantile, type 7, as the JCT quantiles)",
     queue_delay_median},
    151};
const MetricRegistrar queue_delay_p95_metric{
    {"queue_delay_p95", "s", "queue delay p95", 1.0 / 60.0, "%.1f", false, nullptr, "min",
     "with --breakdown: 95th percentile of the queueing delay (type 7: the value at rank 1 + 0.95 (n - 1), "
     "interpolated)",
     queue_delay_p95},
    152};
const MetricRegistrar jain_index_metric{{"jain_index", "fraction", "Jain index", 1.0, "%.3f", false, nullptr, "",
                                         "with --breakdown: Jain's index (sum x)^2 / (n sum x^2) over the jobs with a "
                                         "rho, x = 1 / rho (1 = equal; 0 = no job has a rho: shown absent)",
                                         jain_of_speedups},
                                        153};
const MetricRegistrar rho_mean_metric{
    {"rho_mean", "ratio", "rho mean", 1.0, "%.3f", false, nullptr, "",
     "with --breakdown: mean finish-time fairness rho = JCT / run time alone (docs/config.md; Shockwave traces: "
     "Shockwave's rho)",
     rho_mean},
    154};
const MetricRegistrar rho_max_metric{
    {"rho_max", "ratio", "rho max", 1.0, "%.3f", false, nullptr, "",
     "with --breakdown: largest rho of any job (0 = no job has a rho: shown absent)", rho_max},
    155};

}  // namespace

const std::vector<std::string>& queue_fairness_metric_names() {
  static const std::vector<std::string> names = {"queue_delay_mean", "queue_delay_median", "queue_delay_p95",
                                                 "jain_index",       "rho_mean",           "rho_max"};
  return names;
}

bool zero_means_no_rho(const std::string& metric) {
  return metric == "jain_index" || metric == "rho_mean" || metric == "rho_max";
}

}  // namespace ringsched
