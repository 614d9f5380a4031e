// traces/pollux_trace.h — the Pollux workload files (`name,time,application,num_replicas,batch_size`): each row's
// class is its application, its work the class's (with per-job noise), its GPUs num_replicas.
#pragma once

#include <cstddef>
#include <string>

#include "traces/trace_format.h"

namespace ringsched {

// Pollux workload file. Times must be >= 0 and non-decreasing (file:line otherwise); num_replicas >= 1. The file is
// streamed and every row checked; only the first `keep` rows are held (0 = all: TraceRows).
Trace read_pollux_workload(const std::string& path, std::size_t keep = 0);

// The format object (registered by its file; tests call its methods directly).
const TraceFormat& pollux_trace_format();

}  // namespace ringsched
