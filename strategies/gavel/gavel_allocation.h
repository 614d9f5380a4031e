// strategies/gavel/gavel_allocation.h — the allocations Gavel's (OSDI'20) policies compute each time they are asked: a
// time fraction x[i][k] per job i and GPU type k (a job spends x[i][k] of its time on k, on its s[i] GPUs). The
// linear programs go to CLP (strategies/gavel/lp.h). Each rule with its source: docs/fidelity.md "Gavel".
#pragma once

#include <map>
#include <string>
#include <vector>

namespace ringsched {

// The simplex basis of a program's last solve, by job id, so the next program over mostly the same jobs starts from
// it (a warm start: the same optimum, fewer pivots). Kept by the caller per policy; updated by each call that has it.
struct GavelWarmStart {
  struct Part {
    std::vector<unsigned char> columns, rows;
    std::vector<double> throughput;  // finish-time fairness: the job's columns, should it leave (see there)
    int scale_factor = 0;
  };
  std::map<int, Part> jobs;
  Part shared;  // the variables and rows of no one job (t, the capacity rows)
};

struct GavelProblem {
  std::vector<std::vector<double>> throughput;  // job x type: isolated steps/s at the job's scale factor (0 = cannot)
  std::vector<int> scale_factor;                // GPUs per job (>= 1)
  std::vector<double> priority_weight;          // w per job (> 0; Gavel's default 1)
  std::vector<int> workers;                     // GPUs per type
  std::vector<int> ids;                         // job ids (optional; with `warm`, one per job)
  GavelWarmStart* warm = nullptr;               // max-min, finish-time fairness: start from (and keep) the last basis
  // The point of the optimal face returned where many allocations are optimal: false, a vertex (CLP's dual simplex,
  // warm-started); true, an interior point near the face's analytic centre (CLP's barrier without crossover), as
  // Gavel's ECOS returns. `warm` is not used with the centre.
  bool centre = false;
};

struct GavelAllocation {
  std::vector<std::vector<double>> x;  // job x type, clipped to [0, 1] as Gavel does
  double objective = 0.0;              // the program's optimum (max-min: t*)
  bool optimal = false;
  std::string status;  // the solver's word when not optimal
};

// The message of a round whose program the solver did not solve: `who` (the strategy), the round's time `now` and the
// first 20 of its jobs' names, for the user to reproduce it.
std::string unsolved_program_message(const std::string& who, double now, const std::vector<std::string>& jobs,
                                     const std::string& status);

// std::invalid_argument unless the problem has one scale factor and priority weight per job and one throughput per
// job and type (every allocation function checks it first).
void check_gavel_problem(const GavelProblem& problem);

// Gavel's LAS (max_min_fairness, perf = false: every throughput taken as 1) and heterogeneity-aware LAS
// (max_min_fairness_perf): maximise t subject to sum_k c[i][k] x[i][k] >= t for every job, sum_i s[i] x[i][k] <=
// N[k] for every type, sum_k x[i][k] <= 1, x >= 0, with c[i][k] = T[i][k] s[i] / (w[i] P[i]) and P[i] = sum_k T[i][k]
// N[k] / sum_k N[k] (the throughput under a capacity-proportional share). A job that runs on no type (P[i] = 0) gets
// nothing and is left out of the minimum (when no job is left, nothing is allocated). std::invalid_argument for
// inconsistent sizes.
GavelAllocation max_min_fairness(const GavelProblem& problem, bool perf);

// The isolated throughput of each job (isolated.py): an equal 1/m share of every type's GPUs as time on its s[i]
// GPUs, xi[i][k] = (N[k] / (m s[i])) / max(1, sum_k N[k] / (m s[i])); I[i] = sum_k T[i][k] xi[i][k].
std::vector<double> isolated_throughputs(const GavelProblem& problem);

// Gavel's finish-time fairness (finish_time_fairness_perf): minimise max_i rho[i], rho[i] = (since_start[i] +
// remaining[i] / sum_k T[i][k] x[i][k]) / isolated_time[i], under the same constraints as max-min. Gavel hands the
// convex program to ECOS; here rho <= r holds iff sum_k T[i][k] x[i][k] >= d_i(r) = remaining[i] / (r isolated_time[i]
// - since_start[i]) for every job, linear in x. Without contention (every job can have d_i(L) on its fastest type, L
// the largest rho any job reaches alone there) that allocation is optimal, objective L, and no program is solved.
// Otherwise Newton's method on F(r), the optimum of a program minimising the largest shortfall below d_i(r) (<= 0 iff
// r is feasible; convex and decreasing), from `guess` (> 0: the previous allocation's optimum): each program's
// duals give a proven lower bound (the tangent's root, the next level) and its allocation an upper bound (its own
// max rho); it stops when they are within a relative `tolerance` (default 1e-7, CLP's own feasibility tolerance),
// usually after two or three programs, and returns that allocation (objective = its max rho). With `warm`, the first
// program starts from the last one's basis, the jobs that have left kept in it as ghosts fixed at 0. Jobs with
// nothing remaining, or that run on no type, get nothing. std::invalid_argument for inconsistent sizes or a
// non-positive isolated time.
GavelAllocation finish_time_fairness(const GavelProblem& problem, const std::vector<double>& since_start,
                                     const std::vector<double>& remaining, const std::vector<double>& isolated_time,
                                     double guess = 0.0, double tolerance = 1e-7);

// Gavel's makespan policy (min_total_duration_perf): the smallest horizon T such that every job can finish its
// remaining steps R[i] within T, sum_k T[i][k] x[i][k] >= R[i] / T, under the same constraints as max-min. Gavel
// bisects T between 100 s and 1e6 s (widening by 10x while nothing is feasible) until the window is within 5%, solving
// a feasibility program at each midpoint, and returns the allocation of the last feasible midpoint. Here the optimum
// T* comes from one LP (maximise z subject to sum_k T[i][k] x[i][k] >= R[i] z: T* = 1/z*), Gavel's bisection is
// replayed on it (a midpoint is feasible iff it is >= T*), and the LP's allocation, feasible at every T >= T*, is
// returned; objective = the horizon Gavel's search stops at (within 5% above T*, never below ~100 s). Not optimal
// when a job with steps left runs on no type. std::invalid_argument for inconsistent sizes.
GavelAllocation min_total_duration(const GavelProblem& problem, const std::vector<double>& remaining);

// The horizon Gavel's bisection settles on when the optimum is t_star seconds (see min_total_duration).
double gavel_makespan_search(double t_star);

}  // namespace ringsched
