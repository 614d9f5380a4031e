// traces/trace.h — job traces: the Pollux workload files (`name,time,application,num_replicas,batch_size`) and
// generic traces with a submit time, a duration and a GPU count (e.g. the Philly-derived philly.csv), with
// configurable column names and time units; and turning a trace into a Workload. Formats: docs/heldout.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/workload.h"

namespace ringsched {

struct TraceJob {
  std::string name;
  double submit_s = 0.0;     // seconds after the trace's first submission
  double duration_s = -1.0;  // generic traces: run time on `gpus` GPUs; -1 = not given
  int gpus = 0;              // GPUs asked for
  std::string application;   // Pollux workloads: the application (class) name
  double batch_size = 0.0;   // Pollux workloads: the job's global batch (its class's batch for non-goodput classes)
  int line = 0;              // line in the file
};

struct Trace {
  std::string file;
  std::string format;          // "pollux" or "generic"
  std::vector<TraceJob> jobs;  // by submit time (stable for ties)
};

// Pollux workload file. Times must be >= 0 and non-decreasing (file:line otherwise); num_replicas >= 1.
Trace read_pollux_workload(const std::string& path);

struct GenericTraceSpec {
  std::string submit_column = "timestamp";
  std::string duration_column = "duration";
  std::string gpus_column = "num_gpus";
  // Unit of numeric submit times and of durations: "s", "ms", "min" or "h".
  std::string time_unit = "s";
  // Submit column format: "auto" (a number, or "YYYY-MM-DD HH:MM:SS" UTC), "number" or "datetime".
  std::string submit_format = "auto";
  std::string id_column;  // its text becomes the job's name in outputs ("" = line-N)
};

// Seconds per unit; throws InputError naming `where` for an unknown unit.
double time_unit_seconds(const std::string& unit, const std::string& where);

// Generic trace: rows are sorted by submit time (traces such as philly.csv are not in order) and rebased so the
// first submission is at 0. Negative durations or times, GPU counts < 1 and unparsable fields fail with file:line.
Trace read_generic_trace(const std::string& path, const GenericTraceSpec& spec);

// The trace tiled: `copies` copies of its rows (copy 0 is the trace itself), copy k shifted by k x `every` (in the
// trace's own time units, before time_scale), merged in submit order (stable: copy order for ties). Copy k > 0 of
// job `name` is named `name~k`; rows keep their file line. Builds million-job traces from the shipped ones for scale
// studies (workload.trace.repeat, docs/performance.md).
Trace repeat_trace(const Trace& trace, int copies, double every);

// What to do with a job whose GPU request the cluster or its class cannot satisfy (above the class's maximum or the
// cluster's GPUs, below the class's minimum).
enum class Oversize {
  kError,  // InputError naming file:line (the default: a trace is never altered silently)
  kClamp,  // run it at the nearest size allowed, with the work it did in the trace at the size it asked for
  kDrop,   // leave it out
};
std::string to_string(Oversize o);
Oversize parse_oversize(const std::string& name, const std::string& where);  // InputError for unknown names

struct TraceWorkloadSpec {
  std::string class_name;    // generic traces: the catalog class every job belongs to ("" = the first class)
  double speed_sigma = 0.0;  // per-job lognormal noise on speed
  double time_scale = 1.0;   // submit times are multiplied by this (< 1 compresses the trace)
  int max_jobs = 0;          // first N rows only (0 = all)
  int gpus_per_node = 8;     // for the packed-node speed of a generic job's work
  int max_gpus = 0;          // the largest request allowed besides the class's maximum (the cluster; 0 = no limit)
  Oversize oversize = Oversize::kError;
};

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
};

// Pollux traces: each job's class is its application (unknown names fail listing the catalog's classes), work =
// the class's work with per-job noise (class work_sigma), requested GPUs = num_replicas, and for goodput-model
// classes the row's batch_size is the job's global batch (outside the application's validated batch sizes: an
// InputError naming file:line).
// Generic traces: a duration-only job becomes work = duration x class_throughput(gpus, packed nodes) of the chosen
// class, i.e. exactly the work it did in the trace on the GPUs it had (speed noise then changes its run time).
// Oversize requests follow spec.oversize (kError: InputError naming file:line and the limits).
Workload workload_from_trace(const Trace& trace, std::shared_ptr<const Catalog> catalog, const TraceWorkloadSpec& spec,
                             std::uint64_t seed);

// The notes for a trace under a spec (the same checks as workload_from_trace, without building jobs).
TraceNotes trace_notes(const Trace& trace, const Catalog& catalog, const TraceWorkloadSpec& spec, int total_gpus);

}  // namespace ringsched
