// traces/generic_trace.h — generic traces with a submit time, a duration and a GPU count per row (e.g. the
// Philly-derived philly.csv), with configurable column names and time units, and optional GPU-type, class, user and
// virtual-cluster columns. Every job belongs to one catalog class (workload.trace.class, or its row's `class` column)
// and does the work it did in the trace on the GPUs it had.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "traces/trace_format.h"

namespace ringsched {

struct GenericTraceSpec {
  std::string submit_column = "timestamp";
  std::string duration_column = "duration";
  std::string gpus_column = "num_gpus";
  // Unit of numeric submit times and of durations: "s", "ms", "min" or "h".
  std::string time_unit = "s";
  // Submit column format: "auto" (a number, or a date-time "YYYY-MM-DD HH:MM:SS", 'T' allowed, optional fractional
  // seconds and UTC offset "Z", "+08:00", "+0800"; UTC without one), "number" or "datetime".
  std::string submit_format = "auto";
  std::string id_column;  // its text becomes the job's name in outputs ("" = line-N)
  // Rows asking for 0 GPUs (CPU jobs, common in Helios and Acme): "error" (default: file:line names the row) or
  // "drop" (left out, counted in Trace::skipped.zero_gpus).
  std::string zero_gpus = "error";
  // Optional columns ("" = none): the row's GPU type (carried in TraceJob::gpu_type; placement does not enforce it
  // yet), user and virtual cluster (carried into the job and jobs.csv), and model / class name (the row's catalog
  // class, through class_map: TraceJob::class_name).
  std::string gpu_type_column{};
  std::string user_column{};
  std::string vc_column{};
  std::string class_column{};
  // With class_column: a trace name -> catalog class; names not in it must be classes of the catalog. A cell must
  // name a class (an empty one only when class_map maps "").
  std::map<std::string, std::string> class_map{};
  std::vector<std::string> catalog_classes{};  // the catalog's class names (with class_column)
  std::string catalog_name{};                  // for messages
};

// Generic trace: rows are sorted by submit time (traces such as philly.csv are not in order) and rebased so the
// first submission is at 0. Negative durations or times, GPU counts < 0 (0 unless zero_gpus is "drop"), unparsable
// fields and (with class_column) a name that is neither in class_map nor a catalog class fail with file:line; a header
// of one column that holds ';', '|' or a tab says which separator it seems to use.
// The file is streamed and every row checked; only the first `keep` rows by submit time are held (0 = all: TraceRows).
Trace read_generic_trace(const std::string& path, const GenericTraceSpec& spec, std::size_t keep = 0);

// The format object (registered by its file; tests call its methods directly).
const TraceFormat& generic_trace_format();

}  // namespace ringsched
