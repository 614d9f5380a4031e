// sim/engine/metrics.h — per-run metrics (JCT mean/median/p95, makespan, queueing delay, GPU utilisation, restarts) and
// aggregation across replicates (mean, sample standard deviation, 95% confidence half-width by Student's t).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/engine.h"

namespace ringsched {

struct RunMetrics {
  int jobs = 0;
  double mean_jct_s = 0.0;
  double median_jct_s = 0.0;
  double p95_jct_s = 0.0;
  double makespan_s = 0.0;       // last completion - first arrival
  double mean_queue_s = 0.0;     // first start - arrival, averaged
  double gpu_utilisation = 0.0;  // allocated GPU-seconds / (GPUs * makespan)
  // Placement and optimality-gap metrics (docs/topology.md). Not in metric_names(), so default outputs keep their
  // columns; listed by extra_metric_names() and printed by render_placement_report
  // (sim/experiments/placement_report.h).
  bool placed = false;              // a placement policy ran
  double fragmentation = 0.0;       // time-average of free GPUs on partially occupied nodes / total GPUs
  double mean_nodes_spanned = 0.0;  // time-average nodes spanned per job holding GPUs
  double migrations_per_job = 0.0;
  int gap_decisions = 0;  // decisions with a recorded optimality gap (output.optimality_gap)
  double gap_mean = 0.0;
  double gap_p95 = 0.0;
  double gap_max = 0.0;
  // Typed clusters: allocated GPU-seconds per pool (cluster.pools order); summary.json reports each pool's
  // utilisation (these / (the pool's GPUs x makespan)). Empty on the untyped cluster.
  std::vector<double> pool_gpu_seconds;
  // Link contention (cluster.network): each link level's time-averaged utilisation (network.csv); empty without.
  std::vector<std::pair<std::string, double>> link_utilisation;
  // Failures (cluster.failures): exposure and failures of jobs by the GPUs they held (docs/failures.md); empty without.
  std::vector<FailureSize> failure_sizes;
  // Values of the metrics that compute themselves (MetricInfo::compute, registered in their own file), by name.
  std::map<std::string, double> computed;
};

// The measurement window of a run: the jobs whose ids are in [first, end) (workload.measure; Gavel measures jobs
// 4000..4999 of a longer stream). The default measures every job.
struct MeasureWindow {
  int first = 0;
  int end = -1;  // -1 = every job from `first` on
  [[nodiscard]] bool contains(int id) const { return id >= first && (end < 0 || id < end); }
};

// JCT and queueing over the jobs in `window`; makespan, utilisation and placement over the whole run; then every
// registered metric with a `compute` (restarts per job, over `window`).
RunMetrics compute_metrics(const RunResult& run, int total_gpus, const MeasureWindow& window = {});

// The one table of per-run metrics: every output (summary.json, CSV, Markdown, sweep results, check) derives its
// names, units and labels from it. Each metric registers its row itself with a MetricRegistrar in the file that
// computes it (docs/extending.md): the built-in rows in metrics.cpp (RunMetrics fields filled by compute_metrics), a
// new metric in a file of its own with a `compute` function (its value lands in RunMetrics::computed).
struct MetricInfo {
  const char* name;           // key in summary.json / CSV, e.g. "mean_jct_s"
  const char* unit;           // "s", "fraction" or "count"
  const char* label;          // Markdown column header
  double display_scale;       // Markdown value = value x this (seconds are shown in minutes)
  const char* display_fmt;    // printf format of the Markdown value
  bool standard;              // in every output (metric_names) or only on request (extra_metric_names)
  double RunMetrics::*field;  // where compute_metrics stores it; nullptr for a metric with `compute`
  const char* display_unit;   // the unit the Markdown table and plots show ("min"; "" = as stored)
  const char* meaning;        // one sentence for `ringsched metrics` and docs/config.md
  // Computes the metric of a run (JCT-like metrics over the jobs in `window`); nullptr for a RunMetrics field.
  double (*compute)(const RunResult& run, int total_gpus, const MeasureWindow& window) = nullptr;
};
// Registers a row: `rank` places it in the table (the built-ins take 10, 20, ... 130 in today's output order; ties
// by name). One object at namespace scope with a unique name (even in a unity build):
//   const MetricRegistrar mean_jct_metric{{"mean_jct_s", "s", ...}, 10};
// Two rows of one name make metric_table() throw std::logic_error naming it.
struct MetricRegistrar {
  MetricRegistrar(MetricInfo info, int rank);
};
// Every registered row, by rank.
const std::vector<MetricInfo>& metric_table();
// The row of `name`; std::invalid_argument for an unknown name.
const MetricInfo& metric_info(const std::string& name);

// Metric names in output order (the standard rows of metric_table), and access by name.
const std::vector<std::string>& metric_names();
double metric_value(const RunMetrics& m, const std::string& name);
void set_metric_value(RunMetrics& m, const std::string& name, double v);
// fragmentation, mean_nodes_spanned, migrations_per_job, gap_mean, gap_p95, gap_max (also accepted by metric_value).
const std::vector<std::string>& extra_metric_names();
// Fills gap_decisions/mean/p95/max from per-decision gaps.
void set_gap_metrics(RunMetrics& m, const std::vector<double>& gaps);

struct Aggregate {
  int n = 0;
  double mean = 0.0;
  double sd = 0.0;    // sample standard deviation (n - 1)
  double ci95 = 0.0;  // half-width: t(0.975, n-1) * sd / sqrt(n); 0 when n < 2
};

Aggregate aggregate(const std::vector<double>& values);

}  // namespace ringsched
