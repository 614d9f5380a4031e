// sim/cluster/topology_config.h — the `cluster.topology` and `cluster.placement` config keys: JSON to a Topology and a
// placement policy, with file + JSON-path messages (InputError, exit code 2). Formats in docs/topology.md.
#pragma once

#include <memory>
#include <string>

#include "sim/cluster/topology.h"
#include "workloads/io/json_reader.h"

namespace ringsched {

// `r` is cluster.topology; nodes and gpus_per_node are the cluster's (the topology must match them).
std::shared_ptr<const Topology> parse_topology(const JsonReader& r, int nodes, int gpus_per_node);

struct PlacementConfig {
  std::string policy;  // "packed", "spread", "topology"
  bool defragment = false;
};

// `r` is cluster.placement: a policy name or {"policy": name, "defragment": bool}.
PlacementConfig parse_placement(const JsonReader& r);

}  // namespace ringsched
