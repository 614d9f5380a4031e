// strategies/rigid.h — helpers shared by the rigid strategies (eight, fifo, srtf, tiresias): the fixed GPU count a
// job asks for, greedy placement of jobs in priority order, and first-come first-served filling.
#pragma once

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "strategies/strategy.h"

namespace ringsched {

// A rigid job's size: its trace request if it has one, else `fallback`, clamped to [min_gpus, max_gpus].
inline int rigid_size(const JobPublic& p, int fallback) {
  const int want = p.requested_gpus > 0 ? p.requested_gpus : fallback;
  return std::max(p.cls.min_gpus, std::min(want, p.cls.max_gpus));
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

// fcfs_fill on a typed cluster (Snapshot::pools): running jobs keep their GPUs and pool; each waiting job, in
// arrival order, goes to the pool with room whose GPU type its belief says runs it fastest (ties and jobs without a
// belief: the first such pool in config order).
template <class SizeFn>
Decision fcfs_fill_typed(const Snapshot& s, SizeFn size, bool backfill) {
  Decision d = empty_decision(s);
  std::vector<int> free = pool_gpus(s);
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    d.gpus[i] = s.jobs[i].gpus;
    d.pools[i] = s.jobs[i].pool;
    free[static_cast<std::size_t>(s.jobs[i].pool)] -= s.jobs[i].gpus;
  }
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    if (s.jobs[i].gpus > 0) continue;
    const int need = size(*s.jobs[i].pub);
    int best = -1;
    double best_rate = 0.0;
    for (std::size_t p = 0; p < s.pools.size(); ++p) {
      if (free[p] < need) continue;
      const Belief* b = s.jobs[i].belief;
      const int nodes = (need + s.pools[p].gpus_per_node - 1) / s.pools[p].gpus_per_node;
      const double rate = b != nullptr ? b->throughput_on(s.pools[p].gpu_type, need, nodes) : 0.0;
      if (best < 0 || rate > best_rate) {
        best = static_cast<int>(p);
        best_rate = rate;
      }
    }
    if (best >= 0) {
      d.gpus[i] = need;
      d.pools[i] = best;
      free[static_cast<std::size_t>(best)] -= need;
    } else if (!backfill) {
      break;
    }
  }
  return d;
}

// rigid_fill over jobs kept in one priority-ordered set per rigid size (incremental tiresias and srtf; `Key` is a
// tuple whose last element is the job id): the first job in priority order among the sizes that still fit, repeatedly,
// so only the jobs served are visited. Returns their ids sorted. The same jobs as rigid_fill in that priority order
// (a job skipped once never fits later: free GPUs only shrink).
template <class Key>
std::vector<int> rigid_fill_by_size(const std::map<int, std::set<Key>>& by_size, int free) {
  struct Cursor {
    int size;
    typename std::set<Key>::const_iterator at, end;
  };
  std::vector<Cursor> cursors;
  for (const auto& [size, keys] : by_size)
    cursors.push_back({size, keys.begin(), keys.end()});  // by increasing size
  std::vector<int> served;
  while (free > 0) {
    Cursor* best = nullptr;
    for (Cursor& c : cursors) {
      if (c.size > free) break;  // sizes increase: no later set fits either
      if (c.at != c.end && (best == nullptr || *c.at < *best->at)) best = &c;
    }
    if (best == nullptr) break;
    served.push_back(std::get<std::tuple_size_v<Key> - 1>(*best->at));
    free -= best->size;
    ++best->at;
  }
  std::sort(served.begin(), served.end());
  return served;
}

// The jobs in `holders` missing from `served` (sorted): those a fill releases.
inline std::vector<int> released_holders(const std::set<int>& holders, const std::vector<int>& served) {
  std::vector<int> released;
  for (int id : holders)
    if (!std::binary_search(served.begin(), served.end(), id)) released.push_back(id);
  return released;
}

// fcfs_fill kept incrementally (Strategy::decide_changes): waiting jobs in one arrival-ordered queue per GPU count,
// so a decision costs O(jobs started x distinct counts) instead of O(jobs present). Decides exactly what fcfs_fill
// decides: strict FCFS starts the earliest waiting job while it fits; with backfill the earliest waiting job that fits
// the free GPUs, repeatedly (a job skipped once never fits later in the same decision: free GPUs only shrink).
class FcfsQueues {
 public:
  template <class SizeFn>
  Decision decide(const Snapshot& s, SizeFn size, bool backfill) {
    for (int id : s.arrived)
      waiting_[size(*s.views->view(id).pub)].push_back(id);
    Decision d;
    int free = s.total_gpus - s.gpus_in_use;
    while (free > 0 && !waiting_.empty()) {
      // The earliest waiting job (ids follow arrival order) among the counts allowed.
      auto best = waiting_.end();
      for (auto it = waiting_.begin(); it != waiting_.end() && (!backfill || it->first <= free); ++it) {
        if (best == waiting_.end() || it->second.front() < best->second.front()) best = it;
      }
      if (best == waiting_.end() || best->first > free) break;
      d.changes.emplace_back(best->second.front(), best->first);
      free -= best->first;
      best->second.pop_front();
      if (best->second.empty()) waiting_.erase(best);
    }
    return d;
  }

 private:
  std::map<int, std::deque<int>> waiting_;  // GPU count -> waiting job ids in arrival order
};

}  // namespace ringsched
