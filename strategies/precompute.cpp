// strategies/precompute.cpp — `precompute`: the Eq. 6 doubling heuristic on believed speeds and remaining work,
// re-run at every arrival and completion. When jobs outnumber GPUs, 1 GPU each in arrival order, the rest wait. On
// GPU pools: the type and count from beliefs per type (typed_greedy_allocation).
// Incremental (decide_changes): the same decisions kept by IncrementalGreedy.
#include <numeric>

#include "strategies/common/allocation.h"
#include "strategies/common/incremental_greedy.h"
#include "strategies/registry.h"

namespace ringsched {
namespace {

class Precompute final : public Strategy {
 public:
  [[nodiscard]] std::string name() const override { return "precompute"; }
  Decision decide(const Snapshot& s) override {
    std::vector<int> candidates(s.jobs.size());
    std::iota(candidates.begin(), candidates.end(), 0);
    if (!s.pools.empty()) return typed_greedy_allocation(s, candidates, false);
    Decision d;
    d.set_gpus(doubling_allocation(s, candidates, s.total_gpus));
    return d;
  }
  [[nodiscard]] bool incremental() const override { return true; }
  Decision decide_changes(const Snapshot& s) override { return inc_.decide(s); }

 private:
  IncrementalGreedy inc_{GrowStep::kDouble};
};

}  // namespace

StrategyInfo precompute_strategy_info() {
  StrategyInfo info;
  info.name = "precompute";
  info.description =
      "Eq. 6 doubling heuristic on the jobs' believed speed and remaining work (beliefs: history by default; "
      "set \"beliefs\": \"oracle\" for the truth). On GPU pools each job starts on the type where it is "
      "believed to finish soonest and grows there. No params.";
  info.default_beliefs = "history";
  info.gpu_types = true;
  info.make = [](const JsonReader&) -> std::unique_ptr<Strategy> { return std::make_unique<Precompute>(); };
  return info;
}
const StrategyRegistrar precompute_registrar{precompute_strategy_info};

}  // namespace ringsched
