// sim/experiments/failure_report.h — the failures table printed after the summary when the config has
// cluster.failures (empty otherwise, so default output is unchanged), failures.csv, and summary.json's "failures"
// block. Per (level, strategy), mean +- 95% CI over seeds of the failure metrics (sim/engine/failure_metrics.cpp),
// then the jobs' MTTF by the GPUs they held, pooled over seeds. Columns in docs/failures.md.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/experiments/report.h"
#include "sim/experiments/runner.h"

namespace ringsched {

// The failure metrics in report order.
const std::vector<std::string>& failure_metric_names();
// Markdown or CSV (JSON: empty; summary.json has the block). Empty without cluster.failures.
std::string render_failure_report(const ExperimentConfig& c, const ExperimentResult& r, Format f);
// level,strategy,metric,mean,sd,ci95,n rows of the failure metrics, then level,strategy,gpus,exposure_h,failures,
// mttf_h rows of MTTF by size (two tables, each with its header).
std::string failures_csv(const ExperimentConfig& c, const ExperimentResult& r);
// summary.json "failures": per cell {level, strategy, metrics: {name: {mean, sd, ci95, n}}, mttf_by_gpus: [{gpus,
// exposure_h, failures, mttf_h (null when none failed)}]}.
nlohmann::json failures_json(const ExperimentConfig& c, const ExperimentResult& r);
// Writes failures.csv when the config has cluster.failures.
void write_failure_outputs(StagedOutput& out, const ExperimentConfig& c, const ExperimentResult& r);

}  // namespace ringsched
