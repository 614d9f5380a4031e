// traces/shockwave_trace.h — Shockwave's (NSDI'23) trace files: one tab-separated job per line, 12 columns
// (scheduler/utils.py parse_trace: job_type, command, working_directory, num_steps_arg, needs_data_dir, total_steps,
// scale_factor, mode, priority_weight, SLO, duration, arrival_time), optionally a 13th, batch_schedule, that gives
// the batch of each epoch explicitly. Each row's batch-size schedule (static, accordion or gns) and the speed of each
// epoch come from the catalog's throughputs (workloads/shockwave.h); docs/shockwave.md.
#pragma once

#include <cstddef>
#include <string>

#include "traces/trace_format.h"

namespace ringsched {

// Reads a Shockwave trace against `catalog` (the throughput of each batch a job runs at: the class "<model> (batch
// size <b>)" on V100s, else its reference speed, at the job's scale factor). The layout (12 or 13 columns) is told by
// the first line and every line must have it; blank lines are skipped. InputError naming file:line and the column for
// a malformed job type, an unknown model or mode, a bad number, a batch without a throughput, priority_weight other
// than 1, SLO other than -1, more than 1,000,000 epochs, or a batch_schedule shorter than the job's epochs. Rows are
// sorted by arrival (stable) and shifted so the first arrives at 0; only the first `keep` by arrival are held (0 =
// all).
Trace read_shockwave_trace(const std::string& path, const std::string& time_unit, const Catalog& catalog,
                           std::size_t keep = 0);

// The format object (registered by its file; tests call its methods directly).
const TraceFormat& shockwave_trace_format();

}  // namespace ringsched
