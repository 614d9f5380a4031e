// traces/helios_trace.h — the "helios" trace format: the Helios traces' cluster_log.csv (S-Lab-System-Group/HeliosData,
// SC'21: job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue) and the Helios
// artifact's Philly conversion of the same layout (with a `jobname` column and Philly's Pass / Failed / Killed
// states), streamed; each GPU job replays its recorded duration on its GPUs and keeps how it ended, its user and its
// virtual cluster.
#pragma once

#include <cstddef>
#include <string>

#include "traces/trace_format.h"

namespace ringsched {

struct HeliosTraceSpec {
  // Rows asking for 0 GPUs (CPU jobs: about half of Helios' rows): false = an error naming file:line (the default),
  // true = left out, counted in Trace::skipped.zero_gpus (workload.trace.zero_gpus "drop").
  bool drop_zero_gpus = false;
};

// Reads the CSV (columns found by name, in any order; others ignored). Required: user, vc, gpu_num, state,
// submit_time, start_time, one of job_id / jobname (the job's name: jobname when present, else job_id) and one of
// duration / end_time. A job's submit time is submit_time (a date-time, optional fraction and UTC offset, read as UTC
// seconds), its GPUs gpu_num, its run time the `duration` column (s, as Helios' simulator replays it) when the row
// gives one, else end_time - start_time; its outcome its state (COMPLETED -> completed, CANCELLED -> killed, FAILED /
// TIMEOUT / NODE_FAIL -> failed, as Helios' README counts them; Pass / Failed / Killed of the Philly conversion ->
// completed / failed / killed; SUSPENDED, once in Helios' Uranus, -> unknown). Rows left out, counted in
// Trace::skipped, each once, in this order: 0 GPUs (when spec.drop_zero_gpus), no start_time or a 0 s run
// (never_ran), a start_time with neither a duration nor an end_time (still_running). Errors name file:line and the
// column. Only the first `keep` jobs by submit time are held (0 = all).
Trace read_helios_trace(const std::string& path, const HeliosTraceSpec& spec = {}, std::size_t keep = 0);

const TraceFormat& helios_trace_format();

}  // namespace ringsched
