// strategies/common/incremental_greedy.h — the greedy allocations of allocation.h (doubling, unit step) kept
// incrementally for Strategy::decide_changes (precompute, optimus): the same counts at O(arrivals + completions) per
// decision when GPUs are plentiful, and over the served jobs alone otherwise.
#pragma once

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "strategies/common/allocation.h"
#include "strategies/common/arrival_queue.h"
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

  // A job's first gain (at its minimum), as last computed, and `bound`, its key in order_ (an upper bound of its
  // current first gain). `total` and `max_gpus` are the belief's total work and the job's GPU limit, read once.
  struct Kept {
    double gain = 0.0;
    double bound = 0.0;
    double work_done = -1.0;  // the progress it was computed at (-1: never)
    double total = 0.0;
    int max_gpus = 0;
    bool listed = false;  // has a live entry in order_ or fresh_
  };
  using Entry = std::pair<double, int>;  // (bound, id)
  // The order in which the lazy greedy examines jobs: bound descending, then id ascending.
  static bool examined_before(const Entry& a, const Entry& b) {
    if (a.first != b.first) return a.first > b.first;
    return a.second < b.second;
  }
  struct Gain {
    double gain;
    int id;
    bool operator<(const Gain& o) const {
      if (gain != o.gain) return gain < o.gain;
      return id > o.id;  // the earlier job wins ties, as in allocation.cpp
    }
  };
  // The next job to examine (its entry is live), or false when none is left.
  [[nodiscard]] bool next_examined(Entry& e);
  // The lazy greedy's parts (incremental_greedy.cpp, at lazy).
  [[nodiscard]] double time_at(const Snapshot& s, int id, int w, double remaining) const;
  // (t_nxt, when given, receives the time at the next count.)
  [[nodiscard]] double gain_at(const Snapshot& s, int id, int cur, double remaining, double& t_cur,
                               double* t_nxt = nullptr) const;
  [[nodiscard]] const Gain* best() const;
  void push_gain(const Gain& g);
  void offer_first(int id);
  void examine(const Snapshot& s, int id);
  void collect_tokens(const Snapshot& s, int id, double v);
  [[nodiscard]] int choose_threshold(int budget) const;
  int lazy_first_phase(const Snapshot& s, int budget, std::vector<int>& grown);
  void lazy_second_phase(const Snapshot& s, int budget, std::vector<int>& grown);
  void take_examined();
  // Puts the jobs examined in this decision back with their new bounds (order_ stays sorted).
  void relist(std::vector<int>& examined);

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
  std::vector<int> joined_inside_;  // jobs that joined in this decision before the prefix's end
  bool in_prefix_ = false;          // the last decision served the first G jobs at one GPU each
  int prefix_last_ = -1;            // then: the last job served (every active job up to it is served)
  int prefix_count_ = 0;            // then: jobs served
  long sum_needs_ = 0;              // over active jobs
  std::vector<Kept> kept_;          // by job id
  // The jobs that can grow and have a bound, sorted by examined_before from order_head_ (entries before it are
  // spare room; entries of finished jobs stay, not live, until passed); jobs with no bound yet (+inf), in id order.
  std::vector<Entry> order_;
  std::size_t order_head_ = 0;
  std::vector<int> fresh_;
  std::size_t fresh_head_ = 0;
  std::vector<Gain> heap_;  // the lazy greedy's exact gains: a binary heap and a descending queue (reused)
  std::vector<Gain> run_;
  std::size_t run_head_ = 0;  // run_'s front
  // The lazy greedy's first phase: for each examined job worth more than its threshold v, the longest run of its
  // first tokens (growth steps) worth more than each candidate threshold v, 1.25 v, 2 v, 4 v (kThresholds): the
  // GPUs the run adds, the count it reaches, its lowest gain and the gain of the token after it (NaN: none).
  static constexpr int kThresholds = 4;
  struct Run {
    int id = 0;
    int size[kThresholds] = {};  // 0: no token above that threshold
    int to[kThresholds] = {};
    double low[kThresholds] = {};
    double next[kThresholds] = {};
  };
  std::vector<Run> runs_;
  double cut_ = 0.0;             // the last gain the previous lazy decision took (+inf: none)
  double last_taken_ = 0.0;      // the last gain this lazy decision took (+inf: none yet)
  std::vector<int> examined_;    // jobs taken out of order_ or fresh_ in this decision
  std::vector<Entry> relisted_;  // their new entries
  bool lazy_last_ = false;       // the last decision ran the lazy greedy
  std::vector<int> grown_;       // then: the jobs it gave more than their minimum
  std::vector<int> growing_;     // the jobs grown in this decision (grown_'s next value; buffers swapped, not freed)
  double examined_t_next_ = -1;  // examine's time at the job's second count (< 0: its kept gain was reused)
  std::vector<int> count_;       // by job id, during the lazy greedy: count if grown (else 0)
};

}  // namespace ringsched
