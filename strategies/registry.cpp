// strategies/registry.cpp — the strategy registry: every strategy file registers itself (StrategyRegistrar).
#include "strategies/registry.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

namespace ringsched {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<StrategyInfo (*)()> pending;  // registrars whose info is not built yet
  std::map<std::string, StrategyInfo> infos;
  // Builds the infos of registrars that ran since the last look-up (caller holds the mutex).
  void settle() {
    auto todo = std::move(pending);
    pending.clear();
    for (auto* make_info : todo) {
      StrategyInfo info = make_info();
      if (infos.count(info.name))
        throw std::logic_error("strategy '" + info.name + "' is registered by two files (StrategyRegistrar)");
      infos[info.name] = std::move(info);
    }
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

StrategyRegistrar::StrategyRegistrar(StrategyInfo (*info)()) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.pending.push_back(info);
}

void register_strategy(StrategyInfo info) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.settle();
  r.infos[info.name] = std::move(info);
}

std::vector<StrategyInfo> strategy_infos() {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.settle();
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
    r.settle();
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
