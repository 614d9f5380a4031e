// sim/experiments/trace_outcome_report.h — how a trace's jobs ended (philly_log, acme: traces/trace_outcomes.h) and
// the rows its reader left out, in the printed trace notes, `validate` and summary.json's `trace` block. Nothing for
// traces that record no outcome and leave no row out, so their outputs are unchanged.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "traces/trace_workload.h"

namespace ringsched {

// "  outcomes: completed N (X GPU-h), failed N (...), killed N (...); failed X% of jobs, Y% of GPU time\n" and
// "  rows left out: A never ran, B still running, C with 0 GPUs\n", each only when there is something to say.
std::string trace_outcomes_text(const TraceNotes& n);

// Adds `outcomes` ({completed, failed, killed}: {jobs, gpu_seconds}, failed_share_jobs, failed_share_gpu_time) and
// `skipped` ({never_ran, still_running, zero_gpus}) to a summary's trace block, each only when present.
void add_trace_outcomes_json(const TraceNotes& n, nlohmann::json& trace);

}  // namespace ringsched
