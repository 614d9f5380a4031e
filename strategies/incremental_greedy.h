// strategies/incremental_greedy.h — the greedy allocations of allocation.h (doubling, unit step) kept incrementally
// for Strategy::decide_changes (precompute, optimus): the same counts at O(arrivals + completions) per decision when
// GPUs are plentiful, and over the served jobs alone otherwise.
#pragma once

#include <set>
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

  GrowStep step_;
  ArrivalQueue queue_;
  std::vector<EndPoint> ends_;      // by job id
  std::vector<SpeedChain> chains_;  // by job id (empty for fragile or finished jobs)
  std::vector<int> held_;           // by job id: GPUs as last decided
  std::set<int> holders_;           // ids with held_ > 0
  long sum_ends_ = 0;               // over active jobs
  int fragile_ = 0;                 // active fragile jobs
  bool at_ends_ = false;            // the last decision left every active job at its end point
  int needing_more_ = 0;            // active jobs that need more than one GPU
  bool in_prefix_ = false;          // the last decision served the first G jobs at one GPU each
  int prefix_last_ = -1;            // then: the last job served (every active job up to it is served)
  int prefix_count_ = 0;            // then: jobs served
};

}  // namespace ringsched
