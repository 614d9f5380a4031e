// strategies/rigid.h — helpers shared by the rigid rival strategies (srtf, tiresias): the fixed GPU count a job
// asks for, and greedy placement of jobs in priority order.
#pragma once

#include <algorithm>
#include <vector>

#include "strategies/strategy.h"

namespace ringsched {

// A rigid job's size: its trace request if it has one, else `fallback`, clamped to [min_gpus, max_gpus].
inline int rigid_size(const JobPublic& p, int fallback) {
  const int want = p.requested_gpus > 0 ? p.requested_gpus : fallback;
  return std::max(p.min_gpus, std::min(want, p.max_gpus));
}

// Gives each job in `order` (indices into s.jobs) its rigid size while it fits; a job that does not fit is
// skipped and later (smaller) jobs may use the GPUs (work-conserving backfill). Preempts everything else.
inline std::vector<int> rigid_fill(const Snapshot& s, const std::vector<int>& order, int fallback) {
  std::vector<int> gpus(s.jobs.size(), 0);
  int free = s.total_gpus;
  for (int idx : order) {
    const int need = rigid_size(*s.jobs[static_cast<std::size_t>(idx)].pub, fallback);
    if (need <= free) {
      gpus[static_cast<std::size_t>(idx)] = need;
      free -= need;
    }
  }
  return gpus;
}

}  // namespace ringsched
