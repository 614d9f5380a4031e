// sim/cluster/network/link_set.cpp — directed links, their levels (breadth-first depth from the nodes) and ECMP routes
// (breadth-first hop counts towards the destination, then a hashed walk down them).
#include "sim/cluster/network/link_set.h"

#include <algorithm>
#include <deque>
#include <stdexcept>

namespace ringsched::net {
namespace {

// Breadth-first hop counts from `sources` (compact vertices) along `out` / `to`; vertices marked in `stop` (other
// than the sources) get a count but are not passed through.
std::vector<int> bfs_hops(const std::vector<std::vector<int>>& out, const std::vector<int>& to,
                          const std::vector<int>& sources, const std::vector<char>& stop) {
  std::vector<int> hops(out.size(), -1);
  std::deque<int> queue;
  for (int s : sources) {
    hops[static_cast<std::size_t>(s)] = 0;
    queue.push_back(s);
  }
  while (!queue.empty()) {
    const auto x = static_cast<std::size_t>(queue.front());
    queue.pop_front();
    if (hops[x] > 0 && stop[x] != 0) continue;
    for (int id : out[x]) {
      const auto y = static_cast<std::size_t>(to[static_cast<std::size_t>(id)]);
      if (hops[y] >= 0) continue;
      hops[y] = hops[x] + 1;
      queue.push_back(static_cast<int>(y));
    }
  }
  return hops;
}

}  // namespace

std::optional<std::pair<int, int>> LinkSet::unroutable_pair() const {
  // Switches joined by switch-switch links form components; u reaches v through switches only iff they touch a
  // common component or are cabled directly.
  const std::size_t nv = is_node_.size();
  std::vector<int> parent(nv);
  for (std::size_t x = 0; x < nv; ++x)
    parent[x] = static_cast<int>(x);
  auto find = [&](int x) {
    while (parent[static_cast<std::size_t>(x)] != x)
      x = parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    return x;
  };
  std::vector<std::vector<int>> touch(node_vertex_.size());  // per node: switch components (sorted) and, negated
                                                             // minus one, directly cabled nodes
  std::vector<int> node_of(nv, -1);
  for (std::size_t n = 0; n < node_vertex_.size(); ++n)
    node_of[static_cast<std::size_t>(node_vertex_[n])] = static_cast<int>(n);
  for (std::size_t x = 0; x < nv; ++x) {
    for (int id : out_[x]) {
      const auto y = static_cast<std::size_t>(to_[static_cast<std::size_t>(id)]);
      if (is_node_[x] == 0 && is_node_[y] == 0)
        parent[static_cast<std::size_t>(find(static_cast<int>(x)))] = find(static_cast<int>(y));
    }
  }
  for (std::size_t x = 0; x < nv; ++x) {
    if (is_node_[x] == 0) continue;
    auto& t = touch[static_cast<std::size_t>(node_of[x])];
    for (int id : out_[x]) {
      const auto y = static_cast<std::size_t>(to_[static_cast<std::size_t>(id)]);
      t.push_back(is_node_[y] == 0 ? find(static_cast<int>(y)) : -1 - node_of[y]);
    }
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
  }
  const std::size_t n = touch.size();
  for (std::size_t u = 0; u < n; ++u) {
    for (std::size_t v = u + 1; v < n; ++v) {
      const auto& a = touch[u];
      const auto& b = touch[v];
      bool ok = std::binary_search(a.begin(), a.end(), -1 - static_cast<int>(v));
      for (std::size_t i = 0, k = 0; !ok && i < a.size() && k < b.size();) {
        if (a[i] < b[k]) {
          ++i;
        } else if (b[k] < a[i]) {
          ++k;
        } else {
          ok = a[i] >= 0;
          ++i;
          ++k;
        }
      }
      if (!ok) return std::pair{static_cast<int>(u), static_cast<int>(v)};
    }
  }
  return std::nullopt;
}

std::uint64_t LinkSet::mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31U);
}

LinkSet::LinkSet(const Topology& topo) {
  const TopologyGraph& g = topo.graph();
  const std::size_t nv = boost::num_vertices(g);
  std::vector<int> compact(nv, -1);  // graph vertex -> compact index (nodes and switches only)
  node_vertex_.assign(static_cast<std::size_t>(topo.nodes()), -1);
  for (std::size_t v = 0; v < nv; ++v) {
    if (g[v].kind == VertexKind::kGpu) continue;
    compact[v] = static_cast<int>(is_node_.size());
    is_node_.push_back(g[v].kind == VertexKind::kNode ? 1 : 0);
    if (g[v].kind == VertexKind::kNode) node_vertex_[static_cast<std::size_t>(g[v].node)] = compact[v];
  }
  out_.assign(is_node_.size(), {});
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    const auto a = boost::source(*e, g);
    const auto b = boost::target(*e, g);
    if (compact[a] < 0 || compact[b] < 0) continue;  // GPU <-> node: inside the node
    const double bw = g[*e].bandwidth;
    for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
      out_[static_cast<std::size_t>(compact[from])].push_back(static_cast<int>(links_.size()));
      to_.push_back(compact[to]);
      links_.push_back({static_cast<int>(from), static_cast<int>(to), bw, 0});
    }
  }
  // Depth from the nearest node (through switches and nodes alike: nothing stops the search).
  const std::vector<int> depth = bfs_hops(out_, to_, node_vertex_, std::vector<char>(is_node_.size(), 0));
  int top = 0;
  for (Link& l : links_) {
    const int from = depth[static_cast<std::size_t>(compact[static_cast<std::size_t>(l.from)])];
    const int to = depth[static_cast<std::size_t>(compact[static_cast<std::size_t>(l.to)])];
    l.level = std::max({1, from, to});
    top = std::max(top, l.level);
  }
  for (int k = 1; k <= top; ++k)
    level_names_.push_back(k == 1 ? "nic" : "level" + std::to_string(k));
  hops_to_.assign(node_vertex_.size(), {});
}

const std::vector<int>& LinkSet::hops_to(int v) const {
  auto& h = hops_to_[static_cast<std::size_t>(v)];
  if (h.empty()) {
    // Towards v over reversed links: every link has its reverse twin of the same endpoints, so outgoing links serve.
    h = bfs_hops(out_, to_, {node_vertex_[static_cast<std::size_t>(v)]}, is_node_);
  }
  return h;
}

std::vector<int> LinkSet::route(int u, int v, std::uint64_t salt) const {
  const int nodes = static_cast<int>(node_vertex_.size());
  if (u < 0 || v < 0 || u >= nodes || v >= nodes) {
    throw std::invalid_argument("route between nodes " + std::to_string(u) + " and " + std::to_string(v) +
                                ": no such node");
  }
  std::vector<int> path;
  if (u == v) return path;
  const std::vector<int>& hops = hops_to(v);
  const int dst = node_vertex_[static_cast<std::size_t>(v)];
  int x = node_vertex_[static_cast<std::size_t>(u)];
  if (hops[static_cast<std::size_t>(x)] < 0) {
    throw std::invalid_argument("node " + std::to_string(u) + " cannot reach node " + std::to_string(v) +
                                " through switches");
  }
  const std::uint64_t key = mix(mix(mix(salt) ^ static_cast<std::uint64_t>(u)) ^ static_cast<std::uint64_t>(v));
  std::vector<int> choices;
  for (std::uint64_t hop = 0; x != dst; ++hop) {
    choices.clear();
    const int want = hops[static_cast<std::size_t>(x)] - 1;
    for (int id : out_[static_cast<std::size_t>(x)]) {
      const int y = to_[static_cast<std::size_t>(id)];
      const auto yi = static_cast<std::size_t>(y);
      if (hops[yi] == want && (is_node_[yi] == 0 || y == dst)) choices.push_back(id);
    }
    const int id = choices.size() == 1 ? choices[0] : choices[mix(key + hop) % choices.size()];
    path.push_back(id);
    x = to_[static_cast<std::size_t>(id)];
  }
  return path;
}

}  // namespace ringsched::net
