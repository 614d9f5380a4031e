// strategies/optimus.cpp — `optimus`: unit-step greedy marginal gain (Optimus, EuroSys'18) on the same beliefs as
// precompute. It stops where adding one GPU does not pay, e.g. at 8 when 9 is slower even though 16 is faster.
#include <numeric>

#include "strategies/allocation.h"
#include "strategies/registry.h"

namespace ringsched {
namespace {

class Optimus final : public Strategy {
 public:
  [[nodiscard]] std::string name() const override { return "optimus"; }
  Decision decide(const Snapshot& s) override {
    std::vector<int> candidates(s.jobs.size());
    std::iota(candidates.begin(), candidates.end(), 0);
    Decision d;
    d.gpus = unit_greedy_allocation(s, candidates, s.total_gpus);
    return d;
  }
};

}  // namespace

StrategyInfo optimus_strategy_info() {
  StrategyInfo info;
  info.name = "optimus";
  info.description =
      "Optimus-style unit-step greedy: add one GPU at a time to the job with the largest believed gain while "
      "positive (beliefs: history by default). No params.";
  info.default_beliefs = "history";
  info.make = [](const JsonReader&) -> std::unique_ptr<Strategy> { return std::make_unique<Optimus>(); };
  return info;
}

}  // namespace ringsched
