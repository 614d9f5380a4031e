// strategies/common/rigid.h — helpers shared by the rigid strategies (eight, fifo, srtf, tiresias): the fixed GPU count
// a job asks for, greedy placement of jobs in priority order, and first-come first-served filling.
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

// The pool of a typed cluster (Snapshot::pools) where `job` runs fastest at `gpus` by its belief per type
// (Belief::throughput_on; believed finish earliest), among those with `gpus` free; ties (and jobs without a belief)
// go to the pool it holds GPUs in, then the earliest pool in config order. -1 when no pool has room.
inline int fastest_pool_with_room(const Snapshot& s, const JobView& job, int gpus, const std::vector<int>& free) {
  int best = -1;
  double best_rate = 0.0;
  bool best_held = false;
  for (std::size_t p = 0; p < s.pools.size(); ++p) {
    if (free[p] < gpus) continue;
    const int nodes = (gpus + s.pools[p].gpus_per_node - 1) / s.pools[p].gpus_per_node;
    const double rate = job.belief != nullptr ? job.belief->throughput_on(s.pools[p].gpu_type, gpus, nodes) : 0.0;
    const bool held = job.gpus > 0 && static_cast<std::size_t>(job.pool) == p;
    if (best < 0 || rate > best_rate || (rate == best_rate && held && !best_held)) {
      best = static_cast<int>(p);
      best_rate = rate;
      best_held = held;
    }
  }
  return best;
}

// rigid_fill on a typed cluster: each job in `order` (indices into s.jobs) gets its rigid size on the pool where it
// runs fastest among those with room (fastest_pool_with_room); a job that fits in no pool is skipped and later jobs
// may use the GPUs. Preempts everything else.
template <class SizeFn>
Decision rigid_fill_typed(const Snapshot& s, const std::vector<int>& order, SizeFn size) {
  Decision d = empty_decision(s);
  std::vector<int> free = pool_gpus(s);
  for (int idx : order) {
    const JobView& j = s.jobs[static_cast<std::size_t>(idx)];
    const int need = size(*j.pub);
    const int p = fastest_pool_with_room(s, j, need, free);
    if (p < 0) continue;
    d.jobs[static_cast<std::size_t>(idx)].gpus = need;
    d.jobs[static_cast<std::size_t>(idx)].pool = p;
    free[static_cast<std::size_t>(p)] -= need;
  }
  return d;
}

// First-come first-served without preemption: started jobs keep their GPUs; waiting jobs start in snapshot (arrival)
// order at size(job's public facts) while they fit. Without backfill the first waiting job that does not fit blocks
// the rest (strict FCFS); with it, later jobs that fit may start.
template <class SizeFn>
Decision fcfs_fill(const Snapshot& s, SizeFn size, bool backfill) {
  Decision d = empty_decision(s);
  int free = s.total_gpus;
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    d.jobs[i].gpus = s.jobs[i].gpus;
    free -= s.jobs[i].gpus;
  }
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    if (s.jobs[i].gpus > 0) continue;
    const int need = size(*s.jobs[i].pub);
    if (need <= free) {
      d.jobs[i].gpus = need;
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
    d.jobs[i].gpus = s.jobs[i].gpus;
    d.jobs[i].pool = s.jobs[i].pool;
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
      d.jobs[i].gpus = need;
      d.jobs[i].pool = best;
      free[static_cast<std::size_t>(best)] -= need;
    } else if (!backfill) {
      break;
    }
  }
  return d;
}

// rigid_fill in priority order when the jobs holding GPUs are kept apart (incremental srtf and tiresias): `run` holds
// them in priority order, `by_size` the waiting jobs (one priority-ordered set per rigid size; `Key`'s last element
// is the job id); `before(a, b)` is the priority order between two job ids, `size_of` a job's rigid size. Returns the
// jobs served, in priority order. The best waiting head among the sizes that still fit is recomputed only when a
// waiting job is taken or the GPUs left fall below its size, so holders (most of what is served) cost one comparison
// each; a job too large for the GPUs left is skipped for good (free GPUs only shrink). `run` holds job ids, or records
// with an `id` that carry what `size_of` and `before` read of a holder (then `size_of(record)`, `before(record, id)`).
inline int merge_fill_id(int id) {
  return id;
}
template <class Run>
int merge_fill_id(const Run& r) {
  return r.id;
}
template <class Key, class Run, class SizeOf, class Before>
std::vector<int> merge_fill(const std::vector<Run>& run, const std::map<int, std::set<Key>>& by_size, int free,
                            SizeOf size_of, Before before) {
  struct Cursor {
    int size;
    typename std::set<Key>::const_iterator at, end;
  };
  constexpr std::size_t kId = std::tuple_size_v<Key> - 1;
  std::vector<Cursor> cursors;
  for (const auto& [size, keys] : by_size)
    cursors.push_back({size, keys.begin(), keys.end()});  // by increasing size
  std::vector<int> served;
  served.reserve(run.size() + 16);  // mostly the holders again: one allocation, not a doubling series
  std::size_t r = 0;
  Cursor* best = nullptr;
  bool stale = true;
  while (free > 0) {
    while (r < run.size() && size_of(run[r]) > free)
      ++r;  // too large for what is left: not served
    if (stale || (best != nullptr && best->size > free)) {
      best = nullptr;
      for (Cursor& c : cursors) {
        if (c.size > free) break;  // sizes increase: no later set fits either
        if (c.at != c.end && (best == nullptr || *c.at < *best->at)) best = &c;
      }
      stale = false;
    }
    int id = -1;
    if (r < run.size() && (best == nullptr || before(run[r], std::get<kId>(*best->at)))) {
      id = merge_fill_id(run[r]);
      free -= size_of(run[r++]);
    } else if (best != nullptr) {
      id = std::get<kId>(*best->at);
      free -= size_of(id);
      ++best->at;
      stale = true;
    } else {
      break;
    }
    served.push_back(id);
  }
  return served;
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
      d.changes.push_back({best->second.front(), best->first});
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
