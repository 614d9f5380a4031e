// strategies/registry.cpp — the strategy registry; built-ins are listed in builtin_infos().
#include "strategies/registry.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace ringsched {
namespace {

std::vector<StrategyInfo> builtin_infos() {
  return {eight_strategy_info(),
          precompute_strategy_info(),
          optimus_strategy_info(),
          exploratory_strategy_info(),
          optimal_strategy_info(),
          srtf_strategy_info(),
          tiresias_strategy_info(),
          afs_strategy_info(),
          pollux_strategy_info(),
          fifo_strategy_info(),
          gavel_fifo_strategy_info(),
          gavel_fifo_perf_strategy_info(),
          max_min_fairness_strategy_info(),
          max_min_fairness_perf_strategy_info(),
          finish_time_fairness_perf_strategy_info(),
          min_total_duration_perf_strategy_info()};
}

struct Registry {
  std::mutex mutex;
  std::map<std::string, StrategyInfo> infos;
  Registry() {
    for (auto& i : builtin_infos())
      infos[i.name] = i;
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_strategy(StrategyInfo info) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.infos[info.name] = std::move(info);
}

std::vector<StrategyInfo> strategy_infos() {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<StrategyInfo> out;
  for (const auto& [n, i] : r.infos)
    out.push_back(i);
  return out;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> out;
  for (const auto& i : strategy_infos())
    out.push_back(i.name);
  return out;
}

StrategyInfo find_strategy(const std::string& name, const std::string& where) {
  auto& r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.infos.find(name);
    if (it != r.infos.end()) return it->second;
  }
  throw InputError(where + ": unknown strategy '" + name + "' (valid: " + join_names(strategy_names()) + ")");
}

std::map<std::string, int> class_max_gpus_param(const JsonReader& params) {
  std::map<std::string, int> caps;
  if (auto c = params.maybe("class_max_gpus")) {
    if (!c->is_object()) c->fail("must be an object of class name -> GPU count");
    for (const auto& item : c->value().items())
      caps[item.key()] = static_cast<int>(c->at(item.key()).as_integer_in(1, 1 << 20));
  }
  return caps;
}

}  // namespace ringsched
