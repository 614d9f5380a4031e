// strategies/common/shortest_first.cpp — sjf's and qssf's orders and the incremental ranked queues (see the header).
#include "strategies/common/shortest_first.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "models/input_error.h"
#include "workloads/job_class.h"

namespace ringsched {

double believed_duration(const Snapshot& s, const JobView& v, int gpus, const std::string& strategy) {
  if (v.belief == nullptr) throw std::logic_error("strategy '" + strategy + "' needs beliefs (not \"none\")");
  double speed = 0.0;
  if (s.pools.empty()) {
    speed = v.belief->throughput(gpus, packed_nodes(gpus, s.gpus_per_node));
  } else {
    for (const PoolInfo& p : s.pools)
      speed = std::max(speed, v.belief->throughput_on(p.gpu_type, gpus, packed_nodes(gpus, p.gpus_per_node)));
  }
  if (!(speed > 0.0)) return std::numeric_limits<double>::infinity();
  // To the microsecond: a trace's equal durations tie (and go by arrival) although work / speed, the trace's duration
  // x speed / speed, differs from it in the last bits, by amounts that depend on the job's GPU count.
  const double d = v.belief->total_work() / speed;
  return d < 1e15 ? std::round(d * 1e6) / 1e6 : d;
}

double QssfRank::priority(const Snapshot& s, const JobView& v, int gpus) const {
  if (oracle_) {
    if (v.belief == nullptr) {
      throw InputError(
          "strategy 'qssf': estimator \"oracle\" ranks by believed durations and needs beliefs: run it "
          "as qssf[oracle] (its default beliefs are none)");
    }
    return believed_duration(s, v, gpus, "qssf") * static_cast<double>(gpus);
  }
  return estimator_.service(v.pub->user, v.pub->name, gpus);
}

void QssfRank::started(const JobPublic& p, int gpus, double now) {
  if (oracle_) return;
  running_.try_emplace(p.id, Running{p.user, p.name, gpus, now});  // a restart after a node failure keeps its start
}

void QssfRank::finished(int job_id, double now) {
  const auto it = running_.find(job_id);
  if (it == running_.end()) return;
  estimator_.record(it->second.user, it->second.name, it->second.gpus, now - it->second.since);
  running_.erase(it);
}

std::vector<Change> RankedQueues::take(int free, bool backfill) {
  std::vector<Change> started;
  while (free > 0 && !by_size_.empty()) {
    // The first waiting job in rank order among the counts allowed (all counts when strict: the head may block).
    auto best = by_size_.end();
    for (auto it = by_size_.begin(); it != by_size_.end() && (!backfill || it->first <= free); ++it) {
      if (best == by_size_.end() || *it->second.begin() < *best->second.begin()) best = it;
    }
    if (best == by_size_.end() || best->first > free) break;
    started.push_back({std::get<2>(*best->second.begin()), best->first, 0});
    free -= best->first;
    best->second.erase(best->second.begin());
    if (best->second.empty()) by_size_.erase(best);
  }
  return started;
}

}  // namespace ringsched
