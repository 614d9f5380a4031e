// strategies/optimal_allocation.cpp — exact DP for the instantaneous allocation problem (see the header).
#include "strategies/optimal_allocation.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "strategies/common/allocation.h"

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
  std::vector<double> pick(extra + 1);
  std::size_t reach = 0;
  best[0] = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const auto& cost = jobs[j].cost;
    const std::size_t range = std::min(cost.size() - 1, extra);
    int* ch = &choice[j * (extra + 1)];
    // next[b] = min over k <= min(range, b) of best[b - k] + cost[k], the smallest k on ties. Looping k outside and b
    // inside (a strict < keeps the earlier k) with the choice held as a double makes the inner loop branch-free, so
    // the compiler vectorises it; the sums and comparisons are those of per-b loops. An infinite best stays infinite
    // (costs are >= 0 or +inf). Jobs so far can use at most `reach` extra GPUs: beyond it every best is infinite.
    const std::size_t top = std::min(extra, reach + range);
    std::fill(next.begin(), next.end(), kInf);
    std::fill(pick.begin(), pick.end(), 0.0);
    double* nx = next.data();
    double* pk = pick.data();
    const double* bs = best.data();
    for (std::size_t k = 0; k <= range; ++k) {
      const double ck = cost[k];
      const auto kd = static_cast<double>(k);
      for (std::size_t b = k; b <= top; ++b) {
        const double c = bs[b - k] + ck;
        const double old = nx[b];
        const double old_k = pk[b];
        nx[b] = c < old ? c : old;
        pk[b] = c < old ? kd : old_k;
      }
    }
    for (std::size_t b = 0; b <= extra; ++b)
      ch[b] = static_cast<int>(pk[b]);
    reach = top;
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
    const int need = std::max(1, s.jobs[static_cast<std::size_t>(candidates[i])].pub->cls.min_gpus);
    if (need <= budget) {
      served[i] = true;
      budget -= need;
    }
  }
  return served;
}

std::vector<int> optimal_allocation(const Snapshot& s, const std::vector<int>& candidates, int budget,
                                    double max_dp_cells) {
  const std::vector<bool> served = served_jobs(s, candidates, budget);
  std::vector<OptimalJob> jobs;
  std::vector<std::size_t> where;
  long at_best = 0;  // GPUs if every served job took its own best count
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!served[i]) continue;
    const JobView& j = s.jobs[static_cast<std::size_t>(candidates[i])];
    OptimalJob o;
    o.min_gpus = std::max(1, j.pub->cls.min_gpus);
    const int hi = std::max(o.min_gpus, std::min(j.pub->cls.max_gpus, budget));
    o.cost.reserve(static_cast<std::size_t>(hi - o.min_gpus + 1));
    std::size_t best = 0;  // the smallest count with the least cost
    for (int w = o.min_gpus; w <= hi; ++w) {
      o.cost.push_back(believed_time(j, w, s.gpus_per_node));
      if (o.cost.back() < o.cost[best]) best = o.cost.size() - 1;
    }
    // Pruning: more GPUs than the job's best count never lower the objective (its cost is no lower there and the
    // GPUs are better left to others), so the DP need not consider them.
    o.cost.resize(best + 1);
    at_best += o.min_gpus + static_cast<long>(best);
    jobs.push_back(std::move(o));
    where.push_back(i);
  }
  std::vector<int> out(candidates.size(), 0);
  if (at_best <= budget) {
    // Every job at its best count fits: that is the optimum (each term at its least; fewest GPUs among optima).
    for (std::size_t k = 0; k < jobs.size(); ++k)
      out[where[k]] = jobs[k].min_gpus + static_cast<int>(jobs[k].cost.size()) - 1;
    return out;
  }
  long mins = 0;
  for (const auto& o : jobs)
    mins += o.min_gpus;
  const double extra = static_cast<double>(std::max(0L, budget - mins)) + 1.0;
  double cells = 0.0;
  for (const auto& o : jobs)
    cells += std::min(static_cast<double>(o.cost.size()), extra) * extra;
  if (max_dp_cells > 0.0 && cells > max_dp_cells) {
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "strategy 'optimal': the exact allocation at t = %.6g s needs a dynamic program of %.3g cells (%zu "
                  "jobs sharing %d GPUs), over its per-decision budget of %.3g (param max_dp_cells); use precompute "
                  "or optimus at this scale, or raise max_dp_cells",
                  s.now, cells, jobs.size(), budget, max_dp_cells);
    throw OptimalTooLarge(buf);
  }
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
