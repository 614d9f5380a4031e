// strategies/fifo.cpp — `fifo`: the rigid baseline that replays a trace as submitted: each job runs at the GPU count
// it asked for (its trace request; jobs without one get `gpus`), in arrival order, never resized or preempted; on a
// typed cluster, on the pool its belief says is fastest among those with room. With virtual clusters
// (cluster.virtual_clusters) each VC queues its own jobs in arrival order and places them on its nodes
// (strategies/common/vc_queues.h), as the Helios artifact's fifo.
#include "strategies/common/rigid.h"
#include "strategies/common/vc_queues.h"
#include "strategies/registry.h"

namespace ringsched {
namespace {

class Fifo final : public Strategy {
 public:
  Fifo(int fallback, bool backfill)
      : fallback_(fallback),
        backfill_(backfill),
        vcs_([this](int id) { return vcs_.snapshot().views->view(id).pub->arrival; },
             [fallback](const JobPublic& p) { return rigid_size(p, fallback); }, false, backfill) {}
  [[nodiscard]] std::string name() const override { return "fifo"; }

  Decision decide(const Snapshot& s) override {
    const auto size = [this](const JobPublic& p) { return rigid_size(p, fallback_); };
    if (!s.pools.empty()) return fcfs_fill_typed(s, size, backfill_);
    return fcfs_fill(s, size, backfill_);
  }

  [[nodiscard]] bool incremental() const override { return true; }
  Decision decide_changes(const Snapshot& s) override {
    if (!s.vcs.empty()) return vcs_.decide(s);
    return queues_.decide(
        s, [this](const JobPublic& p) { return rigid_size(p, fallback_); }, backfill_);
  }

 private:
  int fallback_;
  bool backfill_;
  FcfsQueues queues_;
  VcQueues vcs_;  // cluster.virtual_clusters: one arrival-ordered queue per VC
};

}  // namespace

StrategyInfo fifo_strategy_info() {
  StrategyInfo info;
  info.name = "fifo";
  info.description =
      "Rigid FIFO: each job runs at the GPU count its trace row asked for (jobs without a request: `gpus`), in "
      "arrival order, and keeps it to the end. Params: gpus (int, default 8), backfill (bool, default false: the "
      "head of the queue blocks the rest). On a cluster with GPU types (cluster.pools) each job starts on the pool "
      "with room whose type its belief says runs it fastest (without beliefs: the first pool with room). With virtual "
      "clusters (cluster.virtual_clusters) each VC runs its own queue on its own nodes (docs/virtual_clusters.md).";
  info.default_beliefs = "none";
  info.params = {"gpus", "backfill"};
  info.gpu_types = true;
  info.virtual_clusters = true;
  info.make = [](const JsonReader& p) -> std::unique_ptr<Strategy> {
    return std::make_unique<Fifo>(static_cast<int>(p.integer_in_or("gpus", 1, 1 << 20, 8)),
                                  p.bool_or("backfill", false));
  };
  return info;
}
const StrategyRegistrar fifo_registrar{fifo_strategy_info};

}  // namespace ringsched
