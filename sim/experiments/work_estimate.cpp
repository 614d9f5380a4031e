// sim/experiments/work_estimate.cpp — the estimates of work_estimate.h: a trace's rows swept once (the time some
// job is active, the mean overlap, the backlog of an overloaded trace), Poisson and Gavel arrivals from their rate
// and the mean job.
#include "sim/experiments/work_estimate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "traces/trace_format.h"
#include "workloads/workload.h"

namespace ringsched {
namespace {

// Gavel's generator: mean duration 60,362 s (docs/fidelity.md), mean scale factor 1.9 with multi-GPU jobs.
constexpr double kGavelMeanDurationS = 60362.0;
constexpr double kGavelMeanScaleFactor = 1.9;

// Jobs still waiting when arrivals end, when the offered load exceeds the cluster (load > 1).
double backlog(double jobs, double load) {
  return load > 1.0 ? jobs * (1.0 - 1.0 / load) : 0.0;
}

void estimate_trace(const ExperimentConfig& c, WorkEstimate& e) {
  const Trace& trace = *c.workload.trace;
  const Catalog& cat = *c.workload.catalog;
  const TraceWorkloadSpec& spec = c.workload.trace_spec;
  const int generic = spec.class_name.empty() ? 0 : std::max(0, cat.find(spec.class_name));
  const std::size_t n = std::min(trace.jobs.size(), static_cast<std::size_t>(std::max(0, c.workload.jobs)));
  double covered = 0.0;  // length of the union of [arrival, arrival + duration]
  double end = -1.0;
  double durations = 0.0;
  double gpu_seconds = 0.0;
  double first = 0.0;
  double last = 0.0;
  double jobs = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const TraceJob& tj = trace.jobs[i];
    const JobClass& cls = cat.classes[static_cast<std::size_t>(trace.format->row_class(tj, cat, generic, ""))];
    const int hi = spec.max_gpus > 0 ? std::min(cls.max_gpus, spec.max_gpus) : cls.max_gpus;
    if (std::clamp(tj.gpus, std::min(cls.min_gpus, hi), hi) != tj.gpus && spec.oversize == Oversize::kDrop) continue;
    const double g = trace.format->offered_gpu_seconds(tj, cls, tj.gpus, c.cluster.gpus_per_node);
    const double d = std::isfinite(g) ? g / std::max(1, tj.gpus) : 0.0;
    const double a = tj.submit_s * spec.time_scale;
    if (jobs == 0.0) first = a;
    last = a;
    jobs += 1.0;
    durations += d;
    gpu_seconds += std::isfinite(g) ? g : 0.0;
    if (a >= end) {
      covered += d;
      end = a + d;
    } else if (a + d > end) {
      covered += a + d - end;
      end = a + d;
    }
  }
  const double capacity = std::max(1, c.total_gpus());
  const double span = last - first;
  const double load = span > 0.0 ? gpu_seconds / (capacity * span) : 0.0;
  e.active_seconds = std::max(covered, gpu_seconds / capacity);
  e.active_jobs = std::min(jobs, std::max(covered > 0.0 ? durations / covered : 0.0, backlog(jobs, load)));
}

void estimate_arrivals(const ExperimentConfig& c, const LevelSpec& level, WorkEstimate& e) {
  const double capacity = std::max(1, c.total_gpus());
  const double jobs = c.workload.jobs;
  const double rate = level.rate_per_s;
  if (!(rate > 0.0)) return;
  double duration = 0.0;
  double gpu_seconds = 0.0;
  if (c.workload.arrival_process == "gavel") {
    duration = kGavelMeanDurationS;
    gpu_seconds = duration * (c.workload.gavel_multi_gpu ? kGavelMeanScaleFactor : 1.0);
  } else {
    // rate_for_load: the load is proportional to the rate; load 1 is capacity / the mean GPU-seconds on min(8, max).
    const double unit_rate = rate_for_load(*c.workload.catalog, 1.0, c.total_gpus(), c.cluster.gpus_per_node);
    if (!(unit_rate > 0.0)) return;
    gpu_seconds = capacity / unit_rate;
    duration = gpu_seconds / std::min(8.0, capacity);
  }
  const double load = rate * gpu_seconds / capacity;
  const double span = jobs / rate;
  const double busy = std::max(1.0 - std::exp(-rate * duration), std::min(1.0, load));
  const double active_s = span * busy + (load > 1.0 ? span * (load - 1.0) : 0.0) + duration;
  e.active_seconds = std::max(e.active_seconds, active_s);
  e.active_jobs = std::max(e.active_jobs, std::min(jobs, std::max(rate * duration, backlog(jobs, load))));
}

std::string fig(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 1e6 ? "%.2g" : "%.0f", v);
  return buf;
}

}  // namespace

WorkEstimate estimate_work(const ExperimentConfig& c) {
  WorkEstimate e;
  e.jobs = c.workload.jobs;
  if (c.workload.trace) {
    estimate_trace(c, e);
  } else {
    for (const LevelSpec& level : c.levels)
      estimate_arrivals(c, level, e);
  }
  if (c.scheduler.interval_s > 0.0) e.rounds = e.active_seconds / c.scheduler.interval_s;
  static const std::array<const char*, 8> kLp = {
      "max_min_fairness",     "max_min_fairness_perf", "finish_time_fairness_perf", "min_total_duration_perf",
      "finish_time_fairness", "min_total_duration",    "max_sum_throughput_perf",   "allox"};
  for (const StrategySpec& s : c.strategies) {
    if (std::find(kLp.begin(), kLp.end(), s.name) != kLp.end()) {
      e.lp_strategy = s.name;
      break;
    }
  }
  e.gpu_types = c.cluster.typed() ? static_cast<int>(c.cluster.pools.size()) : 1;
  return e;
}

std::string large_work_warning(const ExperimentConfig& c) {
  const WorkEstimate e = estimate_work(c);
  const bool rounds = e.rounds > kWarnActiveRounds;
  const bool lp = !e.lp_strategy.empty() && e.active_jobs > kWarnLpJobs;
  const bool active = e.active_jobs > kWarnActiveJobs;
  if (!rounds && !lp && !active) return "";
  std::string s = "a large run (estimated before running): " + std::to_string(e.jobs) + " jobs per run, about " +
                  fig(e.active_jobs) + " active at once";
  if (c.scheduler.interval_s > 0.0) {
    s += ", about " + fig(e.rounds) + " rounds of " + fig(c.scheduler.interval_s) + " s with jobs active";
  }
  if (!e.lp_strategy.empty()) {
    s += ", " + e.lp_strategy + "'s LP over about " + fig(e.active_jobs) + " jobs x " + std::to_string(e.gpu_types) +
         " GPU types = " + fig(e.active_jobs * e.gpu_types) + " variables (its solve grows about as jobs^3)";
  }
  s += "; this may take hours: lower workload.jobs (--jobs) or the load";
  if (rounds) s += ", or lengthen scheduler.interval_s";
  if (lp) s += ", or drop " + e.lp_strategy;
  return s;
}

}  // namespace ringsched
