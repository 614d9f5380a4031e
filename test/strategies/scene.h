// test/strategies/scene.h — hand-built snapshots for strategy tests (issue 6): a belief given by a function of w,
// and a Scene that owns the publics, beliefs and views.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "strategies/registry.h"
#include "strategies/strategy.h"

namespace ringsched::test {

class FnBelief final : public Belief {
 public:
  FnBelief(std::function<double(int)> f, double work) : f_(std::move(f)), work_(work) {}
  [[nodiscard]] double throughput(int w, int /*nodes*/) const override { return f_(w); }
  [[nodiscard]] double total_work() const override { return work_; }
  [[nodiscard]] std::string source() const override { return "fn"; }

 private:
  std::function<double(int)> f_;
  double work_;
};

struct FnScene {
  std::vector<JobPublic> pubs;
  std::vector<std::unique_ptr<Belief>> beliefs;
  std::vector<JobView> views;
  Snapshot snap;

  void add(std::function<double(int)> f, double work, int min_gpus, int max_gpus, int requested = 0) {
    JobPublic p;
    p.id = static_cast<int>(pubs.size());
    p.name = "job-";
    p.name += std::to_string(p.id);
    p.cls.min_gpus = min_gpus;
    p.cls.max_gpus = max_gpus;
    p.requested_gpus = requested;
    pubs.push_back(p);
    beliefs.push_back(std::make_unique<FnBelief>(std::move(f), work));
  }
  const Snapshot& make(int total_gpus, int gpus_per_node = 1024) {
    views.clear();
    for (std::size_t i = 0; i < pubs.size(); ++i) {
      JobView v;
      v.pub = &pubs[i];
      v.belief = beliefs[i].get();
      views.push_back(v);
    }
    snap.now = 0.0;
    snap.total_gpus = total_gpus;
    snap.gpus_per_node = gpus_per_node;
    snap.jobs = views;
    return snap;
  }
};

inline std::vector<int> all_jobs(const Snapshot& s) {
  std::vector<int> c;
  for (std::size_t i = 0; i < s.jobs.size(); ++i)
    c.push_back(static_cast<int>(i));
  return c;
}

inline std::unique_ptr<Strategy> strategy_named(const std::string& name,
                                                const nlohmann::json& params = nlohmann::json::object()) {
  return find_strategy(name, "test").make(JsonReader(params, "test"));
}

}  // namespace ringsched::test
