// traces/generic_trace.h — generic traces with a submit time, a duration and a GPU count per row (e.g. the
// Philly-derived philly.csv), with configurable column names and time units. Every job belongs to one catalog class
// (workload.trace.class) and does the work it did in the trace on the GPUs it had.
#pragma once

#include <cstddef>
#include <string>

#include "traces/trace_format.h"

namespace ringsched {

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

// Generic trace: rows are sorted by submit time (traces such as philly.csv are not in order) and rebased so the
// first submission is at 0. Negative durations or times, GPU counts < 1 and unparsable fields fail with file:line.
// The file is streamed and every row checked; only the first `keep` rows by submit time are held (0 = all: TraceRows).
Trace read_generic_trace(const std::string& path, const GenericTraceSpec& spec, std::size_t keep = 0);

// The format object (registered by its file; tests call its methods directly).
const TraceFormat& generic_trace_format();

}  // namespace ringsched
