// sim/cluster/cluster_config.cpp — parsing the `cluster` key.
#include "sim/cluster/cluster_config.h"

#include <algorithm>
#include <optional>

#include "sim/cluster/network/link_set.h"
#include "sim/cluster/topology_config.h"

namespace ringsched {

int ClusterConfig::total_gpus() const {
  if (pools.empty()) return nodes * gpus_per_node;
  int n = 0;
  for (const auto& p : pools)
    n += p.gpus();
  return n;
}

int ClusterConfig::largest_pool_gpus() const {
  int most = pools.empty() ? nodes * gpus_per_node : 0;
  for (const auto& p : pools)
    most = std::max(most, p.gpus());
  return most;
}

std::vector<GpuPool> ClusterConfig::effective_pools() const {
  if (!pools.empty()) return pools;
  return {GpuPool{"", nodes, gpus_per_node, topology}};
}

int ClusterConfig::pool_index(const std::string& gpu_type) const {
  for (std::size_t i = 0; i < pools.size(); ++i)
    if (pools[i].gpu_type == gpu_type) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> ClusterConfig::gpu_types() const {
  std::vector<std::string> out;
  for (const auto& p : pools)
    out.push_back(p.gpu_type);
  return out;
}

namespace {

// With a topology or a placement policy the engine places jobs on concrete nodes: the topology's routes and the
// placement's searches cost memory and time that grow with nodes^2 (a 16,384-node fat tree took over 60 s and 4 GB
// to validate; 65,536 nodes ran out of memory). Beyond this many nodes such a cluster is refused; without either, a
// cluster may have up to 100,000 nodes.
constexpr int kMaxPlacedNodes = 4096;

void check_placed_nodes(const JsonReader& nodes, int n, const char* what) {
  if (n <= kMaxPlacedNodes) return;
  nodes.fail(std::to_string(n) + " nodes with " + what + ": at most " + std::to_string(kMaxPlacedNodes) +
             " (placing jobs on nodes costs time and memory that grow with nodes^2); without a topology and placement "
             "up to 100,000");
}

// cluster.network: the links jobs share; they are a topology's, so one must be given.
void parse_network_key(const JsonReader& r, ClusterConfig& c, bool has_topology) {
  const std::optional<JsonReader> n = r.maybe("network");
  if (!n) return;
  if (!has_topology) {
    n->fail(
        "needs cluster.topology (the links that jobs share; with pools, a topology for every pool): "
        "see docs/network.md");
  }
  c.network = net::parse_network(*n);
  if (!c.network->contention) return;
  // Flows go node -> switches -> node: a graph whose nodes only meet through another node cannot carry them.
  std::vector<std::shared_ptr<const Topology>> topologies{c.topology};
  for (const GpuPool& g : c.pools)
    topologies.push_back(g.topology);
  for (const auto& topo : topologies) {
    if (!topo) continue;
    if (const auto pair = net::LinkSet(*topo).unroutable_pair()) {
      (r.has("topology") ? r.at("topology") : r.at("pools"))
          .fail("nodes '" + topo->node_name(pair->first) + "' and '" + topo->node_name(pair->second) +
                "' meet only through another node: cluster.network routes flows over switches");
    }
  }
}

// cluster.pools: one object per GPU type.
void parse_pools(const JsonReader& r, ClusterConfig& c) {
  for (const char* key : {"nodes", "gpus_per_node"}) {
    if (r.has(key)) r.at(key).fail("not with \"pools\" (each pool gives its own nodes and gpus_per_node)");
  }
  // A cluster-wide topology of a generated form (two_level, fat_tree) gives each pool that form over its own nodes
  // (a job runs within one pool, so only links inside a pool carry its ring); an explicit graph names its nodes, so
  // it cannot be cut into pools.
  std::optional<JsonReader> shared_topology = r.maybe("topology");
  if (shared_topology && shared_topology->is_object() && shared_topology->has("kind") &&
      shared_topology->at("kind").is_string()) {
    const std::string kind = shared_topology->at("kind").as_string();
    if (kind == "graph" || kind == "hosts_csv") {
      shared_topology->at("kind").fail(
          std::string(kind == "graph" ? "an explicit graph" : "a host list") +
          " names its nodes, so it cannot be shared by \"pools\": give each pool its own \"topology\" (a job runs "
          "within one pool), or a two_level or fat_tree topology that each pool takes over its own nodes");
    }
  }
  const auto pools = r.at("pools");
  const std::vector<JsonReader> items = pools.elements();
  if (items.empty()) pools.fail("empty: give at least one {\"gpu_type\", \"nodes\", \"gpus_per_node\"}");
  if (items.size() > 64) pools.fail("more than 64 GPU types");
  long gpus = 0;
  c.nodes = 0;
  c.gpus_per_node = 1;
  for (const JsonReader& p : items) {
    p.expect_object({"gpu_type", "nodes", "gpus_per_node", "topology"});
    GpuPool g;
    g.gpu_type = p.at("gpu_type").as_string();
    if (g.gpu_type.empty()) p.at("gpu_type").fail("empty GPU type name");
    if (c.pool_index(g.gpu_type) >= 0) p.at("gpu_type").fail("GPU type '" + g.gpu_type + "' appears twice");
    g.nodes = static_cast<int>(p.at("nodes").as_integer_in(1, 100000));
    g.gpus_per_node = static_cast<int>(p.at("gpus_per_node").as_integer_in(1, 1024));
    if (auto topo = p.maybe("topology")) {
      check_placed_nodes(p.at("nodes"), g.nodes, "a topology");
      g.topology = parse_topology(*topo, g.nodes, g.gpus_per_node);
    } else if (shared_topology) {
      check_placed_nodes(p.at("nodes"), g.nodes, "a topology");
      g.topology = parse_topology(*shared_topology, g.nodes, g.gpus_per_node);
    }
    if (r.has("placement")) check_placed_nodes(p.at("nodes"), g.nodes, "a placement policy");
    gpus += static_cast<long>(g.nodes) * g.gpus_per_node;
    if (gpus > 1'000'000) p.fail("more than 1,000,000 GPUs in all is absurd");
    c.nodes += g.nodes;
    if (c.nodes > 100000) p.fail("more than 100,000 nodes in all");
    c.gpus_per_node = std::max(c.gpus_per_node, g.gpus_per_node);
    c.pools.push_back(g);
  }
  if (auto pl = r.maybe("placement")) {
    const PlacementConfig pc = parse_placement(*pl);
    c.placement = pc.policy;
    c.defragment = pc.defragment;
  }
  const bool all_have_topology =
      std::all_of(c.pools.begin(), c.pools.end(), [](const GpuPool& g) { return g.topology != nullptr; });
  parse_network_key(r, c, all_have_topology);
}

}  // namespace

ClusterConfig parse_cluster(const JsonReader& r) {
  r.expect_object(
      {"nodes", "gpus_per_node", "topology", "placement", "pools", "network", "failures", "virtual_clusters"});
  ClusterConfig c;
  if (r.has("virtual_clusters")) {
    const char* why = r.has("pools")       ? "\"pools\" (VCs divide an untyped cluster's nodes)"
                      : r.has("failures")  ? "cluster.failures yet"
                      : r.has("placement") ? "cluster.placement (VCs place jobs themselves: virtual_clusters.placement)"
                                           : nullptr;
    if (why != nullptr) r.at("virtual_clusters").fail(std::string("not with ") + why);
  }
  if (r.has("pools")) {
    if (r.has("failures")) r.at("failures").fail("failures are not supported with \"pools\" yet (docs/failures.md)");
    parse_pools(r, c);
    return c;
  }
  c.nodes = static_cast<int>(r.at("nodes").as_integer_in(1, 100000));
  c.gpus_per_node = static_cast<int>(r.at("gpus_per_node").as_integer_in(1, 1024));
  if (static_cast<long>(c.nodes) * c.gpus_per_node > 1'000'000) r.fail("more than 1,000,000 GPUs is absurd");
  if (r.has("topology")) check_placed_nodes(r.at("nodes"), c.nodes, "a topology");
  if (r.has("placement")) check_placed_nodes(r.at("nodes"), c.nodes, "a placement policy");
  if (auto topo = r.maybe("topology")) c.topology = parse_topology(*topo, c.nodes, c.gpus_per_node);
  if (auto pl = r.maybe("placement")) {
    const PlacementConfig pc = parse_placement(*pl);
    c.placement = pc.policy;
    c.defragment = pc.defragment;
  }
  parse_network_key(r, c, c.topology != nullptr);
  if (auto f = r.maybe("failures")) {
    if (!c.topology && c.placement.empty()) {
      f->fail(
          "failures hit jobs through the nodes they occupy: give cluster.placement (e.g. \"packed\") or "
          "cluster.topology");
    }
    c.failures = fail::parse_failures(*f, c.nodes, c.topology ? static_cast<int>(c.topology->levels().size()) : 0);
  }
  if (auto v = r.maybe("virtual_clusters")) {
    check_placed_nodes(r.at("nodes"), c.nodes, "virtual clusters");
    c.virtual_clusters = parse_virtual_clusters(*v, c.nodes, c.gpus_per_node);
    c.placement = "packed";  // the engine tracks concrete GPUs; VC-aware strategies name the nodes
  }
  return c;
}

}  // namespace ringsched
