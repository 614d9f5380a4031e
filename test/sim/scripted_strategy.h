// test/sim/scripted_strategy.h — a Strategy whose decisions come from a test's function of the snapshot, for engine
// tests that need exact, hand-chosen allocations.
#pragma once

#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "strategies/strategy.h"

namespace ringsched::test {

class ScriptedStrategy final : public Strategy {
 public:
  explicit ScriptedStrategy(std::function<std::vector<int>(const Snapshot&)> f) : f_(std::move(f)) {}
  [[nodiscard]] std::string name() const override { return "scripted"; }
  Decision decide(const Snapshot& s) override {
    Decision d;
    d.set_gpus(f_(s));
    return d;
  }

 private:
  std::function<std::vector<int>(const Snapshot&)> f_;
};

}  // namespace ringsched::test

namespace ringsched::test {

// Scripted decisions on a typed cluster: the function returns (GPUs, pool) per snapshot job.
class ScriptedPoolStrategy final : public Strategy {
 public:
  using Script = std::function<std::pair<std::vector<int>, std::vector<int>>(const Snapshot&)>;
  explicit ScriptedPoolStrategy(Script f) : f_(std::move(f)) {}
  [[nodiscard]] std::string name() const override { return "scripted-pools"; }
  Decision decide(const Snapshot& s) override {
    Decision d;
    const auto [gpus, pools] = f_(s);
    d.set_gpus(gpus);
    for (std::size_t i = 0; i < d.jobs.size() && i < pools.size(); ++i)
      d.jobs[i].pool = pools[i];
    return d;
  }

 private:
  Script f_;
};

}  // namespace ringsched::test
