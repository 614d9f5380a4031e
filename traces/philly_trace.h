// traces/philly_trace.h — the "philly_log" trace format: Philly's job log (msr-fiddle/philly-traces,
// cluster_job_log: a JSON array of jobs with their status, virtual cluster, user and per-attempt records), streamed
// one job at a time; each job replays the run time it had on the GPUs of its first attempt and keeps how it ended.
#pragma once

#include <cstddef>
#include <string>

#include "traces/trace_format.h"

namespace ringsched {

// Reads the log: a job's submit time is submitted_time, its GPUs those of its first attempt with a start time (summed
// over the attempt's detail entries), its run time the sum of end - start over attempts giving both, its outcome its
// status (Pass -> completed, Failed -> failed, Killed -> killed). Jobs still running (the last attempt started, no
// end), jobs that never ran (no attempt with both times) and 0-GPU jobs are counted in Trace::skipped, not kept. A
// start or end time may be null, "None" or "" (a logging gap). Errors name "file:line: [i].key" (the job's first
// line, its index in the array and the key). Only the first `keep` jobs by submit time are held (0 = all).
Trace read_philly_log(const std::string& path, std::size_t keep = 0);

const TraceFormat& philly_trace_format();

}  // namespace ringsched
