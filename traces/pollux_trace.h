// traces/pollux_trace.h — the Pollux workload files (`name,time,application,num_replicas,batch_size`): each row's
// class is its application, its work the class's (with per-job noise), its GPUs num_replicas.
#pragma once

#include <string>

#include "traces/trace_format.h"

namespace ringsched {

// Pollux workload file. Times must be >= 0 and non-decreasing (file:line otherwise); num_replicas >= 1.
Trace read_pollux_workload(const std::string& path);

}  // namespace ringsched
