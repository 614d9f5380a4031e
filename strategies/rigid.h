// strategies/rigid.h — helpers shared by the rigid strategies (eight, fifo, srtf, tiresias): the fixed GPU count a
// job asks for, greedy placement of jobs in priority order, and first-come first-served filling.
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

// First-come first-served without preemption: started jobs keep their GPUs; waiting jobs start in snapshot (arrival)
// order at size(job's public facts) while they fit. Without backfill the first waiting job that does not fit blocks
// the rest (strict FCFS); with it, later jobs that fit may start.
template <class SizeFn>
Decision fcfs_fill(const Snapshot& s, SizeFn size, bool backfill) {
  Decision d;
  d.gpus.resize(s.jobs.size(), 0);
  int free = s.total_gpus;
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    d.gpus[i] = s.jobs[i].gpus;
    free -= s.jobs[i].gpus;
  }
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    if (s.jobs[i].gpus > 0) continue;
    const int need = size(*s.jobs[i].pub);
    if (need <= free) {
      d.gpus[i] = need;
      free -= need;
    } else if (!backfill) {
      break;
    }
  }
  return d;
}

}  // namespace ringsched
