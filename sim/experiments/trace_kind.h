// sim/experiments/trace_kind.h — what an experiment's trace is, for outputs that depend on it (jobs.csv's `rho`
// column and the finish-time fairness table with a Shockwave trace: sim/experiments/fairness_report.h; its `user` and
// `vc` columns).
#pragma once

namespace ringsched {

struct ExperimentConfig;

// Whether the experiment replays a Shockwave trace (workload.trace.format "shockwave").
bool has_shockwave_trace(const ExperimentConfig& c);

// Whether some job of the experiment's trace has a user / a virtual cluster (jobs.csv's `user` and `vc` columns).
bool has_trace_users(const ExperimentConfig& c);
bool has_trace_vcs(const ExperimentConfig& c);

}  // namespace ringsched
