// sim/cluster/network/link_set.h — the shared links of a Topology and the routes between nodes over them. Every
// undirected graph edge between a node vertex and a switch, between two switches, or between two nodes becomes two
// directed links of the edge's bandwidth (full duplex). GPU <-> node edges are inside a node and never shared by
// two jobs (a GPU belongs to one job), so they are not links here.
//
// Levels: a vertex's depth is its hop distance (over node and switch vertices) from the nearest node vertex (nodes 0,
// first switches 1, ...); a link's level is max(1, the larger depth of its two endpoints): level 1 = a node's port
// to its first switch ("nic"; a direct node-node cable too), level 2 = the next switch layer ("level2": leaf-spine
// in a two-level fat tree, ToR-aggregation in a Clos), level 3 ("level3") and so on.
//
// Routes: a shortest path in hops from node u to node v over switch vertices (never through another node). Equal-
// cost choices are broken by ECMP hashing: key = mix(mix(mix(salt) ^ u) ^ v) with mix = splitmix64's finaliser,
// and at hop h with k > 1 equal-cost next links (in link-id order) the route takes choice mix(key + h) % k. A job id
// as salt spreads a job's flows like per-flow ECMP; the same (u, v, salt) always takes the same path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster/topology.h"

namespace ringsched::net {

struct Link {
  int from = -1, to = -1;  // graph vertices (Topology::graph())
  double capacity = 0.0;   // bytes/s
  int level = 0;           // 1 = "nic", 2 = "level2", ...
};

class LinkSet {
 public:
  explicit LinkSet(const Topology& topo);

  [[nodiscard]] const std::vector<Link>& links() const { return links_; }
  // level_names()[k] names level k + 1: "nic", "level2", "level3", ...
  [[nodiscard]] const std::vector<std::string>& level_names() const { return level_names_; }
  [[nodiscard]] int levels() const { return static_cast<int>(level_names_.size()); }

  // Directed link ids of the route from node u to node v (node indices); empty when u == v. Throws
  // std::invalid_argument when v cannot be reached from u through switches only. Not thread-safe: the hop distances
  // towards each destination node are computed on first use and kept.
  [[nodiscard]] std::vector<int> route(int u, int v, std::uint64_t salt) const;

  // The first pair of nodes (u < v, by index) with no route through switches only (a path that would have to pass
  // through another node), or nullopt when every pair has one. Config readers call it to refuse such a topology.
  [[nodiscard]] std::optional<std::pair<int, int>> unroutable_pair() const;

  // splitmix64's finaliser (the ECMP hash's mixing step).
  [[nodiscard]] static std::uint64_t mix(std::uint64_t x);

 private:
  [[nodiscard]] const std::vector<int>& hops_to(int v) const;

  std::vector<Link> links_;
  std::vector<std::string> level_names_;
  // Inside, node and switch vertices are numbered compactly (GPU vertices left out).
  std::vector<std::vector<int>> out_;  // per compact vertex: its outgoing link ids, ascending
  std::vector<int> to_;                // per link: its compact target
  std::vector<int> node_vertex_;       // node index -> compact vertex
  std::vector<char> is_node_;          // per compact vertex
  // Per destination node (empty until used): hops from every compact vertex, -1 = unreachable; at most
  // nodes x (nodes + switches) ints in all.
  mutable std::vector<std::vector<int>> hops_to_;
};

}  // namespace ringsched::net
