// sim/experiments/failure_report.h — the failures table printed after the summary when the config has
// cluster.failures (empty otherwise, so default output is unchanged) and failures.csv (summary.json's block is
// sim/experiments/failure_summary.h). Per (level, strategy), mean +- 95% CI over seeds of the failure metrics
// (sim/engine/failure_metrics.cpp), then the jobs' MTTF by the GPUs they held, pooled over seeds. Columns in
// docs/failures.md.
#pragma once

#include <string>

#include "sim/experiments/report.h"
#include "sim/experiments/runner.h"

namespace ringsched {

// Markdown or CSV (JSON: empty; summary.json has the block). Empty without cluster.failures.
std::string render_failure_report(const ExperimentConfig& c, const ExperimentResult& r, Format f);
// level,strategy,metric,mean,sd,ci95,n rows of the failure metrics, then level,strategy,gpus,exposure_h,failures,
// mttf_h rows of MTTF by size (two tables, each with its header).
std::string failures_csv(const ExperimentConfig& c, const ExperimentResult& r);
// Writes failures.csv when the config has cluster.failures.
void write_failure_outputs(StagedOutput& out, const ExperimentConfig& c, const ExperimentResult& r);

}  // namespace ringsched
