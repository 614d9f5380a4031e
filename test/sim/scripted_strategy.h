// test/sim/scripted_strategy.h — a Strategy whose decisions come from a test's function of the snapshot, for engine
// tests that need exact, hand-chosen allocations.
#pragma once

#include <functional>
#include <string>
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
    d.gpus = f_(s);
    return d;
  }

 private:
  std::function<std::vector<int>(const Snapshot&)> f_;
};

}  // namespace ringsched::test
