// sim/cluster/topology.cpp — building the topology graph, validating it, and the node-pair widest-path tables
// (one latency Dijkstra per source node and bandwidth threshold on the graph filtered to links at least that wide).
#include "sim/cluster/topology.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>

#include <boost/graph/connected_components.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/filtered_graph.hpp>

namespace ringsched {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void check_link(const LinkClass& l, const std::string& what) {
  if (!(l.bandwidth > 0.0) || !std::isfinite(l.bandwidth)) {
    throw std::invalid_argument(what + ": bandwidth must be > 0");
  }
  if (!(l.latency >= 0.0) || !std::isfinite(l.latency)) throw std::invalid_argument(what + ": latency must be >= 0");
}

// Edges at least `min_bw` wide.
struct WideEnough {
  const TopologyGraph* g = nullptr;
  double min_bw = 0.0;
  bool operator()(const TopologyGraph::edge_descriptor& e) const { return (*g)[e].bandwidth >= min_bw; }
};

}  // namespace

Topology::Topology(const TopologySpec& spec) {
  if (spec.nodes.empty()) throw std::invalid_argument("topology has no nodes");
  std::map<std::string, TopologyGraph::vertex_descriptor> by_name;
  int gpu = 0;
  for (std::size_t n = 0; n < spec.nodes.size(); ++n) {
    const auto& node = spec.nodes[n];
    const std::string what = "node '" + node.name + "'";
    if (node.gpus <= 0) throw std::invalid_argument(what + " has no GPUs");
    check_link(node.intra, what + " intra-node link");
    if (by_name.count(node.name) != 0U) throw std::invalid_argument("duplicate name '" + node.name + "'");
    const auto nv = boost::add_vertex(TopoVertex{VertexKind::kNode, node.name, static_cast<int>(n), -1}, g_);
    by_name[node.name] = nv;
    node_vertex_.push_back(nv);
    node_first_gpu_.push_back(gpu);
    node_gpus_.push_back(node.gpus);
    node_names_.push_back(node.name);
    node_intra_.push_back(node.intra);
    for (int k = 0; k < node.gpus; ++k, ++gpu) {
      const auto gv = boost::add_vertex(
          TopoVertex{VertexKind::kGpu, node.name + "/gpu" + std::to_string(k), static_cast<int>(n), gpu}, g_);
      boost::add_edge(gv, nv, TopoEdge{node.intra.bandwidth, node.intra.latency}, g_);
      gpu_node_.push_back(static_cast<int>(n));
    }
  }
  for (const auto& s : spec.switches) {
    if (by_name.count(s) != 0U) throw std::invalid_argument("duplicate name '" + s + "'");
    by_name[s] = boost::add_vertex(TopoVertex{VertexKind::kSwitch, s, -1, -1}, g_);
  }
  for (std::size_t i = 0; i < spec.links.size(); ++i) {
    const auto& l = spec.links[i];
    const std::string what = "link " + std::to_string(i) + " (" + l.a + " - " + l.b + ")";
    auto a = by_name.find(l.a);
    auto b = by_name.find(l.b);
    if (a == by_name.end()) throw std::invalid_argument(what + ": '" + l.a + "' is not a node or switch");
    if (b == by_name.end()) throw std::invalid_argument(what + ": '" + l.b + "' is not a node or switch");
    if (a->second == b->second) throw std::invalid_argument(what + ": joins a vertex to itself");
    check_link(l.link, what);
    boost::add_edge(a->second, b->second, TopoEdge{l.link.bandwidth, l.link.latency}, g_);
  }
  std::vector<int> comp(boost::num_vertices(g_));
  const int ncomp = boost::connected_components(g_, comp.data());
  if (ncomp > 1) {
    for (std::size_t v = 0; v < comp.size(); ++v) {
      if (comp[v] != comp[0]) {
        throw std::invalid_argument("graph is disconnected: '" + g_[v].name + "' cannot reach '" + g_[0].name + "'");
      }
    }
  }
  build_tables();
}

void Topology::build_tables() {
  const std::size_t n = node_vertex_.size();
  pair_bw_.assign(n * n, 0.0);
  pair_lat_.assign(n * n, kInf);
  std::vector<double> widths;
  for (auto [e, end] = boost::edges(g_); e != end; ++e) {
    const auto s = boost::source(*e, g_);
    const auto t = boost::target(*e, g_);
    if (g_[s].kind != VertexKind::kGpu && g_[t].kind != VertexKind::kGpu) widths.push_back(g_[*e].bandwidth);
  }
  std::sort(widths.begin(), widths.end(), std::greater<>());
  widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
  std::vector<double> dist(boost::num_vertices(g_));
  for (std::size_t u = 0; u < n; ++u) {
    pair_bw_[u * n + u] = kInf;
    pair_lat_[u * n + u] = 0.0;
    std::size_t found = 1;
    for (double w : widths) {
      if (found == n) break;
      boost::filtered_graph<TopologyGraph, WideEnough> fg(g_, WideEnough{&g_, w});
      boost::dijkstra_shortest_paths(
          fg, node_vertex_[u],
          boost::weight_map(boost::get(&TopoEdge::latency, g_))
              .distance_map(boost::make_iterator_property_map(dist.begin(), boost::get(boost::vertex_index, g_))));
      for (std::size_t v = 0; v < n; ++v) {
        const double d = dist[node_vertex_[v]];
        if (pair_bw_[u * n + v] == 0.0 && d < std::numeric_limits<double>::max()) {
          pair_bw_[u * n + v] = w;
          pair_lat_[u * n + v] = d;
          ++found;
        }
      }
    }
  }
  // Levels and groups (union-find per level).
  levels_.clear();
  for (std::size_t i = 0; i < n * n; ++i) {
    if (i / n != i % n) levels_.push_back(pair_bw_[i]);
  }
  std::sort(levels_.begin(), levels_.end(), std::greater<>());
  levels_.erase(std::unique(levels_.begin(), levels_.end()), levels_.end());
  if (levels_.empty()) levels_.push_back(kInf);
  groups_.assign(levels_.size(), std::vector<int>(n, 0));
  group_counts_.assign(levels_.size(), 0);
  std::vector<std::size_t> parent(n);
  for (std::size_t k = 0; k < levels_.size(); ++k) {
    std::iota(parent.begin(), parent.end(), std::size_t{0});
    auto find = [&](std::size_t x) {
      while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
      return x;
    };
    for (std::size_t u = 0; u < n; ++u) {
      for (std::size_t v = u + 1; v < n; ++v) {
        if (pair_bw_[u * n + v] >= levels_[k]) parent[find(v)] = find(u);
      }
    }
    std::vector<int> id(n, -1);
    int next = 0;
    for (std::size_t u = 0; u < n; ++u) {
      const std::size_t r = find(u);
      if (id[r] < 0) id[r] = next++;
      groups_[k][u] = id[r];
    }
    group_counts_[k] = next;
  }
}

Topology Topology::two_level(int nodes, int gpus_per_node, LinkClass intra, LinkClass inter) {
  TopologySpec s;
  s.switches = {"switch"};
  for (int i = 0; i < nodes; ++i) {
    s.nodes.push_back({"node" + std::to_string(i), gpus_per_node, intra});
    if (nodes > 1) s.links.push_back({"node" + std::to_string(i), "switch", inter});
  }
  if (nodes == 1) s.switches.clear();
  return Topology(s);
}

Topology Topology::fat_tree(int nodes, int gpus_per_node, int nodes_per_leaf, int spines, LinkClass intra,
                            LinkClass node_leaf, LinkClass leaf_spine) {
  if (nodes_per_leaf <= 0 || nodes % nodes_per_leaf != 0) {
    throw std::invalid_argument("nodes must be a positive multiple of nodes_per_leaf");
  }
  if (spines <= 0) throw std::invalid_argument("spines must be >= 1");
  TopologySpec s;
  const int leaves = nodes / nodes_per_leaf;
  for (int sp = 0; sp < spines; ++sp)
    s.switches.push_back("spine" + std::to_string(sp));
  for (int l = 0; l < leaves; ++l) {
    const std::string leaf = "leaf" + std::to_string(l);
    s.switches.push_back(leaf);
    for (int sp = 0; sp < spines; ++sp)
      s.links.push_back({leaf, "spine" + std::to_string(sp), leaf_spine});
    for (int k = 0; k < nodes_per_leaf; ++k) {
      const std::string node = "node" + std::to_string(l * nodes_per_leaf + k);
      s.nodes.push_back({node, gpus_per_node, intra});
      s.links.push_back({node, leaf, node_leaf});
    }
  }
  return Topology(s);
}

LinkClass Topology::node_path(int u, int v) const {
  const auto n = static_cast<std::size_t>(nodes());
  const std::size_t i = static_cast<std::size_t>(u) * n + static_cast<std::size_t>(v);
  return {pair_bw_[i], pair_lat_[i]};
}

LinkClass Topology::gpu_path(int a, int b) const {
  const int u = node_of(a);
  const int v = node_of(b);
  const LinkClass& iu = node_intra_[static_cast<std::size_t>(u)];
  const LinkClass& iv = node_intra_[static_cast<std::size_t>(v)];
  if (u == v) return {iu.bandwidth, 2.0 * iu.latency};
  const LinkClass net = node_path(u, v);
  return {std::min({iu.bandwidth, iv.bandwidth, net.bandwidth}), iu.latency + iv.latency + net.latency};
}

RingComm Topology::ring(std::vector<int> gpus) const {
  RingComm r;
  r.gpus = static_cast<int>(gpus.size());
  if (gpus.empty()) return r;
  std::sort(gpus.begin(), gpus.end());
  r.nodes = 1;
  for (std::size_t i = 1; i < gpus.size(); ++i) {
    if (node_of(gpus[i]) != node_of(gpus[i - 1])) ++r.nodes;
  }
  if (gpus.size() == 1) {
    r.bandwidth = node_intra_[static_cast<std::size_t>(node_of(gpus[0]))].bandwidth;
    return r;
  }
  r.bandwidth = kInf;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const LinkClass p = gpu_path(gpus[i], gpus[(i + 1) % gpus.size()]);
    r.bandwidth = std::min(r.bandwidth, p.bandwidth);
    r.alpha = std::max(r.alpha, p.latency);
    r.latency_sum += p.latency;
  }
  return r;
}

RingComm Topology::reference_ring() const {
  const LinkClass& i0 = node_intra_[0];
  RingComm r;
  r.gpus = 2;
  r.nodes = 1;
  r.bandwidth = i0.bandwidth;
  r.alpha = 2.0 * i0.latency;
  r.latency_sum = 4.0 * i0.latency;
  return r;
}

}  // namespace ringsched
