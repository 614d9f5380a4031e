// sim/experiments/fairness_report.h — with a Shockwave trace (workload.trace.format "shockwave"): jobs.csv's `rho`
// column (each job's finish-time fairness, sim/engine/fairness_metric.h) and the table printed after the summary, in
// Shockwave's units (hours) with its unfair-job count, per (level, strategy), means over seeds. Empty for other
// workloads, so their outputs are unchanged. docs/shockwave.md.
#pragma once

#include <string>

#include "sim/experiments/report.h"
#include "sim/experiments/runner.h"

namespace ringsched {

// Markdown or CSV (JSON: empty: summary.json has no such block). Empty without a Shockwave trace.
std::string render_fairness_report(const ExperimentConfig& c, const ExperimentResult& r, Format f);

}  // namespace ringsched
