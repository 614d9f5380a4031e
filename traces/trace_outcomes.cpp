// traces/trace_outcomes.cpp — counting how a trace's jobs ended, by jobs and by GPU time.
#include "traces/trace_outcomes.h"

#include <algorithm>

namespace ringsched {

std::size_t TraceOutcomes::known() const {
  return count(JobOutcome::kCompleted) + count(JobOutcome::kFailed) + count(JobOutcome::kKilled);
}

double TraceOutcomes::failed_share_by_count() const {
  const std::size_t n = known();
  return n > 0 ? static_cast<double>(count(JobOutcome::kFailed)) / static_cast<double>(n) : 0.0;
}

double TraceOutcomes::failed_share_by_gpu_time() const {
  const double total = gpu_time(JobOutcome::kCompleted) + gpu_time(JobOutcome::kFailed) + gpu_time(JobOutcome::kKilled);
  return total > 0.0 ? gpu_time(JobOutcome::kFailed) / total : 0.0;
}

TraceOutcomes trace_outcomes(const Trace& trace, std::size_t rows) {
  TraceOutcomes out;
  const std::size_t n = rows == 0 ? trace.jobs.size() : std::min(rows, trace.jobs.size());
  for (std::size_t i = 0; i < n; ++i) {
    const TraceJob& j = trace.jobs[i];
    const auto k = static_cast<std::size_t>(j.outcome);
    ++out.jobs[k];
    out.gpu_seconds[k] += std::max(0.0, j.duration_s) * j.gpus;
  }
  return out;
}

}  // namespace ringsched
