// sim/engine/contention_results.h — a run's link-contention figures (cluster.network, docs/network.md): copied from
// the cluster runtime into the run's result when it ends, and the metrics over them (registered in the source:
// mean_contention_slowdown, shared_link_jobs, shared_link_gpus, effective_gpu_utilisation; on request, not in
// default outputs).
#pragma once

#include "sim/cluster/cluster_runtime.h"
#include "sim/engine/engine.h"

namespace ringsched {

// Each job's time-averaged slowdown and shared-link flag, and each link level's utilisation.
void add_contention(const ClusterRuntime& cluster, RunResult& result);

}  // namespace ringsched
