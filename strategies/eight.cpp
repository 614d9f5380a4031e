// strategies/eight.cpp — `eight`: FCFS, each job gets a fixed 8 GPUs (or its max if smaller), never resized.
#include <algorithm>

#include "strategies/common/rigid.h"
#include "strategies/registry.h"

namespace ringsched {
namespace {

class Eight final : public Strategy {
 public:
  Eight(int gpus, bool backfill) : gpus_(gpus), backfill_(backfill) {}
  [[nodiscard]] std::string name() const override { return "eight"; }

  Decision decide(const Snapshot& s) override {
    // Strict FCFS (the head of the queue blocks the rest) unless backfill.
    return fcfs_fill(
        s, [this](const JobPublic& p) { return std::max(p.cls.min_gpus, std::min(gpus_, p.cls.max_gpus)); }, backfill_);
  }

  [[nodiscard]] bool incremental() const override { return true; }
  Decision decide_changes(const Snapshot& s) override {
    return queues_.decide(
        s, [this](const JobPublic& p) { return std::max(p.cls.min_gpus, std::min(gpus_, p.cls.max_gpus)); }, backfill_);
  }

 private:
  int gpus_;
  bool backfill_;
  FcfsQueues queues_;
};

}  // namespace

StrategyInfo eight_strategy_info() {
  StrategyInfo info;
  info.name = "eight";
  info.description =
      "FCFS; a job starts when `gpus` (default 8, capped by its max) are free and keeps them to the end. "
      "Params: gpus (int, default 8), backfill (bool, default false: strict FCFS).";
  info.default_beliefs = "none";
  info.params = {"gpus", "backfill"};
  info.no_gpu_types_reason =
      "it is the paper's fixed-size FCFS baseline on one GPU type; on pools `fifo` with the same params places each "
      "job on the fastest type with room";
  info.make = [](const JsonReader& p) -> std::unique_ptr<Strategy> {
    return std::make_unique<Eight>(static_cast<int>(p.integer_in_or("gpus", 1, 1 << 20, 8)),
                                   p.bool_or("backfill", false));
  };
  return info;
}
const StrategyRegistrar eight_registrar{eight_strategy_info};

}  // namespace ringsched
