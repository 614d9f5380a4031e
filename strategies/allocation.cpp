// strategies/allocation.cpp — doubling and unit-step greedy allocation with a binary heap of gains.
#include "strategies/allocation.h"

#include <algorithm>
#include <limits>
#include <queue>

namespace ringsched {

double believed_time(const JobView& job, int w, int gpus_per_node) {
  if (w <= 0) return std::numeric_limits<double>::infinity();
  const double f = job.belief->throughput(w, packed_nodes(w, gpus_per_node));
  if (!(f > 0.0)) return std::numeric_limits<double>::infinity();
  return believed_remaining(job) / f;
}

namespace {

struct Gain {
  double gain;
  std::size_t idx;
  bool operator<(const Gain& o) const {
    if (gain != o.gain) return gain < o.gain;
    return idx > o.idx;  // earlier candidate wins ties
  }
};

template <typename NextFn>
std::vector<int> grow(const Snapshot& s, const std::vector<int>& candidates, int budget, NextFn next_w) {
  std::vector<int> w(candidates.size(), 0);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const JobView& j = s.jobs[static_cast<std::size_t>(candidates[i])];
    const int need = std::max(1, j.pub->min_gpus);
    if (need <= budget) {
      w[i] = need;
      budget -= need;
    }
  }
  auto gain_of = [&](std::size_t i, double& gain) -> bool {
    const JobView& j = s.jobs[static_cast<std::size_t>(candidates[i])];
    const int cur = w[i];
    const int nxt = std::min(next_w(cur), j.pub->max_gpus);
    if (cur <= 0 || nxt <= cur) return false;
    gain = (believed_time(j, cur, s.gpus_per_node) - believed_time(j, nxt, s.gpus_per_node)) /
           static_cast<double>(nxt - cur);
    return true;
  };
  std::priority_queue<Gain> heap;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    double g = 0.0;
    if (gain_of(i, g) && g > 0.0) heap.push({g, i});
  }
  while (!heap.empty() && budget > 0) {
    const Gain top = heap.top();
    heap.pop();
    const JobView& j = s.jobs[static_cast<std::size_t>(candidates[top.idx])];
    const int cur = w[top.idx];
    const int nxt = std::min(next_w(cur), j.pub->max_gpus);
    if (nxt - cur > budget) continue;  // the budget only shrinks: this job cannot grow any more
    w[top.idx] = nxt;
    budget -= nxt - cur;
    double g = 0.0;
    if (gain_of(top.idx, g) && g > 0.0) heap.push({g, top.idx});
  }
  return w;
}

}  // namespace

std::vector<int> doubling_allocation(const Snapshot& s, const std::vector<int>& candidates, int budget) {
  return grow(s, candidates, budget, [](int w) { return 2 * w; });
}

std::vector<int> unit_greedy_allocation(const Snapshot& s, const std::vector<int>& candidates, int budget) {
  return grow(s, candidates, budget, [](int w) { return w + 1; });
}

}  // namespace ringsched
