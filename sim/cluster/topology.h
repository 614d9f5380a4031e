// sim/cluster/topology.h — the cluster topology as a Boost.Graph: GPU, node and switch vertices joined by links with a
// bandwidth and a latency. Built from the two-level form (nodes x GPUs, one switch, two link classes), a two-level
// fat tree, or an explicit graph. Answers, from the graph, the communication parameters of a ring over a set of
// GPUs (bottleneck bandwidth = slowest widest path between ring neighbours; alpha = the slowest neighbour path's
// latency) and the hierarchy of node groups that placement uses. See docs/topology.md for formulas and formats.
#pragma once

#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

namespace ringsched {

// Units inside the code: bytes per second and seconds.
struct LinkClass {
  double bandwidth = 0.0;  // bytes/s, > 0
  double latency = 0.0;    // seconds, >= 0
};

enum class VertexKind { kGpu, kNode, kSwitch };

struct TopoVertex {
  VertexKind kind = VertexKind::kSwitch;
  std::string name;
  int node = -1;  // node index (GPU and node vertices)
  int gpu = -1;   // global GPU index (GPU vertices)
};

struct TopoEdge {
  double bandwidth = 0.0;
  double latency = 0.0;
};

using TopologyGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, TopoVertex, TopoEdge>;

// Communication parameters of one ring.
struct RingComm {
  int gpus = 0;
  int nodes = 0;             // distinct nodes spanned
  double bandwidth = 0.0;    // bottleneck bytes/s over the ring's neighbour paths
  double alpha = 0.0;        // seconds: the largest neighbour-path latency (each ring step waits for it)
  double latency_sum = 0.0;  // seconds: sum of the neighbour-path latencies (reported, not used by the models)
  [[nodiscard]] double beta() const { return 1.0 / bandwidth; }  // seconds per byte
};

// Description of a network graph before it is built: nodes (with their GPU count and intra-node link), switches,
// links between nodes and switches by name. Used by the explicit form; the others generate one.
struct TopologySpec {
  struct Node {
    std::string name;
    int gpus = 0;
    LinkClass intra;  // each GPU <-> the node's internal switch (NVLink/NVSwitch/PCIe class)
  };
  struct Link {
    std::string a, b;
    LinkClass link;
  };
  std::vector<Node> nodes;
  std::vector<std::string> switches;
  std::vector<Link> links;
};

class Topology {
 public:
  // Throws std::invalid_argument on a graph that is disconnected, a non-positive bandwidth, a negative latency,
  // a node without GPUs, an unknown or duplicate name (the config parser maps these to InputError with a path).
  explicit Topology(const TopologySpec& spec);

  // nodes x gpus_per_node; every node's network port (inter) goes to one switch.
  static Topology two_level(int nodes, int gpus_per_node, LinkClass intra, LinkClass inter);
  // Two-level fat tree: nodes_per_leaf nodes under each leaf switch (node_leaf links), every leaf joined to every
  // one of `spines` spine switches (leaf_spine links). nodes must be a multiple of nodes_per_leaf.
  static Topology fat_tree(int nodes, int gpus_per_node, int nodes_per_leaf, int spines, LinkClass intra,
                           LinkClass node_leaf, LinkClass leaf_spine);

  [[nodiscard]] const TopologyGraph& graph() const { return g_; }
  [[nodiscard]] int gpus() const { return static_cast<int>(gpu_node_.size()); }
  [[nodiscard]] int nodes() const { return static_cast<int>(node_first_gpu_.size()); }
  [[nodiscard]] int node_of(int gpu) const { return gpu_node_[static_cast<std::size_t>(gpu)]; }
  [[nodiscard]] int first_gpu(int node) const { return node_first_gpu_[static_cast<std::size_t>(node)]; }
  [[nodiscard]] int gpus_on(int node) const { return node_gpus_[static_cast<std::size_t>(node)]; }
  [[nodiscard]] const std::string& node_name(int node) const { return node_names_[static_cast<std::size_t>(node)]; }

  // Widest path between two GPUs (bytes/s) and the latency of the least-latency path among the widest.
  [[nodiscard]] LinkClass gpu_path(int a, int b) const;
  // Between two nodes' internal switches (network part only; same node = infinite bandwidth, zero latency).
  [[nodiscard]] LinkClass node_path(int u, int v) const;

  // The ring over `gpus` visits them in ascending GPU id (node by node). One GPU: no communication
  // (bandwidth = its node's intra link, alpha 0).
  [[nodiscard]] RingComm ring(std::vector<int> gpus) const;
  // The reference ring the eq5 coefficients stand for: two GPUs inside node 0 (one node, intra links only).
  [[nodiscard]] RingComm reference_ring() const;

  // Node groups by bandwidth level: levels()[k] is a bandwidth b_k (descending); group_of(k, u) numbers the groups
  // of nodes whose pairwise widest-path bandwidth is >= b_k (widest-path bandwidth is an ultrametric, so these are
  // equivalence classes and each level refines the next). The last level holds one group: all nodes.
  [[nodiscard]] const std::vector<double>& levels() const { return levels_; }
  [[nodiscard]] int group_of(std::size_t level, int node) const {
    return groups_[level][static_cast<std::size_t>(node)];
  }
  [[nodiscard]] int group_count(std::size_t level) const { return group_counts_[level]; }

 private:
  void build_tables();

  TopologyGraph g_;
  std::vector<int> gpu_node_;
  std::vector<int> node_first_gpu_;
  std::vector<int> node_gpus_;
  std::vector<std::string> node_names_;
  std::vector<LinkClass> node_intra_;
  std::vector<TopologyGraph::vertex_descriptor> node_vertex_;
  std::vector<double> pair_bw_;   // nodes x nodes
  std::vector<double> pair_lat_;  // nodes x nodes
  std::vector<double> levels_;
  std::vector<std::vector<int>> groups_;
  std::vector<int> group_counts_;
};

}  // namespace ringsched
