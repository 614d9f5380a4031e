// strategies/optimus.cpp — `optimus`: unit-step greedy marginal gain (Optimus, EuroSys'18) on the same beliefs as
// precompute. It stops where adding one GPU does not pay, e.g. at 8 when 9 is slower even though 16 is faster.
// Parameters reproduce the Pollux artifact's Optimus (optimus.py): per-class GPU caps (it gives ncf one GPU) and
// placing the jobs that changed smallest first (with the `most_free` placement policy).
#include <algorithm>
#include <map>
#include <numeric>

#include "strategies/common/allocation.h"
#include "strategies/common/incremental_greedy.h"
#include "strategies/registry.h"

namespace ringsched {
namespace {

class Optimus final : public Strategy {
 public:
  Optimus(std::map<std::string, int> class_max, bool smallest_first)
      : class_max_(std::move(class_max)), smallest_first_(smallest_first) {}
  [[nodiscard]] std::string name() const override { return "optimus"; }
  Decision decide(const Snapshot& s) override {
    std::vector<int> candidates(s.jobs.size());
    std::iota(candidates.begin(), candidates.end(), 0);
    Decision d;
    if (class_max_.empty()) {
      if (!s.pools.empty()) return typed_greedy_allocation(s, candidates, true);
      d.set_gpus(unit_greedy_allocation(s, candidates, s.total_gpus));
    } else {
      // The same greedy on views whose public GPU limit is capped per class.
      std::vector<JobPublic> pubs(s.jobs.size());
      std::vector<JobView> views(s.jobs.begin(), s.jobs.end());
      for (std::size_t i = 0; i < views.size(); ++i) {
        pubs[i] = *views[i].pub;
        const auto it = class_max_.find(pubs[i].cls.name);
        if (it != class_max_.end())
          pubs[i].cls.max_gpus = std::max(pubs[i].cls.min_gpus, std::min(pubs[i].cls.max_gpus, it->second));
        views[i].pub = &pubs[i];
      }
      Snapshot capped = s;
      capped.jobs = views;
      if (!s.pools.empty()) {
        d = typed_greedy_allocation(capped, candidates, true);
      } else {
        d.set_gpus(unit_greedy_allocation(capped, candidates, s.total_gpus));
      }
    }
    if (smallest_first_) {
      d.place_order = candidates;
      std::stable_sort(d.place_order.begin(), d.place_order.end(), [&](int a, int b) {
        return d.jobs[static_cast<std::size_t>(a)].gpus < d.jobs[static_cast<std::size_t>(b)].gpus;
      });
    }
    return d;
  }

  // Incremental (IncrementalGreedy) unless class caps are set (the artifact's setting, which places jobs on nodes:
  // the engine then calls decide anyway).
  [[nodiscard]] bool incremental() const override { return class_max_.empty(); }
  Decision decide_changes(const Snapshot& s) override { return inc_.decide(s); }

 private:
  IncrementalGreedy inc_{GrowStep::kUnit};
  std::map<std::string, int> class_max_;
  bool smallest_first_;
};

}  // namespace

StrategyInfo optimus_strategy_info() {
  StrategyInfo info;
  info.name = "optimus";
  info.description =
      "Optimus-style unit-step greedy: add one GPU at a time to the job with the largest believed gain while "
      "positive (beliefs: history by default). Params: class_max_gpus (object: class name -> most GPUs for its "
      "jobs), placement_order (\"largest_first\", the default, or \"smallest_first\": the order in which jobs "
      "whose GPU count changed are placed). The Pollux artifact's Optimus: beliefs oracle, class_max_gpus "
      "{\"ncf\": 1}, placement_order smallest_first, with cluster.placement most_free (docs/fidelity.md). On GPU "
      "pools each job starts on the type where it is believed to finish soonest and grows there.";
  info.default_beliefs = "history";
  info.gpu_types = true;
  info.params = {"class_max_gpus", "placement_order"};
  info.make = [](const JsonReader& p) -> std::unique_ptr<Strategy> {
    std::map<std::string, int> caps = class_max_gpus_param(p);
    const std::string order = p.string_or("placement_order", "largest_first");
    if (order != "largest_first" && order != "smallest_first") {
      p.at("placement_order").fail("unknown value '" + order + "' (valid: largest_first, smallest_first)");
    }
    return std::make_unique<Optimus>(std::move(caps), order == "smallest_first");
  };
  return info;
}
const StrategyRegistrar optimus_registrar{optimus_strategy_info};

}  // namespace ringsched
