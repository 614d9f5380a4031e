// strategies/gavel/gavel_policies_more.h — the rest of Gavel's (OSDI'20) single-job policies, next to those of
// gavel_allocation.h: max_sum_throughput_perf (max_sum_throughput.py), isolated (isolated.py), AlloX (allox.py), and
// the throughput-agnostic variants of min_total_duration and finish_time_fairness (their non-perf classes, which plan
// with the reference type's throughput on every type). Programs go to CLP (strategies/gavel/lp.h). Each rule with
// its source: docs/fidelity.md "Gavel".
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include "strategies/gavel/gavel_allocation.h"

namespace ringsched {

// Gavel's max_sum_throughput_perf (ThroughputSumWithPerf): maximise sum_i sum_k T[i][k] x[i][k] subject to
// sum_i s[i] x[i][k] <= N[k], sum_k x[i][k] <= 1, x >= 0. Gavel states it without normalisation: the class computes
// scale = 1 / sum_k T[i][k] but never uses it, and its instance costs are 1 (the scheduler passes none to it);
// priority weights are not used. The optimum is a vertex (CLP's; Gavel's ECOS may return another optimal point when
// several exist). std::invalid_argument for inconsistent sizes.
GavelAllocation max_sum_throughput(const GavelProblem& problem);

// Gavel's `isolated` policy (IsolatedPolicy.get_allocation): every job its 1/m share of every type as time on its
// s[i] GPUs, x[i][k] = (N[k] / (m s[i])) / max(1, sum_k N[k] / (m s[i])), whatever its throughputs (objective 0).
GavelAllocation isolated_allocation(const GavelProblem& problem);

// Shockwave's (NSDI'23) `gandiva_fair` (policies/gandiva_fair_proportional.py, GandivProportionalPolicy): as
// `isolated` without the division by the scale factor, x[i][k] = (N[k] / m) / max(1, sum_k N[k] / m): every job the
// same time share of every type whatever its GPUs (a multi-GPU job's share can ask for more GPUs than the type has:
// the round mechanism then runs fewer jobs).
GavelAllocation gandiva_fair_allocation(const GavelProblem& problem);

// The throughput-agnostic policies (MinTotalDurationPolicy, FinishTimeFairnessPolicy) plan with each job's
// throughput on Gavel's reference type ('v100', hardcoded there) as its throughput on every type: `problem` with
// throughput[i][k] = throughput[i][reference] for every k. std::invalid_argument when reference is no type.
GavelProblem with_reference_throughputs(const GavelProblem& problem, std::size_t reference);

// AlloX (allox.py, AlloXPolicy): each job's allocation by job id, kept between calls: a job that had 1.0 on a type
// keeps it; the others (sorted by time since arrival, longest first, the first max(floor(alpha m), n) kept) are
// assigned to the free GPUs (N[k] less one per kept job there) so that sum over GPUs of sum over the jobs in a GPU's
// queue of (position from the end) x remaining[i] / T[i][k] is least (min-cost matching, Gavel's
// linear_sum_assignment; the waiting times Gavel adds are the same for every column of a row and change nothing), and
// the job at the head of each GPU's queue gets 1.0 there.
struct AlloxState {
  std::map<int, std::vector<double>> previous;  // job id -> last allocation per type
};

// AlloX's allocation for the jobs of `problem` (ids required, every scale factor 1: std::invalid_argument otherwise)
// with their time since arrival and remaining steps; updates `state`. The matching is solved as a transportation
// LP on CLP (the assignment polytope is integral): GPUs of one type are identical, so its columns are (type,
// position) with capacity = the type's free GPUs, and positions up to ceil(jobs / free GPUs) suffice (in an optimum
// the queues of one type differ by at most one job). Which of a type's jobs at one position head a queue is a tie
// for the matching; here the longest-waiting first. Not optimal (with the solver's word) if CLP fails.
GavelAllocation allox_allocation(const GavelProblem& problem, const std::vector<double>& since_start,
                                 const std::vector<double>& remaining, AlloxState& state, double alpha = 1.0);

}  // namespace ringsched
