// strategies/sjf.cpp — `sjf`: shortest job first, rigid and non-preemptive, as the Helios artifact's SJF (SC'21): each
// job runs at the GPU count it asked for (its trace request; jobs without one get `gpus`), waiting jobs are served
// in order of their believed duration at that count (total work / speed: under the default oracle beliefs the duration
// it had in the trace), ties by arrival; a started job keeps its GPUs to the end. Without `backfill` the head of the
// queue blocks the rest (the artifact's rule); on a typed cluster each job starts on its fastest pool with room. With
// virtual clusters (cluster.virtual_clusters) each VC ranks its own jobs the same way and places them on its nodes
// (strategies/common/vc_queues.h), as the artifact's SJF per VC.
#include <algorithm>
#include <numeric>
#include <vector>

#include "strategies/common/shortest_first.h"
#include "strategies/common/vc_queues.h"
#include "strategies/registry.h"

namespace ringsched {
namespace {

class Sjf final : public Strategy {
 public:
  Sjf(int fallback, bool backfill)
      : fallback_(fallback),
        backfill_(backfill),
        vcs_([this](int id) { return priority_of(vcs_.snapshot(), vcs_.snapshot().views->view(id)); },
             [fallback](const JobPublic& p) { return rigid_size(p, fallback); }, false, backfill) {}
  [[nodiscard]] std::string name() const override { return "sjf"; }

  Decision decide(const Snapshot& s) override {
    std::vector<int> order;
    for (std::size_t i = 0; i < s.jobs.size(); ++i) {
      if (s.jobs[i].gpus > 0) continue;
      (void)priority_of(s, s.jobs[i]);
      order.push_back(static_cast<int>(i));
    }
    std::sort(order.begin(), order.end(), [&](int a, int b) { return key(s, a) < key(s, b); });
    return ordered_fill(
        s, order, [this](const JobPublic& p) { return rigid_size(p, fallback_); }, backfill_);
  }

  [[nodiscard]] bool incremental() const override { return true; }
  Decision decide_changes(const Snapshot& s) override {
    if (!s.vcs.empty()) return vcs_.decide(s);
    for (int id : s.arrived) {
      const JobView& v = s.views->view(id);
      queues_.push(id, rigid_size(*v.pub, fallback_), priority_of(s, v), v.pub->arrival);
    }
    Decision d;
    d.changes = queues_.take(s.total_gpus - s.gpus_in_use, backfill_);
    return d;
  }

 private:
  // The job's believed duration at its size, computed when first seen (fixed from then on).
  double priority_of(const Snapshot& s, const JobView& v) {
    const auto id = static_cast<std::size_t>(v.pub->id);
    if (priority_.size() <= id) priority_.resize(id + 1, -1.0);
    if (priority_[id] < 0.0) priority_[id] = SjfRank::priority(s, v, rigid_size(*v.pub, fallback_));
    return priority_[id];
  }
  [[nodiscard]] RankKey key(const Snapshot& s, int idx) const {
    const JobPublic& p = *s.jobs[static_cast<std::size_t>(idx)].pub;
    return {priority_[static_cast<std::size_t>(p.id)], p.arrival, p.id};
  }

  int fallback_;
  bool backfill_;
  std::vector<double> priority_;  // by job id; -1 = not seen yet
  RankedQueues queues_;
  VcQueues vcs_;  // cluster.virtual_clusters: one queue per VC in the same order
};

}  // namespace

StrategyInfo sjf_strategy_info() {
  StrategyInfo info;
  info.name = "sjf";
  info.description =
      "Shortest job first (the Helios artifact's SJF), rigid and non-preemptive: each job runs at the GPU count its "
      "trace row asked for (jobs without a request: `gpus`) and keeps it to the end; waiting jobs start in order of "
      "their believed duration at that count (total work / speed, fixed at arrival; with the default oracle beliefs "
      "the duration the job had in the trace), ties by arrival. Short jobs no longer wait behind long ones, at the "
      "risk of starving long jobs while short ones keep arriving. Params: gpus (int, default 8), backfill (bool, "
      "default false: the head of the queue blocks the rest, as in the artifact; true: later jobs that fit start). "
      "On a cluster with GPU types (cluster.pools) jobs are ranked by their duration on their fastest type and each "
      "starts on the pool with room whose type its belief says runs it fastest. With virtual clusters "
      "(cluster.virtual_clusters) each VC runs its own queue in this order on its own nodes "
      "(docs/virtual_clusters.md).";
  info.default_beliefs = "oracle";
  info.params = {"gpus", "backfill"};
  info.gpu_types = true;
  info.virtual_clusters = true;
  info.make = [](const JsonReader& p) -> std::unique_ptr<Strategy> {
    return std::make_unique<Sjf>(static_cast<int>(p.integer_in_or("gpus", 1, 1 << 20, 8)),
                                 p.bool_or("backfill", false));
  };
  return info;
}
const StrategyRegistrar sjf_registrar{sjf_strategy_info};

}  // namespace ringsched
