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
  d.jobs.resize(s.jobs.size());
  return d;
}

void Decision::set_gpus(const std::vector<int>& counts) {
  jobs.assign(counts.size(), Assignment{});
  for (std::size_t i = 0; i < counts.size(); ++i)
    jobs[i].gpus = counts[i];
}

std::vector<int> Decision::gpus() const {
  std::vector<int> out;
  out.reserve(jobs.size());
  for (const Assignment& a : jobs)
    out.push_back(a.gpus);
  return out;
}

Decision Strategy::decide_changes(const Snapshot& /*snapshot*/) {
  throw std::logic_error("strategy '" + name() + "' is not incremental");
}

}  // namespace ringsched
