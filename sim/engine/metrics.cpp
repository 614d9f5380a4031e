// sim/engine/metrics.cpp — metric computation and replicate aggregation.
#include "sim/engine/metrics.h"

#include "models/quantile.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <boost/math/distributions/students_t.hpp>

namespace ringsched {

RunMetrics compute_metrics(const RunResult& run, int total_gpus, const MeasureWindow& window) {
  RunMetrics m;
  std::vector<double> jct;
  jct.reserve(run.jobs.size());
  double queue = 0.0;
  double restarts = 0.0;
  for (const auto& j : run.jobs) {
    if (!window.contains(j.id)) continue;
    jct.push_back(j.finish - j.arrival);
    queue += j.first_start - j.arrival;
    restarts += j.restarts;
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
  m.restarts_per_job = restarts / n;
  m.pool_gpu_seconds = run.pool_gpu_seconds;
  if (run.placed) {
    m.placed = true;
    m.fragmentation =
        m.makespan_s > 0.0 ? run.fragmented_gpu_seconds / (static_cast<double>(total_gpus) * m.makespan_s) : 0.0;
    m.mean_nodes_spanned = run.holding_job_seconds > 0.0 ? run.node_span_seconds / run.holding_job_seconds : 0.0;
    m.migrations_per_job = static_cast<double>(run.migrations) / static_cast<double>(run.jobs.size());
  }
  return m;
}

const std::vector<MetricInfo>& metric_table() {
  static const std::vector<MetricInfo> table = {
      {"mean_jct_s", "s", "mean JCT", 1.0 / 60.0, "%.1f", true, &RunMetrics::mean_jct_s, "min",
       "mean job completion time (finish - arrival)"},
      {"median_jct_s", "s", "median JCT", 1.0 / 60.0, "%.1f", true, &RunMetrics::median_jct_s, "min",
       "median JCT (linear-interpolation quantile, type 7)"},
      {"p95_jct_s", "s", "p95 JCT", 1.0 / 60.0, "%.1f", true, &RunMetrics::p95_jct_s, "min",
       "95th percentile JCT (type 7)"},
      {"makespan_s", "s", "makespan", 1.0 / 60.0, "%.1f", true, &RunMetrics::makespan_s, "min",
       "last completion - first arrival"},
      {"mean_queue_s", "s", "queueing", 1.0 / 60.0, "%.1f", true, &RunMetrics::mean_queue_s, "min",
       "mean of (first start - arrival)"},
      {"gpu_utilisation", "fraction", "GPU util", 1.0, "%.3f", true, &RunMetrics::gpu_utilisation, "",
       "allocated GPU-seconds (restart pauses included) / (total GPUs x makespan)"},
      {"restarts_per_job", "count", "restarts/job", 1.0, "%.1f", true, &RunMetrics::restarts_per_job, "",
       "mean number of resizes and resumes per job (first starts are not restarts)"},
      {"fragmentation", "fraction", "fragmentation", 1.0, "%.4f", false, &RunMetrics::fragmentation, "",
       "with a placement policy: time-average of the free GPUs on partially occupied nodes / total GPUs "
       "(docs/topology.md)"},
      {"mean_nodes_spanned", "count", "nodes/job", 1.0, "%.2f", false, &RunMetrics::mean_nodes_spanned, "",
       "with a placement policy: time-average of the nodes spanned per job holding GPUs"},
      {"migrations_per_job", "count", "migrations/job", 1.0, "%.2f", false, &RunMetrics::migrations_per_job, "",
       "with a placement policy: defragmentation moves per job"},
      {"gap_mean", "fraction", "gap mean", 1.0, "%.4f", false, &RunMetrics::gap_mean, "",
       "with output.optimality_gap: mean over decisions of objective(decision) / optimum - 1"},
      {"gap_p95", "fraction", "gap p95", 1.0, "%.4f", false, &RunMetrics::gap_p95, "",
       "with output.optimality_gap: 95th percentile over decisions of the gap"},
      {"gap_max", "fraction", "gap max", 1.0, "%.4f", false, &RunMetrics::gap_max, "",
       "with output.optimality_gap: largest gap of any decision"},
  };
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
  return m.*(metric_info(name).field);
}

void set_metric_value(RunMetrics& m, const std::string& name, double v) {
  m.*(metric_info(name).field) = v;
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
