// traces/trace_outcomes.h — how the jobs of a trace ended (completed / failed / killed, from traces that record it:
// philly_log, acme): counts, GPU-seconds (recorded run time x GPUs) and the failed shares the published trace
// studies quote (Philly: 30.5% of jobs, 38.6% of GPU time; Acme Seren 42.9% / 12.4%, Kalos 39.7% / 8.0%).
#pragma once

#include <array>
#include <cstddef>

#include "traces/trace.h"

namespace ringsched {

struct TraceOutcomes {
  // Indexed by JobOutcome (kUnknown, kCompleted, kFailed, kKilled).
  std::array<std::size_t, 4> jobs{};
  std::array<double, 4> gpu_seconds{};  // run time (TraceJob::duration_s) x GPUs (TraceJob::gpus), as recorded

  [[nodiscard]] std::size_t count(JobOutcome o) const { return jobs[static_cast<std::size_t>(o)]; }
  [[nodiscard]] double gpu_time(JobOutcome o) const { return gpu_seconds[static_cast<std::size_t>(o)]; }
  // Jobs with a known outcome (completed + failed + killed).
  [[nodiscard]] std::size_t known() const;
  // Failed jobs / jobs with a known outcome; 0 when there are none.
  [[nodiscard]] double failed_share_by_count() const;
  // Failed GPU-seconds / GPU-seconds of jobs with a known outcome; 0 when there are none.
  [[nodiscard]] double failed_share_by_gpu_time() const;
};

// Over the first `rows` jobs of the trace (all when 0 or more than it holds): the jobs of the workload, so rows the
// reader left out (Trace::skipped) are not in it.
[[nodiscard]] TraceOutcomes trace_outcomes(const Trace& trace, std::size_t rows = 0);

}  // namespace ringsched
