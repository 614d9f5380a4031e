// sim/experiments/trace_outcome_report.h — how a trace's jobs ended (philly_log, acme, helios, pai:
// traces/trace_outcomes.h) and the rows its reader left out, in the printed trace notes, `validate` and summary.json's
// `trace` block. Nothing for traces that record no outcome and leave no row out, so their outputs are unchanged.
#pragma once

#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "traces/trace_workload.h"

namespace ringsched {

// "  outcomes: completed N (X GPU-h), failed N (...), killed N (...); failed X% of jobs, Y% of GPU time\n",
// "  rows left out: A never ran, B still running, C with 0 GPUs[, D with fractional GPUs ...]\n" and
// "  fractional GPUs: N jobs ... rounded up ...\n" (pai), each only when there is something to say.
std::string trace_outcomes_text(const TraceNotes& n);

struct ExperimentConfig;

// Whether the experiment's trace records how its jobs ended (jobs.csv then has an `outcome` column).
bool has_trace_outcomes(const ExperimentConfig& c);

// Each trace job's recorded outcome by name (trace job names are the trace's job ids; a name given twice keeps its
// first row's), for jobs.csv's `outcome` column; off (on() false) for traces without outcomes.
class TraceOutcomeByName {
 public:
  explicit TraceOutcomeByName(const ExperimentConfig& c);
  [[nodiscard]] bool on() const { return on_; }
  // "completed", "failed", "killed", or "unknown" for a name the trace does not hold.
  [[nodiscard]] std::string of(const std::string& name) const;

 private:
  bool on_ = false;
  std::unordered_map<std::string, JobOutcome> by_name_;
};

// Adds `outcomes` ({completed, failed, killed}: {jobs, gpu_seconds}, failed_share_jobs, failed_share_gpu_time) and
// `skipped` ({never_ran, still_running, zero_gpus}) to a summary's trace block, each only when present.
void add_trace_outcomes_json(const TraceNotes& n, nlohmann::json& trace);

}  // namespace ringsched
