// strategies/optimal_allocation.h — the exact solution of the instantaneous allocation problem
// (min sum_j Q_j / f_j(w_j) s.t. sum_j w_j <= budget, w_j integer within the job's limits) by dynamic programming
// over jobs x GPUs, and the objective used to compare heuristics with it (the optimality gap).
#pragma once

#include <stdexcept>
#include <vector>

#include "strategies/strategy.h"

namespace ringsched {

// Cost table of one job for the DP: cost[k] = believed remaining time on min_gpus + k GPUs (k = 0..max-min).
struct OptimalJob {
  int min_gpus = 1;
  std::vector<double> cost;  // non-empty; +inf entries are allowed (never chosen when a finite choice exists)
};

// The exact minimum of sum_j cost_j[w_j - min_j] over min_j <= w_j <= min_j + cost_j.size() - 1 with
// sum_j w_j <= budget. Every job must get at least its min (the caller decides which jobs are served).
// Ties go to the smaller w for the earlier job. Returns the counts, or an empty vector if the mins do not fit.
// O(n * B * R) time where B = budget - sum of mins and R = the widest range, O(n * B) memory.
std::vector<int> optimal_counts(const std::vector<OptimalJob>& jobs, int budget);

// The jobs that get GPUs: candidates in order each take max(1, min_gpus) while the budget lasts (the same rule
// as doubling_allocation and unit_greedy_allocation, so the served set is identical and the gap is comparable).
std::vector<bool> served_jobs(const Snapshot& s, const std::vector<int>& candidates, int budget);

// A decision whose dynamic program would exceed its cell budget.
class OptimalTooLarge : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Exact allocation over `candidates` (indices into s.jobs) with `budget` GPUs on believed remaining times
// (believed_time, packed placement). Aligned with `candidates`; unserved jobs get 0.
// Pruned: a job is never given more than its best count (the smallest with its least believed time), and when every
// job's best count fits the budget together that is the answer (no DP). The optimum's value is exact; among
// allocations of equal value the choice can differ from the unpruned DP's only on exact floating-point ties.
// max_dp_cells > 0: throws OptimalTooLarge (naming the time, jobs, GPUs and cells) instead of running a DP larger
// than that (jobs x GPUs to share x counts per job).
std::vector<int> optimal_allocation(const Snapshot& s, const std::vector<int>& candidates, int budget,
                                    double max_dp_cells = 0.0);

// Objective sum_j Q_j / f_j(w_j) of an allocation over the served jobs (w > 0); jobs with 0 GPUs are skipped.
double allocation_objective(const Snapshot& s, const std::vector<int>& candidates, const std::vector<int>& gpus);

}  // namespace ringsched
