// sim/experiments/network_report.h — the link-contention table printed after the summary when the config has
// cluster.network (empty otherwise, so default output is unchanged), and network.csv. Per (level, strategy), means
// over seeds: mean contention slowdown, share of jobs and of GPU time on a shared link, GPU utilisation, and each
// link level's utilisation. Columns in docs/network.md.
#pragma once

#include <string>

#include "sim/experiments/report.h"
#include "sim/experiments/runner.h"

namespace ringsched {

// Markdown or CSV (JSON: empty; use network_csv). Empty without cluster.network.
std::string render_network_report(const ExperimentConfig& c, const ExperimentResult& r, Format f);
// The same rows as CSV: level,strategy,runs,mean_contention_slowdown,shared_link_jobs,shared_link_gpus,
// effective_gpu_utilisation,gpu_utilisation, then one util_<level> column per link level (header always present).
std::string network_csv(const ExperimentConfig& c, const ExperimentResult& r);
// Writes network.csv when the config has cluster.network.
void write_network_outputs(StagedOutput& out, const ExperimentConfig& c, const ExperimentResult& r);

}  // namespace ringsched
