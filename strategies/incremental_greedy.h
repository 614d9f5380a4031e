// strategies/incremental_greedy.h — the greedy allocations of allocation.h (doubling, unit step) kept incrementally
// for Strategy::decide_changes (precompute, optimus): the same counts at O(arrivals + completions) per decision when
// GPUs are plentiful, and over the served jobs alone otherwise.
#pragma once

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "strategies/allocation.h"
#include "strategies/arrival_queue.h"
#include "strategies/strategy.h"

namespace ringsched {

enum class GrowStep { kDouble, kUnit };

// How it decides exactly what doubling_allocation / unit_greedy_allocation over every job in arrival order decide:
// - When every job's beliefs are fixed (Belief::fixed) and the jobs' end points fit the cluster together, each job
//   gets its end point: where the greedy takes it when the budget never binds (from max(1, min) it grows while the
//   believed time falls, i.e. while f(next) > f(cur), whatever the remaining work; see end_point). Only arrivals
//   change then.
// - When every job needs one GPU and they outnumber the GPUs, the first G jobs in arrival order get one GPU each and
//   the budget is gone: the served prefix is kept across decisions (completions in it let the next jobs in).
// - When every active job fits at its minimum but not at its end point (the budget binds), the greedy runs lazily:
//   each job's first gain is kept with the remaining work it was computed at; remaining work only falls, so a kept
//   gain (plus a bound on rounding) bounds the current one from above, and only jobs whose bound could beat the best
//   exact gain so far are recomputed. The pops are the heuristic's own: the best exact gain is taken only when it
//   beats every bound (ties re-examined, earlier job first).
// - Otherwise the served jobs (first fit in arrival order, ArrivalQueue) go through the greedy itself.
class IncrementalGreedy {
 public:
  explicit IncrementalGreedy(GrowStep step) : step_(step) {}
  Decision decide(const Snapshot& s);

 private:
  struct EndPoint {
    int gpus = 0;
    bool fragile = true;  // no fixed end point: decisions take the full greedy while the job is active
    int need = 1;         // max(1, min GPUs)
  };
  // Also fills the job's speed chain (the speeds it evaluated, kept while the job is active) when not fragile.
  [[nodiscard]] EndPoint end_point(const JobView& j, int gpus_per_node, SpeedChain& chain) const;
  void set(Decision& d, int id, int gpus);
  void saturated(Decision& d, const Snapshot& s);
  void lazy(Decision& d, const Snapshot& s);
  void forget(int id);                                 // a job finished: out of every structure
  void admit(const JobView& v, int gpus_per_node);     // a job arrived: its end point, need and kept bound
  void served_greedy(Decision& d, const Snapshot& s);  // the greedy over the jobs first fit serves
  void lazy_changes(Decision& d, const Snapshot& s, std::vector<int>& grown);  // the lazy decision's changes
  [[nodiscard]] int next_count(int w, int max_gpus) const {
    return std::min(step_ == GrowStep::kDouble ? 2 * w : w + 1, max_gpus);
  }

  // A job's first gain (at its minimum), as last computed; `bound` is its key in bounds_.
  struct Kept {
    double gain = 0.0;
    double bound = 0.0;
    double work_done = -1.0;  // the progress it was computed at (-1: never)
    bool listed = false;      // in bounds_
  };
  struct ByBound {
    bool operator()(const std::pair<double, int>& a, const std::pair<double, int>& b) const {
      if (a.first != b.first) return a.first > b.first;
      return a.second < b.second;
    }
  };

  GrowStep step_;
  ArrivalQueue queue_;
  std::vector<EndPoint> ends_;                        // by job id
  std::vector<SpeedChain> chains_;                    // by job id (empty for fragile or finished jobs)
  std::vector<int> held_;                             // by job id: GPUs as last decided
  std::set<int> holders_;                             // ids with held_ > 0
  long sum_ends_ = 0;                                 // over active jobs
  int fragile_ = 0;                                   // active fragile jobs
  bool at_ends_ = false;                              // the last decision left every active job at its end point
  int needing_more_ = 0;                              // active jobs that need more than one GPU
  bool in_prefix_ = false;                            // the last decision served the first G jobs at one GPU each
  int prefix_last_ = -1;                              // then: the last job served (every active job up to it is served)
  int prefix_count_ = 0;                              // then: jobs served
  long sum_needs_ = 0;                                // over active jobs
  std::vector<Kept> kept_;                            // by job id
  std::set<std::pair<double, int>, ByBound> bounds_;  // jobs that can grow, by upper bound of their first gain
  bool lazy_last_ = false;                            // the last decision ran the lazy greedy
  std::vector<int> grown_;                            // then: the jobs it gave more than their minimum
  std::vector<int> count_;                            // by job id, during the lazy greedy: count if grown (else 0)
};

}  // namespace ringsched
