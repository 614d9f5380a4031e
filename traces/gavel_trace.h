// traces/gavel_trace.h — Gavel's (OSDI'20) trace files: one tab-separated job per line, the job type (a class of the
// catalog, e.g. `gavel`'s), its total steps, scale factor (GPUs) and arrival time. Both layouts Gavel's code has read:
// 10 columns (scheduler/utils.py parse_trace: job_type, command, working_directory, num_steps_arg, needs_data_dir,
// total_steps, scale_factor, priority_weight, SLO, arrival_time) and 7 columns (the Philly-derived traces in
// scheduler/traces/msr: job_type, command, num_steps_arg, needs_data_dir, total_steps, arrival_time, scale_factor).
#pragma once

#include <cstddef>
#include <string>

#include "traces/trace_format.h"

namespace ringsched {

// Reads a Gavel trace; the layout is told by the first line's column count and every line must have it. Blank lines
// are skipped. Arrival times (in `time_unit`, Gavel's seconds by default) must be finite, >= 0 and <= 1e12 s; rows
// are sorted by arrival (stable) and shifted so the first arrives at 0. total_steps >= 1, scale_factor 1..2^20;
// priority_weight > 0 and finite (Gavel's max-min policies weigh jobs by it; default 1); SLO must be -1 (no SLO: not
// modelled, so another value is refused rather than ignored). InputError naming file:line and the column for each. The
// file is streamed and every line checked; only the first `keep` rows by arrival are held (0 = all: TraceRows).
Trace read_gavel_trace(const std::string& path, const std::string& time_unit, std::size_t keep = 0);

// The format object (registered by its file; tests call its methods directly).
const TraceFormat& gavel_trace_format();

struct JobClass;
// Steps -> samples for traces that count work in steps (Gavel's, Shockwave's): a step processes the class's global
// batch at the job's size.
double trace_samples_per_step(const JobClass& c, int gpus);

}  // namespace ringsched
