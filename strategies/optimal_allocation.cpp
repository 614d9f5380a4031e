// strategies/optimal_allocation.cpp — exact DP for the instantaneous allocation problem (see the header).
#include "strategies/optimal_allocation.h"

#include <algorithm>
#include <limits>

#include "strategies/allocation.h"

namespace ringsched {

std::vector<int> optimal_counts(const std::vector<OptimalJob>& jobs, int budget) {
  const std::size_t n = jobs.size();
  long mins = 0;
  for (const auto& j : jobs)
    mins += j.min_gpus;
  if (mins > budget) return {};
  const auto extra = static_cast<std::size_t>(budget - mins);  // GPUs to share beyond the minimums
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // best[b] = least cost of the jobs seen so far using exactly b extra GPUs; choice[j * (extra + 1) + b] = extra
  // GPUs given to job j in that optimum.
  std::vector<double> best(extra + 1, kInf);
  std::vector<double> next(extra + 1);
  std::vector<int> choice(n * (extra + 1), 0);
  best[0] = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const auto& cost = jobs[j].cost;
    const std::size_t range = std::min(cost.size() - 1, extra);
    int* ch = &choice[j * (extra + 1)];
    for (std::size_t b = 0; b <= extra; ++b) {
      double v = kInf;
      int arg = 0;
      const std::size_t top = std::min(range, b);
      for (std::size_t k = 0; k <= top; ++k) {
        const double prev = best[b - k];
        if (prev == kInf) continue;
        const double c = prev + cost[k];
        if (c < v) {
          v = c;
          arg = static_cast<int>(k);
        }
      }
      next[b] = v;
      ch[b] = arg;
    }
    best.swap(next);
  }
  // sum w <= budget: the best over every number of extra GPUs used (fewest GPUs on ties).
  std::size_t b = 0;
  for (std::size_t k = 1; k <= extra; ++k) {
    if (best[k] < best[b]) b = k;
  }
  std::vector<int> w(n, 0);
  for (std::size_t j = n; j-- > 0;) {
    const int k = choice[j * (extra + 1) + b];
    w[j] = jobs[j].min_gpus + k;
    b -= static_cast<std::size_t>(k);
  }
  return w;
}

std::vector<bool> served_jobs(const Snapshot& s, const std::vector<int>& candidates, int budget) {
  std::vector<bool> served(candidates.size(), false);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const int need = std::max(1, s.jobs[static_cast<std::size_t>(candidates[i])].pub->min_gpus);
    if (need <= budget) {
      served[i] = true;
      budget -= need;
    }
  }
  return served;
}

std::vector<int> optimal_allocation(const Snapshot& s, const std::vector<int>& candidates, int budget) {
  const std::vector<bool> served = served_jobs(s, candidates, budget);
  std::vector<OptimalJob> jobs;
  std::vector<std::size_t> where;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!served[i]) continue;
    const JobView& j = s.jobs[static_cast<std::size_t>(candidates[i])];
    OptimalJob o;
    o.min_gpus = std::max(1, j.pub->min_gpus);
    const int hi = std::max(o.min_gpus, std::min(j.pub->max_gpus, budget));
    o.cost.reserve(static_cast<std::size_t>(hi - o.min_gpus + 1));
    for (int w = o.min_gpus; w <= hi; ++w)
      o.cost.push_back(believed_time(j, w, s.gpus_per_node));
    jobs.push_back(std::move(o));
    where.push_back(i);
  }
  std::vector<int> out(candidates.size(), 0);
  const std::vector<int> w = optimal_counts(jobs, budget);
  for (std::size_t k = 0; k < w.size(); ++k)
    out[where[k]] = w[k];
  return out;
}

double allocation_objective(const Snapshot& s, const std::vector<int>& candidates, const std::vector<int>& gpus) {
  double sum = 0.0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (gpus[i] > 0) sum += believed_time(s.jobs[static_cast<std::size_t>(candidates[i])], gpus[i], s.gpus_per_node);
  }
  return sum;
}

}  // namespace ringsched
