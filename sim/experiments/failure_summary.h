// sim/experiments/failure_summary.h — the failure figures of an experiment per (level, strategy) cell
// (cluster.failures): the failure metrics aggregated over seeds, the jobs' exposure and failures by GPUs held pooled
// over seeds, and summary.json's "failures" block. The tables are sim/experiments/failure_report.h.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/experiments/runner.h"

namespace ringsched {

// The failure metrics (sim/engine/failure_metrics.cpp) in report order.
const std::vector<std::string>& failure_metric_names();
// One metric over the cell's successful seeds.
Aggregate failure_aggregate(const ExperimentConfig& c, const ExperimentResult& r, int level, int strategy,
                            const std::string& metric);
// Exposure and failures by GPUs held, pooled over the cell's successful seeds.
std::map<int, FailureSize> pooled_failure_sizes(const ExperimentConfig& c, const ExperimentResult& r, int level,
                                                int strategy);
// summary.json "failures": per cell {level, strategy, metrics: {name: {mean, sd, ci95, n}}, mttf_by_gpus: [{gpus,
// exposure_h, failures, mttf_h (null when none failed)}]}.
nlohmann::json failures_json(const ExperimentConfig& c, const ExperimentResult& r);

}  // namespace ringsched
