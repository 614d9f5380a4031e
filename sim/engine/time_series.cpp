// sim/engine/time_series.cpp — a run's state at every interval boundary, from its allocation log (see the header).
#include "sim/engine/time_series.h"

#include <algorithm>
#include <cmath>

#include "models/input_error.h"
#include "workloads/io/number_text.h"

namespace ringsched {

std::vector<SeriesPoint> time_series(const std::vector<JobResult>& jobs, const std::vector<AllocationEvent>& events,
                                     double interval_s) {
  double last = 0.0;
  std::vector<double> arrivals;
  std::vector<double> finishes;
  arrivals.reserve(jobs.size());
  finishes.reserve(jobs.size());
  for (const JobResult& j : jobs) {
    arrivals.push_back(j.arrival);
    finishes.push_back(j.finish);
    last = std::max(last, j.finish);
  }
  const double steps = std::ceil(last / interval_s);
  if (!(steps + 1.0 <= kMaxSeriesRows)) {
    throw InputError("output.series_s (--series) " + number_text(interval_s) + " s: a run lasting " +
                     number_text(last) + " s would write " + number_text(steps + 1.0) +
                     " series.csv rows (more than 10,000,000 per run); choose a longer interval");
  }
  std::sort(arrivals.begin(), arrivals.end());
  std::sort(finishes.begin(), finishes.end());
  std::vector<int> held(jobs.size(), 0);
  std::vector<SeriesPoint> out;
  out.reserve(static_cast<std::size_t>(steps) + 1);
  std::size_t e = 0;
  int busy = 0;
  int running = 0;
  for (long k = 0; k <= static_cast<long>(steps); ++k) {
    const double t = static_cast<double>(k) * interval_s;
    for (; e < events.size() && events[e].time <= t; ++e) {
      const AllocationEvent& ev = events[e];
      int& h = held[static_cast<std::size_t>(ev.job)];
      running += (ev.to > 0 ? 1 : 0) - (h > 0 ? 1 : 0);
      busy += ev.to - h;
      h = ev.to;
    }
    const auto arrived = std::upper_bound(arrivals.begin(), arrivals.end(), t) - arrivals.begin();
    const auto finished = std::upper_bound(finishes.begin(), finishes.end(), t) - finishes.begin();
    out.push_back({t, busy, static_cast<int>(arrived - finished) - running, running});
  }
  return out;
}

}  // namespace ringsched
