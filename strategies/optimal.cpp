// strategies/optimal.cpp — `optimal`: the exact minimum of sum_j Q_j / f_j(w_j) (believed remaining time) over
// integer allocations within each job's limits, by dynamic programming (optimal_allocation.h), re-solved at every
// arrival and completion. When jobs outnumber GPUs the served set is the same as precompute's.
#include <numeric>
#include <stdexcept>

#include "strategies/optimal_allocation.h"
#include "strategies/registry.h"

namespace ringsched {
namespace {

class Optimal final : public Strategy {
 public:
  [[nodiscard]] std::string name() const override { return "optimal"; }
  Decision decide(const Snapshot& s) override {
    for (const auto& j : s.jobs) {
      if (j.belief == nullptr) throw std::logic_error("strategy 'optimal' needs beliefs (not \"none\")");
    }
    std::vector<int> candidates(s.jobs.size());
    std::iota(candidates.begin(), candidates.end(), 0);
    Decision d;
    d.gpus = optimal_allocation(s, candidates, s.total_gpus);
    return d;
  }
};

}  // namespace

StrategyInfo optimal_strategy_info() {
  StrategyInfo info;
  info.name = "optimal";
  info.description =
      "Exact optimum of the instantaneous problem min sum_j Q_j/f_j(w_j), sum w_j <= G, by DP over jobs x GPUs "
      "(beliefs: history by default). The yardstick for precompute and optimus. No params.";
  info.default_beliefs = "history";
  info.make = [](const JsonReader&) -> std::unique_ptr<Strategy> { return std::make_unique<Optimal>(); };
  return info;
}

}  // namespace ringsched
