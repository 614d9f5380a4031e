// traces/acme_trace.h — the "acme" trace format: Acme's job traces (InternLM/AcmeTrace, NSDI'24: trace_seren.csv and
// trace_kalos.csv, the layout told by the header), streamed; each GPU job replays its recorded duration on its GPUs
// and keeps how it ended.
#pragma once

#include <cstddef>
#include <string>

#include "traces/trace_format.h"

namespace ringsched {

// Reads the CSV: a job's submit time is submit_time (ISO date-time with its UTC offset, read as UTC seconds), its
// GPUs gpu_num, its run time duration (s), its outcome its state (COMPLETED -> completed, CANCELLED -> killed,
// FAILED / TIMEOUT / NODE_FAIL -> failed, as the Acme paper counts them). Rows with gpu_num 0 (CPU jobs) and then
// rows that never ran (no start_time, or duration 0) are counted in Trace::skipped, not kept. Errors name file:line
// and the column. Only the first `keep` jobs by submit time are held (0 = all).
Trace read_acme_trace(const std::string& path, std::size_t keep = 0);

const TraceFormat& acme_trace_format();

}  // namespace ringsched
