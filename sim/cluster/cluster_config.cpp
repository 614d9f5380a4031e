// sim/cluster/cluster_config.cpp — parsing the `cluster` key.
#include "sim/cluster/cluster_config.h"

#include "sim/cluster/topology_config.h"

namespace ringsched {

ClusterConfig parse_cluster(const JsonReader& r) {
  r.expect_object({"nodes", "gpus_per_node", "topology", "placement"});
  ClusterConfig c;
  c.nodes = static_cast<int>(r.at("nodes").as_integer_in(1, 100000));
  c.gpus_per_node = static_cast<int>(r.at("gpus_per_node").as_integer_in(1, 1024));
  if (static_cast<long>(c.nodes) * c.gpus_per_node > 1'000'000) r.fail("more than 1,000,000 GPUs is absurd");
  if (auto topo = r.maybe("topology")) c.topology = parse_topology(*topo, c.nodes, c.gpus_per_node);
  if (auto pl = r.maybe("placement")) {
    const PlacementConfig pc = parse_placement(*pl);
    c.placement = pc.policy;
    c.defragment = pc.defragment;
  }
  return c;
}

}  // namespace ringsched
