// strategies/gavel/sia_gavel.h — the two computations of Sia's (SOSP'23) Gavel adapter (sia-simulator/gavel.py) that
// tests check by hand: the max_sum_throughput_perf program and the round's queue. The strategy `sia_gavel` is in
// sia_gavel.cpp.
#pragma once

#include <cstddef>
#include <vector>

namespace ringsched {

// Gavel's max_sum_throughput_perf (ThroughputSumWithPerf, as Sia's artifact ships it): time fractions x[i][k] >= 0
// maximising sum_i sum_k tput[i][k] x[i][k] subject to sum_i sf_i x[i][k] <= workers[k] and sum_k x[i][k] <= 1.
// `centre`: the optimal face's interior point (Sia runs ECOS, an interior-point solver), else a simplex vertex.
// Returns x row-major (job i, type k at i * types + k), rounded to 5 decimals and clipped to [0, 1] as gavel.py
// does. std::runtime_error with the solver's status when the program is not solved.
std::vector<double> sia_gavel_max_sum_throughput(const std::vector<std::vector<double>>& tput,
                                                 const std::vector<int>& scale_factor, const std::vector<int>& workers,
                                                 bool centre);

struct SiaGavelPick {
  std::size_t job;
  std::size_t pool;
};

// The round's placements (update_priorities, schedule_jobs_on_workers_helper): priority of job i on type k =
// alloc / (job_time / cluster_time[k]) (alloc x 1e9 when the fraction is 0, 0 without allocation); one list of
// every (job, type) sorted by (priority, allocation) descending, ties in type-major order; walked once, a job taking
// its scale factor's GPUs on the first type of its entries with that many left. Jobs with no allocation anywhere
// still take what is left. job_time row-major as alloc.
std::vector<SiaGavelPick> sia_gavel_queue(const std::vector<double>& alloc, const std::vector<double>& job_time,
                                          const std::vector<double>& cluster_time, const std::vector<int>& scale_factor,
                                          std::vector<int> workers_left);

}  // namespace ringsched
