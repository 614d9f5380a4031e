// strategies/gavel_allocation.h — the allocations Gavel's (OSDI'20) policies compute each time they are asked: a
// time fraction x[i][k] per job i and GPU type k (a job spends x[i][k] of its time on k, on its s[i] GPUs). The
// linear programs go to CLP (models/lp.h). Each rule with its source: docs/fidelity.md "Gavel".
#pragma once

#include <string>
#include <vector>

namespace ringsched {

struct GavelProblem {
  std::vector<std::vector<double>> throughput;  // job x type: isolated steps/s at the job's scale factor (0 = cannot)
  std::vector<int> scale_factor;                // GPUs per job (>= 1)
  std::vector<double> priority_weight;          // w per job (> 0; Gavel's default 1)
  std::vector<int> workers;                     // GPUs per type
};

struct GavelAllocation {
  std::vector<std::vector<double>> x;  // job x type, clipped to [0, 1] as Gavel does
  double objective = 0.0;              // the program's optimum (max-min: t*)
  bool optimal = false;
  std::string status;  // the solver's word when not optimal
};

// Gavel's LAS (max_min_fairness, perf = false: every throughput taken as 1) and heterogeneity-aware LAS
// (max_min_fairness_perf): maximise t subject to sum_k c[i][k] x[i][k] >= t for every job, sum_i s[i] x[i][k] <=
// N[k] for every type, sum_k x[i][k] <= 1, x >= 0, with c[i][k] = T[i][k] s[i] / (w[i] P[i]) and P[i] = sum_k T[i][k]
// N[k] / sum_k N[k] (the throughput under a capacity-proportional share). A job that runs on no type (P[i] = 0) gets
// nothing and is left out of the minimum. std::invalid_argument for inconsistent sizes.
GavelAllocation max_min_fairness(const GavelProblem& problem, bool perf);

}  // namespace ringsched
