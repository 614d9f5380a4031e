// sim/engine/optimality_gap.cpp — gap of a decision to the exact optimum of the same instantaneous problem.
#include "sim/engine/optimality_gap.h"

#include <algorithm>
#include <cmath>

#include "strategies/optimal_allocation.h"

namespace ringsched {

double optimality_gap(const Snapshot& s, const std::vector<int>& gpus) {
  std::vector<int> served;
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    if (s.jobs[i].belief == nullptr) return std::nan("");
    if (i < gpus.size() && gpus[i] > 0) served.push_back(static_cast<int>(i));
  }
  if (served.empty()) return std::nan("");
  std::vector<int> heur;
  for (int i : served)
    heur.push_back(gpus[static_cast<std::size_t>(i)]);
  const std::vector<int> opt = optimal_allocation(s, served, s.total_gpus);
  const double h = allocation_objective(s, served, heur);
  const double o = allocation_objective(s, served, opt);
  if (!(o > 0.0) || !std::isfinite(o) || !std::isfinite(h)) return std::nan("");
  return h / o - 1.0;
}

Decision GapRecorder::decide(const Snapshot& s) {
  Decision d = inner_->decide(s);
  const double g = optimality_gap(s, d.gpus());
  if (!std::isnan(g)) gaps_.push_back(g);
  return d;
}

}  // namespace ringsched
