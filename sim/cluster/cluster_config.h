// sim/cluster/cluster_config.h — the cluster an experiment runs on (the `cluster` key of a config): nodes, GPUs per
// node, an optional network topology and placement policy. One struct, read by the engine and by reports alike.
#pragma once

#include <memory>
#include <string>

#include "sim/cluster/topology.h"
#include "workloads/json_reader.h"

namespace ringsched {

struct ClusterConfig {
  int nodes = 8;
  int gpus_per_node = 8;
  // Placement (docs/topology.md). Default (no topology, no placement): no GPU tracking, speeds use the packed node
  // count ceil(w / gpus_per_node). With a placement policy the engine places jobs on concrete GPUs and the truth
  // speed uses the nodes the ring spans; with a topology also the ring's bandwidth and latency.
  std::shared_ptr<const Topology> topology;  // null = none
  std::string placement;    // "" = none ("packed" when a topology is set), "packed", "spread", "most_free", "topology"
  bool defragment = false;  // migrate running jobs to strictly better placements (costs a restart)

  [[nodiscard]] int total_gpus() const { return nodes * gpus_per_node; }
};

// `r` is the config's `cluster` object: nodes (1..100000), gpus_per_node (1..1024), at most 1,000,000 GPUs, optional
// topology and placement. Errors are InputError naming the file and JSON path.
ClusterConfig parse_cluster(const JsonReader& r);

}  // namespace ringsched
