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

namespace {

// One job's run time alone (see JobResult::alone_s); 0 when it has none.
double alone_seconds(const JobResult& res, const JobTruth& t, const JobClass& cls, const ClusterConfig& cluster) {
  if (cls.goodput || t.schedule) return 0.0;
  int gpus_per_node = cluster.gpus_per_node;
  int cap = cluster.total_gpus();
  const models::StepTimeModel* speed = cls.speed.get();
  if (cluster.typed()) {
    const auto pool = std::find_if(cluster.pools.begin(), cluster.pools.end(),
                                   [&](const GpuPool& p) { return p.gpu_type == res.gpu_type; });
    if (pool == cluster.pools.end()) return 0.0;
    gpus_per_node = pool->gpus_per_node;
    cap = pool->gpus();
    speed = speed_on(cls, pool->gpu_type);
  }
  // The trace's request, else the load's reference count (8, within the class's range and the cluster): the same for
  // every strategy, so rho compares strategies.
  const int gpus =
      std::min(cap, t.requested_gpus > 0 ? t.requested_gpus : std::max(cls.min_gpus, std::min(8, cls.max_gpus)));
  if (gpus <= 0 || gpus_per_node <= 0 || speed == nullptr) return 0.0;
  const double rate = model_throughput(cls, *speed, gpus, packed_nodes(gpus, gpus_per_node), t.speed_factor);
  return rate > 0.0 && std::isfinite(rate) ? res.work / rate : 0.0;
}

}  // namespace

void set_alone_times(std::vector<JobResult>& jobs, const Workload& workload, const ClusterConfig& cluster) {
  for (JobResult& j : jobs) {
    const JobTruth& t = workload.jobs.at(static_cast<std::size_t>(j.id));
    j.alone_s = alone_seconds(j, t, workload.catalog->classes.at(static_cast<std::size_t>(t.class_index)), cluster);
  }
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
