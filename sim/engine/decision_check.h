// sim/engine/decision_check.h — the one decision contract: what makes a strategy's decision valid against the
// snapshot it answered (one assignment per job within its GPU limits, pools of the cluster none over its GPUs, node
// placements that sum to the count and fit every node, a wake-up in the future). The engine checks every decision
// with it and the Python binding checks a Python strategy's decision with it before the engine sees it, so both say
// the same thing in the same words. Violations throw std::logic_error starting with `who` (e.g. "strategy 'srtf'").
#pragma once

#include <functional>
#include <string>

#include "strategies/strategy.h"

namespace ringsched {

// Nodes in ClusterView's numbering (pool after pool on a typed cluster) and the GPUs each has.
std::vector<int> node_capacities(const Snapshot& s);

// A dense decision (Strategy::decide) against its snapshot: one assignment per snapshot job, counts 0 or within
// the job's limits, at most total_gpus in all; on a typed cluster each assignment with GPUs in a pool of the cluster
// and no pool over its GPUs (an untyped cluster: pool 0); node placements from every job or none, only with a
// placement policy (Snapshot::cluster), one count per node summing to the job's GPUs, no node over its GPUs.
void check_decision(const Snapshot& s, const Decision& d, const std::string& who);

// An incremental decision (Strategy::decide_changes): no dense part, each change of an active job (active(id)) at
// most once, counts within limits, pools of the cluster, the GPUs held after the changes (held(id): before) within
// the cluster and every pool. `pub(id)` gives an active job's public facts, `pool_of(id)` the pool it holds GPUs in.
// Changes that name nodes (Change::nodes) only with a placement policy (Snapshot::cluster), one count per node summing
// to the job's GPUs, no node over its GPUs after the changes (node_in_use(node): GPUs held there before); with virtual
// clusters (Snapshot::vcs) every change to GPUs names nodes, all of its job's VC.
struct ChangeContext {
  std::function<bool(int)> active;
  std::function<const JobPublic&(int)> pub;
  std::function<int(int)> held;
  std::function<int(int)> pool_of;
  std::function<int(int)> node_in_use;
};
void check_changes(const Snapshot& s, const Decision& d, const ChangeContext& jobs, const std::string& who);

// The wake-up a decision asks for: none (infinity) or a time after s.now.
void check_wakeup(const Snapshot& s, const Decision& d, const std::string& who);

}  // namespace ringsched
