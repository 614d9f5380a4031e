// sim/experiments/trace_kind.cpp — what an experiment's trace is (see the header).
#include "sim/experiments/trace_kind.h"

#include <algorithm>

#include "sim/experiments/config.h"
#include "traces/trace_format.h"

namespace ringsched {

bool has_shockwave_trace(const ExperimentConfig& c) {
  return c.workload.trace != nullptr && c.workload.trace->format != nullptr &&
         c.workload.trace->format->name() == "shockwave";
}

bool has_trace_users(const ExperimentConfig& c) {
  if (c.workload.trace == nullptr) return false;
  const auto& jobs = c.workload.trace->jobs;
  return std::any_of(jobs.begin(), jobs.end(), [](const TraceJob& j) { return !j.user.empty(); });
}

bool has_trace_vcs(const ExperimentConfig& c) {
  if (c.workload.trace == nullptr) return false;
  const auto& jobs = c.workload.trace->jobs;
  return std::any_of(jobs.begin(), jobs.end(), [](const TraceJob& j) { return !j.vc.empty(); });
}

}  // namespace ringsched
