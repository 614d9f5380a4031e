// sim/experiments/failure_summary.cpp — per-cell failure figures and summary.json's block (see the header).
#include "sim/experiments/failure_summary.h"

namespace ringsched {
namespace {

constexpr double kFailHour = 3600.0;

nlohmann::json failure_agg_json(const Aggregate& a) {
  nlohmann::json j = {{"n", a.n}};
  j["mean"] = a.n > 0 ? nlohmann::json(a.mean) : nlohmann::json(nullptr);
  j["sd"] = a.n > 1 ? nlohmann::json(a.sd) : nlohmann::json(nullptr);
  j["ci95"] = a.n > 1 ? nlohmann::json(a.ci95) : nlohmann::json(nullptr);
  return j;
}

}  // namespace

const std::vector<std::string>& failure_metric_names() {
  static const std::vector<std::string> names = {
      "failures_per_job",       "gpu_hours_lost",       "recompute_gpu_hours",     "failure_restart_gpu_hours",
      "failure_wait_gpu_hours", "checkpoint_gpu_hours", "effective_training_time", "job_mttf_h"};
  return names;
}

Aggregate failure_aggregate(const ExperimentConfig& c, const ExperimentResult& r, int level, int strategy,
                            const std::string& metric) {
  std::vector<double> v;
  for (int k = 0; k < c.seeds; ++k) {
    const CellRun& run = r.run(c, level, strategy, k);
    if (run.error.empty()) v.push_back(metric_value(run.metrics, metric));
  }
  return aggregate(v);
}

std::map<int, FailureSize> pooled_failure_sizes(const ExperimentConfig& c, const ExperimentResult& r, int level,
                                                int strategy) {
  std::map<int, FailureSize> out;
  for (int k = 0; k < c.seeds; ++k) {
    const CellRun& run = r.run(c, level, strategy, k);
    if (!run.error.empty()) continue;
    for (const FailureSize& f : run.metrics.failure_sizes) {
      FailureSize& sum = out[f.gpus];
      sum.gpus = f.gpus;
      sum.exposure_s += f.exposure_s;
      sum.failures += f.failures;
    }
  }
  return out;
}

nlohmann::json failures_json(const ExperimentConfig& c, const ExperimentResult& r) {
  nlohmann::json cells = nlohmann::json::array();
  for (int l = 0; l < static_cast<int>(c.levels.size()); ++l)
    for (int s = 0; s < static_cast<int>(c.strategies.size()); ++s) {
      nlohmann::json cell = {{"level", c.levels[static_cast<std::size_t>(l)].name},
                             {"strategy", c.strategies[static_cast<std::size_t>(s)].label}};
      for (const std::string& m : failure_metric_names())
        cell["metrics"][m] = failure_agg_json(failure_aggregate(c, r, l, s, m));
      nlohmann::json sizes = nlohmann::json::array();
      for (const auto& [gpus, f] : pooled_failure_sizes(c, r, l, s)) {
        sizes.push_back({{"gpus", gpus}, {"exposure_h", f.exposure_s / kFailHour}, {"failures", f.failures}});
        sizes.back()["mttf_h"] =
            f.failures > 0 ? nlohmann::json(f.exposure_s / kFailHour / f.failures) : nlohmann::json(nullptr);
      }
      cell["mttf_by_gpus"] = sizes;
      cells.push_back(cell);
    }
  return cells;
}

}  // namespace ringsched
