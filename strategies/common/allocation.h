// strategies/common/allocation.h — allocation heuristics shared by strategies: the Eq. 6 doubling heuristic and the
// unit-step greedy (Optimus), both on believed remaining time Q/f(w), on one GPU type or on a cluster's pools.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "strategies/strategy.h"

namespace ringsched {

// Believed remaining time of job j on w GPUs (packed placement): Q_j / f_j(w); +inf for w == 0.
double believed_time(const JobView& job, int w, int gpus_per_node);

// Eq. 6. `candidates` index snapshot.jobs in priority (arrival) order; `budget` GPUs to share. Every candidate
// starts at its min GPUs in order while the budget lasts (the rest get 0); then repeatedly the job with the largest
// (t(w) - t(w')) / (w' - w), w' = min(2w, max), is grown to w' while that gain is > 0 and w' - w GPUs remain.
// Ties go to the earlier candidate. Returns GPU counts aligned with `candidates`.
std::vector<int> doubling_allocation(const Snapshot& s, const std::vector<int>& candidates, int budget);

// Unit-step greedy (Optimus): like doubling but grows one GPU at a time (w' = w + 1). Stops at the first step
// where no job gains, which is how it gets stuck at 8 when 9 is slower and 16 faster.
std::vector<int> unit_greedy_allocation(const Snapshot& s, const std::vector<int>& candidates, int budget);

// The same heuristics on a typed cluster (Snapshot::pools non-empty): each job runs on one pool. Candidates in
// priority order each start at their min GPUs on the pool where they are believed to finish soonest at that count
// (remaining work / Belief::throughput_on) among those with room (ties: the pool the job holds GPUs in, then the
// earlier pool); then, repeatedly, the job with the largest gain per added GPU takes a larger count, while that gain
// is > 0: its next count w' = min(2w, max) for doubling (`unit` false) or w + 1 (`unit` true) on its own pool if
// w' - w GPUs are left there, or moved to another pool at w' or any later count of the same sequence with that many
// GPUs free there (its w freed), gain (t(w) - t'(w'')) / (w'' - w) with t' the time on the pool it goes to (ties: its
// own pool, then the earlier job). Looking past w' on another pool matters when a slower type pays only at a larger
// count (1 fast GPU beats 2 slow ones but not 4): without it such jobs never move and the slower pool idles
// (docs/fidelity.md "Elastic resizing on a mixed cluster"). Decision::jobs aligned with snapshot.jobs (jobs not in
// `candidates` get 0).
Decision typed_greedy_allocation(const Snapshot& s, const std::vector<int>& candidates, bool unit);

// A job's believed speeds at the counts a greedy may ask for, kept by an incremental strategy when its beliefs are
// fixed (Belief::fixed): (GPUs, throughput on them packed) pairs, the values the belief returns.
struct SpeedChain {
  std::vector<std::pair<int, double>> speeds;
};

// The same two heuristics over an explicit list of jobs in priority order (incremental strategies pass the jobs
// they serve): identical results to the snapshot forms given the same jobs in the same order. `chains`, when not
// empty, is aligned with `jobs`: a non-null chain answers speed lookups at its counts (others ask the belief).
std::vector<int> doubling_allocation(std::span<const JobView* const> jobs, int budget, int gpus_per_node,
                                     std::span<const SpeedChain* const> chains = {});
std::vector<int> unit_greedy_allocation(std::span<const JobView* const> jobs, int budget, int gpus_per_node,
                                        std::span<const SpeedChain* const> chains = {});

}  // namespace ringsched
