// strategies/strategy.cpp — helpers shared by strategies.
#include "strategies/strategy.h"

#include <algorithm>
#include <stdexcept>

namespace ringsched {

double believed_remaining(const JobView& job) {
  if (job.belief == nullptr) return 1.0;
  return std::max(1.0, job.belief->total_work() - job.work_done);
}

std::vector<int> pool_gpus(const Snapshot& s) {
  std::vector<int> out;
  out.reserve(s.pools.size());
  for (const PoolInfo& p : s.pools)
    out.push_back(p.gpus);
  return out;
}

Decision empty_decision(const Snapshot& s) {
  Decision d;
  d.gpus.assign(s.jobs.size(), 0);
  if (!s.pools.empty()) d.pools.assign(s.jobs.size(), 0);
  return d;
}

Decision Strategy::decide_changes(const Snapshot& /*snapshot*/) {
  throw std::logic_error("strategy '" + name() + "' is not incremental");
}

}  // namespace ringsched
