// sim/cluster/cluster_config.h — the cluster an experiment runs on (the `cluster` key of a config): nodes, GPUs per
// node, an optional network topology and placement policy. One struct, read by the engine and by reports alike.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster/failures/failure_config.h"
#include "sim/cluster/network/network_config.h"
#include "sim/cluster/topology.h"
#include "sim/cluster/virtual_clusters.h"
#include "workloads/io/json_reader.h"

namespace ringsched {

// One pool of identical GPUs (cluster.pools): a GPU type on `nodes` nodes of `gpus_per_node` GPUs each. A job runs
// on one pool at a time; moving to another pool is a restart.
struct GpuPool {
  std::string gpu_type;  // e.g. "v100"; matches the per-type speeds of catalog classes (speed_by_type)
  int nodes = 1;
  int gpus_per_node = 1;
  std::shared_ptr<const Topology> topology;  // the pool's own network (its nodes only); null = none
  [[nodiscard]] int gpus() const { return nodes * gpus_per_node; }
};

struct ClusterConfig {
  // The untyped cluster (cluster.nodes, cluster.gpus_per_node). With pools: the pools' total nodes and their largest
  // GPUs per node (for display; the engine uses each pool's own).
  int nodes = 8;
  int gpus_per_node = 8;
  // cluster.pools, in the config's order; empty = one untyped pool of nodes x gpus_per_node.
  std::vector<GpuPool> pools;
  // Placement (docs/topology.md). Default (no topology, no placement): no GPU tracking, speeds use the packed node
  // count ceil(w / gpus_per_node). With a placement policy the engine places jobs on concrete GPUs and the truth
  // speed uses the nodes the ring spans; with a topology also the ring's bandwidth and latency.
  std::shared_ptr<const Topology> topology;  // null = none
  std::string placement;    // "" = none ("packed" when a topology is set), "packed", "spread", "most_free", "topology"
  bool defragment = false;  // migrate running jobs to strictly better placements (costs a restart)
  // cluster.network (docs/network.md): links shared by jobs. Absent = as before (no network outputs); present with
  // contention off = the same results plus the network's outputs (every slowdown 1). Needs a topology.
  std::optional<net::NetworkOptions> network;
  [[nodiscard]] bool contention() const { return network && network->contention; }
  // cluster.failures (docs/failures.md): nodes fail and are repaired; jobs on a failed node lose the work since their
  // last checkpoint and wait. Absent = nodes never fail (no failure outputs). Needs a placement policy or a topology
  // (failures hit jobs through the nodes they occupy); not with pools.
  std::optional<fail::FailureOptions> failures;
  // cluster.virtual_clusters (docs/virtual_clusters.md): the nodes divided among VCs; jobs queue per VC and run on its
  // nodes only. Absent = none. Untyped clusters only, not with failures; implies placement "packed" (the engine then
  // tracks concrete GPUs; VC-aware strategies name every job's nodes themselves).
  std::optional<VirtualClusters> virtual_clusters;

  [[nodiscard]] bool typed() const { return !pools.empty(); }
  [[nodiscard]] int total_gpus() const;
  // The most GPUs one job can hold: a job runs on one pool at a time (the whole cluster when untyped).
  [[nodiscard]] int largest_pool_gpus() const;
  // The pools the engine schedules on: `pools`, or the one untyped pool (gpu_type "").
  [[nodiscard]] std::vector<GpuPool> effective_pools() const;
  // Index into `pools` of a GPU type, -1 if none.
  [[nodiscard]] int pool_index(const std::string& gpu_type) const;
  [[nodiscard]] std::vector<std::string> gpu_types() const;
};

// `r` is the config's `cluster` object: nodes (1..100000), gpus_per_node (1..1024), at most 1,000,000 GPUs, optional
// topology and placement; or pools (1..64 of {gpu_type, nodes, gpus_per_node, optional topology of the pool's own
// nodes}, distinct non-empty types) with an optional placement (each pool places on its own nodes) and an optional
// cluster-wide topology of a generated form (two_level, fat_tree) that each pool without its own takes over its own
// nodes (an explicit graph is refused with pools); an optional network (cluster.network, needs a topology: every
// pool's with pools); optional failures (cluster.failures, untyped clusters with a placement or topology); optional
// virtual_clusters (untyped clusters without placement or failures). Errors are InputError naming the file and JSON
// path.
ClusterConfig parse_cluster(const JsonReader& r);

}  // namespace ringsched
