// sim/experiments/trace_kind.cpp — what an experiment's trace is (see the header).
#include "sim/experiments/trace_kind.h"

#include "sim/experiments/config.h"
#include "traces/trace_format.h"

namespace ringsched {

bool has_shockwave_trace(const ExperimentConfig& c) {
  return c.workload.trace != nullptr && c.workload.trace->format != nullptr &&
         c.workload.trace->format->name() == "shockwave";
}

}  // namespace ringsched
