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
  explicit Optimal(double max_cells) : max_cells_(max_cells) {}
  [[nodiscard]] std::string name() const override { return "optimal"; }
  Decision decide(const Snapshot& s) override {
    for (const auto& j : s.jobs) {
      if (j.belief == nullptr) throw std::logic_error("strategy 'optimal' needs beliefs (not \"none\")");
    }
    std::vector<int> candidates(s.jobs.size());
    std::iota(candidates.begin(), candidates.end(), 0);
    Decision d;
    d.set_gpus(optimal_allocation(s, candidates, s.total_gpus, max_cells_));
    return d;
  }

 private:
  double max_cells_;
};

}  // namespace

StrategyInfo optimal_strategy_info() {
  StrategyInfo info;
  info.name = "optimal";
  info.description =
      "Exact optimum of the instantaneous problem min sum_j Q_j/f_j(w_j), sum w_j <= G, by DP over jobs x GPUs "
      "(beliefs: history by default). The yardstick for precompute and optimus. Pruned: no job gets more than its "
      "best count, and no DP when every job's best count fits. Params: max_dp_cells (number, default 5e7: the "
      "largest DP one decision may run, jobs x GPUs to share x counts per job; a decision over it stops the run with "
      "a message naming its size instead of running for hours).";
  info.default_beliefs = "history";
  info.params = {"max_dp_cells"};
  info.no_gpu_types_reason =
      "its DP is exact over GPU counts on one type; the optimum over a job's type and count on several pools is a "
      "different problem it does not solve";
  info.make = [](const JsonReader& p) -> std::unique_ptr<Strategy> {
    double cells = 5e7;
    if (auto c = p.maybe("max_dp_cells")) {
      cells = c->as_positive();
      if (cells > 1e12) c->fail("must be at most 1e12");
    }
    return std::make_unique<Optimal>(cells);
  };
  return info;
}
const StrategyRegistrar optimal_registrar{optimal_strategy_info};

}  // namespace ringsched
