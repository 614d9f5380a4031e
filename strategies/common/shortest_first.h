// strategies/common/shortest_first.h — what the non-preemptive shortest-first strategies (sjf, qssf) share: their
// job orders as priority functions (lower first, ties by arrival then id) that a queue of any shape can use, the
// dense fill of waiting jobs in a given order, and the incremental queues that decide the same at O(jobs started x
// distinct GPU counts) per decision.
#pragma once

#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "strategies/common/rigid.h"
#include "strategies/common/service_estimator.h"
#include "strategies/strategy.h"

namespace ringsched {

// A job's believed run time at `gpus` GPUs from scratch, total work / speed: the recorded duration of a trace job
// under oracle beliefs. On a typed cluster (s.pools) the speed is that of the type where it runs fastest. +inf when
// the belief gives it no speed there. Rounded to the microsecond (below 1e15 s), so that equal recorded durations
// tie exactly. Needs a belief (throws std::logic_error naming `strategy` without one).
double believed_duration(const Snapshot& s, const JobView& v, int gpus, const std::string& strategy);

// sjf's order: a job's believed duration at its rigid size (believed_duration). Fixed for a job once computed (at its
// arrival): beliefs that learn (online, agent) change nothing for a job that has not run.
class SjfRank {
 public:
  [[nodiscard]] static double priority(const Snapshot& s, const JobView& v, int gpus) {
    return believed_duration(s, v, gpus, "sjf");
  }
};

// qssf's order: a job's estimated service (GPU-seconds) = estimated run time x GPUs, lower first. With the history
// estimator the run time is ServiceEstimator's estimate from the jobs finished so far, which the owner feeds:
// started() when a job gets its GPUs, finished() when it ends (its measured run time is the difference); with the
// oracle estimator it is believed_duration (beliefs needed).
class QssfRank {
 public:
  QssfRank(bool oracle, double prior_s) : oracle_(oracle), estimator_(prior_s) {}
  [[nodiscard]] double priority(const Snapshot& s, const JobView& v, int gpus) const;
  void started(const JobPublic& p, int gpus, double now);
  void finished(int job_id, double now);
  [[nodiscard]] const ServiceEstimator& estimator() const { return estimator_; }

 private:
  struct Running {
    std::string user;
    std::string name;
    int gpus = 0;
    double since = 0.0;
  };
  bool oracle_;
  ServiceEstimator estimator_;
  std::unordered_map<int, Running> running_;  // started jobs by id, until they finish (history estimator only)
};

// The order of a rank: (priority, arrival, id), lower first.
using RankKey = std::tuple<double, double, int>;

// Dense decision: jobs holding GPUs keep them (and their pool); the waiting jobs `order` lists (snapshot indices, in
// rank order) start at size(pub) while they fit. Without backfill the first that does not fit blocks the rest; with
// it, later ones that fit start. On a typed cluster each goes to the pool with room where its belief says it runs
// fastest (fastest_pool_with_room; without a belief the first pool with room).
template <class SizeFn>
Decision ordered_fill(const Snapshot& s, const std::vector<int>& order, SizeFn size, bool backfill) {
  Decision d = empty_decision(s);
  const bool typed = !s.pools.empty();
  std::vector<int> free_in_pool = typed ? pool_gpus(s) : std::vector<int>{};
  int free = s.total_gpus;
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    d.jobs[i].gpus = s.jobs[i].gpus;
    d.jobs[i].pool = s.jobs[i].pool;
    free -= s.jobs[i].gpus;
    if (typed) free_in_pool[static_cast<std::size_t>(s.jobs[i].pool)] -= s.jobs[i].gpus;
  }
  for (int idx : order) {
    const JobView& j = s.jobs[static_cast<std::size_t>(idx)];
    const int need = size(*j.pub);
    const int pool = typed ? fastest_pool_with_room(s, j, need, free_in_pool) : (need <= free ? 0 : -1);
    if (pool < 0) {
      if (!backfill) break;
      continue;
    }
    d.jobs[static_cast<std::size_t>(idx)].gpus = need;
    d.jobs[static_cast<std::size_t>(idx)].pool = pool;
    free -= need;
    if (typed) free_in_pool[static_cast<std::size_t>(pool)] -= need;
  }
  return d;
}

// ordered_fill kept incrementally (untyped clusters): waiting jobs in one RankKey-ordered set per GPU count. take()
// decides what ordered_fill decides over the same jobs: strict, the first waiting job in rank order while it fits;
// with backfill the first that fits the free GPUs, repeatedly (a job skipped once never fits later in the same
// decision: free GPUs only shrink).
class RankedQueues {
 public:
  void push(int id, int gpus, double priority, double arrival) { by_size_[gpus].insert({priority, arrival, id}); }
  [[nodiscard]] bool empty() const { return by_size_.empty(); }
  // Starts jobs on `free` GPUs: returns them (job, GPUs) in the order started, removed from the queues.
  std::vector<Change> take(int free, bool backfill);

 private:
  std::map<int, std::set<RankKey>> by_size_;  // GPU count -> waiting jobs in rank order
};

}  // namespace ringsched
