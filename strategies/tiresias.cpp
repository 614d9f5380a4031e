// strategies/tiresias.cpp — `tiresias`: discretised two-dimensional least-attained-service (2D-LAS), after
// Gu et al., "Tiresias: A GPU Cluster Manager for Distributed Deep Learning", NSDI'19. Rigid, preemptive,
// needs no beliefs. A job's attained service is GPUs x time received so far (GPU-seconds); with thresholds
// T_1 < ... < T_{K-1} a job is in queue k when T_k <= attained < T_{k+1} (T_0 = 0). Jobs are ranked by queue, then
// inside a queue FIFO by arrival or (queue_order "entry", as the Pollux artifact's tiresias.py keeps its queues) by
// when the job entered the queue, and placed in that order while they fit. Event-driven, the strategy asks to be
// woken when the first running job crosses its next threshold. The starvation knob (promotion after waiting too
// long) is not implemented (the artifact runs with it off).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "models/input_error.h"
#include "strategies/registry.h"
#include "strategies/rigid.h"

namespace ringsched {
namespace {

class Tiresias final : public Strategy {
 public:
  Tiresias(int gpus, std::vector<double> thresholds, bool by_entry)
      : gpus_(gpus), thresholds_(std::move(thresholds)), by_entry_(by_entry) {}
  [[nodiscard]] std::string name() const override { return "tiresias"; }

  [[nodiscard]] std::size_t queue_of(double attained) const {
    return static_cast<std::size_t>(std::upper_bound(thresholds_.begin(), thresholds_.end(), attained) -
                                    thresholds_.begin());
  }

  Decision decide(const Snapshot& s) override {
    const std::size_t n = s.jobs.size();
    std::vector<std::size_t> queue(n);
    std::vector<std::uint64_t> entry(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      queue[i] = queue_of(s.jobs[i].attained_gpu_seconds);
      if (!by_entry_) continue;
      // Jobs seen entering a queue in this decision are appended in snapshot order.
      auto [it, fresh] = entered_.try_emplace(s.jobs[i].pub->id, Entry{queue[i], next_entry_});
      if (fresh || it->second.queue != queue[i]) it->second = Entry{queue[i], next_entry_++};
      entry[i] = it->second.seq;
    }
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);  // snapshot order is arrival order: FIFO inside a queue
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      const auto ua = static_cast<std::size_t>(a);
      const auto ub = static_cast<std::size_t>(b);
      if (queue[ua] != queue[ub]) return queue[ua] < queue[ub];
      return entry[ua] < entry[ub];
    });
    Decision d;
    d.gpus = rigid_fill(s, order, gpus_);
    if (by_entry_) d.place_order = order;  // the artifact places new jobs in queue order
    // Wake up when the first job that keeps GPUs reaches its next threshold (its queue changes).
    for (std::size_t i = 0; i < n; ++i) {
      if (d.gpus[i] <= 0 || queue[i] >= thresholds_.size()) continue;
      const double need = thresholds_[queue[i]] - s.jobs[i].attained_gpu_seconds;
      double t = s.now + need / static_cast<double>(d.gpus[i]);
      if (!(t > s.now)) t = std::nextafter(s.now, std::numeric_limits<double>::infinity());
      d.wakeup_at = std::min(d.wakeup_at, t);
    }
    return d;
  }

  void on_finish(int job_id) override { entered_.erase(job_id); }

 private:
  struct Entry {
    std::size_t queue;
    std::uint64_t seq;
  };
  int gpus_;
  std::vector<double> thresholds_;
  bool by_entry_;
  std::map<int, Entry> entered_;  // job id -> its queue and when it entered it
  std::uint64_t next_entry_ = 0;
};

}  // namespace

StrategyInfo tiresias_strategy_info() {
  StrategyInfo info;
  info.name = "tiresias";
  info.description =
      "Tiresias (NSDI'19) discretised 2D-LAS: queues by attained GPU-seconds, FIFO inside a queue, rigid, "
      "preemptive, no beliefs needed. Params: gpus (int, default 8: a job's size when its trace gives none), "
      "thresholds (increasing GPU-seconds, default [3600]: two queues), queue_order (\"arrival\", the default, or "
      "\"entry\": by when a job entered its queue; changed jobs are then placed in queue order). The Pollux artifact's "
      "Tiresias: thresholds [57600], "
      "queue_order entry, with cluster.placement most_free (docs/fidelity.md).";
  info.default_beliefs = "none";
  info.params = {"gpus", "thresholds", "queue_order"};
  info.make = [](const JsonReader& p) -> std::unique_ptr<Strategy> {
    std::vector<double> th = {3600.0};
    if (auto t = p.maybe("thresholds")) {
      th.clear();
      for (const auto& e : t->elements()) {
        const double v = e.as_positive();
        if (!th.empty() && !(v > th.back())) e.fail("thresholds must be strictly increasing");
        th.push_back(v);
      }
    }
    const std::string order = p.string_or("queue_order", "arrival");
    if (order != "arrival" && order != "entry") {
      p.at("queue_order").fail("unknown value '" + order + "' (valid: arrival, entry)");
    }
    return std::make_unique<Tiresias>(static_cast<int>(p.integer_in_or("gpus", 1, 1 << 20, 8)), std::move(th),
                                      order == "entry");
  };
  return info;
}

}  // namespace ringsched
