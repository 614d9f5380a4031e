// sim/engine/metrics.cpp — the metric registry, the built-in metrics (their computation and rows) and replicate
// aggregation.
#include "sim/engine/metrics.h"

#include "models/quantile.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include <boost/math/distributions/students_t.hpp>

namespace ringsched {

namespace {

// The RunMetrics fields (the built-in metrics but restarts_per_job).
RunMetrics builtin_metrics(const RunResult& run, int total_gpus, const MeasureWindow& window) {
  RunMetrics m;
  std::vector<double> jct;
  jct.reserve(run.jobs.size());
  double queue = 0.0;
  for (const auto& j : run.jobs) {
    if (!window.contains(j.id)) continue;
    jct.push_back(j.finish - j.arrival);
    queue += j.first_start - j.arrival;
  }
  m.jobs = static_cast<int>(jct.size());
  if (jct.empty()) return m;
  const double n = static_cast<double>(jct.size());
  m.mean_jct_s = std::accumulate(jct.begin(), jct.end(), 0.0) / n;
  m.median_jct_s = models::quantile(jct, 0.5);
  m.p95_jct_s = models::quantile(jct, 0.95);
  m.makespan_s = run.last_finish - run.first_arrival;
  m.mean_queue_s = queue / n;
  m.gpu_utilisation =
      m.makespan_s > 0.0 ? run.allocated_gpu_seconds / (static_cast<double>(total_gpus) * m.makespan_s) : 0.0;
  m.pool_gpu_seconds = run.pool_gpu_seconds;
  m.link_utilisation = run.link_utilisation;
  m.failure_sizes = run.failure_sizes;
  if (run.placed) {
    m.placed = true;
    m.fragmentation =
        m.makespan_s > 0.0 ? run.fragmented_gpu_seconds / (static_cast<double>(total_gpus) * m.makespan_s) : 0.0;
    m.mean_nodes_spanned = run.holding_job_seconds > 0.0 ? run.node_span_seconds / run.holding_job_seconds : 0.0;
    m.migrations_per_job = static_cast<double>(run.migrations) / static_cast<double>(run.jobs.size());
  }
  return m;
}

}  // namespace

RunMetrics compute_metrics(const RunResult& run, int total_gpus, const MeasureWindow& window) {
  RunMetrics m = builtin_metrics(run, total_gpus, window);
  for (const MetricInfo& info : metric_table())
    if (info.compute) m.computed[info.name] = info.compute(run, total_gpus, window);
  return m;
}

namespace {

struct MetricRegistration {
  MetricInfo info;
  int rank;
};

std::vector<MetricRegistration>& metric_registrations() {
  static std::vector<MetricRegistration> registrations;
  return registrations;
}

std::vector<MetricInfo> ranked_metrics() {
  auto regs = metric_registrations();
  std::stable_sort(regs.begin(), regs.end(), [](const MetricRegistration& a, const MetricRegistration& b) {
    return a.rank != b.rank ? a.rank < b.rank : std::string(a.info.name) < b.info.name;
  });
  std::vector<MetricInfo> out;
  for (const auto& r : regs) {
    for (const auto& seen : out)
      if (std::string(seen.name) == r.info.name)
        throw std::logic_error(std::string("metric '") + r.info.name + "' is registered twice (MetricRegistrar)");
    out.push_back(r.info);
  }
  return out;
}

// The built-in rows: RunMetrics fields that compute_metrics fills (restarts_per_job, rank 70, computes itself in
// sim/engine/restarts_metric.cpp).
const MetricRegistrar mean_jct_s_metric{
    {"mean_jct_s", "s", "mean JCT", 1.0 / 60.0, "%.1f", true, &RunMetrics::mean_jct_s, "min",
     "mean job completion time (finish - arrival)", nullptr},
    10};
const MetricRegistrar median_jct_s_metric{
    {"median_jct_s", "s", "median JCT", 1.0 / 60.0, "%.1f", true, &RunMetrics::median_jct_s, "min",
     "median JCT (linear-interpolation quantile, type 7)", nullptr},
    20};
const MetricRegistrar p95_jct_s_metric{{"p95_jct_s", "s", "p95 JCT", 1.0 / 60.0, "%.1f", true, &RunMetrics::p95_jct_s,
                                        "min", "95th percentile JCT (type 7)", nullptr},
                                       30};
const MetricRegistrar makespan_s_metric{{"makespan_s", "s", "makespan", 1.0 / 60.0, "%.1f", true,
                                         &RunMetrics::makespan_s, "min", "last completion - first arrival", nullptr},
                                        40};
const MetricRegistrar mean_queue_s_metric{
    {"mean_queue_s", "s", "queueing", 1.0 / 60.0, "%.1f", true, &RunMetrics::mean_queue_s, "min",
     "mean of (first start - arrival)", nullptr},
    50};
const MetricRegistrar gpu_utilisation_metric{
    {"gpu_utilisation", "fraction", "GPU util", 1.0, "%.3f", true, &RunMetrics::gpu_utilisation, "",
     "allocated GPU-seconds (restart pauses included) / (total GPUs x makespan)", nullptr},
    60};
const MetricRegistrar fragmentation_metric{
    {"fragmentation", "fraction", "fragmentation", 1.0, "%.4f", false, &RunMetrics::fragmentation, "",
     "with a placement policy: time-average of the free GPUs on partially occupied nodes / total GPUs "
     "(docs/topology.md)",
     nullptr},
    80};
const MetricRegistrar mean_nodes_spanned_metric{
    {"mean_nodes_spanned", "count", "nodes/job", 1.0, "%.2f", false, &RunMetrics::mean_nodes_spanned, "",
     "with a placement policy: time-average of the nodes spanned per job holding GPUs", nullptr},
    90};
const MetricRegistrar migrations_per_job_metric{
    {"migrations_per_job", "count", "migrations/job", 1.0, "%.2f", false, &RunMetrics::migrations_per_job, "",
     "with a placement policy: defragmentation moves per job", nullptr},
    100};
const MetricRegistrar gap_mean_metric{
    {"gap_mean", "fraction", "gap mean", 1.0, "%.4f", false, &RunMetrics::gap_mean, "",
     "with output.optimality_gap: mean over decisions of objective(decision) / optimum - 1", nullptr},
    110};
const MetricRegistrar gap_p95_metric{{"gap_p95", "fraction", "gap p95", 1.0, "%.4f", false, &RunMetrics::gap_p95, "",
                                      "with output.optimality_gap: 95th percentile over decisions of the gap", nullptr},
                                     120};
const MetricRegistrar gap_max_metric{{"gap_max", "fraction", "gap max", 1.0, "%.4f", false, &RunMetrics::gap_max, "",
                                      "with output.optimality_gap: largest gap of any decision", nullptr},
                                     130};

}  // namespace

MetricRegistrar::MetricRegistrar(MetricInfo info, int rank) {
  metric_registrations().push_back({info, rank});
}

// Registrars run during static initialisation, before any look-up.
const std::vector<MetricInfo>& metric_table() {
  static const std::vector<MetricInfo> table = ranked_metrics();
  return table;
}

const MetricInfo& metric_info(const std::string& name) {
  for (const auto& m : metric_table())
    if (name == m.name) return m;
  throw std::invalid_argument("unknown metric " + name);
}

namespace {

std::vector<std::string> names_where(bool standard) {
  std::vector<std::string> out;
  for (const auto& m : metric_table())
    if (m.standard == standard) out.emplace_back(m.name);
  return out;
}

}  // namespace

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names = names_where(true);
  return names;
}

double metric_value(const RunMetrics& m, const std::string& name) {
  const MetricInfo& info = metric_info(name);
  if (info.field) return m.*(info.field);
  auto it = m.computed.find(info.name);
  return it == m.computed.end() ? 0.0 : it->second;
}

void set_metric_value(RunMetrics& m, const std::string& name, double v) {
  const MetricInfo& info = metric_info(name);
  if (info.field)
    m.*(info.field) = v;
  else
    m.computed[info.name] = v;
}

const std::vector<std::string>& extra_metric_names() {
  static const std::vector<std::string> names = names_where(false);
  return names;
}

void set_gap_metrics(RunMetrics& m, const std::vector<double>& gaps) {
  m.gap_decisions = static_cast<int>(gaps.size());
  if (gaps.empty()) return;
  m.gap_mean = std::accumulate(gaps.begin(), gaps.end(), 0.0) / static_cast<double>(gaps.size());
  m.gap_p95 = models::quantile(gaps, 0.95);
  m.gap_max = *std::max_element(gaps.begin(), gaps.end());
}

Aggregate aggregate(const std::vector<double>& values) {
  Aggregate a;
  a.n = static_cast<int>(values.size());
  if (values.empty()) return a;
  a.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(a.n);
  if (a.n < 2) return a;
  double ss = 0.0;
  for (double v : values)
    ss += (v - a.mean) * (v - a.mean);
  a.sd = std::sqrt(ss / static_cast<double>(a.n - 1));
  const boost::math::students_t dist(static_cast<double>(a.n - 1));
  a.ci95 = boost::math::quantile(boost::math::complement(dist, 0.025)) * a.sd / std::sqrt(static_cast<double>(a.n));
  return a;
}

}  // namespace ringsched
