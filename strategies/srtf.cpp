// strategies/srtf.cpp — `srtf`: shortest remaining time first, rigid and preemptive (the classic baseline that
// Tiresias and AFS compare with). Each job asks for a fixed count (trace request, else `gpus`); at every arrival
// and completion jobs are ranked by believed remaining time on that count, Q_j / f_j(size_j), and placed in that
// order while they fit (a job that does not fit is skipped). Running jobs only get shorter between events, so the
// ranking needs no timer.
#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "strategies/allocation.h"
#include "strategies/registry.h"
#include "strategies/rigid.h"

namespace ringsched {
namespace {

class Srtf final : public Strategy {
 public:
  explicit Srtf(int gpus) : gpus_(gpus) {}
  [[nodiscard]] std::string name() const override { return "srtf"; }
  Decision decide(const Snapshot& s) override {
    const std::size_t n = s.jobs.size();
    std::vector<double> remaining(n);
    for (std::size_t i = 0; i < n; ++i) {
      const JobView& j = s.jobs[i];
      if (j.belief == nullptr) throw std::logic_error("strategy 'srtf' needs beliefs (not \"none\")");
      remaining[i] = believed_time(j, rigid_size(*j.pub, gpus_), s.gpus_per_node);
    }
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return remaining[static_cast<std::size_t>(a)] < remaining[static_cast<std::size_t>(b)];
    });
    Decision d;
    d.gpus = rigid_fill(s, order, gpus_);
    return d;
  }

 private:
  int gpus_;
};

}  // namespace

StrategyInfo srtf_strategy_info() {
  StrategyInfo info;
  info.name = "srtf";
  info.description =
      "Shortest remaining (believed) time first, rigid, preemptive; a job that does not fit is skipped. "
      "Params: gpus (int, default 8: the size of jobs without a trace request).";
  info.default_beliefs = "history";
  info.params = {"gpus"};
  info.make = [](const JsonReader& p) -> std::unique_ptr<Strategy> {
    return std::make_unique<Srtf>(static_cast<int>(p.integer_in_or("gpus", 1, 1 << 20, 8)));
  };
  return info;
}

}  // namespace ringsched
