// traces/trace_workload.h — turning a trace into a Workload, whatever its format, and what that did to it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "traces/trace.h"
#include "traces/trace_outcomes.h"
#include "workloads/workload.h"

namespace ringsched {

// What turning a trace into a workload did to it, for validate, the outputs and summary.json.
struct TraceNotes {
  std::size_t rows = 0;       // jobs in the file
  std::size_t truncated = 0;  // rows after the first max_jobs, not used
  std::size_t clamped = 0;    // requests run at another size (oversize "clamp")
  std::size_t dropped = 0;    // requests left out (oversize "drop")
  std::size_t jobs = 0;       // jobs in the workload
  // GPU-seconds the jobs ask for per GPU-second of the cluster over the arrival span (generic traces: duration x
  // GPUs as recorded; Pollux traces: the class's GPU-seconds on min(8, max) GPUs, as Poisson levels define load);
  // 0 when every job arrives at once.
  double offered_load = 0.0;
  // Traces that record how jobs ended (philly_log, acme): completed / failed / killed counts and GPU-seconds over
  // the jobs used (the first max_jobs rows), with the failed shares; all kUnknown for the other formats.
  TraceOutcomes outcomes;
  // Rows of the file that are not jobs (never ran, still running, 0 GPUs, fractional GPUs), over the whole file.
  TraceSkipped skipped;
  // Jobs whose fractional GPUs were rounded up (pai, fractional_gpus "ceil"), over the whole file.
  std::size_t gpus_rounded_up = 0;
};

// Each row becomes a job of the class its format gives it (TraceFormat::row_class: a Pollux row's application, a
// generic row's workload.trace.class), with the work its format gives it (TraceFormat::fill_job: a Pollux row the
// class's work with per-job noise; a generic row the work it did in the trace on the GPUs it had) and the GPUs it
// asked for. Oversize requests follow spec.oversize (kError: InputError naming file:line and the limits).
Workload workload_from_trace(const Trace& trace, std::shared_ptr<const Catalog> catalog, const TraceWorkloadSpec& spec,
                             std::uint64_t seed);

// The notes for a trace under a spec (the same checks as workload_from_trace, without building jobs).
TraceNotes trace_notes(const Trace& trace, const Catalog& catalog, const TraceWorkloadSpec& spec, int total_gpus);

}  // namespace ringsched
