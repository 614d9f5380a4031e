// sim/engine/check_view.h — what an invariant checker sees of the engine after every batch of simultaneous events
// (EngineConfig's checker; tests use it): time, GPUs in use, each active job's GPUs, state and progress.
#pragma once

#include <functional>
#include <vector>

#include "strategies/strategy.h"

namespace ringsched {

// What an invariant checker sees after every batch of simultaneous events (tests use it).
struct EngineCheckView {
  double now = 0.0;
  int total_gpus = 0;
  int gpus_in_use = 0;
  struct Job {
    int id;
    int gpus;
    JobState state;
    double work_done;
    double work;
    double work_lost = 0.0;  // taken back by failures so far (cluster.failures): work_done + work_lost never drops
    std::vector<int> nodes;  // on a cluster with virtual clusters: the GPUs it holds on each node; empty otherwise
  };
  std::vector<Job> active;
  int finished = 0;
  std::vector<int> pool_gpus;         // typed clusters: GPUs per pool
  std::vector<int> pool_gpus_in_use;  // and held per pool
};
using EngineChecker = std::function<void(const EngineCheckView&)>;

}  // namespace ringsched
