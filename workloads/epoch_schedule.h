// workloads/epoch_schedule.h — a job whose speed changes at epoch boundaries by a schedule fixed when it is submitted
// (Shockwave's dynamic jobs: each epoch runs at its own batch size, at that batch's throughput). The engine runs the
// job at its class speed times the factor of the phase its progress is in, with an event at each phase end; the
// oracle belief reports the same factor. Built by the `shockwave` trace format (workloads/shockwave.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace ringsched {

struct EpochSchedule {
  // Phases of constant speed, in order: the progress (the job's work units, cumulative) at which each ends, the
  // factor multiplying the job's class speed during it, and its batch size. Consecutive epochs of one batch are one
  // phase; the last phase ends at the job's work.
  std::vector<double> phase_end;
  std::vector<double> factor;
  std::vector<int> batch;
  int epochs = 0;           // epochs of the job
  double isolated_s = 0.0;  // the job's run time alone as its peer defines it (Shockwave's rho denominator); 0 = none

  // The phase that progress `work_done` is in (the next one at a boundary; the last past the end).
  [[nodiscard]] std::size_t phase_at(double work_done) const {
    const auto it = std::upper_bound(phase_end.begin(), phase_end.end(), work_done);
    const auto i = static_cast<std::size_t>(it - phase_end.begin());
    return i < phase_end.size() ? i : phase_end.size() - 1;
  }
  [[nodiscard]] double factor_at(double work_done) const { return factor[phase_at(work_done)]; }
  [[nodiscard]] double end_at(double work_done) const { return phase_end[phase_at(work_done)]; }
};

}  // namespace ringsched
